"""The game screen's layout: which prompt_toolkit containers go where, and how big.

The screen is the board with a side panel (players and clocks, the move list, the engine's
report) beside it on a wide terminal (80x24) or under it on a narrow one (60x20); under them
the status lines, the input line and the key line; over them the game-over box and the help.
What folds away on a short terminal is decided by `fold`; a terminal too small for the board
says so (`too_small`) instead of showing a cut board. The texts themselves come from the view
(`GameView`) through `ScreenParts`.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
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
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.widgets import Frame as FrameWidget

from ubao.client.terminal_text import ELLIPSIS

END_WIDTH = 50
"""The game-over box, in columns."""
HELP_WIDTH = 76
"""The help screen at most, in columns."""


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
                    piece = piece[: max(width - column - 1, 0)] + ELLIPSIS
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


TextGetter = Callable[[], StyleAndTextTuples]


@dataclasses.dataclass(frozen=True, slots=True)
class ScreenParts:
    """What the view draws in each part of the layout, each called whenever it is drawn."""

    board: TextGetter
    players: Callable[[int], StyleAndTextTuples]
    """The players' panel, made for the width it is drawn at."""
    moves: TextGetter
    moves_cursor: Callable[[], Point]
    info: TextGetter
    ending: Callable[[], bool]
    """The game-over box is shown."""
    end: TextGetter
    status: TextGetter
    status_height: Callable[[], int]
    prompt: Callable[[], str]
    input_clocks: TextGetter
    keys: TextGetter
    too_small: Callable[[], str | None]
    help: TextGetter
    help_rows: Callable[[], int]
    help_width: Callable[[], int]
    help_title: Callable[[], str]
    helping: Callable[[], bool]


def game_layout(parts: ScreenParts, buffer: Buffer) -> tuple[Layout, Window]:
    """The game screen's layout around the input line's `buffer`, and the help's window (it
    takes the focus while open)."""
    # No least heights: under the board on a short terminal the panel folds away.
    # The players and the engine's report take the rows they fill, no more: the move list
    # gets the rest, rather than scroll while blank rows stay beside it.
    players = Window(FittedControl(parts.players), height=Dimension(max=7), dont_extend_height=True)
    moves = Window(FormattedTextControl(parts.moves, get_cursor_position=parts.moves_cursor))
    # The game-over box would cover the engine's report under the list: it goes with it, and
    # the list reaches down to the box.
    info = ConditionalContainer(
        Window(
            FormattedTextControl(parts.info),
            height=Dimension(max=8),
            wrap_lines=True,
            dont_extend_height=True,
        ),
        filter=~Condition(parts.ending),
    )
    beside = HSplit([players, moves, info], width=Dimension(preferred=40, max=48))
    below = VSplit(
        [
            players,
            rule(),
            HSplit([moves, info]),
        ]
    )
    end = FrameWidget(Window(FormattedTextControl(parts.end)), title="Game over", width=END_WIDTH)
    top = FloatContainer(
        board_and_panel(parts.board, beside, below),
        floats=[
            # Across the screen under the board: the rows it covers are covered whole.
            Float(
                ConditionalContainer(
                    VSplit([Window(char=" "), end, Window(char=" ")]),
                    filter=Condition(parts.ending),
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
            Window(FormattedTextControl(parts.status), height=parts.status_height),
            VSplit(
                [
                    # Scrolled only as far as the cursor needs: back at the start once a
                    # line wider than the terminal is gone, the prompt is in sight again.
                    Window(
                        BufferControl(buffer, input_processors=[BeforeInput(parts.prompt)]),
                        get_horizontal_scroll=lambda window: 0,
                    ),
                    Window(
                        FormattedTextControl(parts.input_clocks),
                        width=lambda: Dimension.exact(text_width(parts.input_clocks())),
                    ),
                ],
                height=1,
            ),
            Window(FormattedTextControl(parts.keys), height=1),
        ]
    )
    help_window, help_float = help_overlay(
        parts.help, parts.help_rows, parts.help_width, parts.help_title, parts.helping
    )
    layout = Layout(
        FloatContainer(fitting(root, parts.too_small), floats=[help_float]),
        focused_element=buffer,
    )
    return layout, help_window


def help_overlay(
    text: TextGetter,
    rows: Callable[[], int],
    width: Callable[[], int],
    title: Callable[[], str],
    showing: Callable[[], bool],
) -> tuple[Window, Float]:
    """The help in a frame over the screen while `showing`: its window (to take the focus)
    and the float that holds it; `rows` inside the frame, `width` with the frame."""
    window = Window(
        FormattedTextControl(text, focusable=True, show_cursor=False),
        height=lambda: Dimension.exact(rows()),
        width=lambda: Dimension.exact(width() - 2),
    )
    return window, Float(ConditionalContainer(FrameWidget(window, title=title), Condition(showing)))
