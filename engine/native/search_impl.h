/* The negamax of engine/search.py for one game, included once per game after these are
 * defined: S_NAME(x) (the functions' prefix), S_RULES, S_POS, S_MAX_MOVES (the most moves of a
 * position), S_HANDLES (move handles run from 0 below this), and, on `const S_RULES *r`:
 *   S_HASH(r, p)           Python's hash of the position value, the key the Python search uses
 *   S_ORDER(r, p, moves)   `search_moves`: the move handles in the game's order; 0 when over
 *   S_VALUE(r, p, k)       the Python move of handle k in p
 *   S_CHILD(r, p, k, out)  `child`; returns 1 when the game is over after it, 0 when not,
 *                          -1 when the game does not tell
 *   S_LEAF(r, p, over, value)  the default evaluation fused with the end test
 *                          (`leaf_evaluation`), given what S_CHILD returned (-1: nothing):
 *                          1 and *value (player 0's view), or 0 when the game is over
 *   S_ENDED(r, p, me, ply) the finished game's score for `me` (`final_score`)
 *   S_FIND(r, p, move)     the handle of the legal Python move `move`, or -1
 * and optionally, for a game whose order already makes every child (Bao), which then keeps
 * what it made per ply and makes the tree's children from it (S_CHILD still makes the line's):
 *   S_ORDER_PLY(r, p, moves, ply)    S_ORDER for the node `ply` plies from the root
 *   S_CHILD_PLY(r, p, k, out, ply)   S_CHILD of a handle that S_ORDER_PLY gave at `ply`
 * Every step follows engine/search.py's `negamax`, `horizon` and `root_negamax`. */

#define CLOCK_EVERY 256 /* interior nodes between two readings of the clock (~0.1 ms) */
#ifndef S_ORDER_PLY
#define S_ORDER_PLY(r, p, moves, ply) S_ORDER(r, p, moves)
#define S_CHILD_PLY(r, p, k, out, ply) S_CHILD(r, p, k, out)
#define S_PLY_DEFAULTS
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
        if (S_LEAF(r, &child, over, &value)) {
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

/* The value for the side to move, `me`; children of the same side are not negated. After an
 * abort (s->aborted) the value means nothing. */
static double S_NAME(negamax)(SearchState *s, const S_RULES *r, const S_POS *p, int depth,
                              double alpha, double beta, int ply) {
    int me = p->S_TO_MOVE;
    s->pv_len[ply] = 0;
    if (depth == 0) {
        double value;
        if (!S_LEAF(r, p, -1, &value)) return S_ENDED(r, p, me, ply);
        s->evaluated++;
        return me ? -value : value;
    }
    int64_t key = S_HASH(r, p);
    TableEntry entry;
    int first = TT_NO_MOVE;
    if (tt_probe(s->table, key, &entry)) {
        first = entry.move;
        if (ply && !(entry.depth != depth && (s->exact || entry.depth < depth))) {
            double score = entry.score;
            if (score > SEARCH_MATE_BOUND)
                score -= ply;
            else if (score < -SEARCH_MATE_BOUND)
                score += ply;
            if (entry.flag == TT_EXACT ||
                (entry.flag == TT_LOWER ? score >= beta : score <= alpha)) {
                s->hits++;
                return score;
            }
        }
    }
    if (ply == 0 && s->root_move != TT_NO_MOVE) first = s->root_move;
    if (RELAXED_LOAD(s->stop) ||
        (s->ticks++ % CLOCK_EVERY == 0 && search_clock() >= s->deadline)) {
        s->aborted = 1;
        return 0.0;
    }
    int moves[S_MAX_MOVES], rank[S_HANDLES];
    int n = S_ORDER_PLY(r, p, moves, ply);
    if (!n) return S_ENDED(r, p, me, ply);
    s->expanded++;
    int ranked = ply == 0 && s->exact;
    if (ranked) /* each root move's place in the game's order */
        for (int i = 0; i < n; i++) rank[moves[i]] = i;
    if (depth > 1 && n > 1 && first != TT_NO_MOVE) { /* the table's move first */
        for (int i = 1; i < n; i++) {
            if (S_VALUE(r, p, moves[i]) == first) {
                int k = moves[i];
                for (int j = i; j > 0; j--) moves[j] = moves[j - 1];
                moves[0] = k;
                break;
            }
        }
    }
    double alpha0 = alpha, best;
    int d1 = depth - 1, p1 = ply + 1, best_move = TT_NO_MOVE, best_k = -1;
    if (d1 == 0 && ply) {
        best = S_NAME(horizon)(s, r, p, moves, n, me, alpha, beta, ply, &best_move);
    } else {
        best = -INFINITY;
        int null = 0; /* the first move gets the full window, the others a null window first */
        S_POS child;
        for (int i = 0; i < n; i++) {
            S_CHILD_PLY(r, p, moves[i], &child, ply);
            s->generated++;
            int same = child.S_TO_MOVE == me;
            double low = alpha;
            if (ranked && best_k >= 0 && rank[moves[i]] < rank[best_k])
                low = -search_next_up(-alpha); /* a tie goes to the game's first move */
            double high = null ? search_next_up(low) : beta;
            double value = same ? S_NAME(negamax)(s, r, &child, d1, low, high, p1)
                                : -S_NAME(negamax)(s, r, &child, d1, -high, -low, p1);
            if (s->aborted) return 0.0;
            if (null && low < value && value < beta) {
                value = same ? S_NAME(negamax)(s, r, &child, d1, low, beta, p1)
                             : -S_NAME(negamax)(s, r, &child, d1, -beta, -low, p1);
                if (s->aborted) return 0.0;
            }
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
    double stored = best > SEARCH_MATE_BOUND    ? best + ply
                    : best < -SEARCH_MATE_BOUND ? best - ply
                                                : best;
    tt_store(s->table, key, depth, flag, stored, best_move);
    return best;
}

int S_NAME(iterate)(SearchState *s, const S_RULES *r, const S_POS *p, int depth, double *score) {
    double low = -INFINITY, high = INFINITY;
    s->root_best = TT_NO_MOVE;
    s->aborted = 0;
    s->ticks = 0;
    if (!s->exact && s->nscores >= 2 && fabs(s->scores[1]) < SEARCH_MATE_BOUND) {
        double change = fabs(s->scores[1] - s->scores[0]), width = change > 1.0 ? change : 1.0;
        low = s->scores[1] - width;
        high = s->scores[1] + width;
    }
    for (;;) {
        double value = S_NAME(negamax)(s, r, p, depth, low, high, 0);
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
