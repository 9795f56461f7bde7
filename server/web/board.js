// The boards of the three families drawn in SVG: every hole a focusable control named in the
// game's notation, marks for legal moves, the last move and the animation, and the arrow keys
// walking the holes. Positions come as the rules' JSON form (server/web_boards.py).

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 60;
const SIDE_LETTERS = "SN";

export function familyOf(game) {
  if (game === "bao") return "bao";
  if (game === "othello") return "othello";
  return "mancala";
}

function baoLabel(side, row, number) {
  return side === 0 ? `${row.toUpperCase()}${number}` : `${row.toLowerCase()}${number}`;
}

function square(index, size) {
  return `${"abcdefghijklmnop"[index % size]}${Math.floor(index / size) + 1}`;
}

/** The board of a position's JSON form: hole label -> seeds or disc letter, and the rest. */
export function modelOf(game, json) {
  const family = familyOf(game);
  const values = new Map();
  if (family === "mancala") {
    const [south, north] = json.pits;
    south.forEach((n, i) => values.set(`S${i + 1}`, n));
    north.forEach((n, i) => values.set(`N${i + 1}`, n));
    values.set("S*", json.stores[0]);
    values.set("N*", json.stores[1]);
    return { family, values, pits: south.length };
  }
  if (family === "bao") {
    const board = json.board;
    for (let c = 0; c < 8; c++) {
      values.set(baoLabel(1, "b", 8 - c), board[0][c]);
      values.set(baoLabel(1, "a", 8 - c), board[1][c]);
      values.set(baoLabel(0, "a", c + 1), board[2][c]);
      values.set(baoLabel(0, "b", c + 1), board[3][c]);
    }
    let takasia = null;
    if (json.takasia) {
      const side = SIDE_LETTERS.indexOf(json.takasia.player);
      takasia = baoLabel(side, json.takasia.hole[0], Number(json.takasia.hole.slice(1)));
    }
    return {
      family,
      values,
      stock: [...json.stock],
      owned: [...json.owned],
      takasia,
      hand: json.captured_in_hand || 0,
    };
  }
  const [cells] = json.split(" ");
  const size = Math.round(Math.sqrt(cells.length));
  [...cells].forEach((letter, i) => values.set(square(i, size), letter));
  return { family, values, size };
}

/** The hole a move (in notation) starts from, for its mover; null for a pass. */
export function moveHole(family, move, mover) {
  if (family === "mancala") {
    const match = /^\s*(\d+)/.exec(move);
    return match ? `${SIDE_LETTERS[mover]}${match[1]}` : null;
  }
  if (family === "bao") {
    const match = /^\s*([abAB])([1-8])/.exec(move);
    return match ? baoLabel(mover, match[1], Number(match[2])) : null;
  }
  const word = move.trim().toLowerCase();
  return /^[a-p][0-9]+$/.test(word) ? word : null;
}

/** The holes as the viewer sees them, top row first (the viewer's side at the bottom). */
function gridOf(model, viewer) {
  if (model.family === "mancala") {
    const row = (side) =>
      Array.from({ length: model.pits }, (_, i) => `${SIDE_LETTERS[side]}${i + 1}`);
    return [row(1 - viewer).reverse(), row(viewer)];
  }
  if (model.family === "bao") {
    const far = 1 - viewer;
    const numbers = [1, 2, 3, 4, 5, 6, 7, 8];
    const reversed = [...numbers].reverse();
    return [
      reversed.map((n) => baoLabel(far, "b", n)),
      reversed.map((n) => baoLabel(far, "a", n)),
      numbers.map((n) => baoLabel(viewer, "a", n)),
      numbers.map((n) => baoLabel(viewer, "b", n)),
    ];
  }
  return Array.from({ length: model.size }, (_row, r) =>
    Array.from({ length: model.size }, (_column, c) => square(r * model.size + c, model.size)),
  );
}

function sideOfLabel(family, label) {
  if (family === "mancala") return SIDE_LETTERS.indexOf(label[0]);
  if (family === "bao") return label[0] === label[0].toUpperCase() ? 0 : 1;
  return null;
}

function seeds(count) {
  return `${count} ${count === 1 ? "seed" : "seeds"}`;
}

const DISC_NAMES = { X: "black", O: "white", ".": "empty" };

/** What a hole's control is called: where it is and what it holds, in the game's notation. */
function holeName(model, label, seat, sides, marks) {
  const family = model.family;
  const value = model.values.get(label);
  const parts = [];
  if (family === "othello") {
    parts.push(label, DISC_NAMES[value] || "empty");
  } else {
    const side = sideOfLabel(family, label);
    const own = seat === side;
    if (family === "mancala") {
      if (label.endsWith("*")) parts.push(own ? "your store" : `${sides[side]} store`);
      else parts.push(own ? `pit ${label.slice(1)}` : `${sides[side]} pit ${label.slice(1)}`);
    } else {
      parts.push(own ? label : `${sides[side]} ${label}`);
    }
    parts.push(seeds(value));
    if (family === "bao" && label.toLowerCase() === "a5" && model.owned[side]) parts.push("nyumba");
    if (family === "bao" && model.takasia === label) parts.push("takasia");
  }
  if (marks.legal.has(label)) parts.push("legal move");
  if (marks.last.has(label)) parts.push("last move");
  return parts.join(", ");
}

function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** One drawn board; `update` redraws values and marks without losing the keyboard focus. */
export class BoardView {
  constructor(container, game, model, viewer, seat, sides, activate) {
    this.game = game;
    this.family = model.family;
    this.viewer = viewer;
    this.seat = seat;
    this.sides = sides;
    this.activate = activate;
    this.grid = gridOf(model, viewer);
    this.cells = new Map();
    this.focused = null;
    container.replaceChildren();
    this.svg = element("svg", { class: `board ${this.family}`, role: "group" }, container);
    this.svg.setAttribute("aria-label", this.caption());
    this.draw(model);
    this.svg.addEventListener("keydown", (event) => this.key(event));
  }

  caption() {
    const name = `${this.game.charAt(0).toUpperCase()}${this.game.slice(1)} board`;
    if (this.family === "othello") return `${name}, a1 at the top left`;
    return `${name}, ${this.sides[this.viewer]} at the bottom`;
  }

  draw(model) {
    const rows = this.grid.length;
    const columns = this.grid[0].length;
    if (this.family === "mancala") {
      element(
        "rect",
        {
          class: "frame",
          x: 4,
          y: 4,
          width: (columns + 2) * UNIT - 8,
          height: 2 * UNIT + 40,
          rx: 30,
        },
        this.svg,
      );
      this.svg.setAttribute("viewBox", `0 0 ${(columns + 2) * UNIT} ${2 * UNIT + 48}`);
      this.grid.forEach((row, r) =>
        row.forEach((label, c) => this.cell(label, (c + 1.5) * UNIT, 24 + (r + 0.5) * UNIT, "pit")),
      );
      const far = SIDE_LETTERS[1 - this.viewer];
      const near = SIDE_LETTERS[this.viewer];
      this.cell(`${far}*`, 0.5 * UNIT, 24 + UNIT, "store");
      this.cell(`${near}*`, (columns + 1.5) * UNIT, 24 + UNIT, "store");
    } else if (this.family === "bao") {
      const gap = 16;
      this.svg.setAttribute("viewBox", `0 0 ${columns * UNIT + 8} ${rows * UNIT + gap + 8}`);
      element(
        "rect",
        {
          class: "frame",
          x: 2,
          y: 2,
          width: columns * UNIT + 4,
          height: rows * UNIT + gap + 4,
          rx: 14,
        },
        this.svg,
      );
      this.grid.forEach((row, r) =>
        row.forEach((label, c) => {
          const y = 4 + (r + 0.5) * UNIT + (r >= 2 ? gap : 0);
          this.cell(label, 4 + (c + 0.5) * UNIT, y, "hole");
        }),
      );
    } else {
      // Coordinates grow with the board, so that they stay readable where it is shrunk most.
      const large = columns > 8;
      const margin = large ? 36 : 22;
      const size = columns * UNIT;
      const kind = `coordinate${large ? " large" : ""}`;
      this.svg.setAttribute("viewBox", `0 0 ${size + margin + 4} ${size + margin + 4}`);
      element("rect", { class: "felt", x: margin, y: margin, width: size, height: size }, this.svg);
      for (let c = 0; c < columns; c++) {
        const x = margin + (c + 0.5) * UNIT;
        const letter = element(
          "text",
          { class: kind, x, y: margin - 8, "aria-hidden": "true" },
          this.svg,
        );
        letter.textContent = "abcdefghijklmnop"[c];
      }
      for (let r = 0; r < rows; r++) {
        const y = margin + (r + 0.5) * UNIT + (large ? 8 : 5);
        const number = element(
          "text",
          { class: kind, x: margin / 2, y, "aria-hidden": "true" },
          this.svg,
        );
        number.textContent = String(r + 1);
      }
      this.grid.forEach((row, r) =>
        row.forEach((label, c) =>
          this.cell(label, margin + (c + 0.5) * UNIT, margin + (r + 0.5) * UNIT, "square"),
        ),
      );
    }
    const first = this.grid[this.grid.length - 1][0];
    this.focusable(first);
  }

  cell(label, x, y, kind) {
    const group = element(
      "g",
      { class: `cell ${kind}`, role: "button", tabindex: -1, "data-hole": label },
      this.svg,
    );
    if (kind === "square") {
      element(
        "rect",
        { class: "shape", x: x - UNIT / 2, y: y - UNIT / 2, width: UNIT, height: UNIT },
        group,
      );
      element("circle", { class: "disc", cx: x, cy: y, r: UNIT * 0.38 }, group);
      element("circle", { class: "hint", cx: x, cy: y, r: UNIT * 0.1 }, group);
    } else if (kind === "store") {
      element(
        "rect",
        {
          class: "shape",
          x: x - UNIT * 0.4,
          y: y - UNIT * 0.9,
          width: UNIT * 0.8,
          height: UNIT * 1.8,
          rx: UNIT * 0.4,
        },
        group,
      );
    } else {
      element(
        "rect",
        {
          class: "shape",
          x: x - UNIT * 0.42,
          y: y - UNIT * 0.42,
          width: UNIT * 0.84,
          height: UNIT * 0.84,
          rx: UNIT * 0.42,
        },
        group,
      );
    }
    if (kind !== "square") {
      // The hole's name first, then its seeds: the visible words read in the order of its
      // accessible name ("3 4" in "pit 3, 4 seeds"), as speech input users say it.
      const inside = this.family === "bao";
      const above = kind === "pit" && y < UNIT + 24;
      const below = kind === "store" ? UNIT * 0.9 + 14 : UNIT * 0.5 + 13;
      const tag = element(
        "text",
        {
          class: "label",
          x,
          y: inside ? y - 10 : above ? y - UNIT * 0.5 - 3 : y + below,
          "aria-hidden": "true",
        },
        group,
      );
      tag.textContent = `${kind === "store" ? "store" : this.family === "bao" ? label : label.slice(1)} `;
      group.count = element(
        "text",
        { class: "count", x, y: y + (inside ? 13 : 8), "aria-hidden": "true" },
        group,
      );
    }
    group.addEventListener("click", () => this.activate(label));
    group.addEventListener("focus", () => (this.focused = label));
    this.cells.set(label, group);
  }

  focusable(label) {
    for (const [hole, cell] of this.cells) cell.setAttribute("tabindex", hole === label ? 0 : -1);
    this.focused = label;
  }

  /** Draw `model` with `marks` ({legal, last, trail: Sets of labels, active: label}). */
  update(model, marks) {
    for (const [label, cell] of this.cells) {
      const value = model.values.get(label);
      const classes = ["cell", cell.classList[1]];
      if (marks.legal.has(label)) classes.push("legal");
      if (marks.last.has(label)) classes.push("last");
      if (marks.trail.has(label)) classes.push("trail");
      if (marks.active === label) classes.push("active");
      if (this.family === "othello") {
        classes.push({ X: "black", O: "white" }[value] || "empty");
      } else {
        cell.count.textContent = String(value);
        const side = sideOfLabel(this.family, label);
        if (this.family === "bao" && label.toLowerCase() === "a5" && model.owned[side])
          classes.push("nyumba");
        if (this.family === "bao" && model.takasia === label) classes.push("takasia");
      }
      cell.setAttribute("class", classes.join(" "));
      cell.setAttribute("aria-label", holeName(model, label, this.seat, this.sides, marks));
    }
  }

  key(event) {
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    if (event.key === "Enter" || event.key === " ") {
      const hole = event.target.closest(".cell")?.dataset.hole;
      if (hole) {
        event.preventDefault();
        this.activate(hole);
      }
      return;
    }
    const step = moves[event.key];
    if (!step || this.focused === null) return;
    event.preventDefault();
    const { row, column } = this.place(this.focused);
    const target = this.at(row + step[0], column + step[1], step);
    if (target) {
      this.focusable(target);
      this.cells.get(target).focus();
    }
  }

  place(label) {
    for (let row = 0; row < this.grid.length; row++) {
      const column = this.grid[row].indexOf(label);
      if (column >= 0) return { row, column };
    }
    // A store: on the left (the far side's) or the right (the near side's).
    const near = label[0] === SIDE_LETTERS[this.viewer];
    return { row: near ? this.grid.length - 1 : 0, column: near ? this.grid[0].length : -1 };
  }

  at(row, column, step) {
    if (row < 0 || row >= this.grid.length) return null;
    if (this.family === "mancala" && (column < 0 || column >= this.grid[0].length)) {
      if (step[1] === 0) return null;
      return `${SIDE_LETTERS[column < 0 ? 1 - this.viewer : this.viewer]}*`;
    }
    return this.grid[row][column] ?? null;
  }

  focus(label) {
    const target = label && this.cells.has(label) ? label : this.focused;
    if (target) {
      this.focusable(target);
      this.cells.get(target).focus();
    }
  }
}

/** The frames of a move's animation: each step of its path applied to the board. */
export function framesOf(model, steps, mover) {
  const frames = [];
  let values = new Map(model.values);
  let stock = model.stock ? [...model.stock] : null;
  let hand = 0;
  let capturing = false;
  steps.forEach(([hole, action], index) => {
    values = new Map(values);
    const count = Number(values.get(hole) ?? 0);
    if (model.family === "othello") {
      values.set(hole, mover === 0 ? "X" : "O");
    } else if (action === "lift") {
      const taken = Math.min(sownAfter(steps, index), count);
      values.set(hole, count - taken);
      hand = taken;
      capturing = false;
    } else if (action === "capture") {
      values.set(hole, 0);
      hand += count;
      capturing = true;
    } else if (action === "store" && capturing) {
      values.set(hole, count + hand);
      hand = 0;
      capturing = false;
    } else {
      values.set(hole, count + 1);
      if (action === "place" && stock) {
        stock = [...stock];
        stock[mover] = Math.max(stock[mover] - 1, 0);
      }
      capturing = capturing && hand > 1;
      hand = Math.max(hand - 1, 0);
    }
    frames.push({ model: { ...model, values, stock }, hole, action, hand });
  });
  return frames;
}

function sownAfter(steps, lift) {
  let sown = 0;
  for (const [, action] of steps.slice(lift + 1)) {
    if (action === "lift" || action === "capture") break;
    if (action === "sow" || action === "store") sown += 1;
  }
  return sown;
}
