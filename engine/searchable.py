"""The search's interface to a game: the hooks that the search, the solver, perft and the
endgame database call beside the rules, each with a generic default, and the game's tuning.

`Game` (engine/game.py) is the rules, all that the server, the clients and the protocol need.
`Searchable` extends it with how to walk the game's tree fast: children made one at a time,
moves best first, the evaluation fused with the end test, the solver's board keys, the named
static evaluations and the `SearchHints`. Every game family implements `Searchable`, overriding
the hooks it can do better; the native backend's classes override some again with the C core's.
The search binds each hook once per search, so the split costs no call per node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ubao.engine.game import Game, M, P

BoardChild = tuple[M, int, bool, int, int]
"""A move from a board with what it leads to: see `Searchable.board_children`."""

Evaluation = Callable[[Any], float]
"""A static evaluation: a score of a non-terminal position from player 0's point of view."""

ProbCutCheck = tuple[int, float, float, float]
"""(shallow depth, slope, high, low) for nodes of one depth and stage: a null-window node cuts
high when its search to the shallow depth reaches (beta + high) / slope, low when it stays at
or below (alpha + low) / slope (docs/engine.md, Multi-ProbCut)."""


@dataclass(frozen=True, slots=True)
class ProbCut:
    """Multi-ProbCut's checks for one evaluation of a game: at a null-window node below the
    root, a shallow search predicts the deep one (deep = slope * shallow + offset, within a few
    standard errors), and a prediction far outside the window ends the node. Fitted per game
    stage and depth (`Searchable.probcut`); only the strength mode's negamax uses them."""

    progress: Callable[[Any], int]
    """How far a position's game has gone (Othello: squares occupied), from 0."""
    stages: tuple[int, ...]
    """The row of `checks` of each progress value (its game stage, say; at most 32 rows)."""
    checks: tuple[tuple[ProbCutCheck | None, ...], ...]
    """By row, then by a node's depth (from 0, fewer than 32): its check, or None."""
    full_width: int = 0
    """A search asked for at most this many plies applies none of the checks: a small depth is
    searched as asked, full width, where the cuts would cost most (`Searcher.cuts`)."""


@dataclass(frozen=True, slots=True)
class SearchHints:
    """How a game's tree is best searched and solved: the tuning and the optional capabilities
    that the search and the solver read, apart from the rules. Each family declares its own
    (`Searchable.search_hints`), measured in docs/engine.md; nothing probes for them."""

    deepening_step: int = 1
    """Plies between two iterations of the strength mode's iterative deepening (ending at the
    depth asked): where the tree grows slowly with depth, each iteration costs nearly as much
    as the next, and the table's moves from a few plies shallower order as well."""

    table_depth: int = 2
    """The least depth left at which a search below the root probes and stores the
    transposition table. Nearer the horizon a subtree costs less to search again than the
    table's cache miss costs (one ply above it, the children are leaves)."""

    sort_depth: int = 0
    """The least depth left at which negamax in the strength mode sorts a node's moves, after
    the table's move, by the evaluation of each child, the mover's best first (0: never). That
    far from the horizon an evaluation per child costs little beside the subtree a better first
    move saves: in Othello most at multi-ProbCut's null-window nodes."""

    reversed_helpers: bool = False
    """Whether a parallel search's odd helper threads search in reverse order near the root
    (every root move, and every move after the first for a few plies below), so that they start
    where the main thread will end, besides leaving a child another thread is searching for
    last (ABDADA). Bao's threads finish each depth sooner so; Kalah's and Othello's later."""

    board_keys: bool = False
    """Whether the game implements `board_key`: an optional capability the solver keys its
    table on and prunes with."""

    board_seeds: int = 0
    """The most points loose a board may have for `board_children`, an optional capability (with
    the board keys) that lets the solver search the keys themselves, never making a position;
    0 when the game does not implement it."""


class Searchable(Game[P, M]):
    """A game's rules with the hooks its search walks them by.

    The defaults build on the rules alone, so a game that only implements `Game` and its
    `evaluations` is searched correctly; a family overrides what it knows better.
    """

    evaluations: Mapping[str, Evaluation]
    """Named static evaluations; the first one is the default."""

    search_hints: ClassVar[SearchHints] = SearchHints()
    """How this game is best searched and solved (the defaults: no tuning, no board keys)."""

    def children(self, position: P) -> list[tuple[M, P]]:
        """Every legal move with the position it leads to, for search."""
        return [(move, self.play(position, move)) for move in self.legal_moves(position)]

    def search_moves(self, position: P) -> list[M]:
        """The legal moves, likely best first by a cheap static guess (empty when the game is
        over): the search tries them in this order, so a good guess prunes most of the tree.
        Games override it with what they know (captures, extra turns, corners)."""
        return self.legal_moves(position)

    def horizon_moves(self, position: P) -> list[M]:
        """The moves of a node one ply above the search's horizon, whose children are all
        leaves (empty when the game is over): `search_moves`, unless the game knows a cheaper
        order that prunes as well there."""
        return self.search_moves(position)

    def child(self, position: P, move: M) -> P:
        """The position after `move`, one of `search_moves(position)`, without checking it:
        the search makes children one at a time, and at a cut-off most are never made."""
        return self.play(position, move)

    def leaf_evaluation(self, evaluation: Evaluation) -> Callable[[P], float | None]:
        """`evaluation` fused with the end test: a function that scores a position, or returns
        None when the game is over there (the search then scores its outcome).

        The search calls it at every leaf; a game whose evaluation already does most of the
        end test's work (Othello's mobility) or whose end test is a row check (mancala)
        overrides it to do both in one pass."""
        is_over = self.is_over

        def leaf(position: P) -> float | None:
            return None if is_over(position) else evaluation(position)

        return leaf

    def probcut(self, evaluation: str) -> ProbCut | None:
        """Multi-ProbCut's checks for the evaluation named, or None: the game has none fitted
        for it, and the search stays full-width."""
        return None

    def moves_to_go(self, position: P) -> int | None:
        """About how many moves the side to move has still to play, where the board tells
        (a clock search plans its time over at least that many); None where it does not."""
        return None

    def board_key(self, position: P) -> tuple[int, int, int]:
        """(key, banked, loose): the position up to the points already banked, as an integer;
        those points (player 0 minus player 1); and the points still loose, which either side
        may yet win, so that the final margin lies within banked ± loose. Positions with equal
        keys have the same future: their final margins differ by their banked points. Only
        games with `search_hints.board_keys` implement it."""
        raise NotImplementedError(f"{self.name} gives no board key")

    def board_children(self, key: int, loose: int) -> list[BoardChild[M]]:
        """Every legal move from the board `key` (a `board_key` key, with `loose` points loose)
        as (move, gain, again, child key, child loose): what the move banks for the mover minus
        what it banks for the opponent, whether the mover moves again, and the board it leads
        to as `board_key` gives it (from its own mover's side). In the reverse of the order of
        `legal_moves`; empty when the game is over, which a board a move led to is only once
        nothing is loose. Only games with `search_hints.board_seeds` implement it, for boards
        with at most that many points loose."""
        raise NotImplementedError(f"{self.name} gives no board children")


def format_line(game: Game[P, M], position: P, moves: Sequence[M]) -> list[str]:
    """Moves played one after another from `position`, in the game's notation (a line of play,
    a principal variation)."""
    texts = []
    for move in moves:
        texts.append(game.format_move(position, move))
        position = game.play(position, move)
    return texts
