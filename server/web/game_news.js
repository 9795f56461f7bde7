// What the game page says in its live status region: the state after each event (whose turn,
// the result, an offer or a takeback), the analysis' arrival, the position stepped to. Read
// from the page's state (game.js); only the page announces.

import { stepLines } from "./analysis.js";
import { resultText, seatName } from "./common.js";

/** A seat as the page names it: its side and who sits there. */
export function seatLabel(page, seat) {
  return `${page.sides[seat]} (${seatName(page.seats[seat])})`;
}

/** The news once `message` is applied: what it did, then what the game waits for. */
export function newsOf(page, message) {
  const live = page.boards[page.boards.length - 1];
  let text;
  if (page.status === "over" && page.result)
    text = `Game over: ${resultText(page.result, page.sides)}.`;
  else if (page.status === "waiting") text = "Waiting for a player to take the free seat.";
  else if (page.myTurn()) text = `Your turn (${page.sides[page.seat]}).`;
  else if (live.to_move !== null) text = `${seatLabel(page, live.to_move)} to move.`;
  else text = "";
  if (message.type === "moved")
    text = `${page.sides[message.seat]} played ${message.move}. ${text}`;
  if (message.type === "takeback_request") {
    const who = page.sides[message.seat];
    text =
      {
        asked: `${who} asks to take back a move.`,
        accepted: `Move taken back. ${text}`,
        declined: `${who}'s takeback declined.`,
      }[message.state] || text;
  }
  if (message.type === "draw_offer") {
    const who = message.seat === page.seat ? "You offer" : `${page.sides[message.seat]} offers`;
    text =
      message.state === "offered"
        ? `${who} a draw.`
        : `${page.sides[message.seat]}'s draw offer declined. ${text}`;
  }
  if (message.type === "analysis") text = analysisNews(page, message);
  if (message.type === "rematch_offer" && message.state === "offered")
    text = `${page.sides[message.seat]} offers a rematch.`;
  if (message.type === "rematch_offer" && message.state === "declined") text = "Rematch declined.";
  if (page.ratings && message.type === "over") {
    text += " " + page.ratings.map((r) => `${r.player} ${r.before} → ${r.after}`).join(", ") + ".";
  }
  return text;
}

function analysisNews(page, message) {
  if (message.state !== "done") return `The analysis failed: ${message.message ?? ""}`;
  if (!page.analysis) return "The analysis is in a format this page does not know.";
  const figures = page.analysis.sides.map(
    (side, seat) => `${page.sides[seat]} ${Math.round(side.accuracy)}%`,
  );
  return `The computer analysis is here: accuracy ${figures.join(", ")}.`;
}

/** Where the page stands after a step through the moves, and the analysis' verdict there. */
export function stepNews(page) {
  const shown = page.shownPly();
  const where =
    page.viewPly === null
      ? "The latest position."
      : shown === 0
        ? "The first position."
        : `After move ${shown} of ${page.history.length}.`;
  const verdict = page.analysis ? ` ${stepLines(page.analysis, shown)[0]}` : "";
  return where + verdict;
}
