// The lobby (games, a new game, tournaments), a tournament's page and a player's page.

import { announce, describeGame, el, resultText, seatName, sidesOf, tokens } from "./common.js";

const GAMES = ["kalah", "egyptian", "ethiopian", "bao", "othello"];
const CLOCKS = { none: null, "1+0": [60, 0], "3+2": [180, 2], "5+3": [300, 3], "10+5": [600, 5] };
const LOBBY_REFRESH_MS = 10000;
const STATUS_ORDER = { waiting: 0, playing: 1, over: 2 };

function select(id, values, chosen) {
  const node = el(
    "select",
    { id, name: id },
    values.map(([value, text]) => el("option", { value }, text)),
  );
  node.value = chosen;
  return node;
}

function field(labelText, control) {
  return el("p", { class: "field" }, [el("label", { for: control.id }, labelText), control]);
}

function summaryText(game) {
  const players = `${seatName(game.seats[0])} vs ${seatName(game.seats[1])}`;
  const state = { waiting: "waiting", playing: `playing, ply ${game.ply}`, over: "over" }[
    game.status
  ];
  const result = game.result ? `, ${resultText(game.result, sidesOf(game.game))}` : "";
  const watching = game.spectators ? `, ${game.spectators} watching` : "";
  return `${describeGame(game.game, game.options)}: ${players} (${state}${result}${watching})`;
}

export class LobbyPage {
  constructor(app, root) {
    this.app = app;
    this.games = new Map();
    this.build(root);
    this.timer = setInterval(() => this.refresh(false), LOBBY_REFRESH_MS);
  }

  build(root) {
    const name = el("input", {
      id: "player-name",
      type: "text",
      value: this.app.name,
      maxlength: "64",
      autocomplete: "nickname",
    });
    const key = el("input", {
      id: "account-key",
      type: "password",
      autocomplete: "current-password",
      maxlength: "128",
    });
    const claim = el("button", { type: "button" }, "Claim this name");
    claim.addEventListener("click", () => this.claim());
    const nameForm = el("form", { class: "name-form" }, [
      el("label", { for: "player-name" }, "Your name"),
      name,
      el("label", { for: "account-key" }, "Account key"),
      key,
      el("button", { type: "submit" }, "Use this name"),
      claim,
      (this.accountLine = el("p", { class: "help" })),
    ]);
    nameForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.app.rename(name.value.trim(), key.value);
    });

    this.game = select(
      "new-game",
      GAMES.map((g) => [g, describeGame(g)]),
      "kalah",
    );
    this.pits = select(
      "new-pits",
      [3, 4, 5, 6, 7, 8].map((n) => [String(n), String(n)]),
      "6",
    );
    this.seeds = select(
      "new-seeds",
      [1, 2, 3, 4, 5, 6].map((n) => [String(n), String(n)]),
      "4",
    );
    this.size = select(
      "new-size",
      [4, 6, 8, 10, 12, 14, 16].map((n) => [String(n), `${n}×${n}`]),
      "8",
    );
    this.opponent = select(
      "new-opponent",
      [
        ["bot", "a server bot"],
        ["anyone", "anyone"],
      ],
      "bot",
    );
    this.depth = select(
      "new-depth",
      [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [String(n), String(n)]),
      "3",
    );
    this.side = select(
      "new-side",
      [
        ["0", "first"],
        ["1", "second"],
      ],
      "0",
    );
    this.rated = el("input", { id: "new-rated", type: "checkbox" });
    this.clock = select(
      "new-clock",
      Object.keys(CLOCKS).map((c) => [c, c === "none" ? "no clock" : c]),
      "none",
    );
    this.pitsField = field("Pits per side", this.pits);
    this.seedsField = field("Seeds per pit", this.seeds);
    this.sizeField = field("Board size", this.size);
    this.depthField = field("Bot depth", this.depth);
    const form = el("form", { class: "new-game", "aria-labelledby": "new-game-title" }, [
      el("h2", { id: "new-game-title" }, "New game"),
      field("Game", this.game),
      this.pitsField,
      this.seedsField,
      this.sizeField,
      field("Opponent", this.opponent),
      this.depthField,
      field("You play", this.side),
      field("Clock", this.clock),
      field("Rated (two accounts)", this.rated),
      el("button", { type: "submit" }, "Create game"),
    ]);
    for (const control of [this.game, this.opponent])
      control.addEventListener("change", () => this.fitForm());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
    this.fitForm();

    this.list = el("ul", { class: "games", "aria-labelledby": "games-title" });
    this.tournaments = el("ul", { class: "tournaments", "aria-labelledby": "tournaments-title" });
    root.replaceChildren(
      el("h1", {}, "ubao"),
      nameForm,
      el("div", { class: "lobby-layout" }, [
        form,
        el("section", { "aria-labelledby": "games-title" }, [
          el("h2", { id: "games-title" }, "Games"),
          this.list,
        ]),
        el("section", { "aria-labelledby": "tournaments-title" }, [
          el("h2", { id: "tournaments-title" }, "Tournaments"),
          this.tournaments,
        ]),
      ]),
    );
  }

  fitForm() {
    const game = this.game.value;
    this.pitsField.hidden = !["kalah", "egyptian", "ethiopian"].includes(game);
    this.seedsField.hidden = this.pitsField.hidden;
    this.sizeField.hidden = game !== "othello";
    this.depthField.hidden = this.opponent.value !== "bot";
  }

  close() {
    clearInterval(this.timer);
  }

  async start() {
    await this.refresh(true);
  }

  rejoin() {
    return this.refresh(true);
  }

  async refresh(subscribe) {
    try {
      await this.app.connection.ready;
      const account = this.app.connection.account ? "an account (its key kept here)" : "a guest";
      this.accountLine.textContent = `You play as ${this.app.name}, ${account}.`;
      const ok = await this.app.connection.request({
        type: "games",
        limit: 100,
        ...(subscribe ? { subscribe: true } : {}),
      });
      this.games = new Map(ok.games.map((game) => [game.game_id, game]));
      this.drawGames();
      const list = await this.app.connection.request({ type: "tournament_list" });
      this.drawTournaments(list.tournaments || []);
    } catch (error) {
      if (error.code !== "disconnected") announce(`The lobby could not be read: ${error.message}`);
    }
  }

  event(message) {
    if (message.type !== "lobby") return;
    this.games.set(message.game.game_id, {
      ...this.games.get(message.game.game_id),
      ...message.game,
    });
    this.drawGames();
  }

  drawGames() {
    const games = [...this.games.values()].sort(
      (a, b) =>
        STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || (b.created ?? 0) - (a.created ?? 0),
    );
    const items = games.map((game) => {
      const text = summaryText(game);
      const free =
        game.status === "waiting" && game.seats.some((seat) => seat.kind === "open" && !seat.name);
      const mine = tokens.get(this.app.name, game.game_id);
      const verb = mine ? "Resume" : free ? "Join" : "Watch";
      const link = el("a", { href: `/game/${game.game_id}`, "data-route": "" }, `${verb}: ${text}`);
      if (verb === "Join") {
        link.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopPropagation();
          this.join(game.game_id, null);
        });
      }
      return el("li", { class: game.status }, [link]);
    });
    if (!items.length) items.push(el("li", {}, "No games yet: create one."));
    this.list.replaceChildren(...items);
  }

  drawTournaments(list) {
    const items = list.map((t) =>
      el("li", {}, [
        el(
          "a",
          { href: `/tournament/${t.tournament_id}`, "data-route": "" },
          `${t.name}: ${describeGame(t.game)} ${t.format.replace("_", " ")}, ${t.status}, ${t.entrants} entrants`,
        ),
      ]),
    );
    if (!items.length) items.push(el("li", {}, "No tournaments."));
    this.tournaments.replaceChildren(...items);
  }

  async join(gameId, seat) {
    try {
      const ok = await this.app.connection.request({ type: "join", game_id: gameId, seat });
      tokens.put(this.app.name, gameId, { seat: ok.seat, token: ok.token });
      this.app.go(`/game/${gameId}`);
    } catch (error) {
      announce(`Refused: ${error.message}`);
    }
  }

  /** Make the name this page plays under an account; its key is kept in this browser. */
  async claim() {
    try {
      const ok = await this.app.connection.request({ type: "claim", name: this.app.name });
      this.app.rename(ok.name, ok.key);
      announce(`${ok.name} is your account now; its key is kept in this browser.`);
    } catch (error) {
      announce(`Refused: ${error.message}`);
    }
  }

  async create() {
    const game = this.game.value;
    const options = {};
    if (!this.pitsField.hidden)
      Object.assign(options, { pits: Number(this.pits.value), seeds: Number(this.seeds.value) });
    if (game === "othello") options.size = Number(this.size.value);
    const mine = Number(this.side.value);
    const seats = [{ kind: "open" }, { kind: "open" }];
    if (this.opponent.value === "bot")
      seats[1 - mine] = { kind: "bot", depth: Number(this.depth.value), time_ms: 1000 };
    const command = { type: "create", game, options, seats };
    if (this.rated.checked) command.rated = true;
    const clock = CLOCKS[this.clock.value];
    if (clock) command.clock = { initial_ms: clock[0] * 1000, increment_ms: clock[1] * 1000 };
    try {
      const ok = await this.app.connection.request(command);
      await this.join(ok.game_id, mine);
    } catch (error) {
      announce(`Refused: ${error.message}`);
    }
  }
}

export class TournamentPage {
  constructor(app, root, tournamentId) {
    this.app = app;
    this.id = tournamentId;
    this.body = el("div", { class: "tournament" });
    root.replaceChildren(
      el("h1", { id: "tournament-title" }, `Tournament ${tournamentId}`),
      this.body,
    );
  }

  close() {}

  async start() {
    try {
      const ok = await this.app.connection.request({
        type: "tournament_show",
        tournament_id: this.id,
        subscribe: true,
      });
      this.draw(ok.tournament);
    } catch (error) {
      announce(`Cannot show tournament ${this.id}: ${error.message}`);
    }
  }

  rejoin() {
    return this.start();
  }

  event(message) {
    if (message.type === "tournament" && message.tournament.tournament_id === this.id)
      this.draw(message.tournament);
  }

  draw(t) {
    document.getElementById("tournament-title").textContent =
      `${t.name}: ${describeGame(t.game)} ${t.format.replace("_", " ")}`;
    const header = el(
      "tr",
      {},
      ["Rank", "Entrant", "Points", "Games", "Wins", "Draws", "Losses"].map((h) =>
        el("th", { scope: "col" }, h),
      ),
    );
    const rows = t.standings.map((line) =>
      el("tr", {}, [
        el("td", {}, String(line.rank)),
        el("th", { scope: "row" }, [
          el(
            "a",
            { href: `/player/${encodeURIComponent(t.entrants[line.entrant])}`, "data-route": "" },
            t.entrants[line.entrant],
          ),
          t.kinds[line.entrant] === "account" ? "" : ` (${t.kinds[line.entrant]})`,
        ]),
        ...[line.points, line.games, line.wins, line.draws, line.losses].map((v) =>
          el("td", {}, String(v)),
        ),
      ]),
    );
    const table = el("table", {}, [
      el("caption", {}, `Standings: ${t.status}, round ${t.round} of ${t.rounds}`),
      el("thead", {}, [header]),
      el("tbody", {}, rows),
    ]);
    const pairings = t.pairings.map((p) => {
      const white = t.entrants[p.white];
      const black = p.black === undefined || p.black === null ? "a bye" : t.entrants[p.black];
      const text = `Round ${p.round}: ${white} vs ${black}${p.result ? ` (${p.result})` : ""}`;
      return el(
        "li",
        {},
        p.game_id
          ? [el("a", { href: `/game/${p.game_id}`, "data-route": "" }, `Watch ${text}`)]
          : [text],
      );
    });
    this.body.replaceChildren(
      el("div", { class: "table-scroll" }, [table]),
      el("h2", {}, "Games"),
      el("ul", { class: "pairings" }, pairings),
    );
  }
}

export class PlayerPage {
  constructor(app, root, name) {
    this.app = app;
    this.name = name;
    this.body = el("div", { class: "player" });
    root.replaceChildren(el("h1", {}, `Player ${name}`), this.body);
  }

  close() {}

  event() {}

  rejoin() {
    return this.start();
  }

  async start() {
    try {
      const ok = await this.app.connection.request({ type: "player", name: this.name, limit: 20 });
      this.draw(ok.player);
    } catch (error) {
      announce(`Cannot show player ${this.name}: ${error.message}`);
    }
  }

  draw(player) {
    const ratings = player.ratings.map((r) =>
      el(
        "li",
        {},
        `${r.pool}: ${r.rating}${r.provisional ? "?" : ""} (${r.games} games: ${r.wins} won, ${r.draws} drawn, ${r.losses} lost)`,
      ),
    );
    const recent = player.recent.map((g) =>
      el("li", {}, [
        el(
          "a",
          { href: `/game/${g.game_id}`, "data-route": "" },
          `${g.outcome} against ${g.opponent} (${g.pool}), ${g.before} → ${g.after}`,
        ),
      ]),
    );
    if (!ratings.length) ratings.push(el("li", {}, "No rated games yet."));
    this.body.replaceChildren(
      el("h2", {}, "Ratings"),
      el("ul", {}, ratings),
      el("h2", {}, "Latest rated games"),
      el("ul", {}, recent),
    );
  }
}
