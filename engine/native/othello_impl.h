/* The Othello rules for one board width W (64 or 256), included once per width by othello.c,
 * on the word operations of othello_words.h; where the width defines B_EIGHT_PLACEMENTS and
 * B_EIGHT_FLIPS, an 8x8 board takes them (the same squares, by fixed shifts). */

void B_NAME(oth_init_, W)(Rules *r, int size) {
    Bb column_a = B_ZERO, full = B_ZERO;
    for (int row = 0; row < size; row++) column_a = B_OR(column_a, B_BIT(row * size));
    for (int square = 0; square < size * size; square++) full = B_OR(full, B_BIT(square));
    Bb not_a = B_ANDNOT(full, column_a);
    Bb not_last = B_ANDNOT(full, B_SHIFT(column_a, size - 1));
    const int step[8] = {-size, 1 - size, 1, size + 1, size, size - 1, -1, -size - 1};
    const Bb land[8] = {full, not_a, not_a, not_a, full, not_last, not_last, not_last};
    r->size = size;
    r->squares = size * size;
    r->full = full;
    for (int d = 0; d < 8; d++) {
        r->step[d] = step[d];
        r->land[d] = land[d];
    }
    /* the square weights of docs/othello.md, the best first */
    const int weight[OTH_GROUPS] = {OTH_CORNER,      OTH_A_SQUARE, OTH_EDGE,    OTH_INNER,
                                    OTH_SECOND_RING, OTH_C_SQUARE, OTH_X_SQUARE};
    for (int g = 0; g < OTH_GROUPS; g++) {
        r->weight[g] = weight[g];
        r->group[g] = B_ZERO;
    }
    for (int square = 0; square < size * size; square++) {
        int row = square / size, column = square % size, last = size - 1;
        int near_row = row < last - row ? row : last - row;
        int near_column = column < last - column ? column : last - column;
        int ring = near_row < near_column ? near_row : near_column;
        int along = near_row > near_column ? near_row : near_column;
        int g = ring == 0 ? (along == 0 ? 0 : along == 1 ? 5 : along == 2 ? 1 : 2)
                : ring == 1 ? (along == 1 ? 6 : 4)
                            : 3;
        r->group[g] = B_OR(r->group[g], B_BIT(square));
    }
    const int corners[4][4] = {
        {0, 0, 1, 1}, {0, size - 1, 1, -1}, {size - 1, 0, -1, 1}, {size - 1, size - 1, -1, -1}};
    for (int c = 0; c < 4; c++) {
        int row = corners[c][0], column = corners[c][1], dr = corners[c][2], dc = corners[c][3];
        r->corner[c] = B_BIT(row * size + column);
        r->c_squares[c] =
            B_OR(B_BIT(row * size + column + dc), B_BIT((row + dr) * size + column));
        r->x_square[c] = B_BIT((row + dr) * size + column + dc);
        for (int e = 0; e < 2; e++) { /* along the row, then along the column */
            int *walk = r->walk[2 * c + e];
            for (int k = 0; k < size; k++)
                walk[k] = e ? (row + k * dr) * size + column : row * size + column + k * dc;
        }
    }
}

/* The squares `own` may place on: from every own disc at once, a run of opponent discs is
 * extended one step per round in each direction; an empty square just past a run closes it. */
Bb B_NAME(oth_placements_, W)(const Rules *r, Bb own, Bb opp) {
#ifdef B_EIGHT_PLACEMENTS /* 8x8 by the endgame solver's fixed shifts */
    if (r->size == 8) return B_EIGHT_PLACEMENTS(own, opp);
#endif
    Bb empty = B_ANDNOT(r->full, B_OR(own, opp)), found = B_ZERO;
    for (int d = 0; d < 8; d++) {
        int step = r->step[d];
        Bb land = r->land[d];
        Bb run = B_AND(B_AND(B_SHIFT(own, step), land), opp);
        while (B_ANY(run)) {
            run = B_AND(B_SHIFT(run, step), land);
            found = B_OR(found, B_AND(run, empty));
            run = B_AND(run, opp);
        }
    }
    return found;
}

/* The opponent discs a disc placed on `square` turns: every run it closes with an own disc. */
Bb B_NAME(oth_flips_, W)(const Rules *r, Bb own, Bb opp, int square) {
#ifdef B_EIGHT_FLIPS
    if (r->size == 8) return B_EIGHT_FLIPS(own, opp, square);
#endif
    Bb flips = B_ZERO, placed = B_BIT(square);
    for (int d = 0; d < 8; d++) {
        Bb run = B_ZERO, next = B_AND(B_SHIFT(placed, r->step[d]), r->land[d]);
        while (B_ANY(B_AND(next, opp))) {
            run = B_OR(run, next);
            next = B_AND(B_SHIFT(next, r->step[d]), r->land[d]);
        }
        if (B_ANY(B_AND(next, own))) flips = B_OR(flips, run);
    }
    return flips;
}

/* Move sequences of `depth` plies, the mover's discs first; a pass is a ply, and a sequence
 * that ends the game (neither side can place) counts once. The last ply is only counted. */
uint64_t B_NAME(oth_perft_, W)(const Rules *r, Bb own, Bb opp, int depth) {
    if (depth == 0) return 1;
    Bb moves = B_NAME(oth_placements_, W)(r, own, opp);
    if (!B_ANY(moves)) {
        if (!B_ANY(B_NAME(oth_placements_, W)(r, opp, own))) return 1; /* the game is over */
        return depth == 1 ? 1 : B_NAME(oth_perft_, W)(r, opp, own, depth - 1);
    }
    if (depth == 1) return (uint64_t)B_COUNT(moves);
    uint64_t total = 0;
    while (B_ANY(moves)) {
        int square = B_LOWEST(moves);
        Bb placed = B_BIT(square);
        moves = B_XOR(moves, placed);
        Bb flips = B_NAME(oth_flips_, W)(r, own, opp, square);
        total += B_NAME(oth_perft_, W)(r, B_XOR(opp, flips), B_OR(B_OR(own, placed), flips),
                                       depth - 1);
    }
    return total;
}
