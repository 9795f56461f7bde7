/* The Othello rules and search for one board width W (64 or 256), included once per width by
 * othello.c, which defines these word operations first: B_ZERO, B_OR, B_AND, B_ANDNOT (a & ~b),
 * B_XOR, B_SHIFT (left by a positive step, right by a negative one), B_ANY, B_COUNT, B_BIT (the
 * board with one square), B_LOWEST (the lowest square; the board must not be empty), B_HASH
 * (Python's hash of the board as an int). */

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
    /* the square weights of docs/othello.md, the best first */
    const int weight[OTH_GROUPS] = {100, 10, 5, -1, -2, -20, -50};
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

/* -- the search: engine/othello.py's `search_moves`, `child` and evaluations --------------- */

#define Pos B_NAME(OthPos, W)
#define PASS_HANDLE 256 /* the handle of the pass, whose Python move is -1 */

static int64_t B_NAME(oth_hash_, W)(const Rules *r, const Pos *p) {
    uint64_t acc = search_hash_item(SEARCH_HASH_START, B_HASH(p->black));
    acc = search_hash_item(search_hash_item(acc, B_HASH(p->white)), (uint64_t)p->player);
    (void)r;
    return search_hash_end(acc, 3);
}

static int B_NAME(oth_order_, W)(const Rules *r, const Pos *p, int *moves) {
    Bb own = p->player ? p->white : p->black, opp = p->player ? p->black : p->white;
    Bb placements = B_NAME(oth_placements_, W)(r, own, opp);
    int n = 0;
    if (!B_ANY(placements)) {
        if (!B_ANY(B_NAME(oth_placements_, W)(r, opp, own))) return 0;
        moves[0] = PASS_HANDLE;
        return 1;
    }
    for (int g = 0; g < OTH_GROUPS; g++) {
        Bb found = B_AND(placements, r->group[g]);
        while (B_ANY(found)) {
            int square = B_LOWEST(found);
            found = B_XOR(found, B_BIT(square));
            moves[n++] = square;
        }
    }
    return n;
}

/* Returns -1: whether the game is over is left to the leaf, which counts the placements. */
static int B_NAME(oth_child_, W)(const Rules *r, const Pos *p, int k, Pos *out) {
    *out = *p;
    out->player = 1 - p->player;
    if (k == PASS_HANDLE) return -1;
    Bb own = p->player ? p->white : p->black, opp = p->player ? p->black : p->white;
    Bb flips = B_NAME(oth_flips_, W)(r, own, opp, k);
    Bb mine = B_OR(B_OR(own, B_BIT(k)), flips), theirs = B_XOR(opp, flips);
    out->black = p->player ? theirs : mine;
    out->white = p->player ? mine : theirs;
    return -1;
}

static int B_NAME(oth_difference_, W)(Bb black, Bb white, Bb mask) {
    return B_COUNT(B_AND(black, mask)) - B_COUNT(B_AND(white, mask));
}

/* The evaluation `e` fused with the end test: the disc count in the last `size` empties (and
 * always for `discs`), else square weights (`positional`), five points per placement more than
 * the opponent (`mobility`), or both (`standard`). Integers, as in Python. */
static int B_NAME(oth_leaf_, W)(const Rules *r, const Pos *p, int over, int e, double *value) {
    Bb black = p->black, white = p->white, occupied = B_OR(black, white);
    int discs = B_COUNT(black) - B_COUNT(white);
    (void)over; /* never known: the placements tell */
    Bb black_moves = B_NAME(oth_placements_, W)(r, black, white);
    Bb white_moves = B_NAME(oth_placements_, W)(r, white, black);
    if (!B_ANY(black_moves) && !B_ANY(white_moves)) return 0;
    if (e == OTH_DISCS || r->squares - B_COUNT(occupied) <= r->size) {
        *value = discs;
        return 1;
    }
    int score = 0;
    if (e != OTH_MOBILITY) {
        for (int g = 0; g < OTH_GROUPS; g++)
            score += r->weight[g] * B_NAME(oth_difference_, W)(black, white, r->group[g]);
        for (int c = 0; c < 4; c++) {
            if (B_ANY(B_AND(occupied, r->corner[c]))) {
                score += 25 * B_NAME(oth_difference_, W)(black, white, r->c_squares[c]);
                score += 48 * B_NAME(oth_difference_, W)(black, white, r->x_square[c]);
            }
        }
    }
    if (e != OTH_POSITIONAL) score += 5 * (B_COUNT(black_moves) - B_COUNT(white_moves));
    *value = score;
    return 1;
}

static double B_NAME(oth_ended_, W)(const Rules *r, const Pos *p, int me, int ply) {
    (void)r;
    return search_final(B_COUNT(p->black), B_COUNT(p->white), me, ply);
}

static int B_NAME(oth_find_, W)(const Rules *r, const Pos *p, int move) {
    int moves[OTH_MAX_SIZE * OTH_MAX_SIZE], n = B_NAME(oth_order_, W)(r, p, moves);
    for (int i = 0; i < n; i++)
        if ((moves[i] == PASS_HANDLE ? -1 : moves[i]) == move) return moves[i];
    return -1;
}

#define S_NAME(x) B_NAME(B_NAME(oth_search_, W), _##x)
#define S_RULES Rules
#define S_POS Pos
#define S_MAX_MOVES (OTH_MAX_SIZE * OTH_MAX_SIZE)
#define S_HANDLES (PASS_HANDLE + 1)
#define S_TO_MOVE player
#define S_HASH B_NAME(oth_hash_, W)
#define S_ORDER B_NAME(oth_order_, W)
#define S_VALUE(r, p, k) ((k) == PASS_HANDLE ? -1 : (k))
#define S_CHILD B_NAME(oth_child_, W)
#define S_LEAF B_NAME(oth_leaf_, W)
#define S_ENDED B_NAME(oth_ended_, W)
#define S_FIND B_NAME(oth_find_, W)
#include "search_impl.h"
#undef S_NAME
#undef S_RULES
#undef S_POS
#undef S_MAX_MOVES
#undef S_HANDLES
#undef S_TO_MOVE
#undef S_HASH
#undef S_ORDER
#undef S_VALUE
#undef S_CHILD
#undef S_LEAF
#undef S_ENDED
#undef S_FIND
#undef Pos
#undef PASS_HANDLE

#undef Bb
#undef Rules
#undef B_NAME
#undef B_CAT
