"""The two-row mancala family: Kalah (m,n) with its rule options, Egyptian and Ethiopian mancala.

A position is a flat tuple: the ring of holes in counter-clockwise order as South sees the
board, then the player to move:

    index 0..m-1     South's pits, from South's left
    index m          South's store
    index m+1..2m    North's pits, from North's left
    index 2m+1       North's store
    index 2m+2       the player to move (0 South, 1 North)

so sowing counter-clockwise is walking up the ring, and South's pit i faces ring hole 2m-i.
A move is the pit number 1..m from the mover's own left; in the Ethiopian variant a clockwise
move is the negated pit number (notation `3L` = -3, `3R` = 3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import Any, ClassVar

from ubao.engine.game import (
    MAX_COUNT,
    GameError,
    IllegalMoveError,
    NotationError,
    OptionsError,
    Outcome,
    PositionError,
    Step,
    bounded_count,
    listed,
    notation_text,
    shown,
)
from ubao.engine.searchable import BoardChild, Evaluation, Searchable, SearchHints

Position = tuple[int, ...]
Move = int
Sowing = tuple[Move, int, tuple[tuple[int, ...], ...]]
"""A move with its pit and the holes each count of seeds sown from there fills: see
`Mancala._sowing_table`."""
BoardSowing = tuple[Move, int, int, tuple[tuple[int, int, bool, tuple[int, int] | None], ...], int]
"""A move on `board_key`'s packed pits: see `Mancala._board_sowing_table`."""

SIDE_LETTERS = "SN"
MAX_PITS = 12
MAX_SEEDS = 12


def _has_two(row: Sequence[int]) -> bool:
    """Whether a pit of the row holds two seeds or more."""
    return max(row) >= 2


def _check_int(options: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionsError(
            f"option {name!r} must be an integer from {low} to {high}, not {shown(value)}"
        )
    return value


def _check_bool(options: Mapping[str, Any], name: str) -> bool:
    value = options[name]
    if not isinstance(value, bool):
        raise OptionsError(f"option {name!r} must be true or false, not {shown(value)}")
    return value


def _check_choice(options: Mapping[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = options[name]
    if value not in choices:
        raise OptionsError(
            f"option {name!r} must be one of {', '.join(choices)}, not {shown(value)}"
        )
    return str(value)


class Mancala(Searchable[Position, Move]):
    """The rules shared by the whole two-row family; subclasses only set defaults."""

    name: ClassVar[str]
    defaults: ClassVar[dict[str, Any]]
    choose_direction: ClassVar[bool] = False
    """Ethiopian: the mover picks the sowing direction and may not sow a single seed."""
    search_hints = SearchHints(
        deepening_step=3,  # measured: docs/engine.md, Iterative deepening and time control
        table_depth=8,  # measured: docs/engine.md, One interior node
        board_keys=True,
        board_seeds=255,  # boards of at most 255 seeds: no pit overflows its byte of the key
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.defaults))
        if unknown:
            raise OptionsError(
                f"unknown option(s) {listed(unknown)} for {self.name}; "
                f"known: {', '.join(self.defaults)}"
            )
        merged = {**self.defaults, **given}
        self.pits = _check_int(merged, "pits", 1, MAX_PITS)
        self.seeds = _check_int(merged, "seeds", 1, MAX_SEEDS)
        self.capture_sower = _check_bool(merged, "capture_sower")
        self.empty_capture = _check_bool(merged, "empty_capture")
        self.end_check = _check_choice(merged, "end_check", ("either", "mover"))
        self.remaining = _check_choice(merged, "remaining", ("owner", "mover"))
        self.early_end = _check_bool(merged, "early_end")
        self.options = merged
        self.evaluations: dict[str, Evaluation] = {
            "store_diff": self.store_diff,
            "store_seeds": self.store_seeds,
            "mobility": self.mobility,
        }
        m = self.pits
        self._stores = (m, 2 * m + 1)
        self._first_pit = (0, m + 1)
        self._rows = (slice(0, m), slice(m + 1, 2 * m + 1))
        self._ring = 2 * m + 2
        self._to_move = 2 * m + 2
        self._min_seeds = 2 if self.choose_direction else 1
        self._row_can_move: Callable[[Sequence[int]], bool] = (
            _has_two if self.choose_direction else any
        )
        """Whether a row of pits holds a legal move (a seed, or two where one may not be sown)."""
        self._sowings = (self._sowing_table(0), self._sowing_table(1))
        self._sowing_of = tuple(
            {move: (hole, paths) for move, hole, paths in table} for table in self._sowings
        )
        self._sowing_sides = tuple(
            (self._rows[player], self._rows[1 - player], self._stores[player], first, first + m)
            for player, first in enumerate(self._first_pit)
        )
        """Per mover: his row, the opponent's, his store, his first pit and the end of his row."""
        self._board_sowings = () if self.choose_direction else self._board_sowing_table()
        self._board_layout = (
            8 * m,
            (1 << 8 * m) - 1,
            2 * m,
            self._ring - 1,
            self.end_check == "mover",
        )
        """For `board_children`: the bits of a row, the opponent's row (the key's low half), the
        pits, the holes of a lap, and whether the game ends when the next mover cannot move."""

    def describe(self) -> str:
        return f"{self.name}({self.pits},{self.seeds})"

    # -- rules -----------------------------------------------------------------------------

    def start(self) -> Position:
        row = (self.seeds,) * self.pits
        return (*row, 0, *row, 0, 0)

    def to_move(self, position: Position) -> int:
        return position[self._to_move]

    def _sowing_table(self, player: int) -> tuple[Sowing, ...]:
        """`player`'s moves in legal order as (move, pit, paths): paths[n] is the holes that n
        seeds sown from the pit fill, in order, skipping the opponent's store; n runs up to a
        whole lap, which fills every hole once and ends in the pit itself."""
        ring = self._ring
        skipped = self._stores[1 - player]
        table = []
        for pit in range(1, self.pits + 1):
            hole = self._first_pit[player] + pit - 1
            for move in (-pit, pit) if self.choose_direction else (pit,):
                step = 1 if move > 0 else -1
                walk = []
                last = hole
                for _ in range(ring - 1):
                    last = (last + step) % ring
                    if last == skipped:
                        last = (last + step) % ring
                    walk.append(last)
                table.append((move, hole, tuple(tuple(walk[:n]) for n in range(ring))))
        return tuple(table)

    def _board_sowing_table(self) -> tuple[BoardSowing, ...]:
        """South's sowings (`_sowing_table`) on `board_key`'s key, where the mover is South and
        pit i of the rows (his, then the opponent's) is the byte at 8 * (2m - 1 - i): per move,
        from the pit nearest the store, (move, the pit, its shift, sowings, a whole lap), where
        sowings[n], n seeds short of a lap, is (what they add to the key, seeds into the store,
        whether the last one ends there, and the shifts of the own pit it ends in and of the pit
        facing it when it ends in an own pit) and a whole lap is what a lap adds to the key."""
        m = self.pits
        store = self._stores[0]
        lap = self._ring - 1

        def shift(hole: int) -> int:
            return 8 * (2 * m - 1 - (hole if hole < store else hole - 1))

        def adds(path: tuple[int, ...]) -> int:
            return sum(1 << shift(hole) for hole in path if hole != store)

        table = []
        for move, pit, paths in reversed(self._sowings[0]):
            sowings = []
            for path in paths[:lap]:
                last = path[-1] if path else pit  # after whole laps only, the pit itself
                lands = (shift(last), 8 * (2 * m - 1) - shift(last)) if last < store else None
                sowings.append((adds(path), path.count(store), last == store, lands))
            table.append((move, pit, shift(pit), tuple(sowings), adds(paths[lap])))
        return tuple(table)

    def legal_moves(self, position: Position) -> list[Move]:
        """Under the "either" end rule the opponent's row is checked here and the mover's by
        the moves themselves: a row without a legal move gives none."""
        player = position[-1]
        if self.end_check == "either" and not self._row_can_move(position[self._rows[1 - player]]):
            return []
        if self.early_end and self._past_half(position):
            return []
        least = self._min_seeds
        return [move for move, hole, _ in self._sowings[player] if position[hole] >= least]

    def search_moves(self, position: Position) -> list[Move]:
        """Extra turns, then captures (the largest first), then the rest, each group from the
        pit nearest the store: an extra turn played first leaves the others in place, and the
        store is where the points are. Sowings of a whole lap or more are left unclassified."""
        player = position[-1]
        if self.end_check == "either" and not self._row_can_move(position[self._rows[1 - player]]):
            return []
        if self.early_end and self._past_half(position):
            return []
        least = self._min_seeds
        lap = self._ring - 1
        own_store = self._stores[player]
        first = self._first_pit[player]
        end = first + self.pits
        facing = 2 * self.pits
        extra: list[Move] = []
        captures: list[tuple[int, Move]] = []
        rest: list[Move] = []
        for move, hole, paths in reversed(self._sowings[player]):
            seeds = position[hole]
            if seeds < least:
                continue
            if seeds < lap:
                last = paths[seeds][-1]
                if last == own_store:
                    extra.append(move)
                    continue
                if first <= last < end and not position[last] and position[facing - last]:
                    captures.append((-position[facing - last], move))
                    continue
            rest.append(move)
        if captures:
            captures.sort(key=itemgetter(0))
            extra.extend(move for _, move in captures)
        extra.extend(rest)
        return extra

    def horizon_moves(self, position: Position) -> list[Move]:
        """The legal moves from the pit nearest the store: one ply above the horizon the static
        order prunes no better (docs/engine.md, Ordering from the game) and costs more."""
        return self.legal_moves(position)[::-1]

    def play(self, position: Position, move: Move) -> Position:
        """IllegalMoveError for anything but a legal move, of type int (3.0 and True equal
        legal moves but are not moves)."""
        if type(move) is not int or move not in self.legal_moves(position):
            raise self._illegal(position, move)
        return self.child(position, move)

    def _illegal(self, position: Position, move: Any) -> IllegalMoveError:
        """The error that says why `move`, not a legal move of `position`, is refused."""
        if type(move) is not int:
            return IllegalMoveError(
                f"{shown(move)} is not a move of {self.name}: a move is a pit number, an int"
            )
        return IllegalMoveError(
            f"{self._move_text(move)} is not legal in {self.format_position(position)}; "
            f"legal: {' '.join(map(self._move_text, self.legal_moves(position)))}"
        )

    def children(self, position: Position) -> list[tuple[Move, Position]]:
        child = self.child
        return [(move, child(position, move)) for move in self.legal_moves(position)]

    def child(self, position: Position, move: Move) -> Position:
        """`_sow` without the path, for search: a search spends most of its time here.

        Under the "either" end rule one row check suffices: the opponent could move before
        (else the game was over) and sowing only adds to his row; only a capture can leave him
        stuck.
        """
        player = position[-1]
        hole, paths = self._sowing_of[player][move]
        own_row, their_row, own_store, first, end = self._sowing_sides[player]
        row_can_move = self._row_can_move
        lap = self._ring - 1
        board = list(position)
        seeds = board[hole]
        board[hole] = 0
        if seeds >= lap:
            laps, seeds = divmod(seeds, lap)
            for i in paths[lap]:
                board[i] += laps
        sown = paths[seeds]
        for i in sown:
            board[i] += 1
        last = sown[-1] if sown else hole  # after whole laps only, the pit itself
        captured = False
        if last == own_store:
            board[-1] = player
        else:
            board[-1] = 1 - player
            if first <= last < end and board[last] == 1:
                self._capture(board, last, own_store, None)
                captured = True
        if self.end_check == "mover":
            over = not row_can_move(board[self._rows[board[-1]]])
        else:
            over = not row_can_move(board[own_row]) or (
                captured and not row_can_move(board[their_row])
            )
        if not over and self.early_end:
            over = self._past_half(board)
        if over:
            self._sweep(board, player, None)
        return tuple(board)

    def board_children(self, key: int, loose: int) -> list[BoardChild[Move]]:
        """`child` on `board_key`'s packed pits, for the solver: a sowing adds a constant to
        the key (`_board_sowing_table`), a capture reads two bytes, the end check a half.
        Only for sowing one way."""
        half, row, width, lap, end_mover = self._board_layout
        if not end_mover and not key & row:  # as `legal_moves`: the opponent cannot move
            return []
        pits = key.to_bytes(width)
        kids: list[BoardChild[Move]] = []
        for move, pit, shift, sowings, whole in self._board_sowings:
            seeds = pits[pit]
            if not seeds:
                continue
            if seeds < lap:
                add, stored, again, lands = sowings[seeds]
                child = key - (seeds << shift) + add
            else:  # a lap or more: every hole takes the whole laps first (rare)
                laps, rest = divmod(seeds, lap)
                add, stored, again, lands = sowings[rest]
                child = key - (seeds << shift) + add + laps * whole
                stored += laps
            if lands is not None and child >> lands[0] & 255 == 1:
                last, facing = lands
                taken = child >> facing & 255
                if taken or self.empty_capture:
                    child -= taken << facing
                    if self.capture_sower:
                        taken += 1
                        child -= 1 << last
                    stored += taken
            own, theirs = child >> half, child & row
            next_row = own if again else theirs
            if not next_row if end_mover else not (own and theirs):  # `is_over`'s rule
                kids.append((move, stored + self._swept(own, theirs), again, 0, 0))
            elif again:
                kids.append((move, stored, True, child, loose - stored))
            else:
                kids.append((move, stored, False, theirs << half | own, loose - stored))
        return kids

    def _swept(self, own: int, theirs: int) -> int:
        """What `_sweep` banks for the last mover minus what it banks for the opponent, their
        rows packed as in `board_key`."""
        mine, others = sum(own.to_bytes(self.pits)), sum(theirs.to_bytes(self.pits))
        if self.remaining == "mover" and mine and others:
            return mine + others
        return mine - others

    def sowing_path(self, position: Position, move: Move) -> list[Step]:
        self.play(position, move)
        path: list[Step] = []
        self._sow(position, move, path)
        return path

    def _sow(self, position: Position, move: Move, path: list[Step] | None) -> Position:
        """Sow `move` (known legal); record the holes touched in `path` when it is given."""
        board = list(position)
        player = board[-1]
        own_store = self._stores[player]
        hole, paths = self._sowing_of[player][move]
        lap = self._ring - 1
        seeds = board[hole]
        board[hole] = 0
        if path is not None:
            path.append(Step(self._label(hole), "lift"))
            walk = paths[lap] * (seeds // lap) + paths[seeds % lap]
            path.extend(Step(self._label(i), "store" if i == own_store else "sow") for i in walk)
        laps, rest = divmod(seeds, lap)
        if laps:
            for i in paths[lap]:
                board[i] += laps
        sown = paths[rest]
        for i in sown:
            board[i] += 1
        last = sown[-1] if sown else hole  # after whole laps the last seed fell in the pit itself
        if last == own_store:
            board[-1] = player
        else:
            board[-1] = 1 - player
            first = self._first_pit[player]
            if first <= last < first + self.pits and board[last] == 1:
                self._capture(board, last, own_store, path)
        if self.is_over(board):
            self._sweep(board, player, path)
        return tuple(board)

    def _capture(self, board: list[int], last: int, store: int, path: list[Step] | None) -> None:
        opposite = 2 * self.pits - last
        taken = board[opposite]
        if not taken and not self.empty_capture:
            return
        board[opposite] = 0
        if self.capture_sower:
            taken += 1
            board[last] = 0
        board[store] += taken
        if path is not None:
            path.append(Step(self._label(opposite), "capture"))
            if self.capture_sower:
                path.append(Step(self._label(last), "capture"))
            path.append(Step(self._label(store), "store"))

    def is_over(self, position: Sequence[int]) -> bool:
        """The end condition of docs/mancala.md §4, checked after every move (on the sown board)."""
        if self.early_end and self._past_half(position):
            return True
        rows = self._rows
        can_move = self._row_can_move
        if self.end_check == "mover":
            return not can_move(position[rows[position[-1]]])
        return not (can_move(position[rows[0]]) and can_move(position[rows[1]]))

    def _past_half(self, position: Sequence[int]) -> bool:
        """Option `early_end`: a store holds more than half the seeds (docs/mancala.md §4)."""
        south, north = self._stores
        return 2 * max(position[south], position[north]) > sum(position[: self._ring])

    def leaf_evaluation(self, evaluation: Evaluation) -> Callable[[Position], float | None]:
        """The end test of the "either" rule (two row checks) inlined before the evaluation,
        and the default `store_diff` inlined too: a leaf then costs one call."""
        if self.end_check == "mover":
            return super().leaf_evaluation(evaluation)
        south, north = self._rows
        can_move = self._row_can_move
        if evaluation == self.store_diff:
            south_store, north_store = self._stores

            def store_leaf(position: Position) -> float | None:
                if not (can_move(position[south]) and can_move(position[north])):
                    return None
                return position[south_store] - position[north_store]

            return store_leaf

        def leaf(position: Position) -> float | None:
            if not (can_move(position[south]) and can_move(position[north])):
                return None
            return evaluation(position)

        return leaf

    def board_key(self, position: Position) -> tuple[int, int, int]:
        """The pits from the mover's side (his row, then the opponent's) one byte each, the
        stores' difference and the seeds on the board: the rules are the same for both sides
        and the stores never act again, so the pits are all the future depends on. A pit of
        more than 255 seeds (far beyond what can be solved) raises ValueError."""
        m = self.pits
        south, north = position[:m], position[m + 1 : 2 * m + 1]
        rows = north + south if position[-1] else south + north
        return int.from_bytes(bytes(rows)), position[m] - position[2 * m + 1], sum(rows)

    def _sweep(self, board: list[int], last_mover: int, path: list[Step] | None) -> None:
        """Move the seeds left in the pits to the stores, as option `remaining` says; `path`
        gets each row's pits swept ("sweep", not the mover's capture), then the store they go
        to ("store")."""
        m = self.pits
        left = [sum(board[first : first + m]) for first in self._first_pit]
        if self.remaining == "owner":
            takers = (0, 1)
        else:
            holder = last_mover if all(left) else (0 if left[0] else 1)
            takers = (holder, holder)
        for player, first in enumerate(self._first_pit):
            for i in range(first, first + m):
                if board[i] and path is not None:
                    path.append(Step(self._label(i), "sweep"))
                board[i] = 0
            store = self._stores[takers[player]]
            board[store] += left[player]
            if left[player] and path is not None:
                path.append(Step(self._label(store), "store"))

    def outcome(self, position: Position) -> Outcome | None:
        if not self.is_over(position):
            return None
        board = list(position)
        self._sweep(board, 1 - position[-1], None)
        south, north = board[self._stores[0]], board[self._stores[1]]
        winner = None if south == north else (0 if south > north else 1)
        return Outcome(winner, (south, north))

    # -- evaluations (player 0's point of view) --------------------------------------------

    def store_diff(self, position: Position) -> float:
        """Seeds already banked: the final score if the game stopped now."""
        return position[self.pits] - position[2 * self.pits + 1]

    def store_seeds(self, position: Position) -> float:
        """Stores plus a quarter of the seeds on each side: seeds on your side tend to end yours."""
        m = self.pits
        south_row = sum(position[:m])
        north_row = sum(position[m + 1 : 2 * m + 1])
        return position[m] - position[2 * m + 1] + 0.25 * (south_row - north_row)

    def mobility(self, position: Position) -> float:
        """Stores plus extra-turn moves and capture threats: tempo and material in reach."""
        m = self.pits
        score = float(position[m] - position[2 * m + 1])
        for player, sign in ((0, 1.0), (1, -1.0)):
            first = self._first_pit[player]
            for i in range(m):
                seeds = position[first + i]
                if not seeds:
                    continue
                if seeds == m - i:
                    score += sign * 1.0
                target = i + seeds
                if target < m and position[first + target] == 0:
                    score += sign * 0.5 * position[2 * m - (first + target)]
        return score

    # -- notation --------------------------------------------------------------------------

    def _label(self, hole: int) -> str:
        m = self.pits
        if hole == m:
            return "S*"
        if hole == 2 * m + 1:
            return "N*"
        return f"S{hole + 1}" if hole < m else f"N{hole - m}"

    def format_move(self, position: Position, move: Move) -> str:
        """IllegalMoveError, as `play` says it, for anything but a legal move of `position`."""
        if type(move) is not int or move not in self.legal_moves(position):
            raise self._illegal(position, move)
        return self._move_text(move)

    def _move_text(self, move: Move) -> str:
        """The notation of a pit number, legal or not (`play` names a wrong one by it)."""
        if self.choose_direction:
            return f"{abs(move)}{'R' if move > 0 else 'L'}"
        return str(move)

    _MOVE = re.compile(r"\s*([0-9]+)\s*([LRlr]?)\s*")
    """ASCII digits only: int() also reads full-width and other Unicode digits."""

    def parse_move(self, position: Position, text: str) -> Move:
        match = self._MOVE.fullmatch(notation_text(text, f"a move of {self.name}"))
        if match is None:
            example = "3R or 3L" if self.choose_direction else "3"
            raise NotationError(
                f"{shown(text)} is not a move of {self.name}: write a pit number 1..{self.pits}"
                f" (e.g. {example})"
            )
        pit, direction = bounded_count(match[1], self.pits), match[2].upper()
        if not pit:
            raise NotationError(
                f"{shown(text)}: pit {match[1] if len(match[1]) <= 12 else shown(match[1])} "
                f"does not exist; pits are 1..{self.pits}"
            )
        if self.choose_direction and not direction:
            raise NotationError(f"{shown(text)}: add the direction, {pit}L or {pit}R")
        if not self.choose_direction and direction:
            raise NotationError(f"{shown(text)}: {self.name} moves have no direction; write {pit}")
        move = -pit if direction == "L" else pit
        if move not in self.legal_moves(position):
            if self.is_over(position):
                why = "the game is over"
            elif position[self._first_pit[position[-1]] + pit - 1] < self._min_seeds:
                why = "a single seed may not be sown" if self.choose_direction else "it is empty"
                why = f"pit {pit} holds {position[self._first_pit[position[-1]] + pit - 1]}: {why}"
            else:
                why = "not a legal move"
            raise IllegalMoveError(f"{text.strip()} is illegal: {why}")
        return move

    _VARIANT = re.compile(r"(\w+)\(([0-9]{1,4}),([0-9]{1,4})\)")
    """A position's variant, `kalah(6,4)`: the game, its pits a side and seeds per pit."""

    @classmethod
    def _variant_options(cls, variant: Any) -> dict[str, Any]:
        """The options `variant` names when it is one of this game's, else {}."""
        match = cls._VARIANT.fullmatch(variant) if isinstance(variant, str) else None
        if match is None or match[1] != cls.name:
            return {}
        return {"pits": int(match[2]), "seeds": int(match[3])}

    @classmethod
    def options_in_position(cls, text: str) -> dict[str, Any]:
        fields = text.split() if isinstance(text, str) else []
        return cls._variant_options(fields[0]) if fields else {}

    @classmethod
    def options_in_position_json(cls, data: Any) -> dict[str, Any]:
        return cls._variant_options(data.get("game")) if isinstance(data, dict) else {}

    def _wrong_variant(self, variant: str) -> str | None:
        """Why a position's variant is not this game's, or None. The pits must be the game's;
        the seeds per pit need not (the option only sets the start position, and an analysis
        position holds any counts), but must name a variant that exists."""
        match = self._VARIANT.fullmatch(variant)
        if match is None or match[1] != self.name:
            return (
                f"the position is for {shown(variant)}, but the game is {self.name}; "
                f"write {self.name}({self.pits},n)"
            )
        pits, seeds = int(match[2]), int(match[3])
        if pits != self.pits:
            return (
                f"the position is for {shown(variant)}, {pits} pits a side, but the game has "
                f"{self.pits} (option 'pits')"
            )
        if not 1 <= seeds <= MAX_SEEDS:
            return f"{shown(variant)} names no variant: the seeds per pit are 1..{MAX_SEEDS}"
        return None

    def format_position(self, position: Position) -> str:
        m = self.pits
        south = ",".join(map(str, position[:m]))
        north = ",".join(map(str, position[m + 1 : 2 * m + 1]))
        side = SIDE_LETTERS[position[-1]]
        return f"{self.describe()} {side} {south}/{north} {position[m]},{position[2 * m + 1]}"

    def parse_position(self, text: str) -> Position:
        fields = notation_text(text, f"a position of {self.name}").split()
        grammar = f"'{self.describe()} S|N s1,..,s{self.pits}/n1,..,n{self.pits} store_s,store_n'"
        if len(fields) != 4:
            raise NotationError(
                f"{shown(text)}: a position has 4 fields separated by spaces: {grammar}"
            )
        variant, side, rows, stores = fields
        wrong = self._wrong_variant(variant)
        if wrong is not None:
            raise NotationError(f"{shown(text)}: {wrong}")
        if side not in SIDE_LETTERS:
            raise NotationError(
                f"{shown(text)}: the side to move must be S or N, not {shown(side)}"
            )
        row_texts = rows.split("/")
        if len(row_texts) != 2:
            raise NotationError(f"{shown(text)}: write South's pits / North's pits, e.g. {grammar}")
        south, north = (self._counts(text, row, self.pits, "pits") for row in row_texts)
        store_counts = self._counts(text, stores, 2, "stores")
        return self._assembled(
            south, north, store_counts, side, lambda why: NotationError(f"{shown(text)}: {why}")
        )

    @staticmethod
    def _assembled(
        south: list[int],
        north: list[int],
        stores: list[int],
        side: str,
        error: Callable[[str], GameError],
    ) -> Position:
        """The position of checked parts, text or JSON; `error(why)` is what to raise."""
        position = (*south, stores[0], *north, stores[1], SIDE_LETTERS.index(side))
        if sum(position[:-1]) == 0:
            raise error("a position needs at least one seed")
        return position

    @staticmethod
    def _counts(text: str, field: str, count: int, what: str) -> list[int]:
        parts = field.split(",")
        if len(parts) != count or not all(part.isascii() and part.isdigit() for part in parts):
            raise NotationError(
                f"{shown(text)}: {shown(field)} must be {count} {what} as non-negative integers "
                "separated by commas"
            )
        counts = [bounded_count(part) for part in parts]
        if None in counts:
            raise NotationError(f"{shown(text)}: a pit or store holds at most {MAX_COUNT:,} seeds")
        return [count for count in counts if count is not None]

    def position_json(self, position: Position) -> Any:
        m = self.pits
        return {
            "game": self.describe(),
            "pits": [list(position[:m]), list(position[m + 1 : 2 * m + 1])],
            "stores": [position[m], position[2 * m + 1]],
            "to_move": SIDE_LETTERS[position[-1]],
        }

    JSON_FIELDS: ClassVar[tuple[str, ...]] = ("game", "pits", "stores", "to_move")

    def parse_position_json(self, data: Any) -> Position:
        """The inverse of `position_json`, checked field by field (exact types: ints, not
        strings or booleans; no field missing or unknown); `game` may also be the bare name."""
        grammar = (
            f'{{"game": "{self.describe()}" or "{self.name}", "pits": [[{self.pits} ints], '
            f'[{self.pits} ints]], "stores": [s, n], "to_move": "S"|"N"}}'
        )

        def bad(why: str) -> PositionError:
            return PositionError(f"bad {self.name} position JSON: {why}; expected {grammar}")

        if not isinstance(data, dict):
            raise bad(f"it must be an object, not {shown(data)}")
        missing = [field for field in self.JSON_FIELDS if field not in data]
        if missing:
            raise bad(f"missing field(s) {listed(missing)}")
        unknown = [field for field in data if field not in self.JSON_FIELDS]
        if unknown:
            raise bad(f"unknown field(s) {listed(unknown)}")
        variant = data["game"]
        if not isinstance(variant, str):
            raise bad(f"'game' must be a string, not {shown(variant)}")
        wrong = None if variant == self.name else self._wrong_variant(variant)
        if wrong is not None:
            raise bad(f"'game': {wrong}")
        rows = data["pits"]
        if not isinstance(rows, list) or len(rows) != 2:
            raise bad(f"'pits' must be 2 lists, South's pits and North's, not {shown(rows)}")
        south, north = (
            self._json_counts(row, self.pits, f"'pits' {whose}", bad)
            for row, whose in zip(rows, ("South's row", "North's row"), strict=True)
        )
        stores = self._json_counts(data["stores"], 2, "'stores'", bad)
        side = data["to_move"]
        if not isinstance(side, str) or side not in SIDE_LETTERS:
            raise bad(f"'to_move' must be 'S' or 'N', not {shown(side)}")
        return self._assembled(south, north, stores, side, bad)

    @staticmethod
    def _json_counts(
        value: Any, count: int, what: str, bad: Callable[[str], PositionError]
    ) -> list[int]:
        """`count` seed counts from JSON: ints (not strings, floats or booleans), in bounds."""
        if not isinstance(value, list) or len(value) != count:
            raise bad(f"{what} must be a list of {count} integers, not {shown(value)}")
        for seeds in value:
            if type(seeds) is not int or seeds < 0:
                raise bad(f"{what} must hold non-negative integers, not {shown(seeds)}")
            if seeds > MAX_COUNT:
                raise bad(f"a pit or store holds at most {MAX_COUNT:,} seeds")
        return value


class Kalah(Mancala):
    """Kalah (m,n), the game of the solving literature."""

    name = "kalah"
    defaults: ClassVar[dict[str, Any]] = {
        "pits": 6,
        "seeds": 4,
        "capture_sower": True,
        "empty_capture": True,
        "end_check": "either",
        "remaining": "owner",
        "early_end": False,
    }


class Egyptian(Mancala):
    """Egyptian mancala: the capturing seed stays, and an empty opposite pit captures nothing."""

    name = "egyptian"
    defaults: ClassVar[dict[str, Any]] = {
        **Kalah.defaults,
        "capture_sower": False,
        "empty_capture": False,
    }


class Ethiopian(Mancala):
    """Ethiopian mancala: the mover chooses the direction; a single seed may never be sown."""

    name = "ethiopian"
    defaults: ClassVar[dict[str, Any]] = Egyptian.defaults
    choose_direction = True
    search_hints = replace(Mancala.search_hints, board_seeds=0)  # the mover picks a way
