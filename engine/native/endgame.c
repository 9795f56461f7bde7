/* Mancala endgame databases: engine/endgame.py's memoised recursion over the rules of
 * mancala.c, in C, on every core. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* sysconf, threads */
#endif
#include "endgame.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "table.h" /* RELAXED_LOAD, RELAXED_STORE, UBAO_PTHREADS */
#ifdef UBAO_PTHREADS
#include <unistd.h> /* sysconf */
#endif

#define EG_MAX_THREADS 8
#define EG_BLOCK_BITS 12 /* the positions of a level go to the threads by blocks of 4096 */

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
 * overlap. Threads may compute one value at once: they write the same byte (read and written
 * whole). */
static int eg_value(const EgTable *t, const ManPos *p, uint64_t index) {
    int value = RELAXED_LOAD(t->values[index]);
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
    RELAXED_STORE(t->values[index], (int8_t)value);
    return value;
}

/* One thread's part of a level: the blocks of positions numbered `part` modulo `parts`, in the
 * order eg_fill enumerates them (neighbours share children: a block keeps them together). */
typedef struct {
    EgTable table;
    ManPos p;
    int total; /* the level: the seeds on the board */
    int part, parts;
    uint64_t ordinal, filled;
    Interrupted interrupted; /* the main thread's only (it holds the context) */
    void *context;
    int *stopped; /* shared by the threads */
} Builder;

/* Every vector whose pits from `i` on hold `rest` seeds, the earlier pits as set in `p`. */
static void eg_fill(Builder *b, ManPos *p, int i, int rest) {
    int m = b->table.r->pits, hole = i < m ? i : i + 1;
    if (i == 2 * m - 1) {
        p->hole[hole] = rest;
        if ((int)((b->ordinal++ >> EG_BLOCK_BITS) % (unsigned)b->parts) != b->part) return;
        eg_value(&b->table, p, eg_rank(&b->table.rank, p));
        if ((++b->filled & 0xffff) == 0 && b->interrupted && b->interrupted(b->context))
            RELAXED_STORE(*b->stopped, 1);
        return;
    }
    for (int count = 0; count <= rest && !RELAXED_LOAD(*b->stopped); count++) {
        p->hole[hole] = count;
        eg_fill(b, p, i + 1, rest - count);
    }
}

static void *eg_part(void *arg) {
    Builder *b = arg;
    b->ordinal = 0;
    eg_fill(b, &b->p, 0, b->total);
    return NULL;
}

/* How many threads build: the cores online, at most EG_MAX_THREADS (the build waits on the
 * memory, and each thread's misses overlap the others'). */
static int eg_threads(void) {
#ifdef UBAO_PTHREADS
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > EG_MAX_THREADS ? EG_MAX_THREADS : (int)cores;
#else
    return 1;
#endif
}

int eg_build(const ManRules *r, int seeds, int8_t *values, Interrupted interrupted,
             void *context) {
    int stopped = 0, parts = eg_threads();
    Builder b[EG_MAX_THREADS];
    EgTable table = {r, {0, 0, 0, NULL}, values};
    if (eg_rank_init(&table.rank, 2 * r->pits, seeds) < 0) return -1;
    memset(values, EG_UNKNOWN, (size_t)table.rank.size);
    for (int i = 0; i < parts; i++)
        b[i] = (Builder){table, {{0}, 0}, 0, i, parts, 0, 0, i ? NULL : interrupted,
                         context, &stopped};
    /* By seeds on the board, fewest first: a move never adds any, so the recursion only goes
     * down the moves that bank nothing, which move seeds toward the mover's store; each level
     * shared by the threads, which recurse into each other's positions where they must. */
    for (int total = 0; total <= seeds && !RELAXED_LOAD(stopped); total++) {
        int started = 1;
        for (int i = 0; i < parts; i++) b[i].total = total;
#ifdef UBAO_PTHREADS
        pthread_t ids[EG_MAX_THREADS];
        for (; started < parts; started++)
            if (pthread_create(ids + started, NULL, eg_part, b + started)) break;
#endif
        eg_part(b);
        for (int i = started; i < parts; i++) { /* a thread that did not start: its part here */
            b[i].interrupted = interrupted;
            eg_part(b + i);
        }
#ifdef UBAO_PTHREADS
        for (int i = 1; i < started; i++) pthread_join(ids[i], NULL);
#endif
    }
    eg_rank_free(&table.rank);
    return RELAXED_LOAD(stopped) ? -2 : 0;
}
