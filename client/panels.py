"""The words of the game screen's panels and help: the players (clocks, time controls, seats
and their presence), the engine's report, the move list, one step of a move's animation, and
the keys a screen takes."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ubao.client.board import BoardView, Frame
from ubao.client.lag import format_lag
from ubao.client.layout import PANEL_MIN_WIDTH, wrap
from ubao.client.state import GameState, shown_name
from ubao.engine.game import Game
from ubao.engine.games import GAMES
from ubao.protocol import BotInfo, ClockSpec, SeatInfo


def player_keys(cells: str) -> tuple[str, ...]:
    """Every key of a player's screen, with what the board's moves start from (`cells`)."""
    cell = cells.removesuffix("s")
    return (
        f"Enter: play the move typed, or the {cell} under the cursor",
        "Tab: the legal moves (or the answers to a question); Esc closes the list",
        f"arrows: walk the {cells} of the legal moves (the first arrow shows the cursor)",
        "Esc: end the move being animated; cancel a question",
        "^F/^B: animation faster/slower; ^R or resign: resign (asks first); abort: call the"
        " game off before your first move (nobody wins); draw: offer a draw",
        "^T or takeback: ask to take back your last move (and the reply to it): the opponent"
        " answers y or n, a server bot at once",
        "y/n: accept or decline the opponent's takeback request or draw offer, even with a move"
        " half typed",
        "^Q: leave (the seat stays yours: ubao play --join=GAME_ID)",
        "after the end: left/right look back at the moves, r (or rematch) offers a rematch with"
        " seats swapped (y/n answer the opponent's offer), q leaves",
        "after the end: a asks the server for its analysis (marks beside the moves, the"
        " evaluation and the engine's line at the move shown), m/M go to the next/previous"
        " mistake",
    )


SPECTATOR_KEYS = (
    "left/right: step back and forth through the moves; Home: the start; End: back to live",
    "Esc: end the move being animated; ^F/^B: animation faster/slower",
    "q or ^Q: leave",
    "after the end: a asks the server for its analysis, m/M go to the next/previous mistake",
)
HELP_CLOSE = "F1, ? or Esc closes"
HELP_SCROLL = "Up/Down, PgUp/PgDn: scroll"


STEP_VERBS = {
    "lift": "lifts",
    "sow": "sows",
    "store": "stores in",
    "capture": "captures",
    "place": "places at",
    "flip": "turns",
}
"""What each action of `Game.sowing_path` reads as on the status line."""


def describe_step(frame: Frame, mover: str) -> str:
    """One frame of a move's animation in words: "South sows S5, 3 in hand". The sweep at a
    mancala game's end is nobody's doing: "game over: N4 swept up, 10 left", then "game over:
    the 10 left go to N*"."""
    step, hand = frame.step, frame.hand
    if hand.swept:
        return f"game over: {step.hole} swept up, {hand.seeds} left"
    if frame.before.swept:
        seeds = frame.before.seeds
        return f"game over: the {seeds} left go{'es' if seeds == 1 else ''} to {step.hole}"
    text = f"{mover} {STEP_VERBS.get(step.action, step.action)} {step.hole}"
    return text + (f", {hand.seeds} in hand" if hand.seeds else "")


def format_clock(ms: int) -> str:
    """m:ss, with tenths in the last ten seconds when every tenth counts."""
    if ms < 10_000:
        return f"0:{ms / 1000:04.1f}"
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def format_search_report(info: BotInfo, side: str) -> str:
    """A bot's report on the search behind its move, with the score said from its side: a
    number of points, or a forced win or loss in so many plies. Lines break between words to
    fit the narrowest side panel (the screen would break them mid-word)."""
    width = PANEL_MIN_WIDTH - 1
    comment = (
        textwrap.fill(info.comment, width, initial_indent="  ", subsequent_indent="  ")
        if info.comment
        else None
    )
    if info.depth == 0:  # no search to report (a KGP agent's move): its time and words
        return f"{side}: {info.time_ms} ms" + ("" if comment is None else f"\n{comment}")
    if info.mate is None:
        score = f"{info.score:+d} for {side}"
    else:
        plies = abs(info.mate)
        outcome = "wins" if info.mate > 0 else "loses"
        score = f"{side} {outcome} in {plies} {'ply' if plies == 1 else 'plies'}"
    search = f"{info.nodes} nodes, {info.time_ms} ms, pv {' '.join(info.pv)}"
    lines = [
        textwrap.fill(f"{side}: depth {info.depth}, {score}", width, subsequent_indent="  "),
        textwrap.fill(search, width, initial_indent="  ", subsequent_indent="  "),
    ]
    return "\n".join([*lines, comment] if comment is not None else lines)


def format_control(clock: ClockSpec) -> str:
    """A time control as players say it: minutes (or seconds) and the increment, 5+3."""
    initial = clock.initial_ms / 1000
    minutes = f"{initial / 60:g}" if initial >= 60 else f"{initial:g}s"
    return f"{minutes}+{clock.increment_ms / 1000:g}"


def describe_seat(seat: SeatInfo) -> str:
    """Who or what plays a seat, beyond the name: a server bot with its settings, or a seat
    that waits for a player or a bot client."""
    if seat.kind == "bot":
        settings = [f"depth {seat.depth}"] if seat.depth is not None else []
        if seat.time_ms is not None:
            settings.append(f"{seat.time_ms} ms")
        settings += [value for value in (seat.eval, seat.algorithm) if value is not None]
        return "server bot" + (f" ({', '.join(settings)})" if settings else "")
    wanted = "a bot client" if seat.wants_bot else "a player"
    if seat.wants_bot and seat.depth is not None:
        wanted += f" (depth {seat.depth})"
    return f"waiting for {wanted}"


def seat_presence(seat: SeatInfo) -> str:
    """`describe_seat` in short, to read whole beside a clock in the players' panel."""
    if seat.kind == "open" and seat.wants_bot:
        return "wants a bot client" + (f" (depth {seat.depth})" if seat.depth is not None else "")
    return describe_seat(seat)


def players_panel(
    state: GameState,
    now: float,
    *,
    seat: int | None,
    online: bool,
    mine_closed: bool,
    rows: int,
    to_move: int | None,
) -> StyleAndTextTuples:
    """Each seat: who plays it (and whether it is `seat`, ours), then its clock and presence,
    in the `rows` the panel gets: with its title from 5, two lines a seat from 4, else one
    line a seat. `to_move` is the side to move on the board shown; `online` is false while
    our connection is down, and `mine_closed` once it closed for good."""
    text: StyleAndTextTuples = []
    if rows >= 5:
        control = f"  {format_control(state.clock)}" if state.clock is not None else ""
        lag = format_lag(state.rtt_ms if online else None)
        text += [("class:panel.title", "Players"), ("class:label", f"{control}  {lag}\n")]
    labels = state.view.side_labels
    for side in (1, 0):
        player = state.seats[side]
        mover = "> " if side == to_move else "  "
        you = " (you)" if side == seat else ""
        who = [
            ("class:side.name", f"{labels[side]}: {shown_name(player) or 'open seat'}"),
            ("", you),
        ]
        clock = clock_text(state, side, now, online=online)
        if rows >= 4:
            mine = side == seat and not mine_closed
            text += [("class:side.name", mover), *who, ("", "\n    ")]
            text += [*clock, presence(state, side, now, online=online, mine=mine), ("", "\n")]
        else:  # one line: the clock first, so that a narrow panel does not cut it
            text += [("class:side.name", mover), *clock, *who, ("", "\n")]
    return text


def clock_text(state: GameState, side: int, now: float, *, online: bool) -> StyleAndTextTuples:
    """A seat's clock, if the game has one: red with a `!` when low, grey while our
    connection is down (stopped where it was)."""
    remaining = state.remaining_ms(side, now)
    if remaining is None:
        return []
    if not online:
        shown = ("class:label", format_clock(remaining))
    elif state.low_on_time(side, now):
        shown = ("class:clock.low", f"{format_clock(remaining)} !")
    else:
        shown = ("class:side.name", format_clock(remaining))
    return [shown, ("", "  ")]


def presence(
    state: GameState, side: int, now: float, *, online: bool, mine: bool
) -> tuple[str, str]:
    """Who or what plays a seat, or whether its player is here (not known while our own
    connection is down: `mine`, our own seat, is reconnecting)."""
    seat = state.seats[side]
    if seat.kind == "bot" or seat.name is None:
        return ("", seat_presence(seat))
    if not online:
        return ("class:status.error", "reconnecting" if mine else "not known")
    if seat.connected:
        return ("", "bot client, connected" if seat.client == "bot" else "connected")
    if state.over:
        return ("", "left")
    if side in state.away_until:
        # Short, to fit beside a clock in the narrowest panel: the seat is held so long.
        held = max(state.away_until[side] - now, 0.0)
        return ("class:status.error", f"away, {held:.0f} s to return")
    return ("class:status.error", "away")


def move_list(
    history: Sequence[str], movers: Sequence[int], side_names: Sequence[str], mark: int | None
) -> StyleAndTextTuples:
    """One ply a line, with who played it (extra turns make sides irregular); ply `mark` is
    highlighted."""
    text: StyleAndTextTuples = []
    for ply, (move, mover) in enumerate(zip(history, movers, strict=True)):
        style = "class:moves.last" if ply == mark else ""
        text.append((style, f"{ply + 1:>4}. {side_names[mover][0]} {move}\n"))
    return text


def help_lines(state: GameState, seat: int | None, width: int) -> list[tuple[str, str]]:
    """The game screen's help: every key of a spectator's, or of the player's of `seat`."""
    assert state.game is not None, "no snapshot yet"
    keys = SPECTATOR_KEYS if seat is None else player_keys(state.view.cells)
    return game_help(
        state.game, state.game_name, state.view, state.history, keys, seat is None, width
    )


def game_help(
    game: Game[Any, Any],
    game_name: str,
    view: BoardView,
    history: Sequence[str],
    keys: Sequence[str],
    spectator: bool,
    width: int,
) -> list[tuple[str, str]]:
    """A help, line by line with its style, `width` columns at most: the game in short, how
    its moves are written, what its board's marks mean, and the screen's `keys`."""
    start = game.start()
    sample = [game.format_move(start, move) for move in game.legal_moves(start)]
    paragraphs = [
        GAMES[game_name].summary,
        view.help_notation([*sample, *history], spectator=spectator),
        view.help_marks(spectator=spectator),
    ]
    lines: list[tuple[str, str]] = []
    for paragraph in paragraphs:
        lines += [("", line) for line in wrap(paragraph, width).split("\n")]
        lines.append(("", ""))
    lines += [("", line) for key in keys for line in wrap(key, width).split("\n")]
    return lines


def help_page(
    lines: Sequence[tuple[str, str]], top: int, rows: int
) -> tuple[int, StyleAndTextTuples]:
    """The help's `rows` inside its frame from line `top` (kept within its length): the lines
    that fit, and a last line that says how to scroll (when it must) and how to close it."""
    shown = rows - 1
    top = min(max(top, 0), max(len(lines) - shown, 0))
    window = lines[top : top + shown]
    footer = HELP_CLOSE
    if len(lines) > shown:
        footer = f"{HELP_SCROLL} ({top + 1}-{top + len(window)} of {len(lines)})  Esc: close"
    text: StyleAndTextTuples = [(style, line + "\n") for style, line in window]
    return top, [*text, ("class:help", footer)]


def help_scrolled(key: str, top: int, count: int, rows: int) -> int:
    """The help's first line after `key` (up, down, pageup, pagedown, space, home, end), of
    `count` lines shown `rows` at a time (its footer among them)."""
    page = max(rows - 2, 1)
    step = {"up": -1, "down": 1, "pageup": -page, "home": -count, "end": count}.get(key, page)
    return min(max(top + step, 0), max(count - (rows - 1), 0))
