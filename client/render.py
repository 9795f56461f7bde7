"""Board views drawn as prompt_toolkit formatted text, and the style that colours the screens.

The layout, labels and animation frames are `client/board.py`'s; this module only draws them,
so that the terminal library stays out of what the bot client and the tests load.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.styles import Style

from ubao.client.board import COLUMN_LETTERS, BaoView, BoardView, MancalaView, Marks, OthelloView
from ubao.client.terminal_text import cut
from ubao.protocol import escape
from ubao.protocol.messages import MAX_NAME

STYLE = Style.from_dict(
    {
        "hole.legal": "bold ansigreen",
        "hole.last": "underline",
        "hole.trail": "ansiyellow",
        "hole.active": "reverse bold ansiyellow",
        "hole.cursor": "reverse bold",
        "nyumba": "bold",
        "takasia": "ansired",
        "store": "bold",
        "label": "ansibrightblack",
        "side.name": "bold",
        "side.tomove": "bold ansigreen",
        "disc.black": "bold",
        "disc.white": "ansibrightcyan",
        "panel.title": "bold underline",
        "moves.last": "reverse",
        "status.error": "bold ansired",
        "status.question": "bold ansiyellow",
        "status.turn": "bold ansigreen",
        "help": "ansibrightblack",
        "completion.current": "reverse",
        "clock.low": "bold ansired",
        "end": "bold",
    }
)

Names = Sequence[str | None]
"""Who sits in each seat; None for an open seat."""

DISC_GLYPHS = {"X": "X", "O": "O", "-": "."}
DISC_STYLES = {"X": " class:disc.black", "O": " class:disc.white"}


def render_board(
    view: BoardView, viewer: int, marks: Marks | None = None, names: Names = (None, None)
) -> StyleAndTextTuples:
    """The board as `viewer` sees it, with each side's name, the mover marked, and `marks`."""
    marks = marks or Marks()
    match view:
        case MancalaView():
            return _mancala(view, viewer, marks, names)
        case BaoView():
            return _bao(view, viewer, marks, names)
        case OthelloView():
            return _othello(view, viewer, marks, names)
    raise TypeError(f"no drawing for {type(view).__name__}")


def _cell_style(label: str, marks: Marks, base: str) -> str:
    """The style classes of one hole: later classes win, so the cursor beats everything."""
    classes = [base]
    if label in marks.last:
        classes.append("class:hole.last")
    if label in marks.trail:
        classes.append("class:hole.trail")
    if label in marks.legal:
        classes.append("class:hole.legal")
    if label == marks.active:
        classes.append("class:hole.active")
    if label == marks.cursor:
        classes.append("class:hole.cursor")
    return " ".join(classes)


def _cell_text(value: str, label: str, marks: Marks, special: bool = False) -> str:
    """Five characters: the value right-aligned in three, framed by markers that survive a
    terminal without colours: [ ] the cursor, ( ) a special hole (the nyumba), > < the hole
    being sown, and ' for a legal start."""
    if label == marks.cursor:
        return f"[{value:>3}]"
    if label == marks.active:
        return f">{value:>3}<"
    if special:
        return f"({value:>3})"
    if label in marks.legal:
        return f" {value:>3}'"
    return f" {value:>3} "


TO_MOVE_MARK = "  <- to move"

SIDE_LINE_WIDTH = 49
"""The widest a side line gets (`_side_line`'s `fit`) beside a board narrower than that: what a
classic 80-column terminal leaves beside the side panel (at least 30 columns, and a gap)."""

MAX_BOARD_WIDTH = 60
"""Every board, at every size its game allows, is drawn at most this wide: a wider layout
(Kalah with 12 pits, Othello 16x16) is drawn compact, with narrower cells."""


def _side_line(
    view: BoardView,
    side: int,
    names: Names,
    fit: int,
    extra: str = "",
    own_line: bool = False,
    count: int | None = None,
) -> StyleAndTextTuples:
    """A line naming a side, its facts (`extra`; on a line of their own with `own_line`) and
    whether it is to move, never wider than `fit` columns, so that it never wraps: the name
    is cut (with an ellipsis) to what fits beside the facts and the to-move mark, whether or
    not the mark shows (so that the panel beside the board does not jump under it when the
    game ends); facts on their own line are cut too. Facts that are a `count` (Othello's
    discs) go beside the label as that number rather than cut the name."""
    name = (names[side] if side < len(names) else None) or "open seat"
    label = f"{view.side_labels[side]}: "
    beside = f"  {extra}" if extra and not own_line else ""
    if count is not None and len(label + name + beside + TO_MOVE_MARK) > fit:
        # Othello's discs, in short beside the side's label rather than cut the name.
        label, beside = f"{view.side_labels[side]} {count}: ", ""
    most = min(MAX_NAME, max(fit - len(label) - len(beside) - len(TO_MOVE_MARK), 8))
    # Names come from any record file and any server: shown escaped, whoever checked.
    line: StyleAndTextTuples = [("class:side", label), ("class:side.name", escape(name, most))]
    if beside:
        line.append(("class:side.extra", beside))
    if side == view.to_move:
        line.append(("class:side.tomove", TO_MOVE_MARK))
    line.append(("", "\n"))
    if extra and own_line:
        line.append(("class:side.extra", cut(f"  {extra}", fit) + "\n"))
    return line


def _header(labels: Sequence[str], indent: int) -> StyleAndTextTuples:
    return [("class:label", " " * indent + "".join(f" {label:>3} " for label in labels) + "\n")]


def _row(
    view: BoardView,
    labels: Sequence[str],
    marks: Marks,
    prefix: str,
    special: frozenset[str] = frozenset(),
    blocked: frozenset[str] = frozenset(),
) -> StyleAndTextTuples:
    """One row of holes; `special` holes (the nyumba) are framed, `blocked` (takasia) styled."""
    row: StyleAndTextTuples = [("class:label", prefix)]
    for label in labels:
        base = "class:hole"
        if label in special:
            base += " class:nyumba"
        if label in blocked:
            base += " class:takasia"
        text = _cell_text(str(view.values[label]), label, marks, label in special)
        row.append((_cell_style(label, marks, base), text))
    return row


def _mancala_width(pits: int) -> int:
    """The columns of the roomy mancala layout: the store row is its widest line."""
    return 5 * pits + 14


def _mancala(view: MancalaView, viewer: int, marks: Marks, names: Names) -> StyleAndTextTuples:
    """Two rows of pits between the stores; with more pits than fit `MAX_BOARD_WIDTH` in
    five-column cells, in four-column ones (`_compact_cell`), the stores' labels closer."""
    far, near = 1 - viewer, viewer
    far_row, near_row = view.grid(viewer)
    compact = _mancala_width(view.pits) > MAX_BOARD_WIDTH
    indent = 5 if compact else 7
    cell = 4 if compact else 5
    far_store, near_store = view.store(far), view.store(near)

    def header(labels: Sequence[str]) -> StyleAndTextTuples:
        if not compact:
            return _header(labels, indent)
        return [("class:label", " " * indent + "".join(f"{label:>3} " for label in labels) + "\n")]

    def row(labels: Sequence[str]) -> StyleAndTextTuples:
        if not compact:
            return _row(view, labels, marks, " " * indent)
        text: StyleAndTextTuples = [("class:label", " " * indent)]
        for label in labels:
            style = _cell_style(label, marks, "class:hole")
            text.append((style, _compact_cell(str(view.values[label]), label, marks)))
        return text

    text: StyleAndTextTuples = []
    text += _side_line(view, far, names, MAX_BOARD_WIDTH)
    text += header(far_row)
    text += row(far_row)
    text.append(("", "\n"))
    if compact:
        text.append(("class:label", far_store))
        text.append((_cell_style(far_store, marks, "class:store"), f"{view.values[far_store]:>3}"))
        text.append(("", " " * (cell * view.pits)))
    else:
        text.append(("class:label", f" {far_store:>3}  "))
        text.append((_cell_style(far_store, marks, "class:store"), f"{view.values[far_store]:>2}"))
        text.append(("", " " * (5 * view.pits - 1)))
    text.append((_cell_style(near_store, marks, "class:store"), f"{view.values[near_store]:>3}"))
    text.append(("class:label", f"{' ' if compact else '  '}{near_store}\n"))
    text += row(near_row)
    text.append(("", "\n"))
    text += header(near_row)
    text += _side_line(view, near, names, MAX_BOARD_WIDTH)
    return text


def _compact_cell(value: str, label: str, marks: Marks) -> str:
    """Four characters: as `_cell_text`, the value right-aligned in two between its markers;
    a value of three digits keeps only the marker after it (its colour says the rest)."""
    if label == marks.cursor:
        left, right = "[", "]"
    elif label == marks.active:
        left, right = ">", "<"
    elif label in marks.legal:
        left, right = " ", "'"
    else:
        left, right = " ", " "
    return f"{left}{value:>2}{right}" if len(value) < 3 else f"{value:>3}{right}"


def _bao_facts(view: BaoView, side: int) -> str:
    """A side's stock, nyumba and takasia, after its name."""
    facts = f"stock {view.stock[side]}  {view.nyumba_status(side)}"
    if view.takasia and view.takasia[0] == side:
        facts += f"  takasia: may not start from {view.takasia[1]}"
    if view.hand and view.hand_holder == side:
        facts += f"  in hand {view.hand}"
    return facts


def _bao(view: BaoView, viewer: int, marks: Marks, names: Names) -> StyleAndTextTuples:
    far, near = 1 - viewer, viewer
    blocked = frozenset([view.takasia[1]] if view.takasia else [])
    text: StyleAndTextTuples = []
    fit = MAX_BOARD_WIDTH
    text += _side_line(view, far, names, fit, _bao_facts(view, far), own_line=True)
    text += _header([str(n) for n in range(8, 0, -1)], 3)
    prefixes = ("b", "a", "A", "B") if near == 0 else ("B", "A", "a", "b")
    for prefix, labels in zip(prefixes, view.grid(viewer), strict=True):
        text += _row(view, labels, marks, f" {prefix} ", view.nyumbas(), blocked)
        text.append(("", "\n"))
    text += _header([str(n) for n in range(1, 9)], 3)
    text += _side_line(view, near, names, fit, _bao_facts(view, near), own_line=True)
    return text


def _othello(view: OthelloView, viewer: int, marks: Marks, names: Names) -> StyleAndTextTuples:
    """The grid, four columns a square; where that is wider than `MAX_BOARD_WIDTH` (16x16),
    three, with no gap between squares."""
    compact = 4 + 4 * view.size > MAX_BOARD_WIDTH
    label_width, gap = (3, "") if compact else (4, " ")
    width = label_width + (3 + len(gap)) * view.size
    fit = max(width, SIDE_LINE_WIDTH)
    text: StyleAndTextTuples = []
    text += _side_line(view, 1, names, fit, f"discs {view.discs(1)}", count=view.discs(1))
    columns = gap.join(f" {c} " for c in COLUMN_LETTERS[: view.size])
    text.append(("class:label", " " * label_width + columns + "\n"))
    for r, labels in enumerate(view.grid(viewer)):
        text.append(("class:label", f"{r + 1:>{label_width - 1}} "))
        for label in labels:
            letter = str(view.values[label])
            glyph = DISC_GLYPHS[letter]
            if label in marks.legal and letter == "-":
                glyph = "+"
            style = _cell_style(label, marks, "class:hole" + DISC_STYLES.get(letter, ""))
            if label == marks.cursor:
                cell = f"[{glyph}]"
            elif label == marks.active:
                cell = f">{glyph}<"
            else:
                cell = f" {glyph} "
            text.append((style, cell))
            if gap:
                text.append(("", gap))
        text.append(("", "\n"))
    text += _side_line(view, 0, names, fit, f"discs {view.discs(0)}", count=view.discs(0))
    return text
