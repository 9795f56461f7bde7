// What every page shares: elements built from text (never from HTML), the live status region,
// the seat tokens kept per name, and how games, seats and results read.

/** An element with attributes and children; strings become text nodes, never markup. */
export function el(name, attributes = {}, children = []) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of Array.isArray(children) ? children : [children]) {
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A button that does `action` when pressed (clicked, or Enter or Space on it). */
export function button(text, action) {
  const node = el("button", { type: "button" }, text);
  node.addEventListener("click", action);
  return node;
}

/** Say `text` in the live status region (screen readers read it; everybody sees it). */
export function announce(text) {
  const region = document.getElementById("status");
  if (region) region.textContent = text;
}

export function sidesOf(game) {
  return game === "othello" ? ["Black", "White"] : ["South", "North"];
}

export function describeGame(game, options = {}) {
  const title = game.charAt(0).toUpperCase() + game.slice(1);
  if (game === "othello") return `${title} ${options.size ?? 8}×${options.size ?? 8}`;
  if (game === "bao") return title;
  if (options.pits || options.seeds) return `${title} ${options.pits ?? 6}×${options.seeds ?? 4}`;
  return title;
}

export function seatName(seat) {
  if (!seat || !seat.name) return seat && seat.wants_bot ? "(a bot is wanted)" : "(free seat)";
  if (seat.kind === "bot") return seat.name;
  const guest = seat.account ? "" : " (guest)";
  return `${seat.name}${seat.client === "bot" ? " (bot)" : ""}${guest}`;
}

/** How each result reason reads after "wins" or "Draw", as the terminal says it. */
const REASONS = {
  normal: "at the end of play",
  no_moves: "as the other side cannot move",
  resign: "by resignation",
  timeout: "on time",
  abandoned: "by abandonment",
  ply_limit: "by adjudication at the ply limit",
  repetition: "by adjudication after a repetition",
  engine_failure: "after an engine failure",
  agreement: "by agreement",
  no_show: "as the other entrant did not come",
};

/** Games called off rather than decided: neither a win nor a draw. */
const CALLED_OFF = {
  aborted: "Game aborted",
  cancelled: "Game cancelled by its creator",
  expired: "Game expired: nobody came to play it",
};

export function resultText(result, sides) {
  if ((result.winner === null || result.winner === undefined) && result.reason in CALLED_OFF) {
    return CALLED_OFF[result.reason];
  }
  const why = REASONS[result.reason] ?? `(${result.reason.replace(/_/g, " ")})`;
  const first = result.winner ?? 0;
  const score = result.score ? `, ${result.score[first]}-${result.score[1 - first]}` : "";
  if (result.winner === null || result.winner === undefined) return `Draw ${why}${score}`;
  return `${sides[result.winner]} wins ${why}${score}`;
}

/** Seat tokens, kept per player name in the browser as the terminal keeps them per name. */
export const tokens = {
  all() {
    try {
      return JSON.parse(localStorage.getItem("ubao.tokens") || "{}");
    } catch {
      return {};
    }
  },
  key(name) {
    return name.normalize("NFKC").toLowerCase();
  },
  get(name, gameId) {
    return this.all()[this.key(name)]?.[gameId] ?? null;
  },
  put(name, gameId, seat) {
    const all = this.all();
    all[this.key(name)] = { ...(all[this.key(name)] || {}), [gameId]: seat };
    localStorage.setItem("ubao.tokens", JSON.stringify(all));
  },
  drop(name, gameId) {
    const all = this.all();
    if (all[this.key(name)]) delete all[this.key(name)][gameId];
    localStorage.setItem("ubao.tokens", JSON.stringify(all));
  },
};

/** Account keys, kept per player name in the browser as the terminal keeps them in its keys
 * file: the page says `hello` with the key of the name it plays under. */
export const keys = {
  all() {
    try {
      return JSON.parse(localStorage.getItem("ubao.keys") || "{}");
    } catch {
      return {};
    }
  },
  get(name) {
    return this.all()[tokens.key(name)] ?? null;
  },
  put(name, key) {
    const all = this.all();
    if (key) all[tokens.key(name)] = key;
    else delete all[tokens.key(name)];
    localStorage.setItem("ubao.keys", JSON.stringify(all));
  },
};
