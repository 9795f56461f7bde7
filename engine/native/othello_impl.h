/* The Othello rules for one board width W (64 or 256), included once per width by othello.c,
 * which defines these word operations first: B_ZERO, B_OR, B_AND, B_ANDNOT (a & ~b), B_XOR,
 * B_SHIFT (left by a positive step, right by a negative one), B_ANY, B_COUNT, B_BIT (the board
 * with one square), B_LOWEST (the lowest square; the board must not be empty). */

#define B_CAT(a, b) a##b
#define B_NAME(name, w) B_CAT(name, w)
#define Bb B_NAME(Bb, W)
#define Rules B_NAME(Oth, W)

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
}

/* The squares `own` may place on: from every own disc at once, a run of opponent discs is
 * extended one step per round in each direction; an empty square just past a run closes it. */
Bb B_NAME(oth_placements_, W)(const Rules *r, Bb own, Bb opp) {
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

#undef Bb
#undef Rules
#undef B_NAME
#undef B_CAT
