"""Solving small games exactly: the final score difference under perfect play by both sides.

MTD(f) drives a null-window negamax over the whole tree (no depth limit, no evaluation) whose
transposition table keeps a lower and an upper bound per position, so every probe reuses what
the earlier ones proved. Children are tried best-first by the game's default evaluation after
the table's move. A game may offer `score_bounds(position) -> (low, high)` (and says so with
`has_score_bounds`), bounds on the final difference from player 0's view (in mancala: the
stores plus or minus the seeds still in play); they cut off lines that cannot change the answer.
See docs/engine.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic

from ubao.engine.game import Game, M, Outcome, P
from ubao.engine.search import pick_evaluation

UNBOUNDED = 1 << 40
"""Beyond any final score difference."""


@dataclass(frozen=True, slots=True)
class Solution(Generic[M]):
    """The game-theoretic value of a position."""

    value: int
    """The final score difference, player 0 minus player 1, under perfect play."""
    move: M | None
    """A best move for the side to move (None when the game is over)."""
    pv: tuple[M, ...]
    """A line of best play to the end of the game."""
    expanded: int
    """Positions whose children were generated, over every probe."""
    probes: int
    """Null-window searches MTD(f) needed."""
    table_entries: int
    seconds: float

    @property
    def winner(self) -> int | None:
        return None if self.value == 0 else 0 if self.value > 0 else 1

    @property
    def wdl(self) -> str:
        """W, D or L for player 0 (the first player from the start position)."""
        return "D" if self.value == 0 else "W" if self.value > 0 else "L"

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "wdl": self.wdl,
            "winner": self.winner,
            "expanded": self.expanded,
            "probes": self.probes,
            "table_entries": self.table_entries,
            "seconds": self.seconds,
        }


def margin(outcome: Outcome) -> int:
    """A finished game's score difference, player 0 minus player 1."""
    return outcome.score[0] - outcome.score[1]


class Solver(Generic[P, M]):
    """Solves positions of one game, keeping what it proved between calls."""

    def __init__(self, game: Game[P, M]) -> None:
        self.game = game
        self.table: dict[Hashable, tuple[int, int, M | None]] = {}
        """key -> (lower bound, upper bound, best move) of the side to move's difference."""
        self.expanded = 0
        self._node = self._build()

    def solve(self, position: P | None = None) -> Solution[M]:
        """The exact value of `position` (the start when None) and a line of best play."""
        game = self.game
        if position is None:
            position = game.start()
        start = time.perf_counter()
        expanded_before = self.expanded
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        try:
            value, probes = self._mtdf(position)
            pv = self._line(position, value)
        except RecursionError:
            raise ValueError(f"{game.describe()}: the game is too long to solve") from None
        finally:
            sys.setrecursionlimit(limit)
        if game.to_move(position) == 1:
            value = -value
        return Solution(
            value=value,
            move=pv[0] if pv else None,
            pv=pv,
            expanded=self.expanded - expanded_before,
            probes=probes,
            table_entries=len(self.table),
            seconds=time.perf_counter() - start,
        )

    def _mtdf(self, position: P) -> tuple[int, int]:
        """The side to move's value by null-window probes that close in from both sides."""
        node = self._node
        me = self.game.to_move(position)
        low, high = -UNBOUNDED, UNBOUNDED
        guess = 0
        probes = 0
        while low < high:
            beta = guess + 1 if guess == low else guess
            guess = node(position, me, beta - 1, beta)
            probes += 1
            if guess < beta:
                high = guess
            else:
                low = guess
        return low, probes

    def _line(self, position: P, value: int) -> tuple[M, ...]:
        """Best play to the end: at each step a move that keeps `value` (the mover's view).

        One null-window probe per move tried suffices, and the table's best move is tried
        first, so the line costs little after the solve.
        """
        game = self.game
        node = self._node
        line: list[M] = []
        while True:
            kids = game.children(position)
            if not kids:
                return tuple(line)
            me = game.to_move(position)
            entry = self.table.get(self._key(position))
            first = entry[2] if entry is not None else None
            kids.sort(key=lambda kid: kid[0] != first)
            for move, child in kids:
                side = game.to_move(child)
                if side == me:
                    keeps = node(child, side, value - 1, value) >= value
                else:
                    keeps = node(child, side, -value, 1 - value) <= -value
                if keeps:
                    line.append(move)
                    position = child
                    value = value if side == me else -value
                    break

    def _key(self, position: P) -> Hashable:
        game = self.game
        return position if type(game).key is Game.key else game.key(position)

    def _build(self) -> Callable[[Any, int, int, int], int]:
        """The node function: closures over locals, for speed."""
        game = self.game
        children = game.children
        outcome = game.outcome
        to_move = game.to_move
        _, evaluate = pick_evaluation(game, None)
        key = None if type(game).key is Game.key else game.key
        bounds = game.score_bounds if game.has_score_bounds else None
        table = self.table
        table_get = table.get
        solver = self

        def node(pos: Any, me: int, alpha: int, beta: int) -> int:
            """The side to move's difference: exact inside (alpha, beta), else a bound."""
            k = pos if key is None else key(pos)
            entry = table_get(k)
            if entry is None:
                low, high, first = -UNBOUNDED, UNBOUNDED, None
            else:
                low, high, first = entry
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                if low > alpha:
                    alpha = low
                if high < beta:
                    beta = high
            if bounds is not None:
                least, most = bounds(pos)
                if me:
                    least, most = -most, -least
                if least >= beta:
                    return least
                if most <= alpha:
                    return most
            kids = children(pos)
            if not kids:
                result = outcome(pos)
                assert result is not None, f"{game.name}: no legal moves but no outcome"
                value = margin(result)
                value = -value if me else value
                table[k] = (value, value, None)
                return value
            solver.expanded += 1
            if len(kids) > 1:
                if me:
                    kids.sort(key=lambda kid: evaluate(kid[1]))
                else:
                    kids.sort(key=lambda kid: evaluate(kid[1]), reverse=True)
                if first is not None:
                    for i, kid in enumerate(kids):
                        if kid[0] == first:
                            if i:
                                del kids[i]
                                kids.insert(0, kid)
                            break
            best = -UNBOUNDED
            best_move = first
            window_low = alpha
            for move, child in kids:
                side = to_move(child)
                if side == me:
                    value = node(child, side, alpha, beta)
                else:
                    value = -node(child, side, -beta, -alpha)
                if value > best:
                    best = value
                    if value > alpha:
                        best_move = move
                        alpha = value
                        if value >= beta:
                            break
            if best <= window_low:
                high = best
            elif best >= beta:
                low = best
            else:
                low = high = best
            table[k] = (low, high, best_move)
            return best

        return node
