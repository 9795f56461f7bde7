/* Mancala endgame databases (engine/endgame.py) natively, and the combinatorial rank that
 * numbers pit vectors, which the solver's table keys on too (solve.h).
 *
 * A database holds, for every vector of the 2m pits seen from the mover's side (his row, then
 * the opponent's) with at most N seeds, what the mover still gains from the board minus what the
 * opponent gains under perfect play: one signed byte at the vector's rank, exactly the values
 * and the order of engine/endgame.py's `build`. Plain C: it runs without the GIL. */
#ifndef UBAO_ENDGAME_H
#define UBAO_ENDGAME_H

#include <stdint.h>

#include "constants.h" /* EG_UNKNOWN */
#include "interrupted.h"
#include "mancala.h"

#define EG_MAX_SEEDS 127  /* values lie within +-N and must fit a signed byte */

/* Ranks of the vectors of `width` counts with at most `most` in all (`Endgame.rank`). */
typedef struct {
    int width, most;
    uint64_t size; /* how many such vectors: C(most + width, width) */
    uint64_t *c;   /* c[i * (most + 1) + rest] = C(rest + width - i, width - i) */
} EgRank;

/* 0, or -1 when the vectors outnumber 2^64 - 1 or memory runs out. */
int eg_rank_init(EgRank *k, int width, int most);
void eg_rank_free(EgRank *k);

/* The rank of the pits of `p` (South's row, then North's: South is the mover), which hold at
 * most `k->most` seeds. */
static inline uint64_t eg_rank(const EgRank *k, const ManPos *p) {
    int half = k->width / 2, rest = k->most, stride = k->most + 1;
    const uint64_t *c = k->c;
    uint64_t index = 0;
    for (int i = 0; i < k->width; i++, c += stride) {
        int count = p->hole[i < half ? i : i + 1];
        index += c[rest] - c[rest - count];
        rest -= count;
    }
    return index;
}

/* `out` (a position after a move) seen from its side to move: that side's row as South's, the
 * other's as North's, the stores empty and South to move. */
static inline void eg_mover_view(const ManRules *r, const ManPos *out, ManPos *view) {
    int m = r->pits, flip = out->to_move;
    for (int i = 0; i < m; i++) {
        view->hole[i] = out->hole[flip ? m + 1 + i : i];
        view->hole[m + 1 + i] = out->hole[flip ? i : m + 1 + i];
    }
    view->hole[m] = view->hole[2 * m + 1] = 0;
    view->to_move = 0;
}

/* Fills `values` (eg_rank size for 2m pits and `seeds`) with every vector's value under the
 * rules `r` (not sowing both ways). 0; -1 out of memory; -2 interrupted. */
int eg_build(const ManRules *r, int seeds, int8_t *values, Interrupted interrupted,
             void *context);

#endif
