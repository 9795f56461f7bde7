/* The negamax search of engine/search.py over the native rules, node for node (docs/engine.md,
 * "One interior node"): the same table, the game's static order with the table's move first,
 * principal variation search, the horizon loop, the exact mode's root ties and the strength
 * mode's aspiration window, scored by the game's default evaluation (mancala `store_diff`,
 * Othello `standard`). Written once in search_impl.h and compiled per game (search.c: the
 * mancala family; othello.c: Othello in both board widths). Plain C: it runs without the GIL;
 * `stop` may be set from another thread. */
#ifndef UBAO_SEARCH_H
#define UBAO_SEARCH_H

#include <stdint.h>
#include <string.h>

#include "mancala.h"
#include "othello.h"
#include "table.h"

#define SEARCH_MAX_DEPTH 200 /* engine/search.py MAX_DEPTH */
#define SEARCH_MATE 1e9
#define SEARCH_PLY_SPAN 1000.0
#define SEARCH_MATE_BOUND (SEARCH_MATE - 1e6)

/* What one search keeps besides the game's rules. */
typedef struct {
    Table table;
    int exact;
    uint64_t generated, expanded, evaluated, cutoffs, hits; /* over one search's iterations */
    double scores[2]; /* the root's last two scores, for the aspiration window */
    int nscores;
    int root_move, root_best; /* the move to search first; the best so far (TT_NO_MOVE: none) */
    double root_score;
    double deadline; /* on the clock of search_clock */
    volatile int stop;
    int aborted;
    unsigned ticks;
    int pv_len[SEARCH_MAX_DEPTH + 2];
    int pv[SEARCH_MAX_DEPTH + 2][SEARCH_MAX_DEPTH + 2]; /* the line of each ply, move values */
} SearchState;

typedef struct {
    Bb64 black, white;
    int player;
} OthPos64;

typedef struct {
    Bb256 black, white;
    int player;
} OthPos256;

/* Seconds on a monotonic clock. */
double search_clock(void);
/* A new search: the table ages, the counters and the aspiration window start again. */
void search_begin(SearchState *s);

/* One iteration to `depth` from `p`; 0 and the score (the side to move's view) in *score, or
 * -1 when the deadline passed or `stop` was set. Then the root's line, continued through the
 * table up to `depth` moves, into `line`; returns its length. */
#define SEARCH_DECLARE(NAME, RULES, POS)                                                   \
    int NAME##_iterate(SearchState *s, const RULES *r, const POS *p, int depth,           \
                       double *score);                                                     \
    int NAME##_pv(SearchState *s, const RULES *r, const POS *p, int depth, int *line);

SEARCH_DECLARE(man_search, ManRules, ManPos)
SEARCH_DECLARE(oth_search_64, Oth64, OthPos64)
SEARCH_DECLARE(oth_search_256, Oth256, OthPos256)

#undef SEARCH_DECLARE

/* nextafter(x, +inf) on the bits, for windows (x is never NaN). */
static inline double search_next_up(double x) {
    int64_t bits;
    if (x == 0.0) return 4.9406564584124654e-324; /* the smallest positive double */
    if (x > 1.7976931348623157e308) return x;     /* +inf */
    memcpy(&bits, &x, sizeof bits);
    bits += x > 0.0 ? 1 : -1;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A finished game's score for `player`, `ply` plies from the root (`final_score`), from each
 * side's final points. */
static inline double search_final(int first, int second, int player, int ply) {
    if (first == second) return 0.0;
    int margin = first > second ? first - second : second - first;
    double value = SEARCH_MATE + SEARCH_PLY_SPAN * margin - ply;
    return (first > second) == (player == 0) ? value : -value;
}

/* Python's hash of a non-negative int below 2**64: its value modulo 2**61 - 1. */
static inline uint64_t search_int_hash(uint64_t n) {
    const uint64_t modulus = ((uint64_t)1 << 61) - 1;
    uint64_t h = (n & modulus) + (n >> 61);
    return h >= modulus ? h - modulus : h;
}

/* Python's hash of a tuple (CPython 3.8+, 64-bit: xxHash's lanes): SEARCH_HASH_START, then
 * search_hash_item with each item's hash, then search_hash_end with the tuple's length. */
#define SEARCH_HASH_START 2870177450012600261ULL

static inline uint64_t search_hash_item(uint64_t acc, uint64_t lane) {
    acc += lane * 14029467366897019727ULL;
    acc = acc << 31 | acc >> 33;
    return acc * 11400714785074694791ULL;
}

static inline int64_t search_hash_end(uint64_t acc, int n) {
    acc += (uint64_t)n ^ (SEARCH_HASH_START ^ 3527539ULL);
    return acc == UINT64_MAX ? 1546275796 : (int64_t)acc;
}

#endif
