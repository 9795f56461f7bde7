// The game page's drawing: its elements built once, then drawn from the page's state (the
// board, Bao's side lines, the seats and their clocks, the actions, the move list) and each
// move animated frame by frame. What a control does is the page's (game.js).

import { AnalysisPanel, marksOf } from "./analysis.js";
import { BoardView, framesOf, modelOf, moveHole } from "./board.js";
import { MoveChoice } from "./choice.js";
import { clockText, infoText, recordText } from "./record.js";
import { button, describeGame, el, seatName } from "./common.js";
import { seatLabel } from "./game_news.js";

const SPEEDS = { slow: 450, normal: 180, fast: 60, off: 0 };

export class GameView {
  constructor(page, root) {
    this.page = page;
    this.board = null;
    this.animation = null;
    this.build(root);
    this.clockTimer = setInterval(() => this.drawClocks(), 250);
  }

  build(root) {
    const page = this.page;
    const heading = el("h1", { id: "game-title" }, `Game ${page.gameId}`);
    this.seatsBox = el("div", { class: "seats" });
    this.boardBox = el("div", { class: "board-box" });
    this.handLine = el("p", { class: "hand", "aria-hidden": "true" });
    this.sideLines = el("div", { class: "side-lines" });
    this.choiceBox = el("div", { class: "choice", hidden: "" });
    this.choice = new MoveChoice(
      this.choiceBox,
      (move) => page.play(move),
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
      page.play(this.moveInput.value.trim());
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
        button("First position", () => page.show(0)),
        button("Previous move", () => page.show(Math.max(0, page.shownPly() - 1))),
        button("Next move", () => page.show(page.shownPly() + 1)),
        button("Latest position", () => page.show(null)),
      ],
    );
    this.analysisBox = el("section", { class: "analysis", hidden: "" });
    this.analysisPanel = new AnalysisPanel(this.analysisBox, {
      request: () => page.requestAnalysis(),
      show: (ply) => page.show(ply),
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
    if (this.animation) this.animation.cancel = true;
  }

  /** The board is built anew at the next drawing: the side it is seen from may have changed. */
  rebuildBoard() {
    this.board = null;
  }

  /** A move played: the mover's position and its steps drawn one frame at a time. */
  async animate(before, step) {
    const delay = SPEEDS[this.speed.value] ?? 180;
    if (!delay || !this.board) return;
    const frames = framesOf(modelOf(this.page.game, before.json), step.steps, step.mover);
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

  /** The engine's report of the move `seat` just played. */
  drawEngineLine(seat, info) {
    this.engineLine.textContent = `${seatLabel(this.page, seat)}: ${infoText(info)}`;
  }

  draw() {
    const page = this.page;
    if (!page.boards.length) return;
    const ply = page.shownPly();
    const shown = page.boards[Math.min(ply, page.boards.length - 1)];
    const model = modelOf(page.game, shown.json);
    const viewer = page.seat ?? 0;
    if (!this.board) {
      const activeHole = document.activeElement?.dataset?.hole;
      this.board = new BoardView(
        this.boardBox,
        page.game,
        model,
        viewer,
        page.seat,
        page.sides,
        (hole) => page.pick(hole),
      );
      if (activeHole) this.board.focus(activeHole);
    }
    const live = page.viewPly === null;
    const legal = new Set(
      live && page.myTurn()
        ? page.legal.map((move) => moveHole(page.family, move, page.seat)).filter(Boolean)
        : [],
    );
    const last = new Set();
    if (ply > 0) {
      const mover = page.boards[ply - 1].to_move ?? 0;
      const hole = moveHole(page.family, page.history[ply - 1], mover);
      if (hole) last.add(hole);
    }
    this.board.update(model, { legal, last, trail: new Set(), active: null });
    this.drawSides(model, shown);
    this.drawSeats(shown);
    this.drawActions();
    this.analysisPanel.update(
      page.analysis,
      ply,
      page.sides,
      page.status === "over",
      page.analysisWait,
    );
    for (const [index, item] of [...this.moveList.children].entries()) {
      item
        .querySelector("button")
        .setAttribute("aria-current", index + 1 === ply ? "step" : "false");
    }
    document.title = `${describeGame(page.game, page.options)} · ubao`;
    const rated = page.rated ? " · rated" : "";
    document.getElementById("game-title").textContent =
      `${describeGame(page.game, page.options)}${rated} · game ${page.gameId}`;
  }

  drawSides(model, shown) {
    const page = this.page;
    if (page.family !== "bao") {
      this.sideLines.replaceChildren();
      return;
    }
    const order = (page.seat ?? 0) === 0 ? [1, 0] : [0, 1]; // as the board: the far side first
    const lines = order.map((side) => {
      const nyumba = model.owned[side] ? `nyumba ${side === 0 ? "A5" : "a5"} owned` : "nyumba lost";
      return el("p", {}, `${page.sides[side]}: stock ${model.stock[side]}, ${nyumba}`);
    });
    if (model.hand) lines.push(el("p", {}, `Seeds in hand: ${model.hand}`));
    if (shown.outcome === null && model.takasia)
      lines.push(el("p", {}, `Takasia: ${model.takasia}`));
    this.sideLines.replaceChildren(...lines);
  }

  drawSeats(shown) {
    const page = this.page;
    const rows = [0, 1].map((seat) => {
      const moving = page.status === "playing" && shown.to_move === seat && page.viewPly === null;
      const clock = el("span", { class: "clock", "data-seat": String(seat) });
      const you = seat === page.seat ? " — you" : "";
      const gone = page.seats[seat].name && !page.seats[seat].connected ? " (away)" : "";
      const info = page.seats[seat];
      const who = info.account // an account's name leads to its page (ratings, rated games)
        ? [
            `${page.sides[seat]}: `,
            el(
              "a",
              { href: `/player/${encodeURIComponent(info.name)}`, "data-route": "" },
              info.name,
            ),
            `${you}${gone} `,
          ]
        : [`${page.sides[seat]}: ${seatName(info)}${you}${gone} `];
      return el("p", { class: `seat${moving ? " moving" : ""}` }, [
        el("span", { class: "mover-mark", "aria-hidden": "true" }, moving ? "▶ " : ""),
        ...who,
        clock,
      ]);
    });
    const order = (page.seat ?? 0) === 0 ? [rows[1], rows[0]] : [rows[0], rows[1]];
    this.seatsBox.replaceChildren(...order);
    this.drawClocks();
  }

  drawClocks() {
    const page = this.page;
    if (!page.clocks) return;
    for (const node of this.seatsBox.querySelectorAll(".clock")) {
      const seat = Number(node.dataset.seat);
      let left = page.clocks.remaining_ms[seat];
      if (page.clocks.running === seat && page.status === "playing")
        left -= performance.now() - page.clockAt;
      node.textContent = clockText(left);
    }
  }

  drawActions() {
    const page = this.page;
    const typing = page.seat !== null && page.status !== "over"; // spectators have no moves
    this.moveForm.hidden = !typing;
    this.moveHelp.hidden = !typing;
    const buttons = [];
    const open = page.seats
      .map((seat, index) => (seat.kind === "open" && !seat.name ? index : null))
      .filter((i) => i !== null);
    if (page.seat === null && page.status === "waiting" && open.length) {
      buttons.push(button("Take the free seat", () => page.takeSeat(null)));
    }
    if (page.seat !== null && page.status === "playing") {
      if (page.takebackSeat !== null && page.takebackSeat !== page.seat) {
        buttons.push(button("Accept takeback", () => page.answerTakeback(true)));
        buttons.push(button("Decline takeback", () => page.answerTakeback(false)));
      } else {
        buttons.push(
          button("Take back", () => page.command({ type: "takeback", ply: page.history.length })),
        );
      }
      const holeless = page.myTurn()
        ? page.legal.filter((move) => moveHole(page.family, move, page.seat) === null)
        : [];
      for (const move of holeless) buttons.push(button(`Play ${move}`, () => page.play(move)));
      if (page.drawSeat !== null && page.drawSeat !== page.seat) {
        buttons.push(
          button("Accept draw", () => page.command({ type: "draw_answer", accept: true })),
        );
        buttons.push(
          button("Decline draw", () => page.command({ type: "draw_answer", accept: false })),
        );
      } else if (page.drawSeat === null) {
        buttons.push(button("Offer draw", () => page.command({ type: "draw" })));
      }
      if (!page.hasMoved()) buttons.push(button("Abort", () => page.command({ type: "abort" })));
      buttons.push(button("Resign", () => page.command({ type: "resign" })));
    }
    if (page.seat !== null && page.status === "waiting")
      buttons.push(button("Cancel game", () => page.command({ type: "cancel" }, false)));
    if (page.seat !== null && page.status === "over") {
      if (page.rematchSeat !== null && page.rematchSeat !== page.seat) {
        buttons.push(
          button("Accept rematch", () => page.command({ type: "rematch_answer", accept: true })),
        );
        buttons.push(
          button("Decline rematch", () => page.command({ type: "rematch_answer", accept: false })),
        );
      } else if (page.rematchSeat === null) {
        buttons.push(button("Rematch", () => page.command({ type: "rematch" })));
      }
    }
    const focused =
      document.activeElement && this.actions.contains(document.activeElement)
        ? document.activeElement.textContent
        : null;
    this.actions.replaceChildren(...buttons);
    if (focused) buttons.find((node) => node.textContent === focused)?.focus();
  }

  drawMoveList() {
    const page = this.page;
    const marks = marksOf(page.analysis);
    const items = page.history.map((move, index) => {
      const mover = page.boards[index]?.to_move ?? index % 2;
      const info = page.infos[index];
      const text = `${index + 1}. ${page.sides[mover] ?? ""} ${move}`;
      const step = button(`${text}${marks[index] ?? ""}`, () => page.show(index + 1));
      const mark = page.analysis?.plies[index]?.mark;
      if (mark) step.setAttribute("aria-label", `${text}, ${mark}`);
      if (info) step.title = infoText(info);
      return el("li", {}, [step]);
    });
    this.moveList.replaceChildren(...items);
  }

  exportRecord() {
    const page = this.page;
    const text = recordText(
      page.game,
      page.options,
      page.sides,
      page.seats,
      page.history,
      page.result,
      marksOf(page.analysis),
    );
    this.exportLink.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    this.exportLink.download = `${page.game}-${page.gameId}.txt`;
  }
}
