// What the game page says of a game as data: the rules' answers it asks the server for, clock
// and engine texts, and the record it exports (the format `ubao export` writes).

/** The rules' answer for `moves` from `start` (null: the game's first position). */
export async function replay(game, options, start, moves) {
  const query = new URLSearchParams({
    game,
    options: JSON.stringify(options),
    moves: moves.join(" "),
  });
  if (start !== null) query.set("start", start);
  const response = await fetch(`/api/replay?${query}`);
  if (!response.ok) throw new Error(await response.text());
  return response.json();
}

/** Moves asked about at once: a question is a URL, which the server reads up to 8 KiB. */
const MOVES_A_QUESTION = 200;

/** The boards of a whole game: its first position and the one after each of `moves`. */
export async function boardsOf(game, options, moves) {
  const first = await replay(game, options, null, moves.slice(0, MOVES_A_QUESTION));
  const boards = [first.start, ...first.moves.map((move) => move.board)];
  for (let done = MOVES_A_QUESTION; done < moves.length; done += MOVES_A_QUESTION) {
    const start = boards[boards.length - 1].position;
    const next = await replay(game, options, start, moves.slice(done, done + MOVES_A_QUESTION));
    boards.push(...next.moves.map((move) => move.board));
  }
  return boards;
}

export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

export function infoText(info) {
  if (!info) return "";
  const score =
    info.mate != null
      ? `mate in ${Math.abs(info.mate)}`
      : `score ${info.score > 0 ? "+" : ""}${info.score}`;
  const line = info.pv && info.pv.length ? `, line ${info.pv.join(" ")}` : "";
  const comment = info.comment ? `, “${info.comment}”` : "";
  return `depth ${info.depth}, ${score}${line}, ${info.nodes} nodes in ${info.time_ms} ms${comment}`;
}

/** The game as a record: tag pairs, then the numbered moves (each with its analysis glyph, from
 * `marks`, if any) and the result. */
export function recordText(game, options, sides, seats, history, result, marks = []) {
  const tag = (name, value) =>
    `[${name} "${String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
  const outcome = !result ? "*" : (["1-0", "0-1"][result.winner] ?? "1/2-1/2");
  const lines = [
    tag("Game", game),
    tag("Options", JSON.stringify(options)),
    tag(sides[0], seats[0].name ?? "?"),
    tag(sides[1], seats[1].name ?? "?"),
    tag("Result", outcome),
  ];
  const words = [];
  history.forEach((move, index) => {
    if (index % 2 === 0) words.push(`${index / 2 + 1}.`);
    words.push(move + (marks[index] ?? ""));
  });
  words.push(outcome);
  return `${lines.join("\n")}\n\n${words.join(" ")}\n`;
}
