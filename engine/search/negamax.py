"""Negamax with principal variation search: each node's value for its own side to move, the
first move searched with the full window and the others with a null window first. The default
algorithm, and the one the strength mode starts with an aspiration window."""

from __future__ import annotations

import time
from math import inf, nextafter
from typing import Any

from ubao.engine.search.control import FINAL_DEPTH, SearchAborted
from ubao.engine.search.nodes import Counts, NodeKit, Root, order, ranks
from ubao.engine.search.scores import MATE_BOUND
from ubao.engine.search.table import EXACT, LOWER, UPPER


def negamax_nodes(kit: NodeKit) -> tuple[Counts, Root]:
    """The counters and the root search of a negamax tree walk over `kit`."""
    root = kit.root
    search_moves = kit.search_moves
    horizon_moves = kit.horizon_moves
    make = kit.make
    to_move = kit.to_move
    leaf = kit.leaf
    table_depth = kit.table_depth
    sort_depth = kit.sort_depth if not kit.exact else 0
    sort_by_evaluation = kit.sort_by_evaluation
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
    probcut = kit.probcut
    progress = probcut.progress if probcut is not None else None
    stages = probcut.stages if probcut is not None else ()
    checks = probcut.checks if probcut is not None else ()
    check_depths = len(checks[0]) if checks else 0
    clock = time.perf_counter
    generated = expanded = evaluated = cutoffs = hits = open_hits = 0

    def counts() -> tuple[int, int, int, int, int, int]:
        return generated, expanded, evaluated, cutoffs, hits, open_hits

    def negamax(pos: Any, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value for `me`, the side to move; children of the same side are not negated."""
        nonlocal generated, expanded, evaluated, cutoffs, hits, open_hits
        pv_lines[ply] = ()
        if depth == 0:
            value = leaf(pos)
            if value is None:
                return ended(pos, me, ply)
            evaluated += 1
            return value if me == 0 else -value
        stored = depth >= table_depth or not ply  # far enough from the horizon; see `nodes`
        k = hash(pos if key is None else key(pos)) if stored else 0
        met = evaluated + open_hits  # unchanged at the end: this search met no horizon
        entry = probe(k) if stored else None
        first = None
        if entry is not None:
            first = entry[3]
            if ply:  # the root always searches, to know its move
                score = settled(entry, depth, alpha, beta, ply)
                # so does a node of the line (an open window): the table would end the line
                # where its entries end, `table_depth` plies above the horizon
                if score is not None and beta <= nextafter(alpha, inf):
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
            return ended(pos, me, ply)
        if not ply and allowed is not None:
            moves = [move for move in moves if move in allowed]
        if (
            progress is not None
            and ply
            and depth < check_depths
            and beta <= nextafter(alpha, inf)
            and -MATE_BOUND < alpha < MATE_BOUND
        ):
            check = checks[stages[progress(pos)]][depth]
            if check is not None:
                cut = probcut_cut(pos, me, check, alpha, beta, ply)
                if cut is not None:
                    pv_lines[ply] = ()
                    return cut
        expanded += 1
        rank = ranks(moves) if ply == 0 and exact else None
        if depth > 1 and len(moves) > 1:
            order(moves, first)
        if sort_depth and depth >= sort_depth and len(moves) > 2:
            kept = 1 if first is not None and moves[0] == first else 0  # the table's move
            sort_by_evaluation(pos, moves, kept, me, ply)
        alpha0 = alpha
        d1 = depth - 1
        p1 = ply + 1
        if d1 == 0 and ply and p1 > trace_ply:
            best, best_move, made, scored = horizon(pos, moves, me, alpha, beta, ply)
            generated += made
            evaluated += scored
            cutoffs += best >= beta
        else:
            best = -inf
            best_move = None
            null = False  # the first move gets the full window, the others a null window first
            for i, move in enumerate(moves):
                child = make(pos, move)
                generated += 1
                side = to_move(child)
                low = alpha
                if rank is not None and best_move is not None and rank[move] < rank[best_move]:
                    low = nextafter(alpha, -inf)  # a tie goes to the game's first move
                high = nextafter(low, inf) if null else beta
                if p1 <= trace_ply:
                    out.enter(p1, pos, move, side, d1, low, high, side != me)
                if side == me:
                    value = negamax(child, side, d1, low, high, p1)
                else:
                    value = -negamax(child, side, d1, -high, -low, p1)
                if null and low < value < beta:
                    if p1 <= trace_ply:
                        out.research(p1, pos, move, value)
                    if ply == 0:  # played, its bound its score, if time runs out in the re-search
                        before = root.root_best, root.root_score
                        root.root_best, root.root_score = move, value
                    high = beta
                    if side == me:
                        value = negamax(child, side, d1, low, beta, p1)
                    else:
                        value = -negamax(child, side, d1, -beta, -low, p1)
                    if ply == 0 and value <= low:  # the re-search failed low after all
                        root.root_best, root.root_score = before
                if p1 <= trace_ply:
                    out.leave(p1, pos, move, d1, value, me, low, high)
                if value > best or (value == best and low < alpha):
                    best = value
                    best_move = move
                    if value > low:
                        alpha = value
                        pv_lines[ply] = (move, *pv_lines[p1])
                        if ply == 0:
                            root.root_best = move
                            root.root_score = value
                        if value >= beta:
                            cutoffs += 1
                            if p1 <= trace_ply:
                                out.prune(p1, pos, moves[i + 1 :], value, beta, "beta")
                            break
                null = d1 > 0
        if best <= alpha0:
            flag = UPPER
            best_move = first  # a failing-low node learnt no best move
        else:
            flag = LOWER if best >= beta else EXACT
        if stored and (ply or allowed is None):
            save(k, depth, flag, best, best_move, ply, evaluated + open_hits == met)
        return best

    def probcut_cut(
        pos: Any,
        me: int,
        check: tuple[int, float, float, float],
        alpha: float,
        beta: float,
        ply: int,
    ) -> float | None:
        """Multi-ProbCut at a null-window node: `beta` when the shallow search predicts a value
        of at least beta, `alpha` when it predicts at most alpha, else None (search it). The
        side the node's own evaluation leans to is tried first: its test is the likelier to
        cut. A shallow search that met no horizon predicts nothing (its value is exact, not a
        sample of the regression)."""
        shallow, slope, high_offset, low_offset = check
        high = (beta + high_offset) / slope
        low = (alpha + low_offset) / slope
        own = leaf(pos)  # not None: the node's game goes on
        leans_up = own is not None and (own if me == 0 else -own) >= (high + low) / 2
        for up in (leans_up, not leans_up):
            met = evaluated + open_hits
            lower, upper = (nextafter(high, -inf), high) if up else (low, nextafter(low, inf))
            value = negamax(pos, me, shallow, lower, upper, ply)
            if evaluated + open_hits == met:
                continue  # exact: it predicts nothing
            if (value >= high) if up else (value <= low):
                return beta if up else alpha
        return None

    scores: list[float] = []
    """The root's score after each iteration, for the aspiration window of the next."""

    def root_negamax(pos: Any, depth: int) -> float:
        """An aspiration window in the strength mode: the last score, give or take its last
        change (at least 1), widened to infinity on the side it fails."""
        me = to_move(pos)
        low, high = -inf, inf
        if not exact and len(scores) >= 2 and abs(scores[-1]) < MATE_BOUND:
            width = max(abs(scores[-1] - scores[-2]), 1.0)
            low, high = scores[-1] - width, scores[-1] + width
        while True:
            value = negamax(pos, me, depth, low, high, 0)
            if value <= low:
                low = -inf
            elif value >= high:
                high = inf
            else:
                scores.append(value)
                return value

    return counts, root_negamax
