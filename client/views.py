"""Board views: a game's position as the screen shows it, as pure functions to formatted text.

A view is built from the game's JSON position form (`Game.position_json`), not from the engine's
internal values, so Bao can be drawn from the form the rules document fixes (§2.3) whatever the
rules module's internals are. Every hole has a label in the game's notation ("S3", "N*", "a5",
"B2", "d3"): the same labels that `Game.sowing_path` reports, so marks, the keyboard cursor and
the sowing animation all address holes by label.

Each view knows:
- `grid(viewer)`: the holes as rows of labels, top to bottom as the viewer sees them (the
  viewer's own side at the bottom); keyboard navigation walks this grid;
- `render(viewer, marks, names)`: the board as prompt_toolkit formatted text;
- `move_hole(move, mover)`: the hole a move starts from, to highlight legal moves;
- `apply_step(step, mover)`: the board after one step of a sowing, for the animation.
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from prompt_toolkit.formatted_text import StyleAndTextTuples

from ubao.engine.game import Game, Step

MANCALA_GAMES = ("kalah", "egyptian", "ethiopian")

Grid = list[list[str]]
"""Rows of hole labels, top row first."""


@dataclass(frozen=True, slots=True)
class Marks:
    """What to emphasise on the board besides the seeds or discs."""

    legal: frozenset[str] = frozenset()
    """Holes a legal move of the player to move starts from."""
    last: frozenset[str] = frozenset()
    """Holes of the last move played (its start, or the square placed)."""
    trail: frozenset[str] = frozenset()
    """Holes the running animation has already touched."""
    active: str | None = None
    """The hole the animation is at now."""
    cursor: str | None = None
    """The hole the keyboard cursor is on."""


@dataclass(frozen=True, slots=True)
class Hand:
    """Seeds in the sower's hand during an animation; `capturing` when they were just taken."""

    seeds: int = 0
    capturing: bool = False


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


@dataclass(frozen=True, slots=True)
class BoardView(ABC):
    """One position of one game family as the screen shows it."""

    values: Mapping[str, int | str]
    """Hole label -> seeds (mancala, Bao) or disc letter (Othello)."""
    to_move: int | None
    """The side to move; None when nobody is (a finished game)."""
    side_names: ClassVar[tuple[str, str]] = ("South", "North")

    @abstractmethod
    def grid(self, viewer: int) -> Grid:
        """The holes as the viewer sees them, top row first."""

    @abstractmethod
    def render(
        self, viewer: int, marks: Marks = Marks(), names: Sequence[str | None] = (None, None)
    ) -> StyleAndTextTuples:
        """The board with each side's name, the mover marked, and `marks` applied."""

    @abstractmethod
    def move_hole(self, move: str, mover: int) -> str | None:
        """The hole `move` (in notation) starts from; None for a move on no hole (a pass)."""

    def apply_step(
        self, step: Step, mover: int, hand: Hand, lifted: int | None = None
    ) -> tuple[BoardView, Hand]:
        """The board and hand after one step of a sowing (seed games; Othello overrides).

        `lifted` is how many seeds a "lift" takes (a Bao tax lifts only two); None takes all.
        Only the animation uses this; the final frame is always the server's position, so a
        step this model cannot follow exactly costs nothing but a frame.
        """
        values = dict(self.values)
        count = int(values.get(step.hole, 0))
        if step.action == "lift":
            taken = count if lifted is None else min(lifted, count)
            values[step.hole], hand = count - taken, Hand(taken)
        elif step.action == "capture":
            values[step.hole], hand = 0, Hand(hand.seeds + count, capturing=True)
        elif step.action == "store" and hand.capturing:
            values[step.hole], hand = count + hand.seeds, Hand()
        else:  # "sow", "store", "place": one seed from the hand (or the stock) into the hole
            values[step.hole] = count + 1
            hand = Hand(max(hand.seeds - 1, 0), hand.capturing and hand.seeds > 1)
        return dataclasses.replace(self, values=values), hand

    def side_line(
        self, side: int, names: Sequence[str | None], extra: str = ""
    ) -> StyleAndTextTuples:
        """One line naming a side, its facts, and whether it is to move."""
        name = (names[side] if side < len(names) else None) or "open seat"
        line: StyleAndTextTuples = [
            ("class:side", f"{self.side_names[side]}: "),
            ("class:side.name", name),
        ]
        if extra:
            line.append(("class:side.extra", f"  {extra}"))
        if side == self.to_move:
            line.append(("class:side.tomove", "  <- to move"))
        line.append(("", "\n"))
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


# -- the two-row mancala family ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MancalaView(BoardView):
    """Kalah, Egyptian and Ethiopian: two rows of pits, a store at each end.

    Holes are S1..Sm and N1..Nm from each owner's left, S* and N* the stores. The viewer's row
    is at the bottom, read from the viewer's left, with the viewer's store on the right.
    """

    pits: int = 6

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MancalaView:
        south, north = data["pits"]
        values: dict[str, int | str] = {f"S{i + 1}": n for i, n in enumerate(south)}
        values.update({f"N{i + 1}": n for i, n in enumerate(north)})
        values["S*"], values["N*"] = data["stores"]
        return cls(values, "SN".index(data["to_move"]), len(south))

    def _row_labels(self, side: int, near: bool) -> list[str]:
        labels = [f"{'SN'[side]}{i + 1}" for i in range(self.pits)]
        return labels if near else labels[::-1]

    def grid(self, viewer: int) -> Grid:
        return [self._row_labels(1 - viewer, False), self._row_labels(viewer, True)]

    def render(
        self, viewer: int, marks: Marks = Marks(), names: Sequence[str | None] = (None, None)
    ) -> StyleAndTextTuples:
        far, near = 1 - viewer, viewer
        far_row, near_row = self.grid(viewer)
        indent = 7
        text: StyleAndTextTuples = []
        text += self.side_line(far, names)
        text += _header(far_row, indent)
        text += _row(self, far_row, marks, " " * indent)
        text.append(("", "\n"))
        far_store, near_store = f"{'SN'[far]}*", f"{'SN'[near]}*"
        text.append(("class:label", f" {far_store:>3}  "))
        text.append((_cell_style(far_store, marks, "class:store"), f"{self.values[far_store]:>2}"))
        text.append(("", " " * (5 * self.pits - 1)))
        text.append(
            (_cell_style(near_store, marks, "class:store"), f"{self.values[near_store]:>3}")
        )
        text.append(("class:label", f"  {near_store}\n"))
        text += _row(self, near_row, marks, " " * indent)
        text.append(("", "\n"))
        text += _header(near_row, indent)
        text += self.side_line(near, names)
        return text

    def move_hole(self, move: str, mover: int) -> str | None:
        match = re.match(r"\s*(\d+)", move)
        return f"{'SN'[mover]}{match[1]}" if match else None


# -- Bao la Kiswahili ---------------------------------------------------------------------------


def _bao_label(side: int, row: str, number: int) -> str:
    """A Bao hole in the owner's frame: South's in capitals (A5), North's in lower case (a5)."""
    return f"{row.upper() if side == 0 else row.lower()}{number}"


NYUMBA = 5
"""The nyumba is the owner's front-row hole A5."""
NYUMBA_SEEDS = 6
"""An owned nyumba is functional while it holds at least this many seeds (§10)."""


@dataclass(frozen=True, slots=True)
class BaoView(BoardView):
    """Bao la Kiswahili: four rows of eight, each player's front row (A) facing the other's.

    Labels are in the owner's frame, A1..A8 and B1..B8 from the owner's own left, South in
    capitals and North in lower case, as records print them (rules §17.1). The viewer's rows
    are at the bottom, numbered 1..8 from the viewer's left; the opponent's numbers run 8..1.
    """

    stock: tuple[int, int] = (0, 0)
    owned: tuple[bool, bool] = (False, False)
    takasia: tuple[int, str] | None = None
    """The restricted player and the hole (in that player's frame) they may not start from."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BaoView:
        """From the §2.3 screen form: rows North back (b8..b1), North front (a8..a1), South
        front (A1..A8), South back (B1..B8)."""
        board = data["board"]
        values: dict[str, int | str] = {}
        for c in range(8):
            values[_bao_label(1, "b", 8 - c)] = board[0][c]
            values[_bao_label(1, "a", 8 - c)] = board[1][c]
            values[_bao_label(0, "a", c + 1)] = board[2][c]
            values[_bao_label(0, "b", c + 1)] = board[3][c]
        takasia = None
        if data.get("takasia"):
            player = "SN".index(data["takasia"]["player"])
            hole = data["takasia"]["hole"]
            takasia = (player, _bao_label(player, hole[0], int(hole[1:])))
        return cls(
            values,
            "SN".index(data["to_move"]) if "to_move" in data else None,
            (data["stock"][0], data["stock"][1]),
            (data["owned"][0], data["owned"][1]),
            takasia,
        )

    def grid(self, viewer: int) -> Grid:
        far, near = 1 - viewer, viewer
        numbers = range(1, 9)
        return [
            [_bao_label(far, "b", n) for n in reversed(numbers)],
            [_bao_label(far, "a", n) for n in reversed(numbers)],
            [_bao_label(near, "a", n) for n in numbers],
            [_bao_label(near, "b", n) for n in numbers],
        ]

    def nyumba_status(self, side: int) -> str:
        """The nyumba as §10 defines it: owned and functional, owned but dormant, or gone."""
        label = _bao_label(side, "a", NYUMBA)
        if not self.owned[side]:
            return f"nyumba {label} lost"
        seeds = int(self.values[label])
        return f"nyumba {label} {'functional' if seeds >= NYUMBA_SEEDS else 'dormant'}"

    def _side_extra(self, side: int) -> str:
        extra = f"stock {self.stock[side]}  {self.nyumba_status(side)}"
        if self.takasia and self.takasia[0] == side:
            extra += f"  takasia: may not start from {self.takasia[1]}"
        return extra

    def render(
        self, viewer: int, marks: Marks = Marks(), names: Sequence[str | None] = (None, None)
    ) -> StyleAndTextTuples:
        far, near = 1 - viewer, viewer
        rows = self.grid(viewer)
        special = frozenset(_bao_label(side, "a", NYUMBA) for side in (0, 1) if self.owned[side])
        blocked = frozenset([self.takasia[1]] if self.takasia else [])
        text: StyleAndTextTuples = []
        text += self.side_line(far, names, self._side_extra(far))
        text += _header([str(n) for n in range(8, 0, -1)], 3)
        prefixes = ("b", "a", "A", "B") if near == 0 else ("B", "A", "a", "b")
        for prefix, labels in zip(prefixes, rows, strict=True):
            text += _row(self, labels, marks, f" {prefix} ", special, blocked)
            text.append(("", "\n"))
        text += _header([str(n) for n in range(1, 9)], 3)
        text += self.side_line(near, names, self._side_extra(near))
        return text

    def apply_step(
        self, step: Step, mover: int, hand: Hand, lifted: int | None = None
    ) -> tuple[BoardView, Hand]:
        """As for every seed game, and a "place" takes its seed from the mover's stock."""
        view, hand = BoardView.apply_step(self, step, mover, hand, lifted)
        assert isinstance(view, BaoView)
        if step.action == "place":
            stock = list(self.stock)
            stock[mover] = max(stock[mover] - 1, 0)
            view = dataclasses.replace(view, stock=(stock[0], stock[1]))
        return view, hand

    def move_hole(self, move: str, mover: int) -> str | None:
        match = re.match(r"\s*([abAB])([1-8])", move)
        return _bao_label(mover, match[1], int(match[2])) if match else None


# -- Othello ------------------------------------------------------------------------------------

DISC_GLYPHS = {"X": "X", "O": "O", "-": "."}


@dataclass(frozen=True, slots=True)
class OthelloView(BoardView):
    """Othello: the grid with columns a.. across the top and rows 1.. down the side, a1 at the
    top left as in the notation; both players see the same board."""

    size: int = 8
    side_names: ClassVar[tuple[str, str]] = ("Black (X)", "White (O)")

    @classmethod
    def from_json(cls, data: str) -> OthelloView:
        board, side = data.split()
        size = round(len(board) ** 0.5)
        values: dict[str, int | str] = {_square(i, size): letter for i, letter in enumerate(board)}
        return cls(values, "XO".index(side), size)

    def grid(self, viewer: int) -> Grid:
        return [
            [_square(r * self.size + c, self.size) for c in range(self.size)]
            for r in range(self.size)
        ]

    def render(
        self, viewer: int, marks: Marks = Marks(), names: Sequence[str | None] = (None, None)
    ) -> StyleAndTextTuples:
        counts = [sum(1 for v in self.values.values() if v == letter) for letter in "XO"]
        columns = "abcdefghijklmnop"[: self.size]
        text: StyleAndTextTuples = []
        text += self.side_line(1, names, f"discs {counts[1]}")
        text.append(("class:label", "    " + " ".join(f" {c} " for c in columns) + "\n"))
        for r, labels in enumerate(self.grid(viewer)):
            text.append(("class:label", f"{r + 1:>3} "))
            for label in labels:
                letter = str(self.values[label])
                glyph = DISC_GLYPHS[letter]
                if label in marks.legal and letter == "-":
                    glyph = "+"
                disc = {"X": " class:disc.black", "O": " class:disc.white"}.get(letter, "")
                style = _cell_style(label, marks, "class:hole" + disc)
                if label == marks.cursor:
                    cell = f"[{glyph}]"
                elif label == marks.active:
                    cell = f">{glyph}<"
                else:
                    cell = f" {glyph} "
                text.append((style, cell))
                text.append(("", " "))
            text.append(("", "\n"))
        text += self.side_line(0, names, f"discs {counts[0]}")
        return text

    def move_hole(self, move: str, mover: int) -> str | None:
        word = move.strip().lower()
        return word if re.fullmatch(r"[a-p][0-9]+", word) else None

    def apply_step(
        self, step: Step, mover: int, hand: Hand, lifted: int | None = None
    ) -> tuple[BoardView, Hand]:
        """A placed or flipped disc takes the mover's colour."""
        values = dict(self.values)
        values[step.hole] = "XO"[mover]
        return dataclasses.replace(self, values=values), hand


def _square(index: int, size: int) -> str:
    row, column = divmod(index, size)
    return f"{'abcdefghijklmnop'[column]}{row + 1}"


# -- choosing the view --------------------------------------------------------------------------


def view_of(game: Game[Any, Any], position: Any) -> BoardView:
    """The view of `position` in `game`, from the game's JSON position form."""
    return view_from_json(game.name, game.position_json(position))


def view_from_json(game_name: str, data: Any) -> BoardView:
    """The view of a position given in `game_name`'s JSON form."""
    if game_name in MANCALA_GAMES:
        return MancalaView.from_json(data)
    if game_name == "bao":
        return BaoView.from_json(data)
    if game_name == "othello":
        return OthelloView.from_json(data)
    raise ValueError(f"no board view for {game_name!r}")


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture of a sowing animation: the board so far and the hole just touched."""

    view: BoardView
    step: Step
    hand: Hand


def sowing_frames(view: BoardView, steps: Sequence[Step], mover: int) -> list[Frame]:
    """The frames of a move's animation, one per step of `Game.sowing_path`."""
    frames = []
    hand = Hand()
    for index, step in enumerate(steps):
        lifted = _sown_after(steps, index) if step.action == "lift" else None
        view, hand = view.apply_step(step, mover, hand, lifted)
        frames.append(Frame(view, step, hand))
    return frames


def _sown_after(steps: Sequence[Step], lift: int) -> int:
    """The seeds a lift takes: one for each hole sown before the next lift or capture."""
    sown = 0
    for step in steps[lift + 1 :]:
        if step.action in ("lift", "capture"):
            break
        sown += step.action in ("sow", "store")
    return sown


def step_cursor(
    grid: Grid, selectable: frozenset[str], current: str | None, key: str
) -> str | None:
    """Where the keyboard cursor goes from `current` on `key` ("left", "right", "up", "down"),
    visiting only `selectable` holes: left/right walk them in reading order, up/down jump to
    the nearest one in the closest row above or below. It stays put when nothing is there."""
    places = [
        (r, c, label)
        for r, row in enumerate(grid)
        for c, label in enumerate(row)
        if label in selectable
    ]
    if not places:
        return None
    where = {label: (r, c) for r, c, label in places}
    if current not in where:
        return places[0][2]
    r0, c0 = where[current]
    index = [label for _, _, label in places].index(current)
    if key == "left":
        return places[max(index - 1, 0)][2]
    if key == "right":
        return places[min(index + 1, len(places) - 1)][2]
    rows = [r for r, _, _ in places if (r < r0 if key == "up" else r > r0)]
    if not rows:
        return current
    target = max(rows) if key == "up" else min(rows)
    return min((abs(c - c0), label) for r, c, label in places if r == target)[1]
