"""Alpha-beta in its textbook form: player 0's nodes maximise, player 1's minimise, every value
from player 0's point of view."""

from __future__ import annotations

import time
from math import inf, nextafter
from typing import Any

from ubao.engine.search.control import FINAL_DEPTH, SearchAborted
from ubao.engine.search.nodes import Counts, NodeKit, Root, order, ranks
from ubao.engine.search.table import EXACT, LOWER, UPPER


def alphabeta_nodes(kit: NodeKit) -> tuple[Counts, Root]:
    """The counters and the root search of an alpha-beta tree walk over `kit`."""
    root = kit.root
    search_moves = kit.search_moves
    horizon_moves = kit.horizon_moves
    make = kit.make
    to_move = kit.to_move
    leaf = kit.leaf
    table_depth = kit.table_depth
    key = kit.key
    probe = kit.probe
    exact = kit.exact
    control = kit.control
    max_nodes = kit.max_nodes
    allowed = kit.allowed
    out = kit.out
    trace_ply = kit.trace_ply
    pv_lines = kit.pv_lines
    ended = kit.ended
    settled = kit.settled
    save = kit.save
    horizon = kit.horizon
    clock = time.perf_counter
    generated = expanded = evaluated = cutoffs = hits = open_hits = 0

    def counts() -> tuple[int, int, int, int, int, int]:
        return generated, expanded, evaluated, cutoffs, hits, open_hits

    def alphabeta(pos: Any, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value for player 0: player 0's nodes maximise, player 1's minimise.

        The expansion repeats negamax's on purpose: each algorithm is written out whole, to be
        read as the textbook form, and a shared helper would cost a call per node on the hot
        path."""
        nonlocal generated, expanded, evaluated, cutoffs, hits, open_hits
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, 0, ply)
            evaluated += 1
            return value
        stored = depth >= table_depth or not ply  # far enough from the horizon; see `nodes`
        k = hash(pos if key is None else key(pos)) if stored else 0
        met = evaluated + open_hits  # unchanged at the end: this search met no horizon
        entry = probe(k) if stored else None
        first = None
        if entry is not None:
            first = entry[3]
            if ply:  # the root always searches, to know its move
                score = settled(entry, depth, alpha, beta, ply)
                if score is not None:
                    hits += 1
                    open_hits += entry[0] != FINAL_DEPTH
                    if ply <= trace_ply:
                        out.hit(ply, entry[1], score, alpha, beta)
                    return score
        if ply == 0 and root.root_move is not None:
            first = root.root_move
        if generated >= max_nodes or clock() >= control.deadline:
            raise SearchAborted
        moves = horizon_moves(pos) if depth == 1 and ply else search_moves(pos)
        if not moves:
            return ended(pos, 0, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        expanded += 1
        rank = ranks(moves) if ply == 0 and exact else None
        if depth > 1 and len(moves) > 1:
            order(moves, first)
        alpha0 = alpha
        beta0 = beta
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            if me == 0:
                best, best_move, made, scored = horizon(pos, moves, 0, alpha, beta, ply)
                cutoffs += best >= beta
            else:  # the minimising side maximises the negated values, as in negamax
                best, best_move, made, scored = horizon(pos, moves, 1, -beta, -alpha, ply)
                cutoffs += best >= -alpha
                best = -best
            generated += made
            evaluated += scored
        else:
            best_move = None
            if me == 0:
                best = -inf
                for i, move in enumerate(moves):
                    child = make(pos, move)
                    generated += 1
                    side = to_move(child)
                    low = alpha
                    if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                        low = nextafter(alpha, -inf)  # a tie goes to the game's first move
                    if p1 <= trace_ply:
                        out.enter(p1, pos, move, side, d1, low, beta, None)
                    value = alphabeta(child, side, d1, low, beta, p1)
                    if p1 <= trace_ply:
                        out.leave(p1, pos, move, d1, value, 0, low, beta)
                    if value > best or (value == best and low < alpha):
                        best = value
                        best_move = move
                        if value > low:
                            alpha = value
                            pv_lines[ply] = (move, *pv_lines[p1])
                            if ply == 0:
                                root.root_best = move
                                root.root_score = value
                            if alpha >= beta:
                                cutoffs += 1
                                if p1 <= trace_ply:
                                    out.prune(p1, pos, moves[i + 1 :], value, beta, "beta")
                                break
            else:
                best = inf
                for i, move in enumerate(moves):
                    child = make(pos, move)
                    generated += 1
                    side = to_move(child)
                    high = beta
                    if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                        high = nextafter(beta, inf)  # a tie goes to the game's first move
                    if p1 <= trace_ply:
                        out.enter(p1, pos, move, side, d1, alpha, high, None)
                    value = alphabeta(child, side, d1, alpha, high, p1)
                    if p1 <= trace_ply:
                        out.leave(p1, pos, move, d1, value, 0, alpha, high)
                    if value < best or (value == best and high > beta):
                        best = value
                        best_move = move
                        if value < high:
                            beta = value
                            pv_lines[ply] = (move, *pv_lines[p1])
                            if ply == 0:
                                root.root_best = move
                                root.root_score = -value
                            if alpha >= beta:
                                cutoffs += 1
                                if p1 <= trace_ply:
                                    out.prune(p1, pos, moves[i + 1 :], value, alpha, "alpha")
                                break
        if best <= alpha0:
            flag = UPPER
        elif best >= beta0:
            flag = LOWER
        else:
            flag = EXACT
        if flag != EXACT and (flag == UPPER) == (me == 0):
            best_move = first  # a node failing on its own side learnt no best move
        if stored and (ply or allowed is None):
            save(k, depth, flag, best, best_move, ply, evaluated + open_hits == met)
        return best

    def root_alphabeta(pos: Any, depth: int) -> float:
        me = to_move(pos)
        value = alphabeta(pos, me, depth, -inf, inf, 0)
        return value if me == 0 else -value

    return counts, root_alphabeta
