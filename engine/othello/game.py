"""Othello on every even board from 4x4 to 16x16, with bitboards.

A board is two Python ints, one bit per square for each colour: bit `row * size + column`, row 0
at the top (row "1" in the notation) and column 0 on the left (column "a"). Python's unbounded
ints make one representation fit every size, and whole-board operations (shift a colour one
step in a direction, mask, count) cost a handful of big-int operations instead of a loop over
squares.

A move is a square index (`row * size + column`) or `PASS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, NamedTuple

from ubao.engine.game import (
    IllegalMoveError,
    NotationError,
    OptionsError,
    Outcome,
    PositionError,
    Step,
    notation_text,
    shown,
)
from ubao.engine.othello import patterns, probcut, trained
from ubao.engine.othello.evaluations import (
    C_SQUARE,
    EDGE,
    MOBILITY_WEIGHT,
    SECOND_RING,
    X_SQUARE,
    positional_tables,
)
from ubao.engine.searchable import Evaluation, ProbCut, Searchable, SearchHints

Move = int
Ray = tuple[int, int]
"""A line of squares from a square to the board's edge: (the adjacent square's bit, the mask of
all its squares)."""

PASS: Final[Move] = -1
"""The pass: a move of its own, legal exactly when the mover cannot place but the opponent can."""

MIN_SIZE: Final = 4
MAX_SIZE: Final = 16
DEFAULT_SIZE: Final = 8
FITTED_SIZE: Final = 8
"""The size `trained` and `patterns` were fitted on, where `patterns` is the default evaluation
and `trained` the second."""
COLUMNS: Final = "abcdefghijklmnop"
DISC_LETTERS: Final = "XO"
"""A disc or side to move in position text: X Black (player 0), O White (player 1)."""
EMPTY_LETTER: Final = "-"

_SQUARE = re.compile(r"([a-z])(0|[1-9][0-9]*)")


class Position(NamedTuple):
    """The discs of each colour and the side to move; the game's size places the bits."""

    black: int
    """Bit `row * size + column` is set where a black disc stands."""
    white: int
    """Bit `row * size + column` is set where a white disc stands."""
    player: int
    """The player to move: 0 Black or 1 White."""


class Othello(Searchable[Position, Move]):
    """Othello on an s x s board, s even from 4 to 16; option `size` (default 8)."""

    name: ClassVar[str] = "othello"
    # measured: docs/engine.md, Iterative deepening and time control
    search_hints = SearchHints(deepening_step=2, sort_depth=4)

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = dict(options or {})
        unknown = sorted(set(given) - {"size"})
        if unknown:
            raise OptionsError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for othello; known: size"
            )
        size = given.get("size", DEFAULT_SIZE)
        if (
            isinstance(size, bool)
            or not isinstance(size, int)
            or not MIN_SIZE <= size <= MAX_SIZE
            or size % 2
        ):
            raise OptionsError(
                f"option 'size' must be an even integer from {MIN_SIZE} to {MAX_SIZE}, "
                f"not {shown(size)}"
            )
        self.size = size
        self.options = {"size": size}
        hand_set: dict[str, Evaluation] = {
            "standard": self.standard,
            "positional": self.positional,
            "mobility": self.mobility,
            "discs": self.discs,
        }
        # measured: docs/benchmarks.md, the trained evaluation and the pattern evaluation
        # (fitted on this size only; patterns ahead of trained, trained ahead of standard)
        fitted_first = size == FITTED_SIZE
        self.evaluations: dict[str, Evaluation] = (
            {"patterns": self.patterns, "trained": self.trained, **hand_set}
            if fitted_first
            else {**hand_set, "trained": self.trained}
        )
        s = size
        self._squares = s * s
        self._full = (1 << self._squares) - 1
        column_a = sum(1 << (row * s) for row in range(s))
        not_a = self._full & ~column_a
        not_last = self._full & ~(column_a << (s - 1))
        # The eight directions clockwise from north as (index step, mask of squares a step may
        # land on): a step east or west that wraps round a row edge lands in the column the mask
        # removes. Shifting by a negative step is a right shift.
        self._directions = (
            (-s, self._full),
            (1 - s, not_a),
            (1, not_a),
            (s + 1, not_a),
            (s, self._full),
            (s - 1, not_last),
            (-1, not_last),
            (-s - 1, not_last),
        )
        self._inner = not_a & not_last
        """The squares off the first and last column: where a run closed along a row or a
        diagonal lies, so that a step from it never wraps round a row edge."""
        self._rays = tuple(self._rays_from(square) for square in range(self._squares))
        self._weights, self._corner_reliefs = positional_tables(size)
        self._best_squares_first = tuple(
            mask for _, mask in sorted(self._weights, key=lambda pair: -pair[0])
        )
        """The squares grouped by weight, the best group first: the order of `horizon_moves`."""
        self._endgame_empties = s
        """From here on the evaluations count discs exactly (see `_exact`)."""
        self._patterns_counted = s * s - 1 - patterns.LAST_DISCS
        """`patterns`, fitted nearer the end, counts them only from here on."""
        self._trained_tables = trained.tables(
            s, self._weights, self._corner_reliefs, self._directions
        )

    def describe(self) -> str:
        return f"othello({self.size})"

    # -- rules -----------------------------------------------------------------------------

    def start(self) -> Position:
        s, m = self.size, self.size // 2
        white = 1 << ((m - 1) * s + m - 1) | 1 << (m * s + m)
        black = 1 << ((m - 1) * s + m) | 1 << (m * s + m - 1)
        return Position(black, white, 0)

    def to_move(self, position: Position) -> int:
        return position.player

    def legal_moves(self, position: Position) -> list[Move]:
        """PositionError for a value that is no position of this board, as on the native core:
        the moves of overlapping discs would be nonsense."""
        black, white, player = position
        if (
            black & white
            or (black | white) & ~self._full
            or black < 0
            or white < 0
            or player not in (0, 1)
        ):
            raise PositionError(
                f"not a position of {self.describe()}: Position(black, white, player) with "
                f"discs on the board's {self._squares} squares, none on both, and player 0 or 1"
            )
        own, opp = _mover_first(position)
        placements = self._placements(own, opp)
        if placements:
            return _squares_of(placements)
        return [PASS] if self._can_place(opp, own) else []

    def play(self, position: Position, move: Move) -> Position:
        """IllegalMoveError for anything but a legal move, of type int (19.0 and True equal
        squares but are not moves)."""
        black, white, player = position
        own, opp = _mover_first(position)
        if type(move) is not int:
            raise IllegalMoveError(
                f"{shown(move)} is not an othello move: a square index (an int) or PASS"
            )
        if move == PASS:
            if self._can_place(own, opp) or not self._can_place(opp, own):
                raise self._illegal(position, move)
            return Position(black, white, 1 - player)
        if not 0 <= move < self._squares:
            raise IllegalMoveError(f"{move!r} is not a square of the {self.size}x{self.size} board")
        bit = 1 << move
        flips = 0 if (own | opp) & bit else self._flips(own, opp, move)
        if not flips:
            raise self._illegal(position, move)
        return _after(position, own | bit | flips, opp ^ flips)

    def children(self, position: Position) -> list[tuple[Move, Position]]:
        """Generates the placements once and plays each without re-checking its legality."""
        black, white, player = position
        own, opp = (white, black) if player else (black, white)
        placements = self._placements(own, opp)
        if not placements:
            if self._can_place(opp, own):
                return [(PASS, Position(black, white, 1 - player))]
            return []
        children = []
        flips_of = self._flips
        new = tuple.__new__  # builds a Position without its constructor's Python-level call
        while placements:
            bit = placements & -placements
            placements ^= bit
            square = bit.bit_length() - 1
            flips = flips_of(own, opp, square)
            mine = own | bit | flips
            theirs = opp ^ flips
            children.append(
                (square, new(Position, (theirs, mine, 0) if player else (mine, theirs, 1)))
            )
        return children

    def search_moves(self, position: Position) -> list[Move]:
        """`horizon_moves` sorted by the opponent's placements after each, fewest first (ties
        keep the square order), as Edax and Zebra order: a move that leaves the opponent few
        replies tends to be best, and its subtree is the smallest. Worth a flood fill per move
        only where a subtree lies below (measured: docs/othello.md)."""
        moves = self.horizon_moves(position)
        if len(moves) < 2:
            return moves
        black, white, player = position
        own, opp = (white, black) if player else (black, white)
        flips_of, placements = self._flips, self._placements

        def replies(square: int) -> int:
            flips = flips_of(own, opp, square)
            return placements(opp ^ flips, own | 1 << square | flips).bit_count()

        return sorted(moves, key=replies)

    def probcut(self, evaluation: str) -> ProbCut | None:
        """Multi-ProbCut's checks fitted for `evaluation` on 8x8 (engine/othello/probcut.py);
        None on the other sizes, where nothing was fitted."""
        return probcut.checks(evaluation) if self.size == probcut.SIZE else None

    def horizon_moves(self, position: Position) -> list[Move]:
        """The placements by the square weights, best first: corners, edges, the inner
        squares, then the X- and C-squares that tend to give a corner away."""
        black, white, player = position
        own, opp = (white, black) if player else (black, white)
        placements = self._placements(own, opp)
        if not placements:
            return [PASS] if self._can_place(opp, own) else []
        moves: list[Move] = []
        for mask in self._best_squares_first:
            found = placements & mask
            if found:
                moves.extend(_squares_of(found))
        return moves

    def child(self, position: Position, move: Move) -> Position:
        """`play` without the legality check."""
        black, white, player = position
        if move == PASS:
            return Position(black, white, 1 - player)
        own, opp = (white, black) if player else (black, white)
        bit = 1 << move
        flips = self._flips(own, opp, move)
        return _after(position, own | bit | flips, opp ^ flips)

    def leaf_evaluation(self, evaluation: Evaluation) -> Callable[[Position], float | None]:
        """For `standard` and `mobility`, the two placement sets the mobility term counts
        also tell whether the game is over: no separate end test (four more flood fills)."""
        if evaluation == self.standard:
            with_squares = True
        elif evaluation == self.mobility:
            with_squares = False
        elif evaluation == self.trained:
            tables = self._trained_tables
            return self._fitted_leaf(
                lambda black, white, black_moves, white_moves, _player: trained.value(
                    tables, black, white, black_moves, white_moves
                )
            )
        elif evaluation == self.patterns:
            return self._fitted_leaf(patterns.value, self._patterns_counted)
        else:
            return super().leaf_evaluation(evaluation)
        placements = self._placements
        square_score = self._square_score
        is_over = self.is_over
        squares = self._squares
        endgame = self._endgame_empties

        def leaf(position: Position) -> float | None:
            black, white, _ = position
            if squares - (black | white).bit_count() <= endgame:
                return None if is_over(position) else black.bit_count() - white.bit_count()
            black_moves = placements(black, white)
            white_moves = placements(white, black)
            if not (black_moves or white_moves):
                return None
            lead = MOBILITY_WEIGHT * (black_moves.bit_count() - white_moves.bit_count())
            return square_score(position) + lead if with_squares else lead

        return leaf

    def _fitted_leaf(
        self, value: Callable[[int, int, int, int, int], float], counted: int | None = None
    ) -> Callable[[Position], float | None]:
        """`trained` or `patterns` (`value` of the boards, their placements and the player to
        move) fused with the end test, as `standard` is; the disc count in the last `counted`
        empties (by default the last `size`)."""
        placements = self._placements
        is_over = self.is_over
        squares = self._squares
        endgame = self._endgame_empties if counted is None else counted

        def leaf(position: Position) -> float | None:
            black, white, player = position
            if squares - (black | white).bit_count() <= endgame:
                return None if is_over(position) else black.bit_count() - white.bit_count()
            black_moves = placements(black, white)
            white_moves = placements(white, black)
            if not (black_moves or white_moves):
                return None
            return value(black, white, black_moves, white_moves, player)

        return leaf

    def outcome(self, position: Position) -> Outcome | None:
        if not self.is_over(position):
            return None
        black, white, _ = position
        score = (black.bit_count(), white.bit_count())
        winner = None if score[0] == score[1] else 0 if score[0] > score[1] else 1
        return Outcome(winner, score)

    def is_over(self, position: Position) -> bool:
        """Neither side can place: `outcome` without counting the discs (hot in search)."""
        black, white, _ = position
        return not (self._can_place(black, white) or self._can_place(white, black))

    def moves_to_go(self, position: Position) -> int:
        """Half the empty squares, rounded up: 126 at the start of 16x16, where planning
        over 30 moves would spend the clock four times too fast."""
        black, white, _ = position
        return (self.size * self.size - (black | white).bit_count() + 1) // 2

    def sowing_path(self, position: Position, move: Move) -> list[Step]:
        """The placed square, then the flipped discs line by line clockwise from north, each
        line from the placed disc outwards (the order in which a player turns them)."""
        self.play(position, move)
        if move == PASS:
            return []
        own, opp = _mover_first(position)
        bit = 1 << move
        flips = self._flips(own, opp, move)
        path = [Step(self._label(move), "place")]
        for step, mask in self._directions:
            square = _shift(bit, step) & mask
            while square & flips:
                path.append(Step(self._label(square.bit_length() - 1), "flip"))
                square = _shift(square, step) & mask
        return path

    def _placements(self, own: int, opp: int) -> int:
        """The squares where `own` may place, by flood fill along each direction at once.

        From every own disc, the run of opponent discs is extended one step per round (each
        axis both ways); an empty square one step past a run closes it. A run holds at most
        size - 2 discs, so each direction takes at most that many rounds over the whole board.
        Runs along rows and diagonals are kept to the inner columns, so no step wraps.
        """
        s = self.size
        inner = opp & self._inner
        candidates = 0
        for step, run_mask in ((1, inner), (s - 1, inner), (s + 1, inner), (s, opp)):
            run = (own << step) & run_mask
            while run:
                run <<= step
                candidates |= run
                run &= run_mask
            run = (own >> step) & run_mask
            while run:
                run >>= step
                candidates |= run
                run &= run_mask
        return candidates & self._full & ~(own | opp)

    def _can_place(self, own: int, opp: int) -> bool:
        """Whether `own` has a placement: `_placements` stopping at the first square found."""
        s = self.size
        inner = opp & self._inner
        empty = self._full & ~(own | opp)
        for step, run_mask in ((1, inner), (s - 1, inner), (s + 1, inner), (s, opp)):
            run = (own << step) & run_mask
            while run:
                run <<= step
                if run & empty:
                    return True
                run &= run_mask
            run = (own >> step) & run_mask
            while run:
                run >>= step
                if run & empty:
                    return True
                run &= run_mask
        return False

    def _flips(self, own: int, opp: int, square: int) -> int:
        """The opponent discs a disc placed on `square` turns: every run it closes with an own
        disc. Along each ray that starts on an opponent disc, the nearest square that is not an
        opponent's ends the run; the ray's squares before it turn if it is an own disc."""
        flips = 0
        not_opp = ~opp
        up_rays, down_rays = self._rays[square]
        for adjacent, ray in up_rays:  # toward higher indices: the nearest is the lowest bit
            if adjacent & opp:
                ends = ray & not_opp
                end = ends & -ends
                if end & own:
                    flips |= ray & (end - 1)
        for adjacent, ray in down_rays:  # toward lower indices: the nearest is the highest bit
            if adjacent & opp:
                end = 1 << (ray & not_opp).bit_length() >> 1
                if end & own:
                    flips |= ray & -(end << 1)
        return flips

    def _rays_from(self, square: int) -> tuple[tuple[Ray, ...], tuple[Ray, ...]]:
        """The rays from `square` on which a placement there can flip: those toward higher
        indices, then toward lower ones. A ray needs two squares, for an opponent disc and the
        own disc that closes the run."""
        s = self.size
        row, column = divmod(square, s)
        up: list[Ray] = []
        down: list[Ray] = []
        for dr, dc in ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)):
            bits = []
            r, c = row + dr, column + dc
            while 0 <= r < s and 0 <= c < s:
                bits.append(1 << (r * s + c))
                r, c = r + dr, c + dc
            if len(bits) >= 2:
                (up if dr * s + dc > 0 else down).append((bits[0], sum(bits)))
        return tuple(up), tuple(down)

    def _illegal(self, position: Position, move: Move) -> IllegalMoveError:
        """The error that says why `move` (a pass or a square on the board) is not legal."""
        if self.outcome(position) is not None:
            return IllegalMoveError("the game is over: neither player can move")
        mover = ("Black", "White")[position.player]
        own, opp = _mover_first(position)
        placements = self._placements(own, opp)
        if move == PASS:
            moves = " ".join(self._label(square) for square in _squares_of(placements))
            return IllegalMoveError(f"{mover} cannot pass while a move is possible: {moves}")
        label = self._label(move)
        if not placements:
            return IllegalMoveError(f"{mover} cannot play {label}: no move is possible, so pass")
        if (own | opp) >> move & 1:
            return IllegalMoveError(f"{label} is occupied")
        return IllegalMoveError(
            f"{label} flips no disc: no line of the opponent's discs ends there"
        )

    # -- notation --------------------------------------------------------------------------

    def format_move(self, position: Position, move: Move) -> str:
        """Any square of the board, or pass, legal or not: a square's name is its own, which
        also labels the discs a move flips. IllegalMoveError for what is no square."""
        if type(move) is not int:
            raise IllegalMoveError(
                f"{shown(move)} is not an othello move: a square index (an int) or PASS"
            )
        if move == PASS:
            return "pass"
        if not 0 <= move < self._squares:
            raise IllegalMoveError(f"{move!r} is not a square of the {self.size}x{self.size} board")
        return self._label(move)

    def parse_move(self, position: Position, text: str) -> Move:
        """A square such as `d3` or `pass`, any case; legality is checked by playing it."""
        word = notation_text(text, "an othello move").strip().lower()
        if word == "pass":
            move = PASS
        else:
            match = _SQUARE.fullmatch(word)
            if match is None:
                raise NotationError(
                    f"{shown(text)} is not a move: give a square, a column letter and a row number "
                    f"such as d3, or pass"
                )
            column, row = COLUMNS.find(match[1]), int(match[2]) - 1
            if not (0 <= column < self.size and 0 <= row < self.size):
                raise NotationError(
                    f"{shown(text)} is off the {self.size}x{self.size} board: columns run "
                    f"a-{COLUMNS[self.size - 1]}, rows 1-{self.size}"
                )
            move = row * self.size + column
        self.play(position, move)
        return move

    def format_position(self, position: Position) -> str:
        """The board row by row from a1, then a space and the side to move: `--XO... X`."""
        black, white, player = position
        board = "".join(
            DISC_LETTERS[0]
            if black >> i & 1
            else DISC_LETTERS[1]
            if white >> i & 1
            else EMPTY_LETTER
            for i in range(self._squares)
        )
        return f"{board} {DISC_LETTERS[player]}"

    @classmethod
    def options_in_position(cls, text: str) -> dict[str, Any]:
        fields = text.split() if isinstance(text, str) else []
        board = fields[0] if fields else ""
        size = math.isqrt(len(board))
        return {"size": size} if size * size == len(board) and size % 2 == 0 else {}

    def parse_position(self, text: str) -> Position:
        fields = notation_text(text, "an othello position").split()
        if len(fields) != 2:
            raise NotationError(
                f"an othello position is the board ({self._squares} characters X, O or -, row by "
                f"row from a1) and the side to move (X or O), separated by a space; "
                f"got {len(fields)} field(s)"
            )
        board, side = fields
        if len(board) != self._squares:
            raise NotationError(
                f"the board has {len(board)} squares; {self.size}x{self.size} needs {self._squares}"
            )
        black = white = 0
        for i, letter in enumerate(board):
            if letter == DISC_LETTERS[0]:
                black |= 1 << i
            elif letter == DISC_LETTERS[1]:
                white |= 1 << i
            elif letter != EMPTY_LETTER:
                raise NotationError(
                    f"{letter!r} at {self._label(i)} is not a square: use X (black), "
                    f"O (white) or - (empty)"
                )
        if side not in DISC_LETTERS:
            raise NotationError(
                f"the side to move must be X (black) or O (white), not {shown(side)}"
            )
        return Position(black, white, DISC_LETTERS.index(side))

    def _label(self, square: int) -> str:
        row, column = divmod(square, self.size)
        return f"{COLUMNS[column]}{row + 1}"

    # -- evaluations -----------------------------------------------------------------------

    def discs(self, position: Position) -> float:
        """Black's discs minus White's: the final score, but a poor guide before the end."""
        return position.black.bit_count() - position.white.bit_count()

    def positional(self, position: Position) -> float:
        """Square weights (corners good, X- and C-squares bad while their corner is empty)."""
        exact = self._exact(position)
        if exact is not None:
            return exact
        return self._square_score(position)

    def mobility(self, position: Position) -> float:
        """Black's legal placements minus White's, as if each were to move."""
        exact = self._exact(position)
        if exact is not None:
            return exact
        return MOBILITY_WEIGHT * self._mobility_lead(position)

    def standard(self, position: Position) -> float:
        """Square weights plus mobility: the two ideas that matter before the disc count does."""
        exact = self._exact(position)
        if exact is not None:
            return exact
        return self._square_score(position) + MOBILITY_WEIGHT * self._mobility_lead(position)

    def trained(self, position: Position) -> float:
        """Black's expected final margin by features weighted per game stage, fitted on
        ubao's self-play games labelled by its exact endgame solver (engine/othello/trained.py)."""
        exact = self._exact(position)
        if exact is not None:
            return exact
        black, white, _ = position
        return trained.value(
            self._trained_tables,
            black,
            white,
            self._placements(black, white),
            self._placements(white, black),
        )

    def patterns(self, position: Position) -> float:
        """Black's expected final margin by pattern tables per game stage, fitted on ubao's
        self-play games labelled by its exact endgame solver (engine/othello/patterns.py);
        8x8 only."""
        exact = self._exact(position, self._patterns_counted)
        if exact is not None:
            return exact
        black, white, player = position
        return patterns.value(
            black, white, self._placements(black, white), self._placements(white, black), player
        )

    def trained_features(self, position: Position) -> tuple[int, ...]:
        """The features `trained` weighs (trained.FEATURES), for its training."""
        black, white, _ = position
        return trained.features(
            self._trained_tables,
            black,
            white,
            self._placements(black, white),
            self._placements(white, black),
        )

    def _exact(self, position: Position, counted: int | None = None) -> int | None:
        """The disc difference once few squares are empty (`counted`, by default `size`), else
        None.

        In the last `size` empties the game ends within reach of a search, corners and
        mobility have mostly been cashed in as discs, and the disc count is what the outcome
        scores; counting it exactly keeps the heuristics from preferring a square to the win.
        """
        black, white, _ = position
        if self._squares - (black | white).bit_count() > (
            self._endgame_empties if counted is None else counted
        ):
            return None
        return black.bit_count() - white.bit_count()

    def _square_score(self, position: Position) -> int:
        black, white, _ = position
        score = 0
        for weight, mask in self._weights:
            score += weight * ((black & mask).bit_count() - (white & mask).bit_count())
        occupied = black | white
        for corner, c_squares, x_square in self._corner_reliefs:
            if occupied & corner:
                score += (EDGE - C_SQUARE) * (
                    (black & c_squares).bit_count() - (white & c_squares).bit_count()
                )
                score += (SECOND_RING - X_SQUARE) * (
                    (black & x_square).bit_count() - (white & x_square).bit_count()
                )
        return score

    def _mobility_lead(self, position: Position) -> int:
        black, white, _ = position
        return (
            self._placements(black, white).bit_count() - self._placements(white, black).bit_count()
        )


def _mover_first(position: Position) -> tuple[int, int]:
    """The mover's discs, then the opponent's."""
    black, white, player = position
    return (white, black) if player else (black, white)


def _after(position: Position, own: int, opp: int) -> Position:
    """The position with the mover's and opponent's new discs, the other player to move."""
    return Position(opp, own, 0) if position.player else Position(own, opp, 1)


def _squares_of(bits: int) -> list[int]:
    """The set bits' indices, lowest first."""
    squares = []
    while bits:
        low = bits & -bits
        squares.append(low.bit_length() - 1)
        bits ^= low
    return squares


def _shift(bits: int, step: int) -> int:
    """`bits` moved `step` squares along the index: left for positive steps, right otherwise."""
    return bits << step if step > 0 else bits >> -step
