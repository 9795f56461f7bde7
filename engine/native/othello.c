/* Othello's rules for both board widths: othello_impl.h compiled once per width, on the word
 * operations of othello_words.h; 8x8 boards place and flip by othello_board8.h's shifts. */
#include "othello.h"

#include "othello_board8.h" /* ob_placements, ob_flips: 8x8 by fixed shifts (or AVX2) */
#include "othello_words.h"

#define W 64
#define B_EIGHT_PLACEMENTS ob_placements
#define B_EIGHT_FLIPS ob_flips
#include "othello_impl.h"
#undef B_EIGHT_PLACEMENTS
#undef B_EIGHT_FLIPS
#undef W

#define W 256
#include "othello_impl.h"
#undef W
