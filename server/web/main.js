// The page's entry: the name it plays under, its one connection, and its routes (the lobby,
// a game, a tournament, a player), followed without reloading the page.

import { announce, keys } from "./common.js";
import { Connection } from "./connection.js";
import { GamePage } from "./game.js";
import { LobbyPage, PlayerPage, TournamentPage } from "./pages.js";

const STATES = {
  open: "Connected.",
  reconnecting: "Connection lost: reconnecting…",
  taken: "This seat was taken over by another window.",
  closed: "The server refused this client.",
};

class App {
  constructor() {
    this.main = document.getElementById("main");
    this.name =
      localStorage.getItem("ubao.name") || `guest${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem("ubao.name", this.name);
    this.page = null;
    this.connect();
    document.addEventListener("click", (event) => {
      const link = event.target.closest("a[data-route]");
      if (!link || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey)
        return;
      event.preventDefault();
      this.go(link.getAttribute("href"));
    });
    window.addEventListener("popstate", () => this.route());
    this.route();
  }

  connect() {
    this.connection = new Connection(this.name, keys.get(this.name));
    this.connection.onEvent = (message) => this.page && this.page.event(message);
    this.connection.onState = (state) => {
      document.getElementById("connection").textContent = STATES[state] || "";
    };
    this.connection.onReconnect = () => this.page && this.page.rejoin();
    this.connection.open().catch((error) => announce(`Cannot connect: ${error.message}`));
  }

  /** Play under `name` (with its account `key`, if given; blank keeps the stored one). */
  rename(name, key = "") {
    if (!name) return;
    if (key) keys.put(name, key);
    if (name === this.name && !key) return;
    this.name = name;
    localStorage.setItem("ubao.name", name);
    this.connection.shut();
    this.connect();
    this.route();
  }

  go(path) {
    history.pushState(null, "", path);
    this.route();
  }

  route() {
    if (this.page) this.page.close();
    const path = location.pathname;
    let match;
    if ((match = /^\/game\/([A-Za-z0-9_-]+)$/.exec(path)))
      this.page = new GamePage(this, this.main, match[1]);
    else if ((match = /^\/tournament\/([A-Za-z0-9_-]+)$/.exec(path)))
      this.page = new TournamentPage(this, this.main, match[1]);
    else if ((match = /^\/player\/([^/]+)$/.exec(path)))
      this.page = new PlayerPage(this, this.main, decodeURIComponent(match[1]));
    else this.page = new LobbyPage(this, this.main);
    document.title = "ubao";
    this.page.start();
  }
}

new App();
