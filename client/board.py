"""Board views as data: a game's position as the screen lays it out, with no screen in sight.

A view is built from the game's JSON position form (`Game.position_json`), not from the engine's
internal values, so Bao can be drawn from the form docs/bao.md fixes (§2.3) whatever the
rules module's internals are. Every hole has a label in the game's notation ("S3", "N*", "a5",
"B2", "d3"): the same labels that `Game.sowing_path` reports, so marks, the keyboard cursor and
the sowing animation all address holes by label. The registry (`GAMES[name].board`) says which
family of view a game gets; `client/render.py` turns a view into formatted text.

Each view knows:
- `grid(viewer)`: the holes as rows of labels, top to bottom as the viewer sees them (the
  viewer's own side at the bottom); keyboard navigation walks this grid;
- `move_hole(move, mover)`: the hole a move starts from, to highlight legal moves;
- `apply_step(step, mover)`: the board after one step of a sowing, for the animation.

Pure: the bot client and the tests use it without loading a terminal library.
"""

from __future__ import annotations

import dataclasses
import re
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, assert_never

from ubao.engine.game import Game, Step
from ubao.engine.games import GAMES

Grid = list[list[str]]
"""Rows of hole labels, top row first."""

STEP_SECONDS = 0.15
"""Default pause between two frames of a sowing animation."""


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
    swept: bool = False
    """The seeds were left on the board at the game's end and go to a store (nobody's capture)."""


@dataclass(frozen=True, slots=True)
class BoardView(ABC):
    """One position of one game family as the screen lays it out."""

    values: Mapping[str, int | str]
    """Hole label -> seeds (mancala, Bao) or disc letter (Othello)."""
    to_move: int | None
    """The side to move; None when nobody is (a finished game)."""
    sides: tuple[str, str]
    """The names of the two sides, from the registry."""

    notation: ClassVar[str] = ""
    """How moves are written, for the help screen."""
    marks: ClassVar[str] = ""
    """What the board's marks mean, for the help screen: each family's own, no other's."""
    spectator_notation: ClassVar[str] = ""
    spectator_marks: ClassVar[str] = ""
    """The same for a spectator, who has no row of their own: South's (Black's) side at the
    bottom, and moves seen from their mover."""
    cells: ClassVar[str] = "holes"
    """What a move starts from, as the help and the keys line name it ("holes", "squares")."""

    def help_notation(self, moves: Sequence[str], spectator: bool = False) -> str:
        """How moves are written in this game, said to a player or a `spectator`; `moves`
        (some of its moves in notation) tell which of the family's forms it uses."""
        return self.spectator_notation if spectator else self.notation

    def help_marks(self, spectator: bool = False) -> str:
        """What the board's marks mean, said to a player or a `spectator`."""
        return self.spectator_marks if spectator else self.marks

    @property
    def side_labels(self) -> tuple[str, str]:
        """The sides as the screen names them."""
        return self.sides

    @abstractmethod
    def grid(self, viewer: int) -> Grid:
        """The holes as the viewer sees them, top row first."""

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
        elif step.action in ("capture", "sweep"):
            swept = step.action == "sweep"
            values[step.hole], hand = 0, Hand(hand.seeds + count, capturing=True, swept=swept)
        elif step.action == "store" and hand.capturing:
            values[step.hole], hand = count + hand.seeds, Hand()
        else:  # "sow", "store", "place": one seed from the hand (or the stock) into the hole
            values[step.hole] = count + 1
            hand = Hand(max(hand.seeds - 1, 0), hand.capturing and hand.seeds > 1)
        return dataclasses.replace(self, values=values), hand


# -- the two-row mancala family ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MancalaView(BoardView):
    """Kalah, Egyptian and Ethiopian: two rows of pits, a store at each end.

    Holes are S1..Sm and N1..Nm from each owner's left, S* and N* the stores. The viewer's row
    is at the bottom, read from the viewer's left, with the viewer's store on the right.
    """

    notation: ClassVar[str] = (
        "A move is a pit number, 1 being your leftmost pit. Your row is at the bottom, read from "
        "your left; the opponent's row above reads from their left."
    )
    directions: ClassVar[str] = (
        " A move adds the way the first seed goes as you see it: 3L to your left, 3R to your "
        "right, towards your store."
    )
    """For games whose moves carry a direction (their notation ends them with L or R)."""
    marks: ClassVar[str] = (
        "Marks: the stores are S* and N*, yours on the right. Green, followed by ': a "
        "pit a legal move starts from; underlined: the start of the last move; [\u00a0]: the "
        "keyboard cursor. While a move is shown pit by pit, >\u00a0< is the pit being sown and "
        "yellow the pits sown so far."
    )
    spectator_notation: ClassVar[str] = (
        "A move is a pit number, 1 being the mover's leftmost pit. South's row is at the "
        "bottom, read from South's left; North's row above reads from North's left."
    )
    spectator_directions: ClassVar[str] = (
        " A move adds the way the first seed goes as its mover sees it: 3L to the mover's "
        "left, 3R to their right, towards their store."
    )
    spectator_marks: ClassVar[str] = (
        "Marks: the stores are S* and N*, South's on the right, North's on the left. "
        "Underlined: the start of the last move. While a move is shown pit by pit, >\u00a0< "
        "is the pit being sown and yellow the pits sown so far."
    )
    cells: ClassVar[str] = "pits"

    pits: int = 6

    def help_notation(self, moves: Sequence[str], spectator: bool = False) -> str:
        directed = any(re.fullmatch(r"\d+[LR]", move) for move in moves)
        if spectator:
            return self.spectator_notation + (self.spectator_directions if directed else "")
        return self.notation + (self.directions if directed else "")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], sides: tuple[str, str]) -> MancalaView:
        south, north = data["pits"]
        values: dict[str, int | str] = {f"S{i + 1}": n for i, n in enumerate(south)}
        values.update({f"N{i + 1}": n for i, n in enumerate(north)})
        values["S*"], values["N*"] = data["stores"]
        return cls(values, "SN".index(data["to_move"]), sides, len(south))

    def _row_labels(self, side: int, near: bool) -> list[str]:
        labels = [f"{'SN'[side]}{i + 1}" for i in range(self.pits)]
        return labels if near else labels[::-1]

    def grid(self, viewer: int) -> Grid:
        return [self._row_labels(1 - viewer, False), self._row_labels(viewer, True)]

    @staticmethod
    def store(side: int) -> str:
        return f"{'SN'[side]}*"

    def move_hole(self, move: str, mover: int) -> str | None:
        match = re.match(r"\s*(\d+)", move)
        return f"{'SN'[mover]}{match[1]}" if match else None


# -- Bao la Kiswahili ---------------------------------------------------------------------------


def bao_label(side: int, row: str, number: int) -> str:
    """A Bao hole in the owner's frame: South's in capitals (A5), North's in lower case (a5)."""
    return f"{row.upper() if side == 0 else row.lower()}{number}"


NYUMBA_NUMBER = 5
"""The nyumba is the owner's front-row hole A5."""
NYUMBA_SEEDS = 6
"""An owned nyumba is functional while it holds at least this many seeds (§10)."""


@dataclass(frozen=True, slots=True)
class BaoView(BoardView):
    """Bao la Kiswahili: four rows of eight, each player's front row (A) facing the other's.

    Labels are in the owner's frame, A1..A8 and B1..B8 from the owner's own left, South in
    capitals and North in lower case, as records print them (docs/bao.md §17.1). The viewer's rows
    are at the bottom, numbered 1..8 from the viewer's left; the opponent's numbers run 8..1.
    """

    notation: ClassVar[str] = (
        "A move is a row, a hole and a letter: A6L (row A is your front row, B your back row, "
        "holes 1..8 from your left; L or R: the way the first seed goes as you see it, or in a "
        "capture the end of your front row, the kichwa, where the captured seeds start), with + "
        "to go on safari from the nyumba. South writes capitals, North lower case."
    )
    marks: ClassVar[str] = (
        "Marks: (\u00a06): an owned nyumba; red: the takasia hole its player may not start from; "
        "green, followed by ': a hole a legal move starts from; underlined: the start "
        "of the last move; [\u00a0]: the keyboard cursor. While a move is shown hole by hole, "
        ">\u00a0< is the hole being sown and yellow the holes sown so far. Each side's line gives "
        "its stock, its nyumba and, when a game ends in the middle of a sowing, the seeds left "
        "in hand."
    )
    spectator_notation: ClassVar[str] = (
        "A move is a row, a hole and a letter, from its mover's side: A6L (row A is the "
        "mover's front row, B their back row, holes 1..8 from the mover's left; L or R: the "
        "way the first seed goes as the mover sees it, or in a capture the end of the mover's "
        "front row, the kichwa, where the captured seeds start), with + to go on safari from "
        "the nyumba. South writes capitals, North lower case; South's rows are at the bottom."
    )
    spectator_marks: ClassVar[str] = (
        "Marks: (\u00a06): an owned nyumba; red: the takasia hole its player may not start "
        "from; underlined: the start of the last move. While a move is shown hole by hole, "
        ">\u00a0< is the hole being sown and yellow the holes sown so far. Each side's line "
        "gives its stock, its nyumba and, when a game ends in the middle of a sowing, the "
        "seeds left in hand."
    )

    stock: tuple[int, int] = (0, 0)
    owned: tuple[bool, bool] = (False, False)
    takasia: tuple[int, str] | None = None
    """The restricted player and the hole (in that player's frame) they may not start from."""
    hand: int = 0
    """Captured seeds still in hand: a game can end in the middle of a sowing (§2.3)."""
    winner: int | None = None
    """The side that won, in a finished position; the seeds in hand count for it."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any], sides: tuple[str, str]) -> BaoView:
        """From the §2.3 screen form: rows North back (b8..b1), North front (a8..a1), South
        front (A1..A8), South back (B1..B8)."""
        board = data["board"]
        values: dict[str, int | str] = {}
        for c in range(8):
            values[bao_label(1, "b", 8 - c)] = board[0][c]
            values[bao_label(1, "a", 8 - c)] = board[1][c]
            values[bao_label(0, "a", c + 1)] = board[2][c]
            values[bao_label(0, "b", c + 1)] = board[3][c]
        takasia = None
        if data.get("takasia"):
            player = "SN".index(data["takasia"]["player"])
            hole = data["takasia"]["hole"]
            takasia = (player, bao_label(player, hole[0], int(hole[1:])))
        return cls(
            values,
            "SN".index(data["to_move"]) if "to_move" in data else None,
            sides,
            (data["stock"][0], data["stock"][1]),
            (data["owned"][0], data["owned"][1]),
            takasia,
            data.get("captured_in_hand", 0),
            "SN".index(data["winner"]) if "winner" in data else None,
        )

    @property
    def hand_holder(self) -> int | None:
        """The side the seeds in hand count for: the winner, else the side to move."""
        return self.winner if self.winner is not None else self.to_move

    def grid(self, viewer: int) -> Grid:
        far, near = 1 - viewer, viewer
        numbers = range(1, 9)
        return [
            [bao_label(far, "b", n) for n in reversed(numbers)],
            [bao_label(far, "a", n) for n in reversed(numbers)],
            [bao_label(near, "a", n) for n in numbers],
            [bao_label(near, "b", n) for n in numbers],
        ]

    def nyumbas(self) -> frozenset[str]:
        """The nyumbas still owned."""
        return frozenset(bao_label(side, "a", NYUMBA_NUMBER) for side in (0, 1) if self.owned[side])

    def nyumba_status(self, side: int) -> str:
        """The nyumba as §10 defines it: owned and functional, owned but dormant, or gone."""
        label = bao_label(side, "a", NYUMBA_NUMBER)
        if not self.owned[side]:
            return f"nyumba {label} lost"
        seeds = int(self.values[label])
        return f"nyumba {label} {'functional' if seeds >= NYUMBA_SEEDS else 'dormant'}"

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
        return bao_label(mover, match[1], int(match[2])) if match else None


# -- Othello ------------------------------------------------------------------------------------

COLUMN_LETTERS = "abcdefghijklmnop"
DISCS = "XO"
"""The disc letters of the two sides in the position form."""


@dataclass(frozen=True, slots=True)
class OthelloView(BoardView):
    """Othello: the grid with columns a.. across the top and rows 1.. down the side, a1 at the
    top left as in the notation; both players see the same board."""

    notation: ClassVar[str] = (
        "A move is a square, its column letter then its row number (d3), or pass when there is "
        "no other."
    )
    marks: ClassVar[str] = (
        "Marks: X Black's discs, O White's; + (green): a square you may play; underlined: the "
        "square of the last move; [\u00a0]: the keyboard cursor. While a move is shown, >\u00a0< "
        "is the disc being placed or turned and yellow the discs turned so far."
    )
    spectator_notation: ClassVar[str] = notation
    spectator_marks: ClassVar[str] = (
        "Marks: X Black's discs, O White's; underlined: the square of the last move. While a "
        "move is shown, >\u00a0< is the disc being placed or turned and yellow the discs "
        "turned so far."
    )
    cells: ClassVar[str] = "squares"

    size: int = 8

    @property
    def side_labels(self) -> tuple[str, str]:
        """Each side with its disc letter, the legend of the board ("Black (X)")."""
        return (f"{self.sides[0]} ({DISCS[0]})", f"{self.sides[1]} ({DISCS[1]})")

    @classmethod
    def from_json(cls, data: str, sides: tuple[str, str]) -> OthelloView:
        board, side = data.split()
        size = round(len(board) ** 0.5)
        values: dict[str, int | str] = {_square(i, size): letter for i, letter in enumerate(board)}
        return cls(values, DISCS.index(side), sides, size)

    def grid(self, viewer: int) -> Grid:
        return [
            [_square(r * self.size + c, self.size) for c in range(self.size)]
            for r in range(self.size)
        ]

    def discs(self, side: int) -> int:
        return sum(1 for value in self.values.values() if value == DISCS[side])

    def move_hole(self, move: str, mover: int) -> str | None:
        word = move.strip().lower()
        return word if re.fullmatch(r"[a-p][0-9]+", word) else None

    def apply_step(
        self, step: Step, mover: int, hand: Hand, lifted: int | None = None
    ) -> tuple[BoardView, Hand]:
        """A placed or flipped disc takes the mover's colour."""
        values = dict(self.values)
        values[step.hole] = DISCS[mover]
        return dataclasses.replace(self, values=values), hand


def _square(index: int, size: int) -> str:
    row, column = divmod(index, size)
    return f"{COLUMN_LETTERS[column]}{row + 1}"


# -- choosing the view --------------------------------------------------------------------------


def view_of(game: Game[Any, Any], position: Any) -> BoardView:
    """The view of `position` in `game`, from the game's JSON position form; in a finished
    position nobody is to move, whatever the form says."""
    view = view_from_json(game.name, game.position_json(position))
    if view.to_move is not None and game.is_over(position):
        view = dataclasses.replace(view, to_move=None)
    return view


def view_from_json(game_name: str, data: Any) -> BoardView:
    """The view of a position given in `game_name`'s JSON form, of the family the registry
    names."""
    info = GAMES[game_name]
    match info.board:
        case "mancala":
            return MancalaView.from_json(data, info.sides)
        case "bao":
            return BaoView.from_json(data, info.sides)
        case "othello":
            return OthelloView.from_json(data, info.sides)
        case _:
            assert_never(info.board)


# -- the animation and the keyboard cursor ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture of a sowing animation: the board so far and the hole just touched."""

    view: BoardView
    step: Step
    hand: Hand
    mover: int
    """The side whose move this is."""
    ply: int
    """The move's ply in the game (0-based): what the screen says it shows meanwhile."""
    before: Hand = Hand()
    """The hand before this step: a store step after a sweep banks what was swept."""


def sowing_frames(view: BoardView, steps: Sequence[Step], mover: int, ply: int = 0) -> list[Frame]:
    """The frames of the animation of the move of `ply`, one per step of `Game.sowing_path`."""
    frames = []
    hand = Hand()
    for index, step in enumerate(steps):
        lifted = _sown_after(steps, index) if step.action == "lift" else None
        before = hand
        view, hand = view.apply_step(step, mover, hand, lifted)
        frames.append(Frame(view, step, hand, mover, ply, before))
    return frames


class Animation:
    """The moves still to be shown hole by hole, in the order they were played.

    A move that arrives while another is being shown waits its turn, so every bot reply and
    every spectated move is seen; a backlog plays faster (`delay`), and skipping ends only the
    move being shown, at its final frame: no move's final position is ever passed over.
    """

    def __init__(self) -> None:
        self._moves: deque[list[Frame]] = deque()
        self._frames: list[Frame] = []
        self._index = 0

    def push(self, frames: list[Frame]) -> None:
        """Queue one move's frames (the first move queued is shown at once)."""
        if not frames:
            return
        if self._frames:
            self._moves.append(frames)
        else:
            self._frames, self._index = frames, 0

    @property
    def frame(self) -> Frame | None:
        """The frame to show now; None when nothing is being animated."""
        return self._frames[self._index] if self._frames else None

    @property
    def trail(self) -> frozenset[str]:
        """The holes the move being shown has touched so far."""
        return frozenset(frame.step.hole for frame in self._frames[: self._index + 1])

    @property
    def waiting(self) -> int:
        """Moves queued behind the one being shown."""
        return len(self._moves)

    def delay(self, step_seconds: float) -> float:
        """How long the current frame stays: shorter the more moves wait."""
        return step_seconds / (1 + len(self._moves))

    def advance(self) -> None:
        """The next frame: of this move, else the first of the next move, else none."""
        if self._index < len(self._frames) - 1:
            self._index += 1
        elif self._moves:
            self._frames, self._index = self._moves.popleft(), 0
        else:
            self._frames, self._index = [], 0

    def skip(self) -> None:
        """End the move being shown: jump to its final frame (held like any other)."""
        if self._frames:
            self._index = len(self._frames) - 1

    def clear(self) -> None:
        """Forget every frame (a snapshot replaced the game)."""
        self._moves.clear()
        self._frames, self._index = [], 0


def _sown_after(steps: Sequence[Step], lift: int) -> int:
    """The seeds a lift takes: one for each hole sown before the next lift or capture."""
    sown = 0
    for step in steps[lift + 1 :]:
        if step.action in ("lift", "capture", "sweep"):
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
