"""Plain minimax, the baseline: every node to the horizon, no table, no pruning; player 0's
nodes maximise, player 1's minimise."""

from __future__ import annotations

import time
from math import inf
from typing import Any

from ubao.engine.search.control import SearchAborted
from ubao.engine.search.nodes import Counts, NodeKit, Root, order, ranks


def minimax_nodes(kit: NodeKit) -> tuple[Counts, Root]:
    """The counters and the root search of a minimax tree walk over `kit` (its cut-offs, table
    hits and open hits stay 0)."""
    root = kit.root
    search_moves = kit.search_moves
    horizon_moves = kit.horizon_moves
    make = kit.make
    to_move = kit.to_move
    leaf = kit.leaf
    control = kit.control
    max_nodes = kit.max_nodes
    allowed = kit.allowed
    out = kit.out
    trace_ply = kit.trace_ply
    pv_lines = kit.pv_lines
    ended = kit.ended
    horizon = kit.horizon
    clock = time.perf_counter
    generated = expanded = evaluated = 0
    cutoffs = hits = open_hits = 0

    def counts() -> tuple[int, int, int, int, int, int]:
        return generated, expanded, evaluated, cutoffs, hits, open_hits

    def minimax(pos: Any, me: int, depth: int, ply: int) -> float:
        """The value for player 0 by visiting every node to the horizon: the baseline."""
        nonlocal generated, expanded, evaluated
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, 0, ply)
            evaluated += 1
            return value
        if generated >= max_nodes or clock() >= control.deadline:
            raise SearchAborted
        moves = horizon_moves(pos) if depth == 1 and ply else search_moves(pos)
        if not moves:
            return ended(pos, 0, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        expanded += 1
        rank = ranks(moves) if ply == 0 else None
        if ply == 0 and root.root_move is not None:
            order(moves, root.root_move)
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            best, _, made, scored = horizon(pos, moves, me, -inf, inf, ply)
            generated += made
            evaluated += scored
            return best if me == 0 else -best
        best = -inf if me == 0 else inf
        best_move = None
        for move in moves:
            child = make(pos, move)
            generated += 1
            side = to_move(child)
            if p1 <= trace_ply:
                out.enter(p1, pos, move, side, d1, -inf, inf, None)
            value = minimax(child, side, d1, p1)
            if p1 <= trace_ply:
                out.leave(p1, pos, move, d1, value, 0, -inf, inf)
            if (value > best if me == 0 else value < best) or (
                value == best and rank is not None and rank[move] < rank[best_move]
            ):
                best = value
                best_move = move
                pv_lines[ply] = (move, *pv_lines[p1])
                if ply == 0:
                    root.root_best = move
                    root.root_score = value if me == 0 else -value
        return best

    def root_minimax(pos: Any, depth: int) -> float:
        me = to_move(pos)
        value = minimax(pos, me, depth, 0)
        return value if me == 0 else -value

    return counts, root_minimax
