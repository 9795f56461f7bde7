/* The 8x8 Othello board operations shared by the rules (othello.c), the search and the endgame
 * solver: a board is two words, the mover's discs and the opponent's, bit `row * 8 + column` a
 * square (a1 bit 0, h1 bit 7, a8 bit 56).
 *
 * Two paths give the same squares: the portable one (C99, here, inlined where it is called) and,
 * on x86-64 CPUs with AVX2, four directions at once in one 256-bit register
 * (othello_board8_avx2.c). Which one runs is chosen once at module load (ob_select: the CPU,
 * unless UBAO_OTHELLO_SIMD=0) and read on every call through one well-predicted branch. */
#ifndef UBAO_OTHELLO_BOARD8_H
#define UBAO_OTHELLO_BOARD8_H

#include <stdint.h>

#include "bits.h"

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(_M_X64))
#define OB_AVX2 1 /* the compiler can build an AVX2 path chosen at run time */
#else
#define OB_AVX2 0
#endif

#define OB_INNER 0x7e7e7e7e7e7e7e7eULL /* columns b to g: where a run along a row may pass */

/* Per square, the squares beyond it in each direction up to the board's edge: the four
 * directions towards h8 (steps +1, +7, +8, +9), then the four towards a1 (-1, -7, -8, -9). */
extern uint64_t ob_rays[64][8];

/* 1 while the AVX2 path runs (set by ob_select only). */
extern int ob_simd;

/* Chooses the path (and fills the rays): the AVX2 one if `simd` is asked and the CPU has it;
 * returns whether it runs. Called before any other ob_ function. */
int ob_select(int simd);
/* ob_select as the environment asks: UBAO_OTHELLO_SIMD=0 keeps the portable path. The module
 * calls it once at load. */
int ob_select_from_environment(void);
/* Whether this CPU (and build) can run the AVX2 path. */
int ob_simd_available(void);

#if OB_AVX2
uint64_t ob_placements_avx2(uint64_t own, uint64_t opp);
uint64_t ob_flips_avx2(uint64_t own, uint64_t opp, int square);
#endif

/* The empty squares one direction's runs reach: the opponent discs (`line`, already kept off
 * the columns a shift by `d` would wrap into) next to an own disc, doubled twice (1, 2, then
 * up to 4 and 6 discs: no run is longer), one step on. */
static inline uint64_t ob_reach_up(uint64_t own, uint64_t line, int d) {
    uint64_t run = own << d & line, pairs = line & line << d;
    run |= run << d & line;
    run |= run << 2 * d & pairs;
    run |= run << 2 * d & pairs;
    return run << d;
}

static inline uint64_t ob_reach_down(uint64_t own, uint64_t line, int d) {
    uint64_t run = own >> d & line, pairs = line & line >> d;
    run |= run >> d & line;
    run |= run >> 2 * d & pairs;
    run |= run >> 2 * d & pairs;
    return run >> d;
}

/* The empty squares where the mover may place a disc, by the portable path. */
static inline uint64_t ob_placements_portable(uint64_t own, uint64_t opp) {
    uint64_t inner = opp & OB_INNER;
    uint64_t found = ob_reach_up(own, opp, 8) | ob_reach_down(own, opp, 8) |
                     ob_reach_up(own, inner, 1) | ob_reach_down(own, inner, 1) |
                     ob_reach_up(own, inner, 7) | ob_reach_down(own, inner, 7) |
                     ob_reach_up(own, inner, 9) | ob_reach_down(own, inner, 9);
    return found & ~(own | opp);
}

/* The opponent discs a disc on `square` turns, by the portable path: along each ray from it,
 * the first square that is not the opponent's (towards h8 the lowest bit, towards a1 the
 * highest) closes the run when it is the mover's, and the run is the ray's squares before it. */
static inline uint64_t ob_flips_portable(uint64_t own, uint64_t opp, int square) {
    const uint64_t *ray = ob_rays[square];
    uint64_t flips = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t beyond = ~opp & ray[d];
        uint64_t closer = beyond & (0 - beyond) & own;
        flips |= (closer - (closer != 0)) & ray[d];
    }
    for (int d = 4; d < 8; d++) {
        uint64_t beyond = ~opp & ray[d];
        uint64_t closer = ((uint64_t)1 << 63 >> bits_leading(beyond | 1)) & beyond & own;
        flips |= (0 - (closer << 1)) & ray[d];
    }
    return flips;
}

/* The empty squares where the mover may place a disc. */
static inline uint64_t ob_placements(uint64_t own, uint64_t opp) {
#if OB_AVX2
    if (ob_simd) return ob_placements_avx2(own, opp);
#endif
    return ob_placements_portable(own, opp);
}

/* The opponent discs a disc of the mover's on `square` turns (none: not a placement). */
static inline uint64_t ob_flips(uint64_t own, uint64_t opp, int square) {
#if OB_AVX2
    if (ob_simd) return ob_flips_avx2(own, opp, square);
#endif
    return ob_flips_portable(own, opp, square);
}

#endif
