/* engine/solve.py's solver for the mancala family (not sowing both ways), natively: null-window
 * probes for MTD(f) on the mover's gain from the board (his final margin minus what the stores
 * already hold), with the same table of bounds keyed on the pits from the mover's side, the same
 * ordering, enhanced transposition cutoff and endgame database (docs/engine.md, Solver).
 *
 * A position here is seen from its mover: his row as South's, the opponent's as North's, the
 * stores empty, South to move (eg_mover_view). Plain C: it runs without the GIL. */
#ifndef UBAO_SOLVE_H
#define UBAO_SOLVE_H

#include <stdint.h>

#include "endgame.h"
#include "mancala.h"

#define SOLVE_INF 30000      /* beyond any value: the table's bounds are 16-bit */
#define SOLVE_MAX_SEEDS 8192 /* the most seeds a board may hold here */
#define SOLVE_NO_MOVE 255

/* One slot: 16 bytes, four to a 64-byte bucket. */
typedef struct {
    uint64_t key; /* the board's rank (EgRank over `most` seeds) */
    int16_t low, high;
    uint8_t move; /* the best pit, 0..m-1 from the mover's left, or SOLVE_NO_MOVE */
    uint8_t work; /* the bit length of the positions expanded to prove the bounds; 0: empty */
    uint16_t spare;
} SolveEntry;

typedef struct {
    ManRules rules;
    EgRank key; /* numbers the boards of up to key.most seeds: the table's keys */
    void *memory;
    SolveEntry *table; /* in `memory`, aligned to a bucket */
    uint64_t buckets, used;
    const int8_t *db; /* an endgame database of `db_seeds` seeds, or NULL */
    int db_seeds;
    EgRank db_rank;
    uint64_t expanded;
    Interrupted interrupted; /* polled every 2^20 positions expanded */
    void *context;
    int stopped; /* the last probe was interrupted: its result means nothing */
} Solver;

/* 0; -1 out of memory. `db` (eg_build's values for these rules) may be NULL; the solver reads
 * it but does not own it. */
int solve_init(Solver *s, const ManRules *r, double megabytes, const int8_t *db, int db_seeds);
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

#endif
