/* The 8x8 Othello board operations shared by the rules (othello.c), the search and the endgame
 * solver: a board is two words, the mover's discs and the opponent's, bit `row * 8 + column` a
 * square (a1 bit 0, h1 bit 7, a8 bit 56).
 *
 * The paths give the same squares: a portable one in C99 and, on x86-64 CPUs that have AVX2
 * (or AVX-512), ones that shift four directions at once in a 256-bit register. Which runs is
 * chosen at module load (the best the CPU has, unless UBAO_OTHELLO_SIMD says) and read by every
 * call: a branch or two, always taken the same way. */
#ifndef UBAO_OTHELLO_BOARD8_H
#define UBAO_OTHELLO_BOARD8_H

#include <stdint.h>

/* The empty squares where the mover may place a disc. */
uint64_t ob_placements(uint64_t own, uint64_t opp);
/* The opponent discs a disc of the mover's on the empty `square` turns (none: not a placement). */
uint64_t ob_flips(uint64_t own, uint64_t opp, int square);

/* The paths, each faster than the one before where the CPU has it: the portable one; AVX2;
 * AVX-512 (AVX2 but for the flips towards a1: AVX-512VL and CD). */
enum { OB_PORTABLE, OB_AVX2, OB_AVX512, OB_PATHS };

/* Chooses the path, before any call of the above: `path` if this CPU (and build) has it, else
 * the best below it; returns the path that runs. */
int ob_select(int path);
/* ob_select as the environment asks, at module load: UBAO_OTHELLO_SIMD=0 (or "portable"), the
 * portable path; a path's name, that path or the best below it; else the best. */
int ob_select_from_environment(void);
/* The path that runs; whether this CPU (and build) has `path`. */
int ob_path_running(void);
int ob_path_available(int path);
/* A path's name ("portable", "avx2", "avx512"), and the path of a name (-1: none). */
const char *ob_path_name(int path);
int ob_path_named(const char *name);

#endif
