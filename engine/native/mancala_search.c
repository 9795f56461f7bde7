/* The search's mancala instance: engine/mancala/game.py's `search_moves`, `child` and evaluations
 * behind the template of search_impl.h. */
#include "mancala_search.h"

#include <math.h>

/* Whether constants.h has the evaluations man_leaf scores: a new one fails the build here. */
typedef char man_evaluations_known[MAN_EVALUATIONS == 3 ? 1 : -1];

/* The hash of the position tuple: the holes, then the player (counts are below 2**61). */
static int64_t man_hash(const ManRules *r, const ManPos *p) {
    uint64_t acc = SEARCH_HASH_START;
    for (int i = 0; i < r->ring; i++) acc = search_hash_item(acc, (uint64_t)p->hole[i]);
    return search_hash_end(search_hash_item(acc, (uint64_t)p->to_move), r->ring + 1);
}

/* `search_moves` of engine/mancala/game.py: extra turns, then captures (the largest first), then
 * the rest, each group from the pit nearest the store; move indices of the mover's table.
 * `over`: whether the game is over, as man_sow told (-1: not told). */
static int man_order(const ManRules *r, const ManPos *p, int *moves, int over) {
    if (over < 0 ? man_is_over(r, p) : over) return 0;
    /* The rules' fields in locals: the writes below through int pointers could otherwise
     * alias them, and the compiler would read them again at every move. `moves` is written
     * as the moves are found, not copied at the end: a copy's wide loads of the narrow
     * stores just made wait for them. */
    const int *hole = p->hole, *from = r->hole[p->to_move];
    const signed char(*path)[MAN_MAX_RING] = r->path[p->to_move];
    int m = r->pits, player = p->to_move, store = player ? 2 * m + 1 : m;
    int first = player ? m + 1 : 0, min_seeds = r->min_seeds, n = 0, ncaptures = 0, nrest = 0;
    unsigned short_lap = (unsigned)(r->lap - 1); /* seeds - 1 below it: less than a lap */
    int captures[MAN_MAX_MOVES], taken[MAN_MAX_MOVES], rest[MAN_MAX_MOVES];
    /* Each move's group is computed, not branched on (& and |, not && and ||): which pits
     * hold seeds and where they end is all but random, and mispredicted branches cost more
     * than the arithmetic. */
    for (int k = r->count[player] - 1; k >= 0; k--) {
        int seeds = hole[from[k]];
        unsigned end = (unsigned)(seeds - 1);
        int legal = seeds >= min_seeds, lands = legal & (end < short_lap);
        int last = path[k][end * (end < short_lap)]; /* meant only when it lands */
        int extra = lands & (last == store);
        int own = lands & ((unsigned)(last - first) < (unsigned)m);
        int target = own ? last : first, prize = hole[2 * m - target];
        int capture = own & (hole[target] == 0) & (prize != 0);
        moves[n] = k; /* written always, kept (counted) when it belongs there */
        n += extra;
        captures[ncaptures] = k;
        taken[ncaptures] = prize;
        ncaptures += capture;
        rest[nrest] = k;
        nrest += legal & !(extra | capture);
    }
    for (int j = 1; j < ncaptures; j++) { /* the largest first; insertion keeps ties' order */
        int k = captures[j], prize = taken[j], i = j;
        for (; i > 0 && taken[i - 1] < prize; i--) {
            captures[i] = captures[i - 1];
            taken[i] = taken[i - 1];
        }
        captures[i] = k;
        taken[i] = prize;
    }
    for (int i = 0; i < ncaptures; i++) moves[n++] = captures[i];
    for (int i = 0; i < nrest; i++) moves[n++] = rest[i];
    return n;
}

/* `horizon_moves` of engine/mancala/game.py: the legal moves from the pit nearest the store. */
static int man_horizon_order(const ManRules *r, const ManPos *p, int *moves, int over) {
    if (over < 0 ? man_is_over(r, p) : over) return 0;
    const int *hole = p->hole, *from = r->hole[p->to_move];
    int n = 0, min_seeds = r->min_seeds;
    for (int k = r->count[p->to_move] - 1; k >= 0; k--) {
        moves[n] = k;
        n += hole[from[k]] >= min_seeds;
    }
    return n;
}

/* engine/mancala/game.py's `mobility` for one side: an extra turn is worth a point, an empty pit a
 * sowing ends in half the seeds opposite (`first`: the side's first pit). */
static double man_tempo(const ManRules *r, const ManPos *p, int first) {
    int m = r->pits;
    double score = 0.0;
    for (int i = 0; i < m; i++) {
        int seeds = p->hole[first + i], target = i + seeds;
        if (!seeds) continue;
        if (seeds == m - i) score += 1.0;
        if (target < m && p->hole[first + target] == 0)
            score += 0.5 * p->hole[2 * m - (first + target)];
    }
    return score;
}

/* The evaluation `e` fused with the end test. Every value is a multiple of a quarter far below
 * 2**50: exact in a double, so sums in any order equal the Python ones. */
static int man_leaf(const ManRules *r, const ManPos *p, int over, int e, double *value) {
    int m = r->pits, stores = p->hole[m] - p->hole[2 * m + 1];
    if (over < 0 ? man_is_over(r, p) : over) return 0;
    if (e == MAN_STORE_DIFF) {
        *value = (double)stores;
    } else if (e == MAN_STORE_SEEDS) {
        int rows = 0;
        for (int i = 0; i < m; i++) rows += p->hole[i] - p->hole[m + 1 + i];
        *value = (double)stores + 0.25 * rows;
    } else {
        *value = (double)stores + man_tempo(r, p, 0) - man_tempo(r, p, m + 1);
    }
    return 1;
}

static double man_ended(const ManRules *r, const ManPos *p, int me, int ply) {
    int south, north;
    man_final(r, p, &south, &north);
    return search_final(south, north, me, ply);
}

static int man_find(const ManRules *r, const ManPos *p, int move) {
    int moves[MAN_MAX_MOVES], n = man_legal(r, p, moves);
    for (int i = 0; i < n; i++)
        if (r->move[p->to_move][moves[i]] == move) return moves[i];
    return -1;
}

#define S_NAME(x) man_search_##x
#define S_RULES ManRules
#define S_POS ManPos
#define S_MAX_MOVES MAN_MAX_MOVES
#define S_HANDLES MAN_MAX_MOVES
#define S_TO_MOVE to_move
#define S_HASH man_hash
#define S_ORDER(r, p, moves) man_order(r, p, moves, -1)
#define S_ORDER_OVER(r, p, moves, ply, over) man_order(r, p, moves, over)
#define S_HORIZON_ORDER man_horizon_order
#define S_VALUE(r, p, k) ((r)->move[(p)->to_move][k])
#define S_CHILD(r, p, k, out) man_sow_move(r, p, k, out, 1) /* from a position not over */
#define S_LEAF man_leaf
#define S_ENDED man_ended
#define S_FIND man_find
#include "search_impl.h"
