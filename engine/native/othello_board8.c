/* The 8x8 board operations of othello_board8.h, by parallel shifts. Bit `row * 8 + column` is a
 * square: a1 is bit 0, h1 bit 7, a8 bit 56. */
#include "othello_board8.h"

#define INNER 0x7e7e7e7e7e7e7e7eULL /* columns b to g: where a run along a row may pass */

/* The run of `run` discs from `from` in one direction (shift left by d: towards h8), at most six
 * long, as a board; the same to the right (towards a1). */
#define RUN_LEFT(from, run, d)                                                                 \
    do {                                                                                       \
        run = (from) << (d) & mask;                                                            \
        run |= run << (d) & mask;                                                              \
        run |= run << (d) & mask;                                                              \
        run |= run << (d) & mask;                                                              \
        run |= run << (d) & mask;                                                              \
        run |= run << (d) & mask;                                                              \
    } while (0)
#define RUN_RIGHT(from, run, d)                                                                \
    do {                                                                                       \
        run = (from) >> (d) & mask;                                                            \
        run |= run >> (d) & mask;                                                              \
        run |= run >> (d) & mask;                                                              \
        run |= run >> (d) & mask;                                                              \
        run |= run >> (d) & mask;                                                              \
        run |= run >> (d) & mask;                                                              \
    } while (0)

/* Every direction at once: a run of opponent discs next to an own disc, one step on is a
 * placement if empty. Runs along rows and diagonals pass through columns b to g only, so that
 * no shift wraps round a row's end. */
uint64_t ob_placements(uint64_t own, uint64_t opp) {
    uint64_t empty = ~(own | opp), found = 0, run, mask;
    mask = opp;
    RUN_LEFT(own, run, 8);
    found |= run << 8;
    RUN_RIGHT(own, run, 8);
    found |= run >> 8;
    mask = opp & INNER;
    RUN_LEFT(own, run, 1);
    found |= run << 1;
    RUN_RIGHT(own, run, 1);
    found |= run >> 1;
    RUN_LEFT(own, run, 9);
    found |= run << 9;
    RUN_RIGHT(own, run, 9);
    found |= run >> 9;
    RUN_LEFT(own, run, 7);
    found |= run << 7;
    RUN_RIGHT(own, run, 7);
    found |= run >> 7;
    return found & empty;
}

/* The opponent discs a disc on `square` turns: each run from it closed by an own disc. */
uint64_t ob_flips(uint64_t own, uint64_t opp, int square) {
    uint64_t placed = (uint64_t)1 << square, flips = 0, run, mask;
    mask = opp;
    RUN_LEFT(placed, run, 8);
    if (run << 8 & own) flips |= run;
    RUN_RIGHT(placed, run, 8);
    if (run >> 8 & own) flips |= run;
    mask = opp & INNER;
    RUN_LEFT(placed, run, 1);
    if (run << 1 & own) flips |= run;
    RUN_RIGHT(placed, run, 1);
    if (run >> 1 & own) flips |= run;
    RUN_LEFT(placed, run, 9);
    if (run << 9 & own) flips |= run;
    RUN_RIGHT(placed, run, 9);
    if (run >> 9 & own) flips |= run;
    RUN_LEFT(placed, run, 7);
    if (run << 7 & own) flips |= run;
    RUN_RIGHT(placed, run, 7);
    if (run >> 7 & own) flips |= run;
    return flips;
}
