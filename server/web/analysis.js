// A finished game's computer analysis on its page (`analyse`, docs/protocol.md), as the terminal
// shows it (client/analysis_text.py): each move's class glyph, the evaluation graph, the
// engine's verdict and line at the step shown, each side's figures, and where the next mistake
// is. The figures are plain functions of the analysis; `AnalysisPanel` draws them.

import { announce, button, el } from "./common.js";

/** The analysis format this page reads: a later one is left unshown, as the terminal does. */
export const ANALYSIS_FORMAT = 1;
export const GLYPHS = { "": "", inaccuracy: "?!", mistake: "?", blunder: "??" };
const SERIOUS = new Set(["mistake", "blunder"]);
/** A lead, in the game's units, that fills three quarters of the graph's height. */
const SQUASH = { seeds: 8, discs: 16, points: 8 };
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 300;
const HEIGHT = 80;

export function known(analysis) {
  return Boolean(analysis) && analysis.format === ANALYSIS_FORMAT;
}

/** Each move's glyph (`?!`, `?`, `??`, or "" for a good one), as records write them. */
export function marksOf(analysis) {
  return analysis ? analysis.plies.map((ply) => GLYPHS[ply.mark] ?? "") : [];
}

/** The step to show for the next (`step` 1) or previous (-1) mistake or blunder from the step
 * showing `shown` moves: the position just after it; null when there is none. */
export function nextSerious(analysis, shown, step) {
  const plies = analysis.plies;
  for (let index = step > 0 ? shown : shown - 2; index >= 0 && index < plies.length; index += step)
    if (SERIOUS.has(plies[index].mark)) return index + 1;
  return null;
}

/** How much of the graph's height seat 0 holds at `value` (seat 0's view): 0.5 level. */
export function share(value, units) {
  const scale = SQUASH[units] ?? 8;
  return 0.5 + 0.5 * (value / (Math.abs(value) + scale / 3));
}

/** `+2.5 seeds`; a proved value whole and marked `=` (`+4 discs =`). */
export function valueText(value, units, exact) {
  const number = exact && Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1);
  return `${value >= 0 ? "+" : ""}${number} ${units}${exact ? " =" : ""}`;
}

/** The value at each step: the start's, then the one after each move. */
function valuesOf(analysis) {
  return analysis.plies.length
    ? [analysis.plies[0].before, ...analysis.plies.map((ply) => ply.after)]
    : [];
}

/** What the graph shows, in words: its accessible name. */
export function graphText(analysis, sides) {
  const values = valuesOf(analysis);
  if (!values.length) return "Evaluation graph: no moves.";
  const units = analysis.units;
  const at = (step) => (step === 0 ? "the start" : `move ${step}`);
  const best = values.indexOf(Math.max(...values));
  const worst = values.indexOf(Math.min(...values));
  return (
    `Evaluation graph from ${sides[0]}'s side: ${valueText(values[0], units, false)} at the ` +
    `start, ${valueText(values[values.length - 1], units, false)} at the end; ` +
    `${sides[0]} best at ${at(best)} (${valueText(values[best], units, false)}), ` +
    `${sides[1]} best at ${at(worst)} (${valueText(values[worst], units, false)}).`
  );
}

/** A side's figures: `South: accuracy 87%, 2 inaccuracies, 1 mistake, 0 blunders`. */
export function sideText(side, label) {
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  return (
    `${label}: accuracy ${Math.round(side.accuracy)}%, ` +
    `${count(side.inaccuracies, "inaccuracy", "inaccuracies")}, ` +
    `${count(side.mistakes, "mistake", "mistakes")}, ${count(side.blunders, "blunder", "blunders")}`
  );
}

/** The lines under the graph at `shown` moves: the value and the verdict on the move just
 * played with the engine's best move, then its line (at the start: the first move's). */
export function stepLines(analysis, shown) {
  const plies = analysis.plies;
  if (!plies.length) return ["No moves to analyse."];
  const units = analysis.units;
  const line = (ply) =>
    `Engine's line: ${ply.line.slice(0, 8).join(" ")}${ply.line.length > 8 ? " …" : ""}`;
  if (shown === 0) {
    const first = plies[0];
    return [
      `Start: ${valueText(first.before, units, first.exact)}; best ${first.best}.`,
      line(first),
    ];
  }
  const ply = plies[Math.min(shown, plies.length) - 1];
  let verdict = `After ${ply.ply + 1}. ${ply.move}${GLYPHS[ply.mark] ?? ""}: ${valueText(ply.after, units, Boolean(ply.exact))}`;
  if (ply.mark) verdict += `, ${ply.mark} (−${ply.loss.toFixed(1)} ${units})`;
  verdict += ply.best === ply.move ? "; the engine's move." : `; best was ${ply.best}.`;
  return [verdict, line(ply)];
}

function svg(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** The page's analysis part: the request button, then the graph, the step's lines, the
 * sides' figures and the mistake buttons once an analysis is there. */
export class AnalysisPanel {
  constructor(box, { request, show }) {
    this.box = box;
    this.request = request;
    this.show = show;
    this.heading = el("h2", { id: "analysis-title" }, "Computer analysis");
    this.state = el("p", { class: "analysis-state" });
    this.requestButton = button("Request computer analysis", () => this.request());
    this.graph = svg("svg", {
      class: "eval-graph",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
    });
    this.graph.addEventListener("click", (event) => this.pick(event));
    this.lines = el("div", { class: "analysis-step", "aria-live": "off" });
    this.sides = el("ul", { class: "analysis-sides", "aria-label": "Accuracy" });
    this.jumps = el("div", { class: "stepper", role: "group", "aria-label": "Mistakes" }, [
      button("Previous mistake", () => this.jump(-1)),
      button("Next mistake", () => this.jump(1)),
    ]);
    box.setAttribute("aria-labelledby", "analysis-title");
    this.analysis = null;
    this.shown = 0;
  }

  /** Draw the panel for a finished (`over`) game's `analysis` (or none yet) at `shown`. */
  update(analysis, shown, sides, over, waiting) {
    this.analysis = analysis;
    this.shown = shown;
    this.box.hidden = !over;
    if (!over) return;
    if (!analysis) {
      this.state.textContent = waiting;
      this.keep([this.heading, waiting ? this.state : this.requestButton]);
      return;
    }
    this.drawGraph(analysis, shown, sides);
    this.lines.replaceChildren(...stepLines(analysis, shown).map((text) => el("p", {}, text)));
    this.sides.replaceChildren(
      ...analysis.sides.map((side, seat) => el("li", {}, sideText(side, sides[seat]))),
    );
    this.keep([this.heading, this.graph, this.lines, this.sides, this.jumps]);
  }

  /** The panel made of `parts`, put in again only when they change (a focused button keeps
   * its focus through a redraw). */
  keep(parts) {
    const same =
      parts.length === this.box.children.length &&
      parts.every((part, index) => this.box.children[index] === part);
    if (!same) this.box.replaceChildren(...parts);
  }

  drawGraph(analysis, shown, sides) {
    const values = valuesOf(analysis);
    const x = (step) => (values.length > 1 ? (step * WIDTH) / (values.length - 1) : 0);
    const y = (value) => HEIGHT * (1 - share(value, analysis.units));
    const points = values.map((value, step) => `${x(step)},${y(value)}`);
    const children = [
      svg("path", {
        class: "eval-area",
        d: `M0,${HEIGHT} L${points.join(" L")} L${WIDTH},${HEIGHT} Z`,
      }),
      svg("line", { class: "eval-mid", x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }),
      svg("polyline", { class: "eval-line", points: points.join(" ") }),
      svg("line", { class: "eval-now", x1: x(shown), y1: 0, x2: x(shown), y2: HEIGHT }),
    ];
    for (const ply of analysis.plies) {
      if (!ply.mark) continue;
      const step = ply.ply + 1;
      children.push(
        svg("circle", { class: `eval-mark ${ply.mark}`, cx: x(step), cy: y(ply.after), r: 3 }),
      );
    }
    this.graph.replaceChildren(...children);
    this.graph.setAttribute("aria-label", graphText(analysis, sides));
  }

  /** A click on the graph shows the step under it. */
  pick(event) {
    if (!this.analysis || !this.analysis.plies.length) return;
    const box = this.graph.getBoundingClientRect();
    const steps = this.analysis.plies.length;
    this.show(Math.round(((event.clientX - box.left) / box.width) * steps));
  }

  /** Show the position after the next (1) or previous (-1) mistake or blunder. */
  jump(step) {
    if (!this.analysis) return;
    const target = nextSerious(this.analysis, this.shown, step);
    if (target === null) announce(`No ${step > 0 ? "later" : "earlier"} mistake or blunder.`);
    else this.show(target);
  }
}
