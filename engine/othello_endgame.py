"""The native 8x8 Othello endgame solver (engine/native/othello_endgame.c) for the solver and
the search: exact final disc margins from the side to move's view and the line of best play.

It exists only where the native core runs 8x8 Othello (`endgame_for`); everywhere else the
generic solver and search answer, slower but with the same values. See docs/engine.md, The
Othello endgame solver.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ubao.engine.backend import NativeOthello
from ubao.engine.othello.game import PASS, Move, Position
from ubao.engine.searchable import Searchable

if TYPE_CHECKING:
    from ubao.engine._native import OthelloEndgame as EndgameCore

MOST = 64
"""No final margin on 8x8 is wider."""


def endgame_for(game: Searchable[Any, Any], hash_mb: float) -> OthelloEndgame | None:
    """The solver for `game` when its rules are the native core's 8x8 Othello, else None."""
    if not isinstance(game, NativeOthello) or game.size != 8:
        return None
    return OthelloEndgame(game, hash_mb)


class OthelloEndgame:
    """One solver with its own table, kept between calls (what it proved stays proved)."""

    def __init__(self, game: NativeOthello, hash_mb: float) -> None:
        self.game = game
        self.core: EndgameCore = game.endgame_core(hash_mb)

    def margin(
        self, position: Position, alpha: int = -MOST, beta: int = MOST, seconds: float = 0.0
    ) -> int | None:
        """The mover's final margin if strictly between `alpha` and `beta`, else a bound on it
        (fail-soft); None if `seconds` (0: no limit) ran out or `stop` was called first."""
        return self.core.search(position, alpha, beta, seconds)

    def result(self, position: Position, seconds: float = 0.0) -> tuple[int, Move] | None:
        """Who wins under perfect play, the margin not sought: one search around a draw (the
        win/loss/draw search of Edax and Zebra, far cheaper than the margin at 22-26 empties).
        Gives the mover's margin if it is 0, else a bound on it (at least it in a win, at most
        it in a loss), and a move that keeps the result: the table's move if it does, else the
        first that does (in a loss, the table's move); None if `seconds` (0: no limit) ran
        out or `stop` was called first. The mover must have a move, a pass or placements."""
        deadline = time.perf_counter() + seconds
        found = self.core.search(position, -1, 1, seconds)
        if found is None:
            return None
        kids = self.game.children(position)
        first = self.core.table_move(position)
        kids.sort(key=lambda kid: kid[0] != first)
        if found < 0 or kids[0][0] == PASS:
            return found, kids[0][0]
        kept = 1 if found > 0 else 0  # the least margin that keeps the result, the mover's
        for move, child in kids:  # does the opponent's margin stay at most -kept?
            left = deadline - time.perf_counter() if seconds else 0.0
            if seconds and left <= 0:
                return None
            value = self.core.search(child, -kept, 1 - kept, left)
            if value is None:
                return None
            if value <= -kept:
                return found, move
        raise AssertionError("no move keeps the result proved")

    def line(self, position: Position, margin: int) -> tuple[Move, ...]:
        """Best play to the end from a position whose mover's margin is `margin`: at each
        step the table's move if it keeps the margin, else the first move that does."""
        game = self.game
        line: list[Move] = []
        while True:
            kids = game.children(position)
            if not kids:
                return tuple(line)
            if kids[0][0] == PASS:
                line.append(PASS)
                position, margin = kids[0][1], -margin
                continue
            first = self.core.table_move(position)
            kids.sort(key=lambda kid: kid[0] != first)
            for move, child in kids:
                wanted = -margin
                found = self.core.search(child, max(wanted - 1, -MOST), min(wanted + 1, MOST))
                if found == wanted:
                    line.append(move)
                    position, margin = child, wanted
                    break
            else:
                raise AssertionError("no move keeps the solved margin")

    def stop(self) -> None:
        """End the running search from any thread."""
        self.core.stop()

    def nodes(self) -> int:
        """The positions searched so far, read live during a search too."""
        return self.core.nodes()
