/* The negamax of engine/search/ for one game, included once per game after these are
 * defined: S_NAME(x) (the functions' prefix), S_RULES, S_POS, S_MAX_MOVES (the most moves of a
 * position), S_HANDLES (move handles run from 0 below this), and, on `const S_RULES *r`:
 *   S_HASH(r, p)           Python's hash of the position value, the key the Python search uses
 *   S_ORDER(r, p, moves)   `search_moves`: the move handles in the game's order; 0 when over
 *   S_VALUE(r, p, k)       the Python move of handle k in p
 *   S_CHILD(r, p, k, out)  `child`; returns 1 when the game is over after it, 0 when not,
 *                          -1 when the game does not tell
 *   S_LEAF(r, p, over, e, value)  the evaluation `e` (the game's enum in constants.h) fused
 *                          with the end test (`leaf_evaluation`), given what S_CHILD returned
 *                          (-1: nothing): 1 and *value (player 0's view), or 0 when over
 *   S_ENDED(r, p, me, ply) the finished game's score for `me` (`final_score`)
 *   S_FIND(r, p, move)     the handle of the legal Python move `move`, or -1
 * and optionally, for a game whose order can use what S_CHILD told of the end:
 *   S_ORDER_OVER(r, p, moves, ply, over)  S_ORDER_PLY given what S_CHILD returned (-1: nothing)
 * and optionally, for a game with a cheaper order one ply above the horizon (below the root):
 *   S_HORIZON_ORDER(r, p, moves, over)   `horizon_moves`, given what S_CHILD returned
 * and optionally, for a game with multi-ProbCut's checks (s->probcut):
 *   S_PROGRESS(r, p)       how far the game of p has gone (`ProbCut.progress`)
 * and optionally, for a game whose order already makes every child (Bao), which then keeps
 * what it made per ply and makes the tree's children from it (S_CHILD still makes the line's):
 *   S_ORDER_PLY(r, p, moves, ply)    S_ORDER for the node `ply` plies from the root
 *   S_CHILD_PLY(r, p, k, out, ply)   S_CHILD of a handle that S_ORDER_PLY gave at `ply`
 * Every step follows engine/search/'s `negamax`, `alphabeta`, `minimax`, `horizon` (nodes.py) and their
 * roots: s->algorithm picks one. */

#define CLOCK_EVERY 256 /* interior nodes between two readings of the clock (~0.1 ms) */
#ifndef S_ORDER_PLY
#define S_ORDER_PLY(r, p, moves, ply) S_ORDER(r, p, moves)
#define S_CHILD_PLY(r, p, k, out, ply) S_CHILD(r, p, k, out)
#define S_PLY_DEFAULTS
#endif
#ifndef S_ORDER_OVER
#define S_ORDER_OVER(r, p, moves, ply, over) S_ORDER_PLY(r, p, moves, ply)
#define S_OVER_DEFAULT
#endif
/* A node's moves in the order it searches them (`horizon_moves` or `search_moves`). */
#ifdef S_HORIZON_ORDER
#define S_NODE_ORDER(r, p, moves, depth, ply, over)                                 \
    ((depth) == 1 && (ply) ? S_HORIZON_ORDER(r, p, moves, over)                     \
                           : S_ORDER_OVER(r, p, moves, ply, over))
#else
#define S_NODE_ORDER(r, p, moves, depth, ply, over) S_ORDER_OVER(r, p, moves, ply, over)
#endif

static void S_NAME(line)(SearchState *s, int ply, int move) {
    int n = s->pv_len[ply + 1];
    s->pv[ply][0] = move;
    for (int i = 0; i < n; i++) s->pv[ply][i + 1] = s->pv[ply + 1][i]; /* short: no call */
    s->pv_len[ply] = n + 1;
}

/* The best child of `p` for `me` and its move, all children leaves (`horizon`). */
static double S_NAME(horizon)(SearchState *s, const S_RULES *r, const S_POS *p,
                              const int *moves, int n, int me, double alpha, double beta,
                              int ply, int *best_move) {
    double best = -INFINITY;
    S_POS child;
    for (int i = 0; i < n; i++) {
        int over = S_CHILD_PLY(r, p, moves[i], &child, ply);
        s->generated++;
        double value;
        if (S_LEAF(r, &child, over, s->evaluation, &value)) {
            s->evaluated++;
            if (me) value = -value;
        } else {
            value = S_ENDED(r, &child, me, ply + 1);
        }
        if (value > best) {
            best = value;
            *best_move = S_VALUE(r, p, moves[i]);
            if (value > alpha) {
                alpha = value;
                s->pv[ply][0] = *best_move;
                s->pv_len[ply] = 1;
                if (value >= beta) {
                    s->cutoffs++;
                    break;
                }
            }
        }
    }
    return best;
}

/* Whether the table settles the window [alpha, beta] at `depth` (`settled`), the score then in
 * *score; *first gets the table's move either way (TT_NO_MOVE: none). The root always
 * searches, to know its move; so does a node of negamax's line (`line`: an open window), which
 * the table would end where its entries end (`table_depth` plies above the horizon). */
static inline int S_NAME(settled)(SearchState *s, int64_t key, int depth, double alpha,
                                  double beta, int ply, int line, int *first, double *score) {
    TableEntry entry;
    *first = TT_NO_MOVE;
    if (!tt_probe(s->table, key, &entry)) return 0;
    *first = entry.move;
    if (!ply || (entry.depth != depth && (s->exact || entry.depth < depth))) return 0;
    double value = entry.score;
    if (value > SEARCH_MATE_BOUND)
        value -= ply;
    else if (value < -SEARCH_MATE_BOUND)
        value += ply;
    if (entry.flag == TT_EXACT || (entry.flag == TT_LOWER ? value >= beta : value <= alpha)) {
        if (line && beta > search_next_up(alpha)) return 0;
        s->hits++;
        s->open_hits += entry.depth != SEARCH_FINAL_DEPTH;
        *score = value;
        return 1;
    }
    return 0;
}

/* Store a node's result (`save`), a finished game's score relative to the node; in the
 * strength mode at FINAL_DEPTH when its search met no horizon (`met`: s->evaluated +
 * s->open_hits when the node began, unchanged). */
static inline void S_NAME(save)(SearchState *s, int64_t key, int depth, int flag, double best,
                                int move, int ply, uint64_t met) {
    if (!s->exact && s->evaluated + s->open_hits == met) depth = SEARCH_FINAL_DEPTH;
    double stored = best > SEARCH_MATE_BOUND    ? best + ply
                    : best < -SEARCH_MATE_BOUND ? best - ply
                                                : best;
    s->filled += tt_store(s->table, key, depth, flag, stored, move);
}

/* Whether the search must end now (`stop`, the node limit, or the clock's say, read every
 * CLOCK_EVERY nodes); then s->aborted is set and every node returns at once. */
static inline int S_NAME(out_of_time)(SearchState *s) {
    if (RELAXED_LOAD(s->stop) || (s->max_nodes && s->generated >= s->max_nodes) ||
        (s->ticks++ % CLOCK_EVERY == 0 && search_clock_stop(s))) {
        s->aborted = 1;
        return 1;
    }
    return 0;
}

/* The move `first` (a move value) to the front of `moves`, the rest in their order (`order`). */
static inline void S_NAME(order)(const S_RULES *r, const S_POS *p, int *moves, int n,
                                 int first) {
    (void)r, (void)p; /* S_VALUE may not need them */
    if (first == TT_NO_MOVE) return;
    for (int i = 1; i < n; i++) {
        if (S_VALUE(r, p, moves[i]) == first) {
            int carry = moves[i]; /* each move one place on, by hand: a few, no memmove call */
            for (int j = 0; j <= i; j++) {
                int k = moves[j];
                moves[j] = carry;
                carry = k;
            }
            return;
        }
    }
}

/* The root's moves, `n` of `moves`, kept in their order when the search is restricted to some
 * (s->root_moves); returns how many are left. */
static inline int S_NAME(restrict)(const SearchState *s, const S_RULES *r, const S_POS *p,
                                   int *moves, int n) {
    (void)r, (void)p; /* S_VALUE may not need them */
    if (!s->nroot) return n;
    int kept = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < s->nroot; j++)
            if (S_VALUE(r, p, moves[i]) == s->root_moves[j]) {
                moves[kept++] = moves[i];
                break;
            }
    return kept;
}

/* `moves` from `from` on sorted by their child's evaluation for `me`, the mover, best first, ties
 * in their order (`sort_by_evaluation`): far from the horizon an evaluation per child costs
 * little beside what a better first move saves. */
static void S_NAME(sort)(SearchState *s, const S_RULES *r, const S_POS *p, int *moves, int n,
                         int from, int me, int ply) {
    double key[S_MAX_MOVES];
    for (int i = from; i < n; i++) {
        S_POS child;
        int over = S_CHILD_PLY(r, p, moves[i], &child, ply), move = moves[i], j = i;
        double value;
        double mine = S_LEAF(r, &child, over, s->evaluation, &value)
                          ? (me ? -value : value)
                          : S_ENDED(r, &child, me, ply + 1);
        for (; j > from && key[j - 1] < mine; j--) {
            key[j] = key[j - 1];
            moves[j] = moves[j - 1];
        }
        key[j] = mine;
        moves[j] = move;
    }
}

/* `moves` in reverse order. */
static inline void S_NAME(reverse)(int *moves, int n) {
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        int k = moves[i];
        moves[i] = moves[j];
        moves[j] = k;
    }
}

#ifdef S_PROGRESS
static double S_NAME(negamax)(SearchState *s, const S_RULES *r, const S_POS *p, int64_t key,
                              int over, int depth, double alpha, double beta, int ply);

/* Multi-ProbCut at a null-window node (`probcut_cut`): 1 when the shallow search predicts a
 * value of at least beta, -1 when at most alpha, 0 when neither (or it met no horizon). The
 * side the node's own evaluation leans to is tried first: its test is the likelier to cut. */
static int S_NAME(probcut)(SearchState *s, const S_RULES *r, const S_POS *p, int64_t key,
                           int over, const ProbCutCheck *c, double alpha, double beta,
                           int ply) {
    double value, high = (beta + c->high) / c->slope, low = (alpha + c->low) / c->slope;
    int up = S_LEAF(r, p, over, s->evaluation, &value) && /* the node's game goes on */
             (p->S_TO_MOVE ? -value : value) >= (high + low) / 2;
    for (int i = 0; i < 2; i++, up = !up) {
        uint64_t met = s->evaluated + s->open_hits;
        double lower = up ? -search_next_up(-high) : low, upper = up ? high : search_next_up(low);
        value = S_NAME(negamax)(s, r, p, key, over, c->shallow, lower, upper, ply);
        if (s->aborted) return 0;
        if (s->evaluated + s->open_hits == met) continue; /* exact: it predicts nothing */
        if (up ? value >= high : value <= low) return up ? 1 : -1;
    }
    return 0;
}
#endif

/* The value for the side to move, `me`; children of the same side are not negated. After an
 * abort (s->aborted) the value means nothing. `key` is S_HASH of `p` when the node uses the
 * table (hashed once, by the parent), `over` what S_CHILD returned of it (-1: nothing). As in
 * engine/search/, a node below the root with less than `table_depth` plies left does not. */
static double S_NAME(negamax)(SearchState *s, const S_RULES *r, const S_POS *p, int64_t key,
                              int over, int depth, double alpha, double beta, int ply) {
    int me = p->S_TO_MOVE;
    s->pv_len[ply] = 0;
    if (depth == 0) {
        double value;
        if (!S_LEAF(r, p, over, s->evaluation, &value)) return S_ENDED(r, p, me, ply);
        s->evaluated++;
        return me ? -value : value;
    }
    /* The moves are ordered while the node's bucket comes from memory: the probe's cache miss
     * overlaps with the order's work, which the probe does not need (and which a table cut
     * then wastes, on a few nodes in a hundred). */
    int td = s->table_depth, stored = depth >= td || !ply;
    uint64_t met = s->evaluated + s->open_hits; /* unchanged at the end: no horizon met */
    if (stored) tt_prefetch(s->table, key);
    int moves[S_MAX_MOVES], rank[S_HANDLES];
    int n = S_NODE_ORDER(r, p, moves, depth, ply, over);
    if (!ply) n = S_NAME(restrict)(s, r, p, moves, n);
    /* So is the child of the game's first move, whose bucket is asked for too: the table's
     * move is most often that one, whose search then finds its bucket on its way. */
    S_POS child;
    int ahead = -1, over1 = 0; /* the handle of the child made ahead (-1: none) */
    int64_t key1 = 0;
    if (depth > td && n) { /* a child that uses the table */
        ahead = moves[0];
        over1 = S_CHILD_PLY(r, p, ahead, &child, ply);
        key1 = S_HASH(r, &child);
        tt_prefetch(s->table, key1);
    }
    int first = TT_NO_MOVE;
    double settled;
    if (stored && S_NAME(settled)(s, key, depth, alpha, beta, ply, 1, &first, &settled))
        return settled;
    if (ply == 0 && s->root_move != TT_NO_MOVE) first = s->root_move;
    if (S_NAME(out_of_time)(s)) return 0.0;
    if (!n) return S_ENDED(r, p, me, ply);
#ifdef S_PROGRESS
    const ProbCut *pc = s->probcut;
    if (pc && ply && depth < pc->depths && beta <= search_next_up(alpha) &&
        fabs(alpha) < SEARCH_MATE_BOUND) {
        const ProbCutCheck *c = &pc->check[pc->stage[S_PROGRESS(r, p)]][depth];
        if (c->shallow) {
            int cut = S_NAME(probcut)(s, r, p, key, over, c, alpha, beta, ply);
            if (s->aborted) return 0.0;
            if (cut) {
                s->pv_len[ply] = 0;
                return cut > 0 ? beta : alpha;
            }
        }
    }
#endif
    s->expanded++;
    int ranked = ply == 0 && s->exact;
    if (ranked) /* each root move's place in the game's order */
        for (int i = 0; i < n; i++) rank[moves[i]] = i;
    if (depth > 1 && n > 1) S_NAME(order)(r, p, moves, n, first); /* the table's move first */
    if (s->sort_depth && depth >= s->sort_depth && !s->exact && n > 2)
        S_NAME(sort)(s, r, p, moves, n, first != TT_NO_MOVE && S_VALUE(r, p, moves[0]) == first, me,
                     ply);
    if (s->reverse && ply <= SEARCH_REVERSED_PLIES) /* a helper: the others' moves first */
        S_NAME(reverse)(moves + (ply > 0), n - (ply > 0));
    double alpha0 = alpha, best;
    int d1 = depth - 1, p1 = ply + 1, best_move = TT_NO_MOVE, best_k = -1;
    if (d1 == 0 && ply) {
        best = S_NAME(horizon)(s, r, p, moves, n, me, alpha, beta, ply, &best_move);
    } else {
        best = -INFINITY;
        int null = 0; /* the first move gets the full window, the others a null window first */
        /* On threads (ABDADA), a child after the first that another thread is searching waits
         * at the end of the list (`later`), so that the threads share out a node's children. */
        int later[S_MAX_MOVES], waiting = 0, shared = s->busy && d1 >= td;
        for (int i = 0; i < n + waiting; i++) {
            int k = i < n ? moves[i] : later[i - n];
            if (i || k != ahead) {
                over1 = S_CHILD_PLY(r, p, k, &child, ply);
                key1 = d1 >= td ? S_HASH(r, &child) : 0;
            }
            if (shared && i && i < n && busy_has(s->busy, (uint64_t)key1)) {
                later[waiting++] = k;
                continue;
            }
            s->generated++;
            int same = child.S_TO_MOVE == me;
            double low = alpha;
            if (ranked && best_k >= 0 && rank[k] < rank[best_k])
                low = -search_next_up(-alpha); /* a tie goes to the game's first move */
            double high = null ? search_next_up(low) : beta;
            if (shared) busy_mark(s->busy, (uint64_t)key1, 1);
            double value = same ? S_NAME(negamax)(s, r, &child, key1, over1, d1, low, high, p1)
                                : -S_NAME(negamax)(s, r, &child, key1, over1, d1, -high, -low, p1);
            if (!s->aborted && null && low < value && value < beta) {
                /* At the root the move is played, its bound its score, if time runs out in the
                 * re-search; it goes back to the best before if the re-search fails low. */
                int kept_best = s->root_best;
                double kept_score = s->root_score;
                if (!ply) {
                    s->root_best = S_VALUE(r, p, k);
                    s->root_score = value;
                }
                value = same ? S_NAME(negamax)(s, r, &child, key1, over1, d1, low, beta, p1)
                             : -S_NAME(negamax)(s, r, &child, key1, over1, d1, -beta, -low, p1);
                if (!ply && !s->aborted && value <= low) {
                    s->root_best = kept_best;
                    s->root_score = kept_score;
                }
            }
            if (shared) busy_mark(s->busy, (uint64_t)key1, 0);
            if (s->aborted) return 0.0;
            if (value > best || (value == best && low < alpha)) {
                best = value;
                best_k = k;
                best_move = S_VALUE(r, p, best_k);
                if (value > low) {
                    alpha = value;
                    S_NAME(line)(s, ply, best_move);
                    if (ply == 0) {
                        s->root_best = best_move;
                        s->root_score = value;
                    }
                    if (value >= beta) {
                        s->cutoffs++;
                        break;
                    }
                }
            }
            null = d1 > 0;
        }
    }
    int flag;
    if (best <= alpha0) {
        flag = TT_UPPER;
        best_move = first; /* a failing-low node learnt no best move */
    } else {
        flag = best >= beta ? TT_LOWER : TT_EXACT;
    }
    if (stored && (ply || !s->nroot))
        S_NAME(save)(s, key, depth, flag, best, best_move, ply, met);
    return best;
}

/* The value for player 0 (`alphabeta`): player 0's nodes maximise, player 1's minimise, each in
 * the full window, with the same table, order, horizon and root ties as negamax. */
static double S_NAME(alphabeta)(SearchState *s, const S_RULES *r, const S_POS *p, int depth,
                                double alpha, double beta, int ply) {
    int me = p->S_TO_MOVE;
    s->pv_len[ply] = 0;
    if (depth == 0) {
        double value;
        if (!S_LEAF(r, p, -1, s->evaluation, &value)) return S_ENDED(r, p, 0, ply);
        s->evaluated++;
        return value;
    }
    int stored = depth >= s->table_depth || !ply; /* as in negamax */
    uint64_t met = s->evaluated + s->open_hits;
    int64_t key = stored ? S_HASH(r, p) : 0;
    int first = TT_NO_MOVE;
    double settled;
    if (stored && S_NAME(settled)(s, key, depth, alpha, beta, ply, 0, &first, &settled))
        return settled;
    if (ply == 0 && s->root_move != TT_NO_MOVE) first = s->root_move;
    if (S_NAME(out_of_time)(s)) return 0.0;
    int moves[S_MAX_MOVES], rank[S_HANDLES];
    int n = S_NODE_ORDER(r, p, moves, depth, ply, -1);
    if (!ply) n = S_NAME(restrict)(s, r, p, moves, n);
    if (!n) return S_ENDED(r, p, 0, ply);
    s->expanded++;
    int ranked = ply == 0 && s->exact;
    if (ranked)
        for (int i = 0; i < n; i++) rank[moves[i]] = i;
    if (depth > 1 && n > 1) S_NAME(order)(r, p, moves, n, first);
    double alpha0 = alpha, beta0 = beta, best;
    int d1 = depth - 1, p1 = ply + 1, best_move = TT_NO_MOVE, best_k = -1;
    S_POS child;
    if (d1 == 0 && ply) {
        if (me == 0) /* the minimising side maximises the negated values, as in negamax */
            best = S_NAME(horizon)(s, r, p, moves, n, 0, alpha, beta, ply, &best_move);
        else
            best = -S_NAME(horizon)(s, r, p, moves, n, 1, -beta, -alpha, ply, &best_move);
    } else if (me == 0) {
        best = -INFINITY;
        for (int i = 0; i < n; i++) {
            S_CHILD_PLY(r, p, moves[i], &child, ply);
            s->generated++;
            double low = alpha;
            if (ranked && best_k >= 0 && rank[moves[i]] < rank[best_k])
                low = -search_next_up(-alpha); /* a tie goes to the game's first move */
            double value = S_NAME(alphabeta)(s, r, &child, d1, low, beta, p1);
            if (s->aborted) return 0.0;
            if (value > best || (value == best && low < alpha)) {
                best = value;
                best_k = moves[i];
                best_move = S_VALUE(r, p, best_k);
                if (value > low) {
                    alpha = value;
                    S_NAME(line)(s, ply, best_move);
                    if (ply == 0) {
                        s->root_best = best_move;
                        s->root_score = value;
                    }
                    if (alpha >= beta) {
                        s->cutoffs++;
                        break;
                    }
                }
            }
        }
    } else {
        best = INFINITY;
        for (int i = 0; i < n; i++) {
            S_CHILD_PLY(r, p, moves[i], &child, ply);
            s->generated++;
            double high = beta;
            if (ranked && best_k >= 0 && rank[moves[i]] < rank[best_k])
                high = search_next_up(beta); /* a tie goes to the game's first move */
            double value = S_NAME(alphabeta)(s, r, &child, d1, alpha, high, p1);
            if (s->aborted) return 0.0;
            if (value < best || (value == best && high > beta)) {
                best = value;
                best_k = moves[i];
                best_move = S_VALUE(r, p, best_k);
                if (value < high) {
                    beta = value;
                    S_NAME(line)(s, ply, best_move);
                    if (ply == 0) {
                        s->root_best = best_move;
                        s->root_score = -value;
                    }
                    if (alpha >= beta) {
                        s->cutoffs++;
                        break;
                    }
                }
            }
        }
    }
    int flag = best <= alpha0 ? TT_UPPER : best >= beta0 ? TT_LOWER : TT_EXACT;
    if (flag != TT_EXACT && (flag == TT_UPPER) == (me == 0))
        best_move = first; /* a node failing on its own side learnt no best move */
    if (stored && (ply || !s->nroot))
        S_NAME(save)(s, key, depth, flag, best, best_move, ply, met);
    return best;
}

/* The value for player 0 by visiting every node to the horizon (`minimax`): no table, no
 * window; the last iteration's move first at the root, where ties go to the game's first
 * move. */
static double S_NAME(minimax)(SearchState *s, const S_RULES *r, const S_POS *p, int depth,
                              int ply) {
    int me = p->S_TO_MOVE;
    s->pv_len[ply] = 0;
    if (depth == 0) {
        double value;
        if (!S_LEAF(r, p, -1, s->evaluation, &value)) return S_ENDED(r, p, 0, ply);
        s->evaluated++;
        return value;
    }
    if (S_NAME(out_of_time)(s)) return 0.0;
    int moves[S_MAX_MOVES], rank[S_HANDLES];
    int n = S_NODE_ORDER(r, p, moves, depth, ply, -1);
    if (!ply) n = S_NAME(restrict)(s, r, p, moves, n);
    if (!n) return S_ENDED(r, p, 0, ply);
    s->expanded++;
    if (ply == 0) {
        for (int i = 0; i < n; i++) rank[moves[i]] = i;
        S_NAME(order)(r, p, moves, n, s->root_move);
    }
    int d1 = depth - 1, p1 = ply + 1, best_k = -1;
    if (d1 == 0 && ply) {
        int best_move;
        double best =
            S_NAME(horizon)(s, r, p, moves, n, me, -INFINITY, INFINITY, ply, &best_move);
        return me == 0 ? best : -best;
    }
    double best = me == 0 ? -INFINITY : INFINITY;
    S_POS child;
    for (int i = 0; i < n; i++) {
        S_CHILD_PLY(r, p, moves[i], &child, ply);
        s->generated++;
        double value = S_NAME(minimax)(s, r, &child, d1, p1);
        if (s->aborted) return 0.0;
        if ((me == 0 ? value > best : value < best) ||
            (value == best && ply == 0 && best_k >= 0 && rank[moves[i]] < rank[best_k])) {
            int move = S_VALUE(r, p, moves[i]);
            best = value;
            best_k = moves[i];
            S_NAME(line)(s, ply, move);
            if (ply == 0) {
                s->root_best = move;
                s->root_score = me == 0 ? value : -value;
            }
        }
    }
    return best;
}

int S_NAME(iterate)(SearchState *s, const S_RULES *r, const S_POS *p, int depth, double *score) {
    double low = -INFINITY, high = INFINITY;
    s->root_best = TT_NO_MOVE;
    s->aborted = 0;
    s->ticks = 0;
    if (s->algorithm != SEARCH_NEGAMAX) { /* player 0's value, from the full window */
        double value = s->algorithm == SEARCH_ALPHABETA
                           ? S_NAME(alphabeta)(s, r, p, depth, -INFINITY, INFINITY, 0)
                           : S_NAME(minimax)(s, r, p, depth, 0);
        if (s->aborted) return -1;
        *score = p->S_TO_MOVE ? -value : value;
        return 0;
    }
    if (!s->exact && s->nscores >= 2 && fabs(s->scores[1]) < SEARCH_MATE_BOUND) {
        double change = fabs(s->scores[1] - s->scores[0]), width = change > 1.0 ? change : 1.0;
        low = s->scores[1] - width;
        high = s->scores[1] + width;
    }
    for (;;) {
        int64_t key = depth ? S_HASH(r, p) : 0; /* a leaf has no key */
        double value = S_NAME(negamax)(s, r, p, key, -1, depth, low, high, 0);
        if (s->aborted) return -1;
        if (value <= low) {
            low = -INFINITY;
        } else if (value >= high) {
            high = INFINITY;
        } else {
            s->scores[0] = s->scores[1];
            s->scores[1] = value;
            s->nscores++;
            *score = value;
            return 0;
        }
    }
}

int S_NAME(run)(SearchState *s, const void *r, const void *p, int depth, double *score) {
    return S_NAME(iterate)(s, (const S_RULES *)r, (const S_POS *)p, depth, score);
}

int S_NAME(pv)(SearchState *s, const S_RULES *r, const S_POS *p, int depth, int *line) {
    int n = s->pv_len[0];
    S_POS at = *p, next;
    memcpy(line, s->pv[0], sizeof *line * (size_t)n);
    for (int i = 0; i < n; i++) {
        S_CHILD(r, &at, S_FIND(r, &at, line[i]), &next);
        at = next;
    }
    TableEntry entry;
    while (n < depth && tt_probe(s->table, S_HASH(r, &at), &entry) &&
           entry.move != TT_NO_MOVE) {
        int k = S_FIND(r, &at, entry.move);
        if (k < 0) break;
        line[n++] = entry.move;
        S_CHILD(r, &at, k, &next);
        at = next;
    }
    return n;
}

#undef CLOCK_EVERY
#ifdef S_PLY_DEFAULTS
#undef S_ORDER_PLY
#undef S_CHILD_PLY
#undef S_PLY_DEFAULTS
#endif
#ifdef S_OVER_DEFAULT
#undef S_ORDER_OVER
#undef S_OVER_DEFAULT
#endif
#undef S_NODE_ORDER
