"""What the node functions of every algorithm share: the search's setup, read once per tree
walk (`NodeKit`), and the steps they all take (score an ended game, order the moves, read and
write the table, search a node whose children are all leaves).

Every interior node does the same steps: probe the table; generate the moves (in the game's
static order), put the table's move first (and far enough from the horizon, in negamax's
strength mode, sort the rest by their children's evaluation: `search_hints.sort_depth`); make
and search the children one at a time until one refutes the window; store what it learnt. With
the root moves restricted to `allowed`, the root's value is not the position's: it is not
stored. Below the root, a node with less than `search_hints.table_depth` plies left neither
probes nor writes the table: one ply above the horizon its children are leaves, which cost less
to evaluate than a probe and a store (the key's hash first), and in a game with cheap moves
(mancala) a few plies cost less to search again than the table's cache misses.

The algorithms (`negamax`, `alphabeta`, `minimax`) unpack the kit into closure variables, the
fastest way to reach shared state in CPython, and keep their counters as their own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from math import inf
from typing import Any, Protocol

from ubao.engine.game import Game
from ubao.engine.search.control import FINAL_DEPTH, MAX_SEARCH_DEPTH, SearchControl
from ubao.engine.search.scores import MATE_BOUND, final_score
from ubao.engine.search.table import EXACT, LOWER, TranspositionTable
from ubao.engine.search.trace import TraceOut
from ubao.engine.searchable import ProbCut, Searchable

Counts = Callable[[], tuple[int, int, int, int, int, int]]
"""A search's counters: generated, expanded, evaluated, cutoffs, table hits, and the hits of
entries whose search met the horizon (not FINAL_DEPTH)."""
Root = Callable[[Any, int], float]
"""One iteration at the root to a depth: the score from the side to move's point of view."""
Horizon = Callable[[Any, list[Any], int, float, float, int], tuple[float, Any, int, int]]
"""See `NodeKit.horizon`."""


class RootState(Protocol):
    """What the node functions tell the driver about the root while an iteration runs."""

    root_move: Any
    """The move to search first at the root (the last iteration's best)."""
    root_best: Any
    """The best root move so far in the iteration under way."""
    root_score: float


@dataclass(frozen=True, slots=True)
class NodeKit:
    """One search's setup, as the node functions read it."""

    root: RootState
    search_moves: Callable[[Any], list[Any]]
    horizon_moves: Callable[[Any], list[Any]]
    make: Callable[[Any, Any], Any]
    """The game's `child`: a move's position, unchecked."""
    to_move: Callable[[Any], int]
    leaf: Callable[[Any], float | None]
    """The evaluation fused with the end test (`Searchable.leaf_evaluation`)."""
    table_depth: int
    sort_depth: int
    """The least depth left at which negamax sorts by evaluation (`search_hints.sort_depth`)."""
    key: Callable[[Any], Hashable] | None
    """The game's own key, or None where the position is its key."""
    probe: Callable[[int], tuple[int, int, float, Any] | None]
    exact: bool
    control: SearchControl
    max_nodes: int
    allowed: frozenset[Any] | None
    """The only moves searched at the root (None: every move)."""
    out: TraceOut
    trace_ply: int
    """Nodes up to this ply are traced (-1: none)."""
    pv_lines: list[tuple[Any, ...]]
    """The best line found below each ply; the root's is the iteration's."""
    ended: Callable[[Any, int, int], float]
    settled: Callable[[tuple[int, int, float, Any], int, float, float, int], float | None]
    save: Callable[[int, int, int, float, Any, int, bool], None]
    horizon: Horizon
    sort_by_evaluation: Callable[[Any, list[Any], int, int, int], None]
    probcut: ProbCut | None
    """Multi-ProbCut's checks, which negamax applies (None: a full-width search)."""


def node_kit(
    root: RootState,
    game: Searchable[Any, Any],
    evaluation: Callable[[Any], float],
    table: TranspositionTable,
    exact: bool,
    control: SearchControl,
    out: TraceOut,
    trace_ply: int,
    nodes: int | None,
    allowed: frozenset[Any] | None,
    probcut: ProbCut | None = None,
) -> NodeKit:
    """The setup of one tree walk, with the steps every algorithm shares built over it."""
    make = game.child
    outcome = game.outcome
    leaf = game.leaf_evaluation(evaluation)
    store = table.store
    pv_lines: list[tuple[Any, ...]] = [()] * (MAX_SEARCH_DEPTH + 2)

    def ended(pos: Any, player: int, ply: int) -> float:
        """The score of a finished position for `player`."""
        result = outcome(pos)
        assert result is not None, f"{game.name}: the game is over but has no outcome"
        return final_score(result, player, ply)

    def settled(
        entry: tuple[int, int, float, Any], depth: int, alpha: float, beta: float, ply: int
    ) -> float | None:
        """The table's score if it settles the window [alpha, beta] at `depth`, else None.

        The exact mode takes a score of the very depth only; the strength mode also a deeper
        one, usually a better value. A finished game's score is stored relative to its node.
        """
        e_depth, flag, score, _ = entry
        if e_depth != depth and (exact or e_depth < depth):
            return None
        if score > MATE_BOUND:
            score -= ply
        elif score < -MATE_BOUND:
            score += ply
        if flag == EXACT or (score >= beta if flag == LOWER else score <= alpha):
            return score
        return None

    def save(k: int, depth: int, flag: int, best: float, move: Any, ply: int, final: bool) -> None:
        """Store a node's result, a finished game's score relative to the node; in the strength
        mode at FINAL_DEPTH when its search met no horizon (`final`: no evaluation and no
        open hit since the node began)."""
        if final and not exact:
            depth = FINAL_DEPTH
        if best > MATE_BOUND:
            best += ply
        elif best < -MATE_BOUND:
            best -= ply
        store(k, depth, flag, best, move)

    def horizon(
        pos: Any, moves: list[Any], me: int, alpha: float, beta: float, ply: int
    ) -> tuple[float, Any, int, int]:
        """The best child of `pos`, its move, the children made and the leaves evaluated, all
        children leaves, for `me` in the window [alpha, beta] of `me`'s view (alpha < beta: it
        cut off exactly when the best is at least beta).

        What the node functions do with children at depth 0, cut-offs included, without a call
        per leaf (the last ply is most of the nodes): a leaf's value from `me`'s view does not
        depend on who moves next, and the last ply gets no null windows. Not used at the root
        (its ties need the game's order) nor on traced plies.
        """
        p1 = ply + 1
        best = -inf
        best_move = None
        made = scored = 0
        for move in moves:
            child = make(pos, move)
            made += 1
            value = leaf(child)
            if value is None:
                value = ended(child, me, p1)
            else:
                scored += 1
                if me:
                    value = -value
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    pv_lines[ply] = (move,)
                    if value >= beta:
                        break
        return best, best_move, made, scored

    def sort_by_evaluation(pos: Any, moves: list[Any], start: int, me: int, ply: int) -> None:
        """`moves` from `start` on sorted by their child's evaluation for `me`, the mover, best
        first, ties in their order; neither made nor evaluated counts as the search's."""

        def mine(move: Any) -> float:
            child = make(pos, move)
            value = leaf(child)
            if value is None:
                return ended(child, me, ply + 1)
            return value if me == 0 else -value

        moves[start:] = sorted(moves[start:], key=lambda move: -mine(move))

    return NodeKit(
        root=root,
        search_moves=game.search_moves,
        horizon_moves=game.horizon_moves,
        make=make,
        to_move=game.to_move,
        leaf=leaf,
        table_depth=game.search_hints.table_depth,
        sort_depth=game.search_hints.sort_depth,
        key=None if type(game).key is Game.key else game.key,
        probe=table.probe,
        exact=exact,
        control=control,
        max_nodes=sys.maxsize if nodes is None else nodes,
        allowed=allowed,
        out=out,
        trace_ply=trace_ply,
        pv_lines=pv_lines,
        ended=ended,
        settled=settled,
        save=save,
        horizon=horizon,
        sort_by_evaluation=sort_by_evaluation,
        probcut=probcut,
    )


def order(moves: list[Any], first: Any) -> None:
    """The table's (or the last iteration's) move first, the rest in the game's order."""
    if first is not None and first in moves:
        i = moves.index(first)
        if i:
            del moves[i]
            moves.insert(0, first)


def ranks(moves: list[Any]) -> dict[Any, int]:
    """Each root move's place in the game's order, which breaks ties between equal moves."""
    return {move: i for i, move in enumerate(moves)}
