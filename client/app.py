"""The full-screen game screen: board, move entry, players and clocks, move list, engine info.

`GameApp` holds the screen's state and draws everything from it with
`FormattedTextControl(text=callable)`; after every change it calls `invalidate()`. It never
talks to the network: events come in through `on_event`, and moves and resignations go out
through the `Actions` it is given. Playing and watching use the same screen; a spectator (or a
player whose opponent is to move) simply has no legal moves to enter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import re
import shlex
import textwrap
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any, Protocol

from prompt_toolkit.application import Application, create_app_session, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.layout import (
    ConditionalContainer,
    Container,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, UIContent
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.widgets import Frame as FrameWidget

from ubao.client.board import (
    STEP_SECONDS,
    Animation,
    BoardView,
    Frame,
    Marks,
    sowing_frames,
    step_cursor,
)
from ubao.client.connection import Disconnected, ServerError
from ubao.client.entry import Ask, Entry, Reject, Send, hole_entry, resolve
from ubao.client.lag import format_lag
from ubao.client.render import STYLE, render_board
from ubao.client.state import Applied, GameState, called_off, describe_result
from ubao.engine.game import Game
from ubao.engine.games import GAMES
from ubao.protocol import (
    BotInfo,
    ClockSpec,
    ErrorCode,
    Event,
    Moved,
    Over,
    RematchOffer,
    SeatEvent,
    SeatInfo,
    Snapshot,
    TakebackRequest,
)

MIN_STEP, MAX_STEP = 0.02, 2.0
END_WIDTH = 50
"""The game-over box, in columns."""
HELP_WIDTH = 76
"""The help screen at most, in columns."""


def player_keys(cells: str) -> tuple[str, ...]:
    """Every key of a player's screen, with what the board's moves start from (`cells`)."""
    cell = cells.removesuffix("s")
    return (
        f"Enter: play the move typed, or the {cell} under the cursor",
        "Tab: the legal moves (or the answers to a question); Esc closes the list",
        f"arrows: walk the {cells} of the legal moves (the first arrow shows the cursor)",
        "Esc: end the move being animated; cancel a question",
        "^F/^B: animation faster/slower; ^R or resign: resign (asks first)",
        "^T or takeback: ask to take back your last move (and the reply to it): the opponent"
        " answers y or n, a server bot at once",
        "y/n: accept or decline the opponent's takeback request, even with a move half typed",
        "^Q: leave (the seat stays yours: ubao play --join GAME_ID)",
        "after the end: left/right look back at the moves, r (or rematch) offers a rematch with"
        " seats swapped (y/n answer the opponent's offer), q leaves",
    )


COMMANDS = ("resign", "takeback", "rematch", "quit", "exit")
"""The words the input line takes besides moves and answers."""

SPECTATOR_KEYS = (
    "left/right: step back and forth through the moves; Home: the start; End: back to live",
    "Esc: end the move being animated; ^F/^B: animation faster/slower",
    "q or ^Q: leave",
)
HELP_CLOSE = "F1, ? or Esc closes"
SEAT_LOST = "this terminal no longer holds the seat"
"""Why nothing is sent once another terminal took over the seat."""
HELP_SCROLL = "Up/Down, PgUp/PgDn: scroll"
OFFERED_MINE = "rematch offered; waiting for the answer"


def join_command(game_id: str) -> str:
    """The command that takes the open seat of `game_id`, as a shell reads it (`--join=`
    holds for an id that begins with `-`)."""
    return shlex.join(["ubao", "play", f"--join={game_id}"])


def wrap(text: str, width: int) -> str:
    """`text` broken between words to lines of at most `width` columns."""
    return "\n".join(textwrap.wrap(text, max(width, 10)))


def wrap_fragments(text: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Styled `text` broken between words to lines of at most `width` columns (a terminal
    would break them mid-word); each piece keeps its style, spaces at a break are dropped. A
    word may span pieces of several styles, and `NBSP` joins words that must stay on one line
    ("B 5:00", a clock with its side's letter)."""
    width = max(width, 1)
    out: StyleAndTextTuples = []
    column = 0
    gap: tuple[str, str] | None = None
    word: StyleAndTextTuples = []
    """The pieces of the word being read, placed whole once it ends."""

    def place() -> None:
        nonlocal column, gap
        if not word:
            return
        size = sum(get_cwidth(piece) for _, piece, *_ in word)
        spaced = get_cwidth(gap[1]) if gap else 0
        if column and column + spaced + size > width:
            out.append(("", "\n"))
            column, gap = 0, None
        if gap is not None:
            out.append(gap)
            column += spaced
            gap = None
        out.extend(word)
        column += size
        word.clear()

    for style, chunk, *_ in text:
        for piece in re.split(r"(\n| +)", chunk):
            if not piece:
                continue
            if piece == "\n":
                place()
                out.append(("", "\n"))
                column, gap = 0, None
            elif piece.isspace():
                place()
                gap = (style, piece) if column else None
            else:
                word.append((style, piece))
    place()
    return out


NBSP = "\u00a0"
"""A space no line breaks at (`wrap_fragments`); the terminal shows it as a space."""

PANEL_MIN_WIDTH = 30
"""The side panel goes beside the board only if it gets at least this many columns."""


def text_width(text: StyleAndTextTuples) -> int:
    """The widest line of `text`, in columns."""
    return max(map(get_cwidth, fragment_list_to_text(text).split("\n")), default=0)


def rule() -> Window:
    """A vertical rule between two parts of the screen."""
    return Window(width=1, char="|", style="class:label")


def text_height(text: StyleAndTextTuples) -> int:
    """How many lines `text` takes."""
    return len(fragment_list_to_text(text).rstrip("\n").split("\n"))


def line_count(text: StyleAndTextTuples) -> int:
    """How many rows `text` takes, an empty last line among them."""
    return len(fragment_list_to_text(text).split("\n"))


def board_and_panel(
    board: Callable[[], StyleAndTextTuples], beside: Container, below: Container
) -> DynamicContainer:
    """The board first, whole: the side panel goes to its right when the terminal is wide
    enough (`beside`, a column), else under it (`below`, its parts side by side), where it
    gets what height is left or folds away. Beside it, the board's column keeps the widest the
    board has been on this terminal's width (within what leaves the panel its least), so that
    the divider stays put while the title and the side lines grow and shrink (a ply count, a
    watcher's note, Othello's discs, the to-move mark going from one side to the other)."""
    widest = [0, 0]  # the terminal's columns, and the board's widest on them

    def board_width() -> Dimension:
        columns, width = get_app().output.get_size().columns, text_width(board())
        kept = widest[1] if widest[0] == columns else 0
        widest[:] = [columns, min(max(kept, width), max(columns - 1 - PANEL_MIN_WIDTH, width))]
        return Dimension(min=widest[1])

    wide = VSplit([Window(FormattedTextControl(board), width=board_width), rule(), beside])
    narrow = HSplit(
        [
            Window(
                FormattedTextControl(board), height=lambda: Dimension.exact(text_height(board()))
            ),
            below,
        ]
    )

    def pick() -> Container:
        return wide if panel_beside(get_app().output.get_size().columns, board()) else narrow

    return DynamicContainer(pick)


def panel_beside(columns: int, board: StyleAndTextTuples) -> bool:
    """The side panel goes beside `board` (else under it) on a terminal this wide."""
    return columns >= text_width(board) + 1 + PANEL_MIN_WIDTH


def too_small(columns: int, rows: int, board: StyleAndTextTuples, below: int) -> str | None:
    """What to show instead of a screen whose `board` (without its title) and the `below`
    rows it needs at least (status, input, keys) do not fit: the size it needs, never a cut
    board; None when they fit."""
    width, height = text_width(board), text_height(board) + below
    if columns >= width and rows >= height:
        return None
    return (
        f"This board needs a terminal of at least {width}x{height} (columns x rows); this one "
        f"is {columns}x{rows}. Make it larger (or the font smaller); ^Q leaves."
    )


def fitting(screen: Container, why_not: Callable[[], str | None]) -> DynamicContainer:
    """`screen`, or the reason it does not fit (`why_not`) on a terminal too small for it."""

    def said() -> StyleAndTextTuples:
        return [("class:status.error", wrap(why_not() or "", get_app().output.get_size().columns))]

    message = Window(FormattedTextControl(said))
    return DynamicContainer(lambda: screen if why_not() is None else message)


class FittedControl(FormattedTextControl):
    """Formatted text made for the width it is drawn at (`text(width)`), so that its lines
    can be cut to it with an ellipsis (`cut_lines`) rather than lose their end unseen."""

    def __init__(self, text: Callable[[int], StyleAndTextTuples]) -> None:
        self.width = PANEL_MIN_WIDTH
        super().__init__(lambda: text(self.width))

    def create_content(self, width: int, height: int | None) -> UIContent:
        if width != self.width:
            self.width = width
            self._fragment_cache.clear()
        return super().create_content(width, height)


def cut_lines(text: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """`text` with every line longer than `width` columns cut, the cut marked with `…`."""
    out: StyleAndTextTuples = []
    column = 0
    """Columns used on the line so far; past `width` once the line was cut."""
    for style, chunk, *_ in text:
        for piece in re.split(r"(\n)", chunk):
            if piece == "\n":
                out.append((style, piece))
                column = 0
            elif piece and column <= width:
                if column + get_cwidth(piece) > width:
                    piece = piece[: max(width - column - 1, 0)] + "\u2026"
                    column = width + 1
                else:
                    column += get_cwidth(piece)
                out.append((style, piece))
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class Fit:
    """What the screen's optional rows show on a terminal of so many rows."""

    title: bool = True
    """The board's title line (game, id, ply)."""
    feedback: bool = True
    """The feedback line, kept even when empty unless its row is needed."""
    clocks_in_status: bool = False
    """The clocks ride on the status line: the panel under the board has no row a seat."""
    clocks_by_input: bool = False
    """The clocks go to the end of the input line instead: on the status line they would
    need a row that is not there (a long status line, Othello 10x10 at 60x16)."""
    panel_rows: int | None = None
    """The rows the panel gets under the board; None when it goes beside it."""


def fold(
    rows: int,
    board: int,
    status: int,
    *,
    beside: bool,
    empty_feedback: bool,
    clock_rows: int | None,
) -> Fit:
    """What to fold away so that the board (`board` rows without its title), the status lines
    (`status` rows, the feedback line among them), the input and the key lines fit in `rows`:
    first the panel under the board, then an empty feedback line, then the board's title,
    then the feedback line's own row (a message then takes the key line's place). With a
    clock (`clock_rows`: what carrying the clocks adds to the status lines), a panel under the
    board too short for a line a seat hands the clocks to the status line, so that both stay
    in sight; where they would cost a row that a message needs or that is not there, they
    go to the end of the input line. `too_small` says when even the rest does not fit."""
    room = rows - (board + status - 1 + 2)
    """Rows left after those that always stay: the board, the status lines but the feedback
    line, the input and the key lines."""
    in_status = not beside and clock_rows is not None and room - 2 < 2
    clocks = clock_rows if in_status and clock_rows is not None else 0
    by_input = clocks > 0 and clocks > room - (0 if empty_feedback else 1)
    room -= 0 if by_input else clocks
    feedback = room >= (2 if empty_feedback else 1)
    room -= 1 if feedback else 0
    title = room >= 1
    room -= 1 if title else 0
    return Fit(
        title, feedback, in_status and not by_input, by_input, None if beside else max(room, 0)
    )


class Actions(Protocol):
    """What the screen asks of the network side; both raise ServerError or Disconnected."""

    async def move(self, ply: int, move: str) -> None: ...

    async def resign(self) -> None: ...

    async def takeback(self, ply: int) -> None: ...

    async def answer_takeback(self, ply: int, accept: bool) -> None: ...

    async def rematch(self) -> None: ...

    async def answer_rematch(self, accept: bool) -> None: ...


STEP_VERBS = {
    "lift": "lifts",
    "sow": "sows",
    "store": "stores in",
    "capture": "captures",
    "place": "places at",
    "flip": "turns",
}
"""What each action of `Game.sowing_path` reads as on the status line."""


def describe_step(frame: Frame) -> str:
    """One frame of a move's animation in words: "sows S5, 3 in hand"."""
    step = frame.step
    text = f"{STEP_VERBS.get(step.action, step.action)} {step.hole}"
    return text + (f", {frame.hand.seeds} in hand" if frame.hand.seeds else "")


def format_clock(ms: int) -> str:
    """m:ss, with tenths in the last ten seconds when every tenth counts."""
    if ms < 10_000:
        return f"0:{ms / 1000:04.1f}"
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def format_info(info: BotInfo, side: str) -> str:
    """A bot's report on the search behind its move, with the score said from its side: a
    number of points, or a forced win or loss in so many plies. Lines break between words to
    fit the narrowest side panel (the screen would break them mid-word)."""
    if info.mate is None:
        score = f"{info.score:+d} for {side}"
    else:
        plies = abs(info.mate)
        outcome = "wins" if info.mate > 0 else "loses"
        score = f"{side} {outcome} in {plies} {'ply' if plies == 1 else 'plies'}"
    search = f"{info.nodes} nodes, {info.time_ms} ms, pv {' '.join(info.pv)}"
    width = PANEL_MIN_WIDTH - 1
    return "\n".join(
        (
            textwrap.fill(f"{side}: depth {info.depth}, {score}", width, subsequent_indent="  "),
            textwrap.fill(search, width, initial_indent="  ", subsequent_indent="  "),
        )
    )


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


class _MoveCompleter(Completer):
    """Completes the moves (or answers) the screen would accept right now: while typing, or on
    Tab; an empty line offers nothing by itself (else a line just sent would reopen them)."""

    def __init__(self, choices: Callable[[], Iterable[str]]) -> None:
        self.choices = choices

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.text_before_cursor.strip().lower()
        if not word and not complete_event.completion_requested:
            return
        for choice in self.choices():
            if choice.lower().startswith(word):
                yield Completion(choice, start_position=-len(document.text_before_cursor))


class GameApp:
    """The screen of one live game, played from `seat` or watched (seat None)."""

    def __init__(
        self,
        state: GameState,
        *,
        seat: int | None = None,
        actions: Actions | None = None,
        step_seconds: float = STEP_SECONDS,
        on_gap: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        self.state = state
        self.seat = seat
        """The seat this client plays, None while watching (or before the join answered)."""
        self.actions = actions
        self.step_seconds = step_seconds
        self.on_gap = on_gap
        self.clock = clock
        self.message: tuple[str, str] = ("", "")
        """The last feedback line: (style, text)."""
        self.connection = "connecting"
        """The connection's state in words, shown on the status line unless "connected"."""
        self.online = True
        """False while the connection is down (after it was up): the clocks shown stop and
        the players' presence is not known."""
        self.closed = False
        """The connection ended for good (another terminal took over the seat): nothing
        shown is live any more and nothing can be sent."""
        self.unsent: tuple[int, str] | None = None
        """A move (its ply and text) that was on its way when the connection dropped: sent
        again after the resume if it did not arrive and the turn is still ours."""
        self.question: Ask | None = None
        self.confirming_resign = False
        self.showing_help = False
        """F1 or ? shows the game's rules in short, its notation, the marks and the keys."""
        self.help_top = 0
        """The first line of the help shown: it scrolls when the terminal is too short."""
        self.sending = False
        """A move is on its way: entry waits for the answer rather than send a second one."""
        self.cursor: str | None = None
        """The hole the arrow keys are on, remembered from turn to turn."""
        self.cursor_shown = False
        """The cursor shows (and Enter plays its hole) only after an arrow key in this turn,
        so that a stray Enter on a fresh turn plays nothing."""
        self._turn_ply = -1
        """The ply whose turn the cursor belongs to."""
        self.browsing: int | None = None
        """The ply looked back at (left/right, like lichess), None while following the game."""
        self.animation = Animation()
        """The moves being shown hole by hole, in order."""
        self._notes: dict[int, str] = {}
        """What the feedback line says of each move queued behind the one being shown, by
        ply: said when its frames begin."""
        self._declined_at: int | None = None
        """The ply of a takeback request declined by the event just applied: a move at that
        ply, next, is what declined it."""
        self._animation: asyncio.Task[None] | None = None
        self._quitting = False
        self.buffer = Buffer(
            multiline=False,
            completer=_MoveCompleter(self._choices),
            complete_while_typing=True,
            accept_handler=self._accept,
        )
        self.buffer.on_text_changed += self._typed
        self.buffer.on_completions_changed += self._typed
        self.application = self._build(input, output)

    # -- what the screen shows -----------------------------------------------------------------

    @property
    def viewer(self) -> int:
        return self.seat if self.seat is not None else 0

    @property
    def my_turn(self) -> bool:
        return (
            bool(self.state.legal) and not self.state.over and not self.sending and not self.closed
        )

    def side_name(self, side: int) -> str:
        return self.state.view.side_labels[side]

    def legal_holes(self) -> dict[str, list[str]]:
        """Each hole a legal move starts from, with those moves."""
        holes: dict[str, list[str]] = {}
        if self.seat is None or not self.my_turn:
            return holes
        view = self.state.view
        for move in self.state.legal:
            hole = view.move_hole(move, self.seat)
            if hole is not None:
                holes.setdefault(hole, []).append(move)
        return holes

    def board(self) -> tuple[BoardView, Marks]:
        """The board to draw now: a position looked back at, an animation frame, or the
        position with the player's marks."""
        if self.browsing is not None:
            last = self.state.hole_of(self.browsing - 1) if self.browsing else None
            return self.state.view_at(self.browsing), Marks(last=frozenset([last] if last else []))
        frame = self.animation.frame
        if frame is not None:
            return frame.view, Marks(trail=self.animation.trail, active=frame.step.hole)
        last = self.state.last_hole()
        view = self.state.view
        if self.state.over:
            view = dataclasses.replace(view, to_move=None)
        return view, Marks(
            legal=frozenset(self.legal_holes()),
            last=frozenset([last] if last else []),
            cursor=self.cursor if self.my_turn and self.cursor_shown else None,
        )

    def _board_core(self) -> StyleAndTextTuples:
        """The board drawn, without its title line."""
        view, marks = self.board()
        return render_board(view, self.viewer, marks, self.state.names())

    def _board_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return [("", f"waiting for game {self.state.game_id or '(being created)'} ...\n")]
        core = self._board_core()
        if not self._fit(core).title:
            return core
        return [("class:panel.title", self._title() + "\n"), *core]

    def _fit(self, core: StyleAndTextTuples | None = None) -> Fit:
        """What the terminal's rows leave of the optional lines (`fold`); `core` is the board
        without its title, if already drawn."""
        if not self.state.started:
            return Fit()
        size = self.application.output.get_size()
        core = self._board_core() if core is None else core
        beside = panel_beside(size.columns, [("", self._title() + "\n"), *core])
        status = line_count(self._status_lines(clocks=False, feedback=True))
        clock_rows = None
        if self.state.remaining_ms(0, self.clock()) is not None:
            clock_rows = line_count(self._status_lines(clocks=True, feedback=True)) - status
        return fold(
            size.rows,
            text_height(core),
            status,
            beside=beside,
            empty_feedback=not self.message[1],
            clock_rows=clock_rows,
        )

    def _too_small(self) -> str | None:
        """Why the terminal cannot show the board, with the status, input and key lines."""
        if not self.state.started:
            return None
        size = self.application.output.get_size()
        below = line_count(self._status_lines(clocks=False, feedback=False)) + 2
        return too_small(size.columns, size.rows, self._board_core(), below)

    def _title(self) -> str:
        """The game, and the ply the board shows: the one looked back at, the move being
        animated (the game goes on meanwhile: it is said when the board has caught up), or
        the game's."""
        state = self.state
        if self.browsing is not None:
            return f"{state.game_name} {state.game_id}  move {self.browsing} of {state.ply}"
        frame = self.animation.frame
        ply, status = (state.ply, state.status) if frame is None else (frame.ply + 1, "playing")
        title = f"{state.game_name} {state.game_id}  ply {ply}  {status}"
        return title + ("  (watching)" if self.seat is None else "")

    @property
    def settled(self) -> bool:
        """No move is being animated: the board shows the game as it stands."""
        return self.animation.frame is None

    def turn_text(self) -> tuple[str, str]:
        """Who is to move, in words, always on screen; the result once the game is over and
        its last move has been shown (it is the line nothing overwrites)."""
        state = self.state
        if not state.started or (not self.settled and self.browsing is None):
            return ("", "")  # the move being animated says who moves: that is what is shown
        if state.over:
            assert state.result is not None
            if called_off(state.result):
                return ("class:status.turn", self._result_text())
            return ("class:status.turn", "Game over: " + self._result_text())
        if state.status == "waiting":
            if any(seat.wants_bot and seat.name is None for seat in state.seats):
                return ("", "waiting for a bot client: start one with ubao bot --serve --depth N")
            return ("", f"waiting for a player to join: {join_command(state.game_id)}")
        left = state.first_move_left(self.clock()) if self.online else None
        first = "" if left is None else f": {left:.0f} s to play the first move"
        if state.to_move == self.seat and not self.closed:
            return ("class:status.turn", f"Your move ({self.side_name(state.to_move)}){first}")
        return ("", f"{self.who(state.to_move)}, to move{first}")

    def who(self, side: int) -> str:
        """A side and who plays it, as the status line names them: "North, bob" (a side's
        label may have parentheses of its own: "White (O), bob")."""
        return f"{self.side_name(side)}, {self.state.names()[side] or 'open seat'}"

    def _result_text(self) -> str:
        state = self.state
        assert state.result is not None
        return describe_result(
            state.result, state.names(), state.view.side_labels, state.aborted_why
        )

    def _status_text(self) -> StyleAndTextTuples:
        """The status lines as the terminal's rows leave them (`fold`)."""
        fit = self._fit()
        return self._status_lines(clocks=fit.clocks_in_status, feedback=fit.feedback)

    def _status_lines(self, *, clocks: bool, feedback: bool) -> StyleAndTextTuples:
        """Who is to move (or the result), the `clocks` when the panel has no room for them,
        the connection if it is not up, the move being shown; the question; the `feedback`
        line: broken between words to the terminal's width, on as many rows as that takes,
        so that a long question or refusal (a Bao rule's reason) is never cut."""
        text: StyleAndTextTuples = [self.turn_text()]
        if clocks:
            now = self.clock()
            for side in (0, 1):
                text += [("", f"   {self.side_name(side)[0]}{NBSP}"), *self._clock(side, now)[:1]]
        if self.connection != "connected":
            text.append(("class:status.error", f"   [{self.connection}]"))
        frame = self.animation.frame
        if frame is not None and self.browsing is None:
            text.append(("", f"   {self.side_name(frame.mover)} {describe_step(frame)}"))
        question = self._question()
        if question is not None:
            text += [("", "\n"), ("class:status.question", question)]
        if feedback:
            text += [("", "\n"), self.message]
        return wrap_fragments(text, self.application.output.get_size().columns)

    def _input_clocks(self) -> StyleAndTextTuples:
        """The clocks at the end of the input line, when the status line has no row for them
        (`Fit.clocks_by_input`)."""
        if not self.state.started or not self._fit().clocks_by_input:
            return []
        now = self.clock()
        text: StyleAndTextTuples = []
        for side in (0, 1):
            text += [("", f"  {self.side_name(side)[0]} "), *self._clock(side, now)[:1]]
        return text

    def _status_height(self) -> int:
        """The status lines: as many rows as they take."""
        return line_count(self._status_text())

    def _question(self) -> str | None:
        """What the player is asked, on a line of its own above the feedback line."""
        if self.confirming_resign:
            if self.state.status == "waiting":  # nobody joined: it is withdrawn (`cancel`)
                return "Cancel this game? y = yes, n or Esc = no"
            return "Resign this game? y = yes, n or Esc = no"
        if self.answering_rematch:
            side = self.side_name(1 - self.viewer)
            return f"{side} offers a rematch, seats swapped: y = accept, n = decline"
        if self.answering_takeback:
            side = self.side_name(1 - self.viewer)
            # Asked on their own turn, it takes back this player's reply too: say so.
            movers = self.state.movers
            reply = " and your reply" if movers and movers[-1] != self.state.takeback else ""
            return f"{side} asks to take back their move{reply}: y = accept, n = decline"
        if self.question is not None:
            return self.question.question
        if self.browsing is not None:
            return (
                f"Looking at move {self.browsing} of {len(self.state.history)}: "
                "left/right step, End back to live"
            )
        return None

    def _players_text(self, width: int | None = None) -> StyleAndTextTuples:
        """Each seat: who plays it (and whether it is us), then its clock and presence, each
        line cut to the panel's `width` (if known) with `…`. Under the board on a short
        terminal it takes fewer rows rather than lose a clock: first without its title, then
        one line a seat."""
        lines = self._players_lines()
        return lines if width is None else cut_lines(lines, width)

    def _players_lines(self) -> StyleAndTextTuples:
        state = self.state
        if not state.started:
            return []
        now = self.clock()
        rows = self._panel_rows()
        rows = 5 if rows is None else rows
        text: StyleAndTextTuples = []
        if rows >= 5:
            control = f"  {format_control(state.clock)}" if state.clock is not None else ""
            lag = format_lag(state.rtt_ms if self.online else None)
            text += [("class:panel.title", "Players"), ("class:label", f"{control}  {lag}\n")]
        to_move = self.shown_to_move()
        for side in (1, 0):
            seat = state.seats[side]
            mover = "> " if side == to_move else "  "
            you = " (you)" if side == self.seat else ""
            who = [
                ("class:side.name", f"{self.side_name(side)}: {seat.name or 'open seat'}"),
                ("", you),
            ]
            clock = self._clock(side, now)
            if rows >= 4:
                text += [("class:side.name", mover), *who, ("", "\n    ")]
                text += [*clock, self._presence(side, now), ("", "\n")]
            else:  # one line: the clock first, so that a narrow panel does not cut it
                text += [("class:side.name", mover), *clock, *who, ("", "\n")]
        return text

    def _clock(self, side: int, now: float) -> StyleAndTextTuples:
        """A seat's clock, if the game has one: red with a `!` when low, grey while our
        connection is down (stopped where it was)."""
        remaining = self.state.remaining_ms(side, now)
        if remaining is None:
            return []
        if not self.online:
            shown = ("class:label", format_clock(remaining))
        elif self.state.low_on_time(side, now):
            shown = ("class:clock.low", f"{format_clock(remaining)} !")
        else:
            shown = ("class:side.name", format_clock(remaining))
        return [shown, ("", "  ")]

    def shown_to_move(self) -> int | None:
        """The side to move on the board shown: in the position looked back at, if any; the
        mover of the move being animated; nobody once the game is over."""
        if self.browsing is not None:
            return self.state.view_at(self.browsing).to_move
        if self.animation.frame is not None:
            return self.animation.frame.mover
        return None if self.state.over else self.state.to_move

    def _panel_rows(self) -> int | None:
        """The rows the side panel gets under the board on a narrow terminal; None when it
        goes beside the board."""
        return self._fit().panel_rows

    def _presence(self, side: int, now: float) -> tuple[str, str]:
        """Who or what plays a seat, or whether its player is here (not known while our own
        connection is down)."""
        seat = self.state.seats[side]
        if seat.kind == "bot" or seat.name is None:
            return ("", seat_presence(seat))
        if not self.online:
            mine = side == self.seat and not self.closed
            return ("class:status.error", "reconnecting" if mine else "not known")
        if seat.connected:
            return ("", "bot client, connected" if seat.client == "bot" else "connected")
        if self.state.over:
            return ("", "left")
        if side in self.state.away_until:
            # Short, to fit beside a clock in the narrowest panel: the seat is held so long.
            held = max(self.state.away_until[side] - now, 0.0)
            return ("class:status.error", f"away, {held:.0f} s to return")
        return ("class:status.error", "away")

    def _moves_text(self) -> StyleAndTextTuples:
        if not self.state.started:
            return []
        names = self.state.view.side_labels
        return [
            ("class:panel.title", "Moves\n"),
            *move_list(self.state.history, self.state.movers, names, self.shown_ply - 1),
            ("", "\n" * self._end_rows()),
        ]

    def _moves_cursor(self) -> Point:
        """Keeps the move list scrolled to the move shown, and above the game-over box."""
        return Point(0, self.shown_ply + self._end_rows())

    def _end_rows(self) -> int:
        """The rows the game-over box covers at the bottom of the screen's top part (0 while
        it is not shown): the move list, the panel's last part then, leaves them blank, so that
        its end stays in sight."""
        if not self.ending():
            return 0
        return text_height(self._end_text()) + 2

    def ending(self) -> bool:
        """The game-over box is shown."""
        return self.state.over and self.browsing is None and self.settled and self._end_fits()

    def _info_text(self) -> StyleAndTextTuples:
        if not self.state.info:
            return []
        text: StyleAndTextTuples = [("class:panel.title", "Engine")]
        for seat, info in sorted(self.state.info.items()):  # no blank row at the panel's foot
            text.append(("", "\n" + format_info(info, self.side_name(seat))))
        return text

    def _end_text(self) -> StyleAndTextTuples:
        keys = "left/right: look back at the moves   q: leave"
        if self.rematch_offered:
            keys = "left/right: moves   r: rematch   q: leave"
        return [("class:end", wrap(self._result_text(), END_WIDTH - 4) + "\n"), ("", keys)]

    def _end_fits(self) -> bool:
        """The game-over box goes under the board, across the screen, where it covers no
        part of the board; where there is no room for it the status line says it all."""
        size = self.application.output.get_size()
        area = size.rows - self._status_height() - 2
        return area - text_height(self._board_text()) >= text_height(self._end_text()) + 2

    def _prompt(self) -> str:
        if self.confirming_resign:
            return "resign? "
        if self.question is not None:
            return "answer> "
        return "move> " if self.seat is not None and not self.state.over else "> "

    def _help_text(self) -> StyleAndTextTuples:
        """The keys that matter now, in one short line (F1 has them all); while the legal
        moves are offered, they take this line instead of covering the screen."""
        complete = self.buffer.complete_state
        if complete is not None:
            # Enter plays only a move picked from the list: say which key does what now.
            picked = complete.complete_index is not None
            text: StyleAndTextTuples = [
                ("class:help", "Enter plays, Tab: next: " if picked else "Tab picks: ")
            ]
            for index, completion in enumerate(complete.completions):
                chosen = index == complete.complete_index
                text.append(("class:completion.current" if chosen else "", completion.text))
                text.append(("", " "))
            return text
        typed = self.buffer.text.strip()
        if self.my_turn and self.question is None and typed in self.state.legal:
            # One legal move: Tab filled it in without a list to pick from.
            return [("class:help", "Enter plays "), ("class:completion.current", typed)]
        if self.message[1] and not self._fit().feedback:
            # No row for the feedback line: what it says is news, the keys are in F1's help.
            return cut_lines([self.message], self.application.output.get_size().columns)
        if not self.state.started:
            keys = "^Q: leave"  # nothing else does anything yet, whoever is connecting
        elif self.rematch_offered:
            keys = "F1: help  left/right: moves  r: rematch  q: leave"
        elif self.state.over:
            keys = "F1: help  left/right: moves  q: leave"
        elif self.seat is None:
            keys = "F1: help  left/right: moves  End: live  Esc: skip  q: leave"
        elif self.state.status == "waiting":
            keys = "F1: help  ^Q: leave"  # no moves yet: the status line says who to invite
        else:
            cells = self.state.view.cells
            keys = f"F1: help  Tab: moves  arrows: {cells}  ^R: resign  ^Q: leave"
        return [("class:help", keys)]

    def _help_lines(self) -> list[tuple[str, str]]:
        """The help, line by line with its style: the game in short, how its moves are
        written, what its board's marks mean, and every key (a spectator's or a player's)."""
        width = self._help_width() - 4
        state = self.state
        view = state.view
        game = _game(state)
        start = game.start()
        sample = [game.format_move(start, move) for move in game.legal_moves(start)]
        keys = SPECTATOR_KEYS if self.seat is None else player_keys(view.cells)
        watching = self.seat is None
        paragraphs = [
            GAMES[state.game_name].summary,
            view.help_notation(sample + state.history, spectator=watching),
            view.help_marks(spectator=watching),
        ]
        lines: list[tuple[str, str]] = []
        for paragraph in paragraphs:
            lines += [("", line) for line in wrap(paragraph, width).split("\n")]
            lines.append(("", ""))
        lines += [("", line) for key in keys for line in wrap(key, width).split("\n")]
        return lines

    def _help_width(self) -> int:
        return min(HELP_WIDTH, self.application.output.get_size().columns)

    def _help_rows(self) -> int:
        """The help's rows inside its frame: all its lines, or as many as the screen holds."""
        rows = self.application.output.get_size().rows - 2
        return max(min(len(self._help_lines()) + 1, rows), 1)

    def _help_screen(self) -> StyleAndTextTuples:
        """The lines of the help that fit, from `help_top`, and a last line that says how to
        scroll (when it must) and how to close it."""
        lines = self._help_lines()
        shown = self._help_rows() - 1
        self.help_top = min(max(self.help_top, 0), max(len(lines) - shown, 0))
        window = lines[self.help_top : self.help_top + shown]
        footer = HELP_CLOSE
        if len(lines) > shown:
            last = self.help_top + len(window)
            footer = f"{HELP_SCROLL} ({self.help_top + 1}-{last} of {len(lines)})  Esc: close"
        text: StyleAndTextTuples = [(style, line + "\n") for style, line in window]
        return [*text, ("class:help", footer)]

    def scroll_help(self, lines: int) -> None:
        """Scroll the help down by `lines` (up if negative), within its length."""
        bottom = max(len(self._help_lines()) - (self._help_rows() - 1), 0)
        self.help_top = min(max(self.help_top + lines, 0), bottom)
        self.invalidate()

    # -- layout and keys -----------------------------------------------------------------------

    def _build(self, input: Input | None, output: Output | None) -> Application[None]:
        # No least heights: under the board on a short terminal the panel folds away.
        # The players and the engine's report take the rows they fill, no more: the move list
        # gets the rest, rather than scroll while blank rows stay beside it.
        players = Window(
            FittedControl(self._players_text), height=Dimension(max=7), dont_extend_height=True
        )
        moves = Window(
            FormattedTextControl(self._moves_text, get_cursor_position=self._moves_cursor)
        )
        # The game-over box would cover the engine's report under the list: it goes with it, and
        # the list reaches down to the box.
        info = ConditionalContainer(
            Window(
                FormattedTextControl(self._info_text),
                height=Dimension(max=8),
                wrap_lines=True,
                dont_extend_height=True,
            ),
            filter=~Condition(self.ending),
        )
        beside = HSplit([players, moves, info], width=Dimension(preferred=40, max=48))
        below = VSplit(
            [
                players,
                rule(),
                HSplit([moves, info]),
            ]
        )
        end = FrameWidget(
            Window(FormattedTextControl(self._end_text)), title="Game over", width=END_WIDTH
        )
        top = FloatContainer(
            board_and_panel(self._board_text, beside, below),
            floats=[
                # Across the screen under the board: the rows it covers are covered whole.
                Float(
                    ConditionalContainer(
                        VSplit([Window(char=" "), end, Window(char=" ")]),
                        filter=Condition(self.ending),
                    ),
                    left=0,
                    right=0,
                    bottom=0,
                )
            ],
        )
        root = HSplit(
            [
                top,
                Window(FormattedTextControl(self._status_text), height=self._status_height),
                VSplit(
                    [
                        Window(
                            BufferControl(self.buffer, input_processors=[BeforeInput(self._prompt)])
                        ),
                        Window(
                            FormattedTextControl(self._input_clocks),
                            width=lambda: Dimension.exact(text_width(self._input_clocks())),
                        ),
                    ],
                    height=1,
                ),
                Window(FormattedTextControl(self._help_text), height=1),
            ]
        )
        self._help_window = Window(
            FormattedTextControl(self._help_screen, focusable=True, show_cursor=False),
            height=lambda: Dimension.exact(self._help_rows()),
            width=lambda: Dimension.exact(self._help_width() - 2),
        )
        layout = Layout(
            FloatContainer(
                fitting(root, self._too_small),
                floats=[
                    Float(
                        ConditionalContainer(
                            FrameWidget(
                                self._help_window, title=lambda: f"Help: {self.state.game_name}"
                            ),
                            filter=Condition(lambda: self.showing_help),
                        )
                    ),
                ],
            ),
            focused_element=self.buffer,
        )
        return Application(
            layout=layout,
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            refresh_interval=0.5,
            input=input,
            output=output,
        )

    def _keys(self) -> KeyBindingsBase:
        """The screen's keys; while the help is open, only the help's."""
        helping = Condition(lambda: self.showing_help)
        return merge_key_bindings(
            [ConditionalKeyBindings(self._game_keys(), ~helping), self._help_keys(helping)]
        )

    def _help_keys(self, helping: Filter) -> KeyBindings:
        """Scroll the help, close it, or leave; every other key does nothing."""
        keys = KeyBindings()

        @keys.add("escape", eager=True, filter=helping)
        @keys.add("f1", filter=helping)
        @keys.add("?", filter=helping)
        @keys.add("q", filter=helping)
        def _close(event: KeyPressEvent) -> None:
            self.toggle_help()

        @keys.add("c-q", filter=helping)
        @keys.add("c-c", filter=helping)
        def _quit(event: KeyPressEvent) -> None:
            self.quit()

        def page() -> int:
            return max(self._help_rows() - 2, 1)

        scrolls: dict[str, Callable[[], int]] = {
            "up": lambda: -1,
            "down": lambda: 1,
            "pageup": lambda: -page(),
            "pagedown": lambda: page(),
            "space": lambda: page(),
            "home": lambda: -len(self._help_lines()),
            "end": lambda: len(self._help_lines()),
        }
        for key, lines in scrolls.items():

            @keys.add(" " if key == "space" else key, filter=helping)
            def _scroll(event: KeyPressEvent, lines: Callable[[], int] = lines) -> None:
                self.scroll_help(lines())

        return keys

    def _game_keys(self) -> KeyBindings:
        keys = KeyBindings()
        selecting = Condition(
            lambda: not self.buffer.text and self.my_turn and self.question is None
        )
        confirming = Condition(lambda: self.confirming_resign)
        over = Condition(lambda: self.state.over)

        @keys.add("c-q")
        @keys.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            self.quit()

        watching = Condition(lambda: self.seat is None)

        @keys.add("q", filter=(over | watching) & Condition(lambda: not self.buffer.text))
        def _leave(event: KeyPressEvent) -> None:
            self.quit()

        @keys.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            self.escape()

        @keys.add("f1")
        @keys.add("?", filter=Condition(lambda: not self.buffer.text))
        def _help(event: KeyPressEvent) -> None:
            self.toggle_help()

        @keys.add("c-f")
        def _faster(event: KeyPressEvent) -> None:
            self.set_speed(self.step_seconds / 2)

        @keys.add("c-b")
        def _slower(event: KeyPressEvent) -> None:
            self.set_speed(self.step_seconds * 2)

        @keys.add("c-r", filter=~over)
        def _resign(event: KeyPressEvent) -> None:
            self.ask_resign()

        @keys.add("y", filter=confirming)
        def _yes(event: KeyPressEvent) -> None:
            self.confirm_resign(True)

        @keys.add("n", filter=confirming)
        def _no(event: KeyPressEvent) -> None:
            self.confirm_resign(False)

        @keys.add("r", filter=over & ~watching & Condition(lambda: not self.buffer.text))
        def _rematch(event: KeyPressEvent) -> None:
            self.offer_rematch()

        @keys.add("c-t", filter=~over)
        def _takeback(event: KeyPressEvent) -> None:
            self.ask_takeback()

        for letter, accept in (("y", True), ("n", False)):

            @keys.add(letter, filter=Condition(functools.partial(self.answers, letter)))
            def _answer(event: KeyPressEvent, accept: bool = accept) -> None:
                self.answer(accept)

        browsable = Condition(
            lambda: (
                (self.seat is None or self.state.over)
                and self.state.started
                and not self.buffer.text
            )
        )

        @keys.add("left", filter=browsable)
        def _back(event: KeyPressEvent) -> None:
            self.browse(self.shown_ply - 1)

        @keys.add("right", filter=browsable)
        def _forward(event: KeyPressEvent) -> None:
            self.browse(self.shown_ply + 1)

        @keys.add("home", filter=browsable)
        def _start(event: KeyPressEvent) -> None:
            self.browse(0)

        @keys.add("end", filter=browsable)
        def _live(event: KeyPressEvent) -> None:
            self.browse(None)

        for key in ("left", "right"):

            @keys.add(key, filter=Condition(functools.partial(self.answers_arrow, key)))
            def _direction(event: KeyPressEvent, key: str = key) -> None:
                answer = self.arrow_answer(key)
                assert answer is not None
                self.enter(answer)

        for key in ("left", "right", "up", "down"):

            @keys.add(key, filter=selecting)
            def _arrow(event: KeyPressEvent, key: str = key) -> None:
                self.move_cursor(key)

        return keys

    # -- actions -------------------------------------------------------------------------------

    def invalidate(self) -> None:
        self.application.invalidate()

    def say(self, text: str, style: str = "") -> None:
        self.message = (style, text)
        self.invalidate()

    def _clear_refusal(self) -> None:
        """The player moved on (types, lists the moves, walks the board): a refusal or error
        about what they did before goes."""
        if self.message[0] == "class:status.error":
            self.say("")

    def _typed(self, buffer: Buffer) -> None:
        """Something typed, or the list of moves opened for what the line holds (not the line
        emptied after Enter, nor a list that comes too late for a line already sent)."""
        listed = buffer.complete_state
        if buffer.text or (
            listed is not None
            and listed.completions
            and listed.original_document.text == buffer.text
        ):
            self._clear_refusal()

    def set_seat(self, seat: int) -> None:
        """The server gave us `seat` (its events may have arrived before its answer did)."""
        self.seat = seat
        self._turn_started()
        self.invalidate()

    def quit(self) -> None:
        """Leave the screen (at once if it is not running yet)."""
        self._quitting = True
        if self.application.is_running:
            self.application.exit()

    def escape(self) -> None:
        """Esc closes the help, else the list of moves, else skips the move being animated,
        else cancels the resign prompt or a question."""
        if self.showing_help:
            self.toggle_help()
        elif self.buffer.complete_state is not None:
            self.buffer.cancel_completion()
        elif self.animation.frame is not None:
            self.animation.skip()
            self.invalidate()
        elif self.confirming_resign:
            self.confirm_resign(False)
        elif self.question is not None:
            self.question = None
            self.say("cancelled")

    @property
    def shown_ply(self) -> int:
        """How many moves the board shows played (the move being animated among them)."""
        if self.browsing is not None:
            return self.browsing
        frame = self.animation.frame
        return len(self.state.history) if frame is None else frame.ply + 1

    def browse(self, ply: int | None) -> None:
        """Look at the board after `ply` moves; None, or the last ply, follows the game."""
        if ply is not None and ply >= len(self.state.history):
            ply = None
        self.browsing = None if ply is None else max(ply, 0)
        self.invalidate()

    def toggle_help(self) -> None:
        """Open the help (it takes the keys: nothing typed reaches the board or the input
        line behind it), or close it."""
        if not self.state.started and not self.showing_help:
            return
        self.showing_help = not self.showing_help
        self.help_top = 0
        if self.application.is_running:
            layout = self.application.layout
            layout.focus(self._help_window if self.showing_help else self.buffer)
        self.invalidate()

    def set_speed(self, seconds: float) -> None:
        self.step_seconds = min(max(seconds, MIN_STEP), MAX_STEP)
        self.say(f"animation: {self.step_seconds:.2f} s per hole")

    def move_cursor(self, key: str) -> None:
        """Walk the legal holes; the first arrow of a turn only shows where the cursor is."""
        self._clear_refusal()
        holes = frozenset(self.legal_holes())
        if self.cursor_shown or self.cursor not in holes:
            self.cursor = step_cursor(self.state.view.grid(self.viewer), holes, self.cursor, key)
        self.cursor_shown = self.cursor is not None
        self.invalidate()

    def ask_resign(self) -> None:
        if self.seat is None:
            self.say("spectators cannot resign", "class:status.error")
            return
        if self.closed:
            self.say(SEAT_LOST, "class:status.error")
            return
        self.confirming_resign = True
        self.say("")  # an earlier "not resigned" is not the answer to this question

    def confirm_resign(self, yes: bool) -> None:
        self.confirming_resign = False
        if not yes:
            self.say("not resigned")
            return
        self.say("resigning ...")
        self._spawn(self._resign())

    @property
    def rematch_offered(self) -> bool:
        """The keys offer `r`: this screen holds a seat and the opponent is there to answer."""
        return self.seat is not None and self.state.can_rematch(self.seat)

    @property
    def answering_rematch(self) -> bool:
        """The opponent's rematch offer waits for this player's answer."""
        offer = self.state.rematch
        return self.seat is not None and offer is not None and offer != self.seat

    def offer_rematch(self) -> None:
        if self.seat is None or not self.state.over:
            self.say("a rematch is offered by a player once the game is over", "class:status.error")
            return
        if self.closed:
            self.say(SEAT_LOST, "class:status.error")
            return
        self.say("offering a rematch ...")
        self._spawn(self._rematch(None))

    def answer_rematch(self, accept: bool) -> None:
        self.say("accepting the rematch ..." if accept else "declining the rematch ...")
        self._spawn(self._rematch(accept))

    async def _rematch(self, accept: bool | None) -> None:
        """Offer (`accept` None) or answer; `rematch_offer` events tell what became of it."""
        assert self.actions is not None
        try:
            if accept is None:
                await self.actions.rematch()
            else:
                await self.actions.answer_rematch(accept)
        except (ServerError, Disconnected) as error:
            self.say(f"rematch failed: {error}", "class:status.error")

    def on_rematch(self, offer: RematchOffer) -> None:
        """An offer made, declined or withdrawn (an accepted one switches games: `switch`)."""
        mine = offer.seat == self.seat
        side = self.side_name(offer.seat)
        self.state.rematch = offer.seat if offer.state == "offered" else None
        if offer.state == "offered":
            self.say(OFFERED_MINE if mine else self._offer_said(side))
        elif offer.state == "declined":
            if mine:
                self.say("rematch declined", "class:status.error")
            elif self.seat is not None:
                self.say("you declined the rematch")
            else:
                self.say(f"{self.side_name(1 - offer.seat)} declined the rematch")
        else:
            self.say(f"{side} withdrew the rematch offer (left)")
        self.invalidate()

    def offer_lapsed(self) -> None:
        """The rematch offer shown is forgotten (a new connection: the server sends again an
        offer that still waits): neither its question nor what was said of it stays."""
        if not self.state.started:
            return
        said = (OFFERED_MINE, *(self._offer_said(self.side_name(side)) for side in (0, 1)))
        if self.message[1] in said:
            self.say("")
        self.invalidate()

    def _offer_said(self, side: str) -> str:
        return f"{side} offers a rematch"

    def switch(self, state: GameState, seat: int | None) -> None:
        """Show the rematch `state` (empty until its snapshot arrives), played from `seat`."""
        self.state, self.seat = state, seat
        self.question, self.confirming_resign = None, False
        self.browsing, self.cursor, self.cursor_shown, self._turn_ply = None, None, False, -1
        self.animation.clear()
        self._notes.clear()
        self.buffer.reset()
        self.say(f"rematch: game {state.game_id}")

    def arrow_answer(self, key: str) -> str | None:
        """At a question whose answers are directions (`L or R`, with nothing typed), the
        answer the arrow `key` gives: Left L, Right R."""
        if self.question is None or self.buffer.text or self.confirming_resign:
            return None
        letter = {"left": "L", "right": "R"}[key]
        answers = {option.answer.upper(): option.answer for option in self.question.options}
        return answers.get(letter)

    def answers_arrow(self, key: str) -> bool:
        return self.arrow_answer(key) is not None

    def answers(self, letter: str) -> bool:
        """`y` or `n` answers the opponent's takeback request or rematch offer, whatever is
        typed, unless it goes on with a move or a command being typed (`resign`)."""
        if not (self.answering_takeback or self.answering_rematch) or self.confirming_resign:
            return False
        if self.closed:
            return False  # typed, to be told that nothing goes any more
        typed = self.buffer.text.strip().lower()
        words = [*self._choices(), *COMMANDS]
        return not typed or not any(word.lower().startswith(typed + letter) for word in words)

    def answer(self, accept: bool) -> None:
        """`y` or `n` to the question pending: the takeback request, or the rematch offer."""
        if self.answering_takeback:
            self.answer_takeback(accept)
        else:
            self.answer_rematch(accept)

    @property
    def answering_takeback(self) -> bool:
        """The opponent's takeback request waits for this player's answer."""
        pending = self.state.takeback
        return self.seat is not None and pending is not None and pending != self.seat

    def ask_takeback(self) -> None:
        if self.seat is None:
            self.say("spectators cannot take moves back", "class:status.error")
        elif self.closed:
            self.say(SEAT_LOST, "class:status.error")
        elif self.seat not in self.state.movers:
            self.say("you have no move to take back", "class:status.error")
        elif self.state.takeback is not None:
            self.say("a takeback request waits for its answer", "class:status.error")
        else:
            self.say("asking to take back your last move ...")
            self._spawn(self._takeback(self.state.ply, None))

    def answer_takeback(self, accept: bool) -> None:
        self.say("accepting the takeback ..." if accept else "declining the takeback ...")
        self._spawn(self._takeback(self.state.ply, accept))

    async def _takeback(self, ply: int, accept: bool | None) -> None:
        """Ask (`accept` None) or answer; the event that follows says what became of it."""
        assert self.actions is not None
        try:
            if accept is None:
                await self.actions.takeback(ply)
            else:
                await self.actions.answer_takeback(ply, accept)
        except (ServerError, Disconnected) as error:
            self.say(f"takeback failed: {error}", "class:status.error")

    def _choices(self) -> Iterable[str]:
        if self.question is not None:
            return [option.answer for option in self.question.options]
        return self.state.legal if self.my_turn else ()

    def _accept(self, buffer: Buffer) -> bool:
        """Enter in the input line: a command, an answer, a typed move, or the cursor's hole."""
        self.enter(buffer.text)
        return False

    def enter(self, text: str) -> None:
        """Handle one line of input (what Enter does with the text typed)."""
        word = text.strip()
        if self.confirming_resign:
            self.confirm_resign(word.lower() in ("y", "yes"))
            return
        if word.lower() in ("quit", "exit") or (word.lower() == "q" and self.seat is None):
            self.quit()
            return
        if self.closed and word and self.seat is not None:
            self.say(SEAT_LOST, "class:status.error")
            return
        if word.lower() == "resign":
            self.ask_resign()
            return
        if word.lower() == "takeback":
            self.ask_takeback()
            return
        if word.lower() == "rematch":
            self.offer_rematch()
            return
        if self.answering_rematch and word.lower() in ("y", "yes", "n", "no"):
            self.answer_rematch(word.lower().startswith("y"))
            return
        if self.answering_takeback and word.lower() in ("y", "yes", "n", "no"):
            self.answer_takeback(word.lower().startswith("y"))
            return
        if self.seat is None:
            self.say("watching: moves cannot be entered", "class:status.error")
            return
        if self.state.over:
            if word:  # a bare Enter says nothing: the result stays the last word
                self.say("the game is over: r offers a rematch, q leaves", "class:status.error")
            return
        if not self.my_turn:
            if self.sending:
                self.say("wait: a move is on its way")
            elif self.state.status == "waiting":
                self.say("the opponent has not joined yet")
            else:
                self.say("it is not your turn")
            return
        state = self.state
        entry: Entry
        if self.question is not None:
            option = self.question.pick(word)
            if option is None:
                answers = " or ".join(choice.answer for choice in self.question.options)
                self.say(f"{word or 'nothing'}: answer {answers}", "class:status.error")
                return
            if option.final:
                entry = Send(option.move)
            else:
                entry = resolve(option.move, state.legal, _game(state), state.position)
        elif not word and self.cursor_shown and self.cursor is not None:
            moves = self.legal_holes().get(self.cursor, [])
            entry = hole_entry(self.cursor, state.legal, _game(state), state.position, moves)
        else:
            entry = resolve(word, state.legal, _game(state), state.position)
        self.question = None
        if isinstance(entry, Reject):
            self.say(entry.message, "class:status.error")
        elif isinstance(entry, Ask):
            self.question = entry
            self.say("")  # a refusal before the question is no longer the point
        else:
            self.send(entry.move)

    def send(self, move: str) -> None:
        """Send `move` for the current ply; input waits until the server answers."""
        self.sending = True
        self.say(f"sending {move} ...")
        self._spawn(self._send(self.state.ply, move))

    async def _send(self, ply: int, move: str) -> None:
        assert self.actions is not None
        try:
            await self.actions.move(ply, move)
        except ServerError as error:
            if error.code == ErrorCode.STALE_PLY and self._arrived(ply, move):
                return  # sent again after a resume, and it had arrived the first time
            self.say(f"{move} refused: {error.message}", "class:status.error")
        except Disconnected:
            if self.closed:
                self.say(f"{move} not sent: {SEAT_LOST}", "class:status.error")
                return
            self.unsent = (ply, move)
            self.say(
                f"{move} not sent: the connection is down; it goes once the connection is "
                "back, unless the server had it",
                "class:status.error",
            )
        else:
            # The `moved` event said "You played ..." already, and the `over` that may have
            # followed it says how the game ended: neither is overwritten by this answer.
            if self.message[1] == f"sending {move} ...":
                self.say("")
        finally:
            self.sending = False
            self.invalidate()

    def _arrived(self, ply: int, move: str) -> bool:
        """The server has our `move` for `ply`."""
        state = self.state
        return ply < len(state.history) and (state.history[ply], state.movers[ply]) == (
            move,
            self.seat,
        )

    def _send_unsent(self) -> None:
        """Back in the game after a reconnection: the move that was on its way when the
        connection dropped is sent again if the server did not get it and it is still ours
        to play at that ply; else the player is told what became of it."""
        if self.unsent is None:
            return
        (ply, move), self.unsent = self.unsent, None
        if self._arrived(ply, move):
            self.say(f"{move} had arrived before the connection dropped")
        elif self.state.ply == ply and move in self.state.legal and self.my_turn:
            self.sending = True
            self.say(f"sending {move} again ...")
            self._spawn(self._send(ply, move))
        else:
            self.say(f"{move} was not played: the game went on meanwhile", "class:status.error")

    def set_connection(self, text: str, up: bool) -> None:
        """The connection's state (`up`, and in words): while it is down the clocks shown stop
        and nobody's presence is known; a word from the server while up is feedback."""
        if up and text != "connected":
            self.say(text, "class:status.error")
            return
        self.connection = text
        if up != self.online:
            self.online = up
            if up:
                self.state.resume_clocks()
            else:
                self.state.pause_clocks(self.clock())
                if self.unsent is None:  # what became of a move in flight stays said
                    self.say("")  # news from before ("North, bob, is here") no longer holds
        self.invalidate()

    def close_for_good(self, reason: str) -> None:
        """The connection ended for good (`reason`: another terminal took over the seat):
        the clocks stop in grey and nobody's presence is known, as on a dropped connection,
        and no move, resignation or request is sent any more."""
        self.closed = True
        self.question, self.confirming_resign = None, False
        self.set_connection(f"closed: {reason}", False)
        self.say(f"connection closed for good: {reason}; ^Q leaves", "class:status.error")

    async def _resign(self) -> None:
        assert self.actions is not None
        try:
            await self.actions.resign()
        except (ServerError, Disconnected) as error:
            self.say(f"resignation failed: {error}", "class:status.error")

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        self.application.create_background_task(coroutine)

    # -- events --------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Apply a server event and show what it changed."""
        before, was_over = self.state.ply, self.state.over
        applied = self.state.apply(event, self.clock())
        if applied is Applied.GAP:
            if self.on_gap is not None:
                self.on_gap()
            return
        if applied is not Applied.APPLIED:
            return  # seen before, or about another game (a rematch's old one)
        declined, self._declined_at = self._declined_at, None
        if self.state.over and not was_over:
            # A move half typed is no move any more: the line is emptied, so that `r` offers
            # a rematch and `q` leaves whatever was typed (as lichess drops its move input).
            self.buffer.reset()
        if isinstance(event, Moved):
            self._moved(event, declined == event.ply)
        elif isinstance(event, Over):
            # The status line's first line gives the result from now on (once the last move
            # has been shown), and nothing overwrites it there.
            self.question, self.confirming_resign = None, False
            self.say("")
        elif isinstance(event, SeatEvent):
            self._seat_changed(event)
        elif isinstance(event, TakebackRequest):
            self._takeback_changed(event, before)
        elif isinstance(event, Snapshot):
            self.animation.clear()
            self._notes.clear()
        self._turn_started()
        # A resume ends with our own seat event (or a snapshot): the game is up to date.
        back = isinstance(event, Snapshot) or (
            isinstance(event, SeatEvent) and event.seat == self.seat and event.connected
        )
        if back:
            self._send_unsent()
        self.invalidate()

    def _moved(self, event: Moved, declined: bool) -> None:
        """A move: said on the feedback line (with the takeback request it declined, whose
        own event came just before it), once its animation starts."""
        who = "You" if event.seat == self.seat else self.side_name(event.seat)
        note = f"{who} played {event.move}" + (" (takeback declined)" if declined else "")
        self.question = None
        if self.start_animation():
            self._notes[event.ply] = note  # said when the board gets to it
        else:
            self.say(note)

    def _seat_changed(self, event: SeatEvent) -> None:
        if event.seat == self.seat and event.connected:
            return  # our own return (after a restart, say): the connection line tells it
        if event.name is None:
            self.say(f"{self.side_name(event.seat)}'s seat is free again")
        elif event.connected:
            if self.message[1].startswith("You played "):
                return  # the panel shows who is here; the player's move is the news
            self.say(f"{self.who(event.seat)}, is here")
        elif self.state.over:
            self.say(f"{self.who(event.seat)}, left")
        else:
            held = f"; {event.grace_ms / 1000:.0f} s to return" if event.grace_ms else ""
            self.say(f"{self.who(event.seat)}, disconnected{held}", "class:status.error")

    def _takeback_changed(self, event: TakebackRequest, before: int) -> None:
        """A takeback asked, declined, or granted (the game was at ply `before`)."""
        mine = event.seat == self.seat
        side = self.side_name(event.seat)
        if event.state == "asked":
            if mine:
                self.say("takeback asked; waiting for the answer")
            elif self.answering_takeback:
                self.say("")  # the question line asks it, with how to answer
            else:
                self.say(f"{side} asks for a takeback")
        elif event.state == "declined":
            self._declined_at = event.ply  # a move that comes next declined it: it says so
            self.say("takeback declined", "class:status.error" if mine else "")
        else:
            self.animation.clear()
            self._notes.clear()
            self.question = None
            self.browse(self.browsing)
            who = "you" if mine else side
            taken = before - event.ply
            moves = "your last move" if mine else "their last move"
            if taken > 1:
                moves += f" and the {taken - 1} after it" if taken > 2 else " and the reply"
            self.say(f"takeback: {moves} taken back, as {who} asked; back at ply {event.ply}")

    def _turn_started(self) -> None:
        """A new ply hides the keyboard cursor until the next arrow key."""
        if self.state.ply != self._turn_ply:
            self._turn_ply, self.cursor_shown = self.state.ply, False

    # -- animation -----------------------------------------------------------------------------

    def start_animation(self) -> bool:
        """Queue the last move's sowing to be shown hole by hole after those before it; True
        when it waits behind a move still being shown (what is said of it waits too)."""
        last = self.state.last
        if last is None or not last.steps or self.step_seconds <= 0:
            return False
        if not self.application.is_running:
            return False
        busy = self.animation.frame is not None
        self.animation.push(sowing_frames(last.before, last.steps, last.seat, last.ply))
        if self._animation is None or self._animation.done():
            self._animation = self.application.create_background_task(self._animate())
        return busy

    async def _animate(self) -> None:
        """Show the queued frames one by one; each stays a step (less with a backlog). When
        the next move's frames begin, the feedback line says that move: the whole screen is
        about the move shown."""
        while (frame := self.animation.frame) is not None:
            await asyncio.sleep(self.animation.delay(self.step_seconds))
            self.animation.advance()
            after = self.animation.frame
            if after is not None and after.ply != frame.ply and after.ply in self._notes:
                self.say(self._notes.pop(after.ply))
            self.invalidate()
        self._notes.clear()

    async def run(self) -> None:
        """Run the screen until the player leaves.

        Its own app session keeps `get_app()` pointing at this screen even when several
        screens run in one event loop (two players in one test).
        """
        app = self.application

        def leave_if_asked() -> None:
            if self._quitting:
                app.exit()

        with create_app_session(input=app.input, output=app.output):
            await app.run_async(pre_run=leave_if_asked)


def _game(state: GameState) -> Game[Any, Any]:
    assert state.game is not None, "no snapshot yet"
    return state.game
