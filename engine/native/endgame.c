/* Mancala endgame databases: engine/endgame.py's memoised recursion over the rules of
 * mancala.c, in C. */
#include "endgame.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int eg_rank_init(EgRank *k, int width, int most) {
    int stride = most + 1;
    k->width = width;
    k->most = most;
    k->c = malloc(sizeof *k->c * (size_t)(width + 1) * (size_t)stride);
    if (!k->c) return -1;
    /* Row `parts` holds C(rest + parts, parts) by Pascal's rule; row 0 is all ones. The rows
     * are stored from `width` parts down, as the rank walks the pits. */
    uint64_t *row = k->c + (size_t)width * (size_t)stride;
    for (int rest = 0; rest <= most; rest++) row[rest] = 1;
    int overflow = 0;
    for (int parts = 1; parts <= width; parts++) {
        uint64_t *below = row;
        row = k->c + (size_t)(width - parts) * (size_t)stride;
        row[0] = 1;
        for (int rest = 1; rest <= most; rest++) {
            row[rest] = row[rest - 1] + below[rest];
            if (row[rest] < below[rest] || row[rest] == UINT64_MAX) overflow = 1;
        }
    }
    if (overflow) {
        eg_rank_free(k);
        return -1;
    }
    k->size = k->c[most];
    return 0;
}

void eg_rank_free(EgRank *k) {
    free(k->c);
    k->c = NULL;
}

/* A database being filled: values not computed yet are EG_UNKNOWN. */
typedef struct {
    const ManRules *r;
    EgRank rank;
    int8_t *values;
} EgTable;

/* The value of `p` (South to move, stores empty), computed once with every value it needs:
 * every child is made and its byte prefetched before any is read, so that their cache misses
 * overlap. */
static int eg_value(const EgTable *t, const ManPos *p, uint64_t index) {
    int value = t->values[index];
    if (value != EG_UNKNOWN) return value;
    const ManRules *r = t->r;
    int m = r->pits, moves[MAN_MAX_MOVES];
    int n = man_legal(r, p, moves);
    if (n == 0) {
        int south, north;
        man_final(r, p, &south, &north);
        value = south - north;
    } else {
        ManPos child[MAN_MAX_MOVES];
        uint64_t at[MAN_MAX_MOVES];
        int banked[MAN_MAX_MOVES], again[MAN_MAX_MOVES];
        for (int i = 0; i < n; i++) {
            ManPos out;
            man_sow(r, p, moves[i], &out);
            banked[i] = out.hole[m] - out.hole[2 * m + 1];
            again[i] = !out.to_move;
            eg_mover_view(r, &out, child + i);
            at[i] = eg_rank(&t->rank, child + i);
#if defined(__GNUC__) || defined(__clang__)
            __builtin_prefetch(t->values + at[i]);
#endif
        }
        value = INT_MIN;
        for (int i = 0; i < n; i++) {
            int after = eg_value(t, child + i, at[i]);
            after = again[i] ? banked[i] + after : banked[i] - after;
            if (after > value) value = after;
        }
    }
    t->values[index] = (int8_t)value;
    return value;
}

typedef struct {
    EgTable table;
    uint64_t filled;
    Interrupted interrupted;
    void *context;
    int stopped;
} Builder;

/* Every vector whose pits from `i` on hold `rest` seeds, the earlier pits as set in `p`. */
static void eg_fill(Builder *b, ManPos *p, int i, int rest) {
    int m = b->table.r->pits, hole = i < m ? i : i + 1;
    if (i == 2 * m - 1) {
        p->hole[hole] = rest;
        eg_value(&b->table, p, eg_rank(&b->table.rank, p));
        if ((++b->filled & 0xffff) == 0 && b->interrupted && b->interrupted(b->context))
            b->stopped = 1;
        return;
    }
    for (int count = 0; count <= rest && !b->stopped; count++) {
        p->hole[hole] = count;
        eg_fill(b, p, i + 1, rest - count);
    }
}

int eg_build(const ManRules *r, int seeds, int8_t *values, Interrupted interrupted,
             void *context) {
    Builder b = {{r, {0, 0, 0, NULL}, values}, 0, interrupted, context, 0};
    if (eg_rank_init(&b.table.rank, 2 * r->pits, seeds) < 0) return -1;
    memset(values, EG_UNKNOWN, (size_t)b.table.rank.size);
    ManPos p = {{0}, 0};
    /* By seeds on the board, fewest first: a move never adds any, so the recursion only goes
     * down the moves that bank nothing, which move seeds toward the mover's store. */
    for (int total = 0; total <= seeds && !b.stopped; total++) eg_fill(&b, &p, 0, total);
    eg_rank_free(&b.table.rank);
    return b.stopped ? -2 : 0;
}
