/* The 8x8 Othello board operations shared by the rules (othello.c), the search and the endgame
 * solver: a board is two words, the mover's discs and the opponent's, bit `row * 8 + column` a
 * square (a1 bit 0, h1 bit 7, a8 bit 56).
 *
 * Two paths give the same squares: a portable one in C99 and, on x86-64 CPUs that have AVX2,
 * one that shifts four directions at once in a 256-bit register. Which runs is chosen at module
 * load (the CPU, unless UBAO_OTHELLO_SIMD=0) and read by every call: one branch, always taken
 * the same way. */
#ifndef UBAO_OTHELLO_BOARD8_H
#define UBAO_OTHELLO_BOARD8_H

#include <stdint.h>

/* The empty squares where the mover may place a disc. */
uint64_t ob_placements(uint64_t own, uint64_t opp);
/* The opponent discs a disc of the mover's on the empty `square` turns (none: not a placement). */
uint64_t ob_flips(uint64_t own, uint64_t opp, int square);

/* Chooses the path, before any call of the above: the AVX2 one if `simd` is asked and this
 * CPU (and build) has it, else the portable one; returns whether the AVX2 path runs. */
int ob_select(int simd);
/* ob_select as the environment asks (UBAO_OTHELLO_SIMD=0: the portable path); at module load. */
int ob_select_from_environment(void);
/* Whether the AVX2 path runs; whether this CPU (and build) can run it. */
int ob_simd_running(void);
int ob_simd_available(void);

#endif
