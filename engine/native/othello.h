/* Othello on s x s boards, s even from 4 to 16 (docs/othello.md), in plain C: no Python here.
 *
 * Bit `row * s + column` stands for a square, as in engine/othello/game.py. Boards up to 8x8 fit one
 * 64-bit word (`Oth64`); larger ones use four words (`Oth256`, 256 bits). The rules are written
 * once, in othello_impl.h, and compiled for both widths. */
#ifndef UBAO_OTHELLO_H
#define UBAO_OTHELLO_H

#include <stdint.h>

#include "constants.h" /* OTH_MAX_SIZE, OTH_GROUPS and their weights */

#define OTH_WORDS 4

typedef uint64_t Bb64;
typedef struct {
    uint64_t w[OTH_WORDS];
} Bb256;

/* The eight directions clockwise from north: the index step, and the squares a step may land
 * on (the board less the column a step east or west would wrap into). */

/* Also the square-weight evaluations' tables (engine/othello/evaluations.py `positional_tables`): the
 * squares of each weight, the best first (the order of `search_moves`), and per corner the
 * C-squares and X-square whose penalty lapses once it is taken. */
typedef struct {
    int size, squares;
    int step[8];
    Bb64 land[8];
    Bb64 full;
    int weight[OTH_GROUPS];
    Bb64 group[OTH_GROUPS];
    Bb64 corner[4], c_squares[4], x_square[4];
    int walk[8][OTH_MAX_SIZE]; /* trained: per corner and edge, the corner, then the edge */
} Oth64;

typedef struct {
    int size, squares;
    int step[8];
    Bb256 land[8];
    Bb256 full;
    int weight[OTH_GROUPS];
    Bb256 group[OTH_GROUPS];
    Bb256 corner[4], c_squares[4], x_square[4];
    int walk[8][OTH_MAX_SIZE]; /* trained: per corner and edge, the corner, then the edge */
} Oth256;

#define OTH_DECLARE(W)                                                         \
    void oth_init_##W(Oth##W *r, int size);                                    \
    Bb##W oth_placements_##W(const Oth##W *r, Bb##W own, Bb##W opp);           \
    Bb##W oth_flips_##W(const Oth##W *r, Bb##W own, Bb##W opp, int square);    \
    uint64_t oth_perft_##W(const Oth##W *r, Bb##W own, Bb##W opp, int depth);

OTH_DECLARE(64)
OTH_DECLARE(256)

#undef OTH_DECLARE

#endif
