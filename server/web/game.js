// The game page: a game played in a held seat, or watched, or replayed; its events applied in
// order, each move animated step by step from the path the server's rules give.

import { AnalysisPanel, known, marksOf, stepLines } from "./analysis.js";
import { BoardView, familyOf, framesOf, modelOf, moveHole } from "./board.js";
import { MoveChoice } from "./choice.js";
import { boardsOf, clockText, infoText, recordText, replay } from "./record.js";
import {
  announce,
  button,
  describeGame,
  el,
  resultText,
  seatName,
  sidesOf,
  tokens,
} from "./common.js";

const SPEEDS = { slow: 450, normal: 180, fast: 60, off: 0 };

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
    this.board = null;
    this.choice = null;
    this.animation = null;
    this.pendingMove = null;
    this.sending = false;
    this.rejoining = false;
    this.analysis = null;
    this.analysisWait = ""; // what the page waits for: the analysis queued, or being asked
    this.drawSeat = null;
    this.build(root);
    this.clockTimer = setInterval(() => this.drawClocks(), 250);
    this.keys = (event) => this.key(event);
    document.addEventListener("keydown", this.keys);
  }

  build(root) {
    const heading = el("h1", { id: "game-title" }, `Game ${this.gameId}`);
    this.seatsBox = el("div", { class: "seats" });
    this.boardBox = el("div", { class: "board-box" });
    this.handLine = el("p", { class: "hand", "aria-hidden": "true" });
    this.sideLines = el("div", { class: "side-lines" });
    this.choiceBox = el("div", { class: "choice", hidden: "" });
    this.choice = new MoveChoice(
      this.choiceBox,
      (move) => this.play(move),
      () => this.board?.focus(),
    );
    this.moveInput = el("input", {
      id: "move-input",
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "move-help",
    });
    this.moveHelp = el(
      "p",
      { id: "move-help", class: "help" },
      "Type a move in the game's notation and press Enter.",
    );
    this.moveForm = el("form", { class: "move-form" }, [
      el("label", { for: "move-input" }, "Move"),
      this.moveInput,
      el("button", { type: "submit" }, "Play"),
    ]);
    this.moveForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.play(this.moveInput.value.trim());
    });
    this.actions = el("div", { class: "actions" });
    this.speed = el(
      "select",
      { id: "speed" },
      Object.keys(SPEEDS).map((name) => el("option", { value: name }, name)),
    );
    this.speed.value = localStorage.getItem("ubao.speed") || "normal";
    this.speed.addEventListener("change", () =>
      localStorage.setItem("ubao.speed", this.speed.value),
    );
    this.engineLine = el("p", { class: "engine" });
    this.moveList = el("ol", { class: "moves", "aria-label": "Moves played" });
    this.stepper = el(
      "div",
      { class: "stepper", role: "group", "aria-label": "Step through the moves" },
      [
        button("First position", () => this.show(0)),
        button("Previous move", () => this.show(Math.max(0, this.shownPly() - 1))),
        button("Next move", () => this.show(this.shownPly() + 1)),
        button("Latest position", () => this.show(null)),
      ],
    );
    this.analysisBox = el("section", { class: "analysis", hidden: "" });
    this.analysisPanel = new AnalysisPanel(this.analysisBox, {
      request: () => this.requestAnalysis(),
      show: (ply) => this.show(ply),
    });
    this.exportLink = el("a", { href: "#", class: "export" }, "Export record");
    this.exportLink.addEventListener("click", () => this.exportRecord());
    root.replaceChildren(
      heading,
      el("div", { class: "game-layout" }, [
        el("section", { class: "play", "aria-labelledby": "game-title" }, [
          this.seatsBox,
          this.boardBox,
          this.handLine,
          this.sideLines,
          this.choiceBox,
          this.moveForm,
          this.moveHelp,
          this.actions,
        ]),
        el("section", { class: "record", "aria-label": "Record" }, [
          el("label", { for: "speed" }, "Animation speed "),
          this.speed,
          this.engineLine,
          this.stepper,
          this.analysisBox,
          this.moveList,
          this.exportLink,
        ]),
      ]),
    );
  }

  close() {
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.keys);
    if (this.animation) this.animation.cancel = true;
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
      this.board = null;
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
    this.redraw();
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
    this.board = null;
    this.redraw();
    this.drawMoveList();
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
    if (message.info)
      this.engineLine.textContent = `${this.seatLabel(message.seat)}: ${infoText(message.info)}`;
    this.drawMoveList();
    if (this.viewPly === null) await this.animate(before, step);
    this.boards.push(step.board);
  }

  async animate(before, step) {
    const delay = SPEEDS[this.speed.value] ?? 180;
    if (!delay || !this.board) return;
    const frames = framesOf(modelOf(this.game, before.json), step.steps, step.mover);
    const run = { cancel: false };
    this.animation = run;
    const trail = new Set();
    for (const frame of frames) {
      if (run.cancel) break;
      this.board.update(frame.model, {
        legal: new Set(),
        last: new Set(),
        trail,
        active: frame.hole,
      });
      this.handLine.textContent = frame.hand ? `In hand: ${frame.hand}` : "";
      trail.add(frame.hole);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.handLine.textContent = "";
    this.animation = null;
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
    this.board = null;
    this.drawMoveList();
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

  // -- drawing ----------------------------------------------------------------------------

  shownPly() {
    return this.viewPly === null ? this.history.length : this.viewPly;
  }

  show(ply) {
    if (!this.boards.length) return;
    this.viewPly = ply === null || ply >= this.history.length ? null : Math.max(0, ply);
    this.redraw();
    const shown = this.shownPly();
    const where =
      this.viewPly === null
        ? "The latest position."
        : shown === 0
          ? "The first position."
          : `After move ${shown} of ${this.history.length}.`;
    const verdict = this.analysis ? ` ${stepLines(this.analysis, shown)[0]}` : "";
    announce(where + verdict);
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

  redraw() {
    if (!this.boards.length) return;
    const ply = this.shownPly();
    const shown = this.boards[Math.min(ply, this.boards.length - 1)];
    const model = modelOf(this.game, shown.json);
    const viewer = this.seat ?? 0;
    if (!this.board) {
      const activeHole = document.activeElement?.dataset?.hole;
      this.board = new BoardView(
        this.boardBox,
        this.game,
        model,
        viewer,
        this.seat,
        this.sides,
        (hole) => this.pick(hole),
      );
      if (activeHole) this.board.focus(activeHole);
    }
    const live = this.viewPly === null;
    const legal = new Set(
      live && this.myTurn()
        ? this.legal.map((move) => moveHole(this.family, move, this.seat)).filter(Boolean)
        : [],
    );
    const last = new Set();
    if (ply > 0) {
      const mover = this.boards[ply - 1].to_move ?? 0;
      const hole = moveHole(this.family, this.history[ply - 1], mover);
      if (hole) last.add(hole);
    }
    this.board.update(model, { legal, last, trail: new Set(), active: null });
    this.drawSides(model, shown);
    this.drawSeats(shown);
    this.drawActions();
    this.analysisPanel.update(
      this.analysis,
      ply,
      this.sides,
      this.status === "over",
      this.analysisWait,
    );
    for (const [index, item] of [...this.moveList.children].entries()) {
      item
        .querySelector("button")
        .setAttribute("aria-current", index + 1 === ply ? "step" : "false");
    }
    document.title = `${describeGame(this.game, this.options)} · ubao`;
    const rated = this.rated ? " · rated" : "";
    document.getElementById("game-title").textContent =
      `${describeGame(this.game, this.options)}${rated} · game ${this.gameId}`;
  }

  drawSides(model, shown) {
    if (this.family !== "bao") {
      this.sideLines.replaceChildren();
      return;
    }
    const order = (this.seat ?? 0) === 0 ? [1, 0] : [0, 1]; // as the board: the far side first
    const lines = order.map((side) => {
      const nyumba = model.owned[side] ? `nyumba ${side === 0 ? "A5" : "a5"} owned` : "nyumba lost";
      return el("p", {}, `${this.sides[side]}: stock ${model.stock[side]}, ${nyumba}`);
    });
    if (model.hand) lines.push(el("p", {}, `Seeds in hand: ${model.hand}`));
    if (shown.outcome === null && model.takasia)
      lines.push(el("p", {}, `Takasia: ${model.takasia}`));
    this.sideLines.replaceChildren(...lines);
  }

  seatLabel(seat) {
    return `${this.sides[seat]} (${seatName(this.seats[seat])})`;
  }

  drawSeats(shown) {
    const rows = [0, 1].map((seat) => {
      const moving = this.status === "playing" && shown.to_move === seat && this.viewPly === null;
      const clock = el("span", { class: "clock", "data-seat": String(seat) });
      const you = seat === this.seat ? " — you" : "";
      const gone = this.seats[seat].name && !this.seats[seat].connected ? " (away)" : "";
      const info = this.seats[seat];
      const who = info.account // an account's name leads to its page (ratings, rated games)
        ? [
            `${this.sides[seat]}: `,
            el(
              "a",
              { href: `/player/${encodeURIComponent(info.name)}`, "data-route": "" },
              info.name,
            ),
            `${you}${gone} `,
          ]
        : [`${this.sides[seat]}: ${seatName(info)}${you}${gone} `];
      return el("p", { class: `seat${moving ? " moving" : ""}` }, [
        el("span", { class: "mover-mark", "aria-hidden": "true" }, moving ? "▶ " : ""),
        ...who,
        clock,
      ]);
    });
    const order = (this.seat ?? 0) === 0 ? [rows[1], rows[0]] : [rows[0], rows[1]];
    this.seatsBox.replaceChildren(...order);
    this.drawClocks();
  }

  drawClocks() {
    if (!this.clocks) return;
    for (const node of this.seatsBox.querySelectorAll(".clock")) {
      const seat = Number(node.dataset.seat);
      let left = this.clocks.remaining_ms[seat];
      if (this.clocks.running === seat && this.status === "playing")
        left -= performance.now() - this.clockAt;
      node.textContent = clockText(left);
    }
  }

  drawActions() {
    const typing = this.seat !== null && this.status !== "over"; // spectators have no moves
    this.moveForm.hidden = !typing;
    this.moveHelp.hidden = !typing;
    const buttons = [];
    const open = this.seats
      .map((seat, index) => (seat.kind === "open" && !seat.name ? index : null))
      .filter((i) => i !== null);
    if (this.seat === null && this.status === "waiting" && open.length) {
      buttons.push(button("Take the free seat", () => this.takeSeat(null)));
    }
    if (this.seat !== null && this.status === "playing") {
      if (this.takebackSeat !== null && this.takebackSeat !== this.seat) {
        buttons.push(button("Accept takeback", () => this.answerTakeback(true)));
        buttons.push(button("Decline takeback", () => this.answerTakeback(false)));
      } else {
        buttons.push(
          button("Take back", () => this.command({ type: "takeback", ply: this.history.length })),
        );
      }
      const holeless = this.myTurn()
        ? this.legal.filter((move) => moveHole(this.family, move, this.seat) === null)
        : [];
      for (const move of holeless) buttons.push(button(`Play ${move}`, () => this.play(move)));
      if (this.drawSeat !== null && this.drawSeat !== this.seat) {
        buttons.push(
          button("Accept draw", () => this.command({ type: "draw_answer", accept: true })),
        );
        buttons.push(
          button("Decline draw", () => this.command({ type: "draw_answer", accept: false })),
        );
      } else if (this.drawSeat === null) {
        buttons.push(button("Offer draw", () => this.command({ type: "draw" })));
      }
      if (!this.hasMoved()) buttons.push(button("Abort", () => this.command({ type: "abort" })));
      buttons.push(button("Resign", () => this.command({ type: "resign" })));
    }
    if (this.seat !== null && this.status === "waiting")
      buttons.push(button("Cancel game", () => this.command({ type: "cancel" }, false)));
    if (this.seat !== null && this.status === "over") {
      if (this.rematchSeat !== null && this.rematchSeat !== this.seat) {
        buttons.push(
          button("Accept rematch", () => this.command({ type: "rematch_answer", accept: true })),
        );
        buttons.push(
          button("Decline rematch", () => this.command({ type: "rematch_answer", accept: false })),
        );
      } else if (this.rematchSeat === null) {
        buttons.push(button("Rematch", () => this.command({ type: "rematch" })));
      }
    }
    const focused =
      document.activeElement && this.actions.contains(document.activeElement)
        ? document.activeElement.textContent
        : null;
    this.actions.replaceChildren(...buttons);
    if (focused) buttons.find((node) => node.textContent === focused)?.focus();
  }

  /** Whether this page's seat has made a move in the game yet (before it, it may abort). */
  hasMoved() {
    return this.history.some(
      (_, index) => (this.boards[index]?.to_move ?? index % 2) === this.seat,
    );
  }

  drawMoveList() {
    const marks = marksOf(this.analysis);
    const items = this.history.map((move, index) => {
      const mover = this.boards[index]?.to_move ?? index % 2;
      const info = this.infos[index];
      const text = `${index + 1}. ${this.sides[mover] ?? ""} ${move}`;
      const step = button(`${text}${marks[index] ?? ""}`, () => this.show(index + 1));
      const mark = this.analysis?.plies[index]?.mark;
      if (mark) step.setAttribute("aria-label", `${text}, ${mark}`);
      if (info) step.title = infoText(info);
      return el("li", {}, [step]);
    });
    this.moveList.replaceChildren(...items);
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
    this.choice.offer(moves);
  }

  async play(move) {
    if (!move) return;
    if (this.seat === null) {
      announce("You are watching this game: you hold no seat in it.");
      return;
    }
    if (this.sending) return;
    this.pendingMove = move;
    this.moveInput.value = move;
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
      this.moveInput.value = "";
      this.legal = []; // until the server's `moved` says what follows
      this.redraw();
    } catch (error) {
      if (error.code === "disconnected") {
        announce("Not connected: the move is sent when the connection is back.");
        return;
      }
      this.pendingMove = null;
      if (error.code === "stale_ply") {
        this.moveInput.value = ""; // it was played before the connection dropped
        return;
      }
      announce(`Refused: ${error.message}`);
    } finally {
      this.sending = false;
    }
  }

  announceState(message) {
    if (!this.boards.length) return;
    const live = this.boards[this.boards.length - 1];
    let text;
    if (this.status === "over" && this.result)
      text = `Game over: ${resultText(this.result, this.sides)}.`;
    else if (this.status === "waiting") text = "Waiting for a player to take the free seat.";
    else if (this.myTurn()) text = `Your turn (${this.sides[this.seat]}).`;
    else if (live.to_move !== null) text = `${this.seatLabel(live.to_move)} to move.`;
    else text = "";
    if (message.type === "moved")
      text = `${this.sides[message.seat]} played ${message.move}. ${text}`;
    if (message.type === "takeback_request") {
      const who = this.sides[message.seat];
      text =
        {
          asked: `${who} asks to take back a move.`,
          accepted: `Move taken back. ${text}`,
          declined: `${who}'s takeback declined.`,
        }[message.state] || text;
    }
    if (message.type === "draw_offer") {
      const who = message.seat === this.seat ? "You offer" : `${this.sides[message.seat]} offers`;
      text =
        message.state === "offered"
          ? `${who} a draw.`
          : `${this.sides[message.seat]}'s draw offer declined. ${text}`;
    }
    if (message.type === "analysis") text = this.analysisNews(message);
    if (message.type === "rematch_offer" && message.state === "offered")
      text = `${this.sides[message.seat]} offers a rematch.`;
    if (message.type === "rematch_offer" && message.state === "declined")
      text = "Rematch declined.";
    if (this.ratings && message.type === "over") {
      text +=
        " " + this.ratings.map((r) => `${r.player} ${r.before} → ${r.after}`).join(", ") + ".";
    }
    announce(text);
  }

  // -- the analysis -----------------------------------------------------------------------

  async requestAnalysis() {
    this.analysisWait = "Asking for the analysis…";
    this.redraw();
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
    this.redraw();
  }

  analysisEvent(message) {
    this.analysisWait = "";
    if (message.state !== "done" || !known(message.analysis)) return;
    this.analysis = message.analysis;
    this.drawMoveList();
  }

  analysisNews(message) {
    if (message.state !== "done") return `The analysis failed: ${message.message ?? ""}`;
    if (!this.analysis) return "The analysis is in a format this page does not know.";
    const figures = this.analysis.sides.map(
      (side, seat) => `${this.sides[seat]} ${Math.round(side.accuracy)}%`,
    );
    return `The computer analysis is here: accuracy ${figures.join(", ")}.`;
  }

  /** Page keys: `m` shows the position after the next mistake or blunder, `M` the previous. */
  key(event) {
    const typing = event.target.closest?.("input, select, textarea");
    if (typing || event.ctrlKey || event.metaKey || event.altKey || !this.analysis) return;
    if (event.key !== "m" && event.key !== "M") return;
    event.preventDefault();
    this.analysisPanel.jump(event.key === "m" ? 1 : -1);
  }

  exportRecord() {
    const text = recordText(
      this.game,
      this.options,
      this.sides,
      this.seats,
      this.history,
      this.result,
      marksOf(this.analysis),
    );
    this.exportLink.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    this.exportLink.download = `${this.game}-${this.gameId}.txt`;
  }
}
