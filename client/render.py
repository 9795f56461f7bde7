"""Board views drawn as prompt_toolkit formatted text, and the style that colours the screens.

The layout, labels and animation frames are `client/board.py`'s; this module only draws them,
so that the terminal library stays out of what the bot client and the tests load.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.styles import Style

from ubao.client.board import COLUMNS, BaoView, BoardView, MancalaView, Marks, OthelloView
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


TO_MOVE = "  <- to move"

SIDE_LINE_WIDTH = 49
"""The widest a side line gets (`_side_line`'s `fit`) beside a board narrower than that: what a
classic 80-column terminal leaves beside the side panel (at least 30 columns, and a gap)."""


def _side_line(
    view: BoardView,
    side: int,
    names: Names,
    extra: str = "",
    own_line: bool = False,
    fit: int | None = None,
) -> StyleAndTextTuples:
    """A line naming a side, its facts (`extra`; on a line of their own if long, so that the
    board stays narrow) and whether it is to move. With `fit` (the width to keep to), the name is
    cut to what fits beside the to-move mark, whether or not it shows (so that the panel beside
    the board does not jump under it when the game ends), and the facts go on their own line
    if they do not fit too."""
    name = (names[side] if side < len(names) else None) or "open seat"
    label = f"{view.side_labels[side]}: "
    most = MAX_NAME if fit is None else max(fit - len(label) - len(TO_MOVE), 8)
    # Names come from any record file and any server: shown escaped, whoever checked.
    shown = escape(name, most)
    if fit is not None and extra:
        own_line = len(label) + len(shown) + len(extra) + 2 + len(TO_MOVE) > fit
    line: StyleAndTextTuples = [("class:side", label), ("class:side.name", shown)]
    if extra and not own_line:
        line.append(("class:side.extra", f"  {extra}"))
    if side == view.to_move:
        line.append(("class:side.tomove", TO_MOVE))
    line.append(("", "\n"))
    if extra and own_line:
        line.append(("class:side.extra", f"  {extra}\n"))
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


def _mancala(view: MancalaView, viewer: int, marks: Marks, names: Names) -> StyleAndTextTuples:
    far, near = 1 - viewer, viewer
    far_row, near_row = view.grid(viewer)
    indent = 7
    text: StyleAndTextTuples = []
    text += _side_line(view, far, names)
    text += _header(far_row, indent)
    text += _row(view, far_row, marks, " " * indent)
    text.append(("", "\n"))
    far_store, near_store = view.store(far), view.store(near)
    text.append(("class:label", f" {far_store:>3}  "))
    text.append((_cell_style(far_store, marks, "class:store"), f"{view.values[far_store]:>2}"))
    text.append(("", " " * (5 * view.pits - 1)))
    text.append((_cell_style(near_store, marks, "class:store"), f"{view.values[near_store]:>3}"))
    text.append(("class:label", f"  {near_store}\n"))
    text += _row(view, near_row, marks, " " * indent)
    text.append(("", "\n"))
    text += _header(near_row, indent)
    text += _side_line(view, near, names)
    return text


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
    text += _side_line(view, far, names, _bao_facts(view, far), own_line=True)
    text += _header([str(n) for n in range(8, 0, -1)], 3)
    prefixes = ("b", "a", "A", "B") if near == 0 else ("B", "A", "a", "b")
    for prefix, labels in zip(prefixes, view.grid(viewer), strict=True):
        text += _row(view, labels, marks, f" {prefix} ", view.nyumbas(), blocked)
        text.append(("", "\n"))
    text += _header([str(n) for n in range(1, 9)], 3)
    text += _side_line(view, near, names, _bao_facts(view, near), own_line=True)
    return text


def _othello(view: OthelloView, viewer: int, marks: Marks, names: Names) -> StyleAndTextTuples:
    text: StyleAndTextTuples = []
    width = max(4 + 4 * view.size, SIDE_LINE_WIDTH)  # the board: row labels, 4 per column
    text += _side_line(view, 1, names, f"discs {view.discs(1)}", fit=width)
    text.append(("class:label", "    " + " ".join(f" {c} " for c in COLUMNS[: view.size]) + "\n"))
    for r, labels in enumerate(view.grid(viewer)):
        text.append(("class:label", f"{r + 1:>3} "))
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
            text.append(("", " "))
        text.append(("", "\n"))
    text += _side_line(view, 0, names, f"discs {view.discs(0)}", fit=width)
    return text
