/* The two-row mancala family (docs/mancala.md), in plain C: no Python here.
 *
 * A position is the ring of holes as in engine/mancala/game.py (South's pits 0..m-1, South's store m,
 * North's pits m+1..2m, North's store 2m+1) and the player to move. A move is an index into the
 * mover's move table, which lists the moves in the Python engine's legal order. */
#ifndef UBAO_MANCALA_H
#define UBAO_MANCALA_H

#include <stdint.h>

#include "constants.h" /* MAN_MAX_PITS, UBAO_MAX_COUNT */

#define MAN_MAX_RING (2 * MAN_MAX_PITS + 2)
#define MAN_MAX_MOVES (2 * MAN_MAX_PITS) /* Ethiopian: two directions per pit */
#define MAN_MAX_COUNT UBAO_MAX_COUNT /* per hole: keeps every sum far from int overflow */

typedef struct {
    int pits, ring, lap; /* lap: the holes one sowing lap fills (the ring less one store) */
    int capture_sower, empty_capture, end_mover, remaining_mover, early_end, min_seeds;
    int count[2];                                      /* moves per player */
    int move[2][MAN_MAX_MOVES];                        /* the move's value: +pit, or -pit (L) */
    int hole[2][MAN_MAX_MOVES];                        /* the pit it sows from */
    signed char path[2][MAN_MAX_MOVES][MAN_MAX_RING]; /* the holes one lap fills, in order */
    /* Each hole's step on that lap (1..lap; the pit sown from is the last); MAN_NEVER for the
     * store skipped and the holes past the ring: a sowing of `rest` seeds, less than a lap,
     * adds one to each hole whose step is at most `rest`. */
    int step[2][MAN_MAX_MOVES][MAN_MAX_RING];
} ManRules;

#define MAN_NEVER 127 /* ManRules.step of a hole a sowing never fills */

typedef struct {
    int hole[MAN_MAX_RING];
    int to_move;
} ManPos;

/* Fills `r`; pits 1..MAN_MAX_PITS. choose_direction: Ethiopian (both ways, no single seed);
 * early_end: the game also ends once a store holds more than half the seeds. */
void man_init(ManRules *r, int pits, int capture_sower, int empty_capture, int end_mover,
              int remaining_mover, int choose_direction, int early_end);
/* The legal moves as indices into the mover's table; returns how many (0 when over). */
int man_legal(const ManRules *r, const ManPos *p, int *moves);
/* The final stores as the Python engine's `outcome` counts them (only when over). */
void man_final(const ManRules *r, const ManPos *p, int *south, int *north);
uint64_t man_perft(const ManRules *r, const ManPos *p, int depth);

/* The search's inner loop sows and tests the end at every node: the two are inline here, so
 * that the search (mancala_search.c) compiles them into its own loop instead of calling them. */

/* Every pit is read (no early exit: the loop's branch is then always predicted, and it
 * vectorizes), its lowest bit left out when a move needs two seeds (min_seeds is 1 or 2):
 * any seed left is a move. */
static inline int man_row_can_move(const ManRules *r, const ManPos *p, int player) {
    const int *row = p->hole + (player ? r->pits + 1 : 0);
    int m = r->pits, mask = ~(r->min_seeds - 1), any = 0;
    for (int i = 0; i < m; i++) any |= row[i] & mask;
    return any != 0;
}

/* Option `early_end`: a store holds more than half the seeds. */
static inline int man_past_half(const ManRules *r, const ManPos *p) {
    int m = r->pits, total = 0, south = p->hole[m], north = p->hole[2 * m + 1];
    for (int i = 0; i < r->ring; i++) total += p->hole[i];
    return 2 * (south > north ? south : north) > total;
}

static inline int man_is_over(const ManRules *r, const ManPos *p) {
    if (r->early_end && man_past_half(r, p)) return 1;
    if (r->end_mover) return !man_row_can_move(r, p, p->to_move);
    return !(man_row_can_move(r, p, 0) && man_row_can_move(r, p, 1));
}

/* The seeds left in the pits go to the stores, as option `remaining` says. */
static inline void man_sweep(const ManRules *r, ManPos *p, int last_mover) {
    int m = r->pits, left[2] = {0, 0};
    for (int player = 0; player < 2; player++) {
        int *row = p->hole + (player ? m + 1 : 0);
        for (int i = 0; i < m; i++) {
            left[player] += row[i];
            row[i] = 0;
        }
    }
    if (!r->remaining_mover) {
        p->hole[m] += left[0];
        p->hole[2 * m + 1] += left[1];
    } else {
        int holder = (left[0] && left[1]) ? last_mover : (left[0] ? 0 : 1);
        p->hole[holder ? 2 * m + 1 : m] += left[0] + left[1];
    }
}

/* Sows move index `k` into `out` (a line-by-line port of engine/mancala/game.py's `_sow`): captures,
 * the next player, the end sweep; returns whether the game is over after it. `playing`: the
 * game was not over before the move (a legal move), which spares a row's test: where the game
 * ends when either side cannot move, the opponent's row, which only gains seeds but for a
 * capture, then still has a move unless a capture took seeds from it. */
#if defined(__GNUC__) || defined(__clang__)
#define MAN_INLINE static inline __attribute__((always_inline)) /* into the search's loop */
#else
#define MAN_INLINE static inline
#endif

MAN_INLINE int man_sow_move(const ManRules *r, const ManPos *p, int k, ManPos *out,
                               int playing) {
    int m = r->pits, player = p->to_move, captured = 0;
    int store = player ? 2 * m + 1 : m, first = player ? m + 1 : 0;
    int hole = r->hole[player][k];
    const signed char *path = r->path[player][k];
    const int *step = r->step[player][k];
    int *board = out->hole;
    int seeds = p->hole[hole], lap = r->lap, laps = 0, rest = seeds; /* `lap` read once */
    if (seeds >= lap) { /* rare: most sowings skip the division */
        laps = seeds / lap;
        rest = seeds % lap;
    }
    /* The copy and the sowing in one pass over every hole, without a branch: a loop over
     * the seeds ends at a count the branch predictor cannot know. */
    for (int i = 0; i < MAN_MAX_RING; i++) board[i] = p->hole[i] + (step[i] <= rest);
    if (laps)
        for (int i = 0; i < lap; i++) board[path[i]] += laps;
    board[hole] = laps;
    int last = rest ? path[rest - 1] : hole; /* after whole laps, the pit itself */
    if (last == store) {
        out->to_move = player;
    } else {
        out->to_move = 1 - player;
        if (first <= last && last < first + m && board[last] == 1) {
            int opposite = 2 * m - last, taken = board[opposite];
            if (taken || r->empty_capture) {
                captured = 1;
                board[opposite] = 0;
                if (r->capture_sower) {
                    taken++;
                    board[last] = 0;
                }
                board[store] += taken;
            }
        }
    }
    int over = playing && !r->end_mover
                   ? !man_row_can_move(r, out, player) ||
                         (captured && !man_row_can_move(r, out, 1 - player)) ||
                         (r->early_end && man_past_half(r, out))
                   : man_is_over(r, out);
    if (!over) return 0;
    man_sweep(r, out, player);
    return 1;
}

/* Sows move index `k` (any move of the mover's table) into `out`; whether the game is over. */
static inline int man_sow(const ManRules *r, const ManPos *p, int k, ManPos *out) {
    return man_sow_move(r, p, k, out, 0);
}

#endif
