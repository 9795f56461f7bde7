/* The 8x8 Othello board operations shared by the rules (othello.c), the search and the endgame
 * solver: a board is two words, the mover's discs and the opponent's, bit `row * 8 + column` a
 * square. Placements by parallel shifts of the mover's discs along the eight directions, flips
 * by the same shifts from the placed disc. */
#ifndef UBAO_OTHELLO_BOARD8_H
#define UBAO_OTHELLO_BOARD8_H

#include <stdint.h>

/* The empty squares where the mover may place a disc. */
uint64_t ob_placements(uint64_t own, uint64_t opp);
/* The opponent discs a disc of the mover's on `square` turns (none: not a placement). */
uint64_t ob_flips(uint64_t own, uint64_t opp, int square);

#endif
