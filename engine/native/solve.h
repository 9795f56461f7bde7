/* engine/solve.py's solver for the mancala family (not sowing both ways), natively: null-window
 * probes for MTD(f) on the mover's gain from the board (his final margin minus what the stores
 * already hold), with the same table of bounds keyed on the pits from the mover's side, the same
 * ordering, enhanced transposition cutoff and endgame database (docs/engine.md, Solver).
 *
 * A position here is seen from its mover: his row as South's, the opponent's as North's, the
 * stores empty, South to move (eg_mover_view). Plain C: it runs without the GIL.
 *
 * A probe may run on several threads sharing the table (simplified ABDADA, as Tom Kerrigan
 * describes it): every thread searches the whole probe, and at each node a thread leaves for
 * later the children (but the first) that another thread is searching, so that the threads
 * split the tree instead of walking it side by side; the first to finish answers the probe.
 * Each slot keeps its key XOR its scrambled data (lockless hashing, as table.h), so that a slot
 * two threads tore reads as no match, never as a wrong bound. */
#ifndef UBAO_SOLVE_H
#define UBAO_SOLVE_H

#include <stdint.h>

#include "endgame.h"
#include "mancala.h"

#define SOLVE_INF 30000      /* beyond any value: the table's bounds are 16-bit */
#define SOLVE_MAX_SEEDS 8192 /* the most seeds a board may hold here */
#define SOLVE_NO_MOVE 255
#define SOLVE_MAX_THREADS 64

/* One slot: 16 bytes, four to a 64-byte bucket. `data` packs the bounds (16 bits each), the
 * best pit (0..m-1 from the mover's left, or SOLVE_NO_MOVE) and the bit length of the positions
 * expanded to prove them (never 0 in a filled slot); 0: empty. */
typedef struct {
    uint64_t check; /* the board's rank (EgRank over `most` seeds) XOR the scrambled data */
    uint64_t data;
} SolveEntry;

struct Solver;

/* One thread's share of a probe. */
typedef struct {
    struct Solver *solver;
    uint64_t expanded, used; /* over every probe, this thread's (read live by solve_counts) */
    int index;               /* 0: the caller's thread, which alone polls `interrupted` */
    int aborted;             /* another thread answered, or a signal came: stop, store nothing */
    int value;               /* its answer, if it finished */
} SolveThread;

typedef struct Solver {
    ManRules rules;
    EgRank key; /* numbers the boards of up to key.most seeds: the table's keys */
    void *memory;
    SolveEntry *table; /* in `memory`, aligned to a bucket */
    uint64_t buckets;
    const int8_t *db; /* an endgame database of `db_seeds` seeds, or NULL */
    int db_seeds;
    EgRank db_rank;
    int threads;    /* 1, or how many search each probe (one per SolveThread) */
    uint64_t *busy; /* threads > 1: the keys some thread is searching (ABDADA), by hash */
    SolveThread thread[SOLVE_MAX_THREADS];
    Interrupted interrupted; /* polled every 2^18 positions expanded */
    void *context;
    int halt;    /* set when the probe is answered or interrupted: every thread stops */
    int stopped; /* the last probe was interrupted: its result means nothing */
} Solver;

/* 0; -1 out of memory. `db` (eg_build's values for these rules) may be NULL; the solver reads
 * it but does not own it. `threads` (1 to SOLVE_MAX_THREADS) search each probe; where this
 * build has no threads, one does (solve_init's caller reads `threads`). */
int solve_init(Solver *s, const ManRules *r, double megabytes, const int8_t *db, int db_seeds,
               int threads);
void solve_free(Solver *s);
/* Keys boards of up to `most` seeds: a larger number empties the table. 0; -1 when so many
 * boards cannot be ranked in 64 bits, or out of memory. */
int solve_reserve(Solver *s, int most);

/* The mover's gain from the board of `p` (seen from its mover, not over, at most key.most seeds
 * on it) if it is beta - 1 or beta, else a bound on it: at least the gain when it is >= beta, at
 * most when below. Sets `stopped` (the result then means nothing) when interrupted. */
int solve_test(Solver *s, const ManPos *p, int beta);
/* The table's best pit for `p`, or -1. */
int solve_best(const Solver *s, const ManPos *p);
/* The positions expanded by every thread so far (also while a probe runs), and the slots
 * filled. */
void solve_counts(const Solver *s, uint64_t *expanded, uint64_t *used);

#endif
