// The question a hole with several legal moves asks (Ethiopian, Bao): first which way to sow,
// then, in Bao, whether to go on safari from the nyumba; each answer narrows the moves.

import { announce, button, el } from "./common.js";

export class MoveChoice {
  constructor(box, play, refocus) {
    this.box = box;
    this.play = play;
    this.refocus = refocus;
  }

  /** Narrow `moves` (all from one hole) by asking: first the direction, then the safari. */
  offer(moves) {
    if (moves.length === 1) {
      this.hide();
      this.play(moves[0]);
      return;
    }
    const direction = (move) => (/[LR]\+?$/i.exec(move) || [""])[0].replace("+", "").toUpperCase();
    const directions = [...new Set(moves.map(direction))];
    if (directions.length > 1) {
      const names = { L: "Sow to the left", R: "Sow to the right" };
      this.ask(
        "Which way?",
        directions.map((d) => [names[d] || d, moves.filter((move) => direction(move) === d)]),
      );
      return;
    }
    this.ask("Go on safari from the nyumba?", [
      ["Yes, go on safari", moves.filter((move) => move.endsWith("+"))],
      ["No, stop at the nyumba", moves.filter((move) => !move.endsWith("+"))],
    ]);
  }

  ask(question, options) {
    const buttons = options.map(([text, moves]) => button(text, () => this.offer(moves)));
    buttons.push(
      button("Cancel", () => {
        this.hide();
        this.refocus();
      }),
    );
    this.box.replaceChildren(
      el("p", { id: "choice-question" }, question),
      el("div", { role: "group", "aria-labelledby": "choice-question" }, buttons),
    );
    this.box.hidden = false;
    announce(question);
    buttons[0].focus();
  }

  hide() {
    this.box.hidden = true;
    this.box.replaceChildren();
  }
}
