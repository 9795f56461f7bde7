/* The 8x8 Othello endgame solver: the exact final disc margin of a position under perfect play
 * (empty squares left at the end count for nobody, docs/othello.md §3), by a fail-soft
 * principal-variation search over every line to the end, in plain C (no Python here).
 *
 * What makes it fast (docs/engine.md, The Othello endgame solver):
 * - the boards are two words, the mover's discs and the opponent's (othello_board8.h);
 * - at the root, a wide window becomes narrow ones (two wide) around a guess from a shallow
 *   search with the pattern evaluation: moved up to the bound a failed-high one proved, opened
 *   down from the bound a failed-low one proved;
 * - above OE_SHALLOW empties: the moves in order of the table's move first, then by a score: few
 *   replies for the opponent (corners twice), few empty squares beside the mover's discs, discs
 *   safe by a corner, and from 12 empties up a shallow search's estimate with the pattern
 *   evaluation (when it is loaded: else the rest sorts alone); stability cut-offs (the opponent's
 *   discs that can never turn bound the mover's margin) and null windows for every move but the
 *   first; from 8 empties up a transposition table of proved bounds keyed on the whole board,
 *   from 12 up a child's bounds in it ending the node before any search (enhanced transposition
 *   cut-off);
 * - from OE_SHALLOW empties down: no table and no move generation, the empty squares tried in
 *   place (those with no opponent's disc beside skipped at once), those of regions with an odd
 *   number of empties first (parity); the last two without a loop, the last one by counting its
 *   flips only.
 *
 * A search polls `interrupted`, the deadline and `halt` now and then; once either stops it, `stopped`
 * is set and the value returned means nothing. */
#ifndef UBAO_OTHELLO_ENDGAME_H
#define UBAO_OTHELLO_ENDGAME_H

#include <stdint.h>

#include "interrupted.h"

#define OE_SQUARES 64
#define OE_NO_MOVE 255
#define OE_SHALLOW 6 /* empties at and below which the search goes without table or move list */

/* One proved pair of bounds on the mover's margin, keyed on the whole board. */
typedef struct {
    uint64_t own, opp;
    int8_t low, high;
    uint8_t move;    /* the best placement found, or OE_NO_MOVE */
    uint8_t empties; /* the work behind it: more empties, more work (kept on replacement) */
} OeEntry;

typedef struct {
    OeEntry *table; /* buckets of two slots: one kept for its work, one always replaced */
    uint64_t buckets;
    uint64_t nodes; /* positions searched since the solver was made */
    double deadline; /* on search_clock's clock; 0: none */
    Interrupted interrupted;
    void *context;
    uint64_t next_poll; /* `nodes` at the next poll */
    int halt;           /* set from another thread (oe_halt): the search ends at its next poll */
    int stopped;
} OeSolver;

/* 0 on success, -1 when the table cannot be allocated. */
int oe_init(OeSolver *s, double hash_mb);
void oe_free(OeSolver *s);
void oe_clear(OeSolver *s);

/* The mover's final margin if it lies strictly between alpha and beta; else a bound on it (at
 * most the result when at most alpha, at least when at least beta). alpha < beta, both within
 * -64..64. */
int oe_search(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta);

/* Ends the running search from another thread (its next poll, within POLL_NODES positions). */
void oe_halt(OeSolver *s);

/* The best placement the table holds for this position, or -1. */
int oe_table_move(const OeSolver *s, uint64_t own, uint64_t opp);

#endif
