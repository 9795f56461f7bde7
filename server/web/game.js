// The game page's state and events: a game played in a held seat, or watched, or replayed; its
// events applied in order, each move animated step by step from the path the server's rules
// give; the commands its controls send. Its drawing is game_view.js, its news game_news.js.

import { known } from "./analysis.js";
import { familyOf, moveHole } from "./board.js";
import { boardsOf, replay } from "./record.js";
import { announce, sidesOf, tokens } from "./common.js";
import { newsOf, stepNews } from "./game_news.js";
import { GameView } from "./game_view.js";

export class GamePage {
  constructor(app, root, gameId) {
    this.app = app;
    this.gameId = gameId;
    this.queue = Promise.resolve();
    this.v = 0;
    this.boards = [];
    this.history = [];
    this.infos = [];
    this.viewPly = null;
    this.legal = [];
    this.seat = null;
    this.pendingMove = null;
    this.sending = false;
    this.rejoining = false;
    this.analysis = null;
    this.analysisWait = ""; // what the page waits for: the analysis queued, or being asked
    this.drawSeat = null;
    this.view = new GameView(this, root);
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
  }

  close() {
    this.view.close();
    document.removeEventListener("keydown", this.keys);
  }

  // -- joining ----------------------------------------------------------------------------

  async start() {
    const held = tokens.get(this.app.name, this.gameId);
    try {
      if (held) {
        this.seat = held.seat;
        this.token = held.token;
        await this.app.connection.request({
          type: "resume",
          game_id: this.gameId,
          token: held.token,
          since_v: 0,
        });
      } else {
        await this.app.connection.request({ type: "watch", game_id: this.gameId });
      }
    } catch (error) {
      if (held && error.code === "not_your_seat") {
        tokens.drop(this.app.name, this.gameId);
        this.seat = null;
        this.token = null;
        return this.start();
      }
      announce(`Cannot open game ${this.gameId}: ${error.message}`);
    }
  }

  /** After a dropped connection: take the seat back (or watch again) from the last version. */
  async rejoin() {
    this.rejoining = true;
    try {
      if (this.token) {
        await this.app.connection.request({
          type: "resume",
          game_id: this.gameId,
          token: this.token,
          since_v: this.v,
        });
      } else {
        await this.app.connection.request({ type: "watch", game_id: this.gameId, since_v: this.v });
      }
      announce("Connected again.");
      // The missed events come after the `ok`: the pending move goes once they are applied.
      setTimeout(() => this.event({ type: "retry" }), 200);
    } catch (error) {
      announce(`Cannot open game ${this.gameId} again: ${error.message}`);
    } finally {
      this.rejoining = false;
    }
  }

  async takeSeat(seat) {
    try {
      const ok = await this.app.connection.request({ type: "join", game_id: this.gameId, seat });
      tokens.put(this.app.name, this.gameId, { seat: ok.seat, token: ok.token });
      this.seat = ok.seat;
      this.token = ok.token;
      this.view.rebuildBoard();
    } catch (error) {
      announce(`Refused: ${error.message}`);
    }
  }

  // -- events -----------------------------------------------------------------------------

  event(message) {
    if (message.game_id !== undefined && message.game_id !== this.gameId) return;
    this.queue = this.queue
      .then(() => this.apply(message))
      .catch((error) => announce(String(error.message || error)));
  }

  async apply(message) {
    const fresh = message.v === undefined || message.v > this.v || message.type === "snapshot";
    switch (message.type) {
      case "snapshot":
        return this.snapshot(message);
      case "moved":
        if (fresh && message.ply === this.history.length) await this.moved(message);
        break;
      case "over":
        if (fresh) {
          this.result = message.result;
          this.status = "over";
          this.legal = [];
          this.ratings = message.ratings;
          this.drawSeat = null;
        }
        break;
      case "seat":
        if (fresh || message.status === "over") this.seatEvent(message);
        break;
      case "takeback_request":
        if (fresh) await this.takeback(message);
        break;
      case "rematch_offer":
        this.rematchOffer(message);
        break;
      case "draw_offer":
        this.drawSeat = message.state === "offered" ? message.seat : null;
        break;
      case "analysis":
        this.analysisEvent(message);
        break;
      case "retry":
        break;
      default:
        return;
    }
    if (message.v !== undefined) this.v = Math.max(this.v, message.v);
    this.view.draw();
    if (message.type !== "retry") this.announceState(message);
    if (this.pendingMove && this.myTurn() && !this.sending) this.play(this.pendingMove);
  }

  async snapshot(message) {
    this.game = message.game;
    this.options = message.options;
    this.family = familyOf(message.game);
    this.sides = sidesOf(message.game);
    this.status = message.status;
    this.seats = message.seats;
    this.history = [...message.history];
    this.legal = message.legal || [];
    this.clocks = message.clocks || null;
    this.clockAt = performance.now();
    this.result = message.result || null;
    this.takebackSeat = message.takeback ?? null;
    this.rematchSeat = message.rematch ?? null;
    this.drawSeat = message.draw ?? null;
    this.analysis = known(message.analysis) ? message.analysis : null;
    this.rated = Boolean(message.rated);
    this.v = message.v;
    let boards = await boardsOf(message.game, message.options, this.history);
    if (boards[boards.length - 1].position !== message.position) {
      boards = [(await replay(message.game, message.options, message.position, [])).start];
      this.history = [];
    }
    this.boards = boards;
    this.infos = this.history.map(() => null);
    this.view.rebuildBoard();
    this.view.draw();
    this.view.drawMoveList();
    this.announceState(message);
  }

  async moved(message) {
    const before = this.boards[this.boards.length - 1];
    const answer = await replay(this.game, this.options, before.position, [message.move]);
    const step = answer.moves[0];
    this.history.push(message.move);
    this.infos.push(message.info || null);
    this.legal = message.legal || [];
    if (message.clocks) {
      this.clocks = message.clocks;
      this.clockAt = performance.now();
    }
    if (this.takebackSeat !== null) this.takebackSeat = null;
    this.drawSeat = null; // a move ends a draw offer
    if (message.info) this.view.drawEngineLine(message.seat, message.info);
    this.view.drawMoveList();
    if (this.viewPly === null) await this.view.animate(before, step);
    this.boards.push(step.board);
  }

  seatEvent(message) {
    const seat = { ...this.seats[message.seat], name: message.name, connected: message.connected };
    if (message.client !== undefined) seat.client = message.client;
    if (message.account !== undefined) seat.account = message.account;
    this.seats = this.seats.map((old, index) => (index === message.seat ? seat : old));
    if (message.status) this.status = message.status;
    if (message.legal) this.legal = message.legal;
    if (message.clocks) {
      this.clocks = message.clocks;
      this.clockAt = performance.now();
    }
  }

  async takeback(message) {
    this.takebackSeat = message.state === "asked" ? message.seat : null;
    this.drawSeat = null; // a takeback request ends a draw offer
    if (message.clocks) {
      this.clocks = message.clocks;
      this.clockAt = performance.now();
    }
    if (message.state !== "accepted") return;
    this.history = this.history.slice(0, message.ply);
    this.infos = this.infos.slice(0, message.ply);
    this.boards = this.boards.slice(0, message.ply + 1);
    this.legal = message.legal || [];
    this.view.rebuildBoard();
    this.view.drawMoveList();
  }

  rematchOffer(message) {
    this.rematchSeat = message.state === "offered" ? message.seat : null;
    if (message.state === "accepted" && message.token) {
      tokens.put(this.app.name, message.new_game_id, {
        seat: message.new_seat,
        token: message.token,
      });
      this.app.go(`/game/${message.new_game_id}`);
    } else if (message.state === "accepted") {
      announce(`The rematch is game ${message.new_game_id}.`);
    }
  }

  // -- what is shown ----------------------------------------------------------------------

  shownPly() {
    return this.viewPly === null ? this.history.length : this.viewPly;
  }

  show(ply) {
    if (!this.boards.length) return;
    this.viewPly = ply === null || ply >= this.history.length ? null : Math.max(0, ply);
    this.view.draw();
    announce(stepNews(this));
  }

  /** The news of `message` once applied, in the live status region (none before a board). */
  announceState(message) {
    if (this.boards.length) announce(newsOf(this, message));
  }

  myTurn() {
    const live = this.boards[this.boards.length - 1];
    return (
      this.seat !== null &&
      this.status === "playing" &&
      live &&
      live.to_move === this.seat &&
      this.legal.length > 0
    );
  }

  /** Whether this page's seat has made a move in the game yet (before it, it may abort). */
  hasMoved() {
    return this.history.some(
      (_, index) => (this.boards[index]?.to_move ?? index % 2) === this.seat,
    );
  }

  // -- playing ----------------------------------------------------------------------------

  async command(fields, withToken = true) {
    const command = { ...fields, game_id: this.gameId };
    if (withToken) command.token = this.token;
    if (["takeback", "takeback_answer", "draw", "draw_answer"].includes(fields.type))
      command.ply = this.history.length;
    try {
      await this.app.connection.request(command);
    } catch (error) {
      announce(`Refused: ${error.message}`);
    }
  }

  answerTakeback(accept) {
    return this.command({ type: "takeback_answer", accept });
  }

  /** A hole chosen on the board: its one legal move played, or its moves offered to choose. */
  pick(hole) {
    if (this.viewPly !== null) this.show(null);
    if (!this.myTurn()) {
      announce(this.seat === null ? "You are watching this game." : "It is not your turn.");
      return;
    }
    const moves = this.legal.filter((move) => moveHole(this.family, move, this.seat) === hole);
    if (!moves.length) {
      announce(`${hole} is not a legal move.`);
      return;
    }
    this.view.choice.offer(moves);
  }

  async play(move) {
    if (!move) return;
    if (this.seat === null) {
      announce("You are watching this game: you hold no seat in it.");
      return;
    }
    if (this.sending) return;
    this.pendingMove = move;
    this.view.moveInput.value = move;
    if (!this.app.connection.isOpen || this.rejoining) {
      announce("Not connected: the move is sent when the connection is back.");
      return;
    }
    this.sending = true;
    try {
      await this.app.connection.request({
        type: "move",
        game_id: this.gameId,
        token: this.token,
        ply: this.history.length,
        move,
      });
      this.pendingMove = null;
      this.view.moveInput.value = "";
      this.legal = []; // until the server's `moved` says what follows
      this.view.draw();
    } catch (error) {
      if (error.code === "disconnected") {
        announce("Not connected: the move is sent when the connection is back.");
        return;
      }
      this.pendingMove = null;
      if (error.code === "stale_ply") {
        this.view.moveInput.value = ""; // it was played before the connection dropped
        return;
      }
      announce(`Refused: ${error.message}`);
    } finally {
      this.sending = false;
    }
  }

  // -- the analysis -----------------------------------------------------------------------

  async requestAnalysis() {
    this.analysisWait = "Asking for the analysis…";
    this.view.draw();
    try {
      const ok = await this.app.connection.request({ type: "analyse", game_id: this.gameId });
      if (ok.analysis) {
        this.event({
          type: "analysis",
          game_id: this.gameId,
          state: "done",
          analysis: ok.analysis,
        });
        return;
      }
      const ahead = ok.queued ? ` (${ok.queued} ahead)` : "";
      this.analysisWait = `The analysis is queued${ahead}: it comes when the engine has made it.`;
      announce(this.analysisWait);
    } catch (error) {
      this.analysisWait = "";
      announce(`Refused: ${error.message}`);
    }
    this.view.draw();
  }

  analysisEvent(message) {
    this.analysisWait = "";
    if (message.state !== "done" || !known(message.analysis)) return;
    this.analysis = message.analysis;
    this.view.drawMoveList();
  }

  /** Page keys: `m` shows the position after the next mistake or blunder, `M` the previous. */
  key(event) {
    const typing = event.target.closest?.("input, select, textarea");
    if (typing || event.ctrlKey || event.metaKey || event.altKey || !this.analysis) return;
    if (event.key !== "m" && event.key !== "M") return;
    event.preventDefault();
    this.view.analysisPanel.jump(event.key === "m" ? 1 : -1);
  }
}
