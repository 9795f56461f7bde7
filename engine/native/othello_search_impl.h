/* The search of search_impl.h over the Othello rules for one board width W (64 or 256):
 * engine/othello/game.py's `search_moves`, `horizon_moves`, `child` and evaluations, included once per width by
 * othello_search.c, on the word operations of othello_words.h and B_HASH (Python's hash of the
 * board as an int). */

#define Pos B_NAME(OthPos, W)
#define PASS_HANDLE 256 /* the handle of the pass, whose Python move is -1 */

static int64_t B_NAME(oth_hash_, W)(const Rules *r, const Pos *p) {
    uint64_t acc = search_hash_item(SEARCH_HASH_START, B_HASH(p->black));
    acc = search_hash_item(search_hash_item(acc, B_HASH(p->white)), (uint64_t)p->player);
    (void)r;
    return search_hash_end(acc, 3);
}

/* `horizon_moves`: the placements by the square weights, the best group first. */
static int B_NAME(oth_horizon_order_, W)(const Rules *r, const Pos *p, int *moves) {
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

/* `search_moves`: the square order sorted by the opponent's placements after each move, fewest
 * first, ties in the square order (a stable insertion sort, as Python's `sorted`). */
static int B_NAME(oth_order_, W)(const Rules *r, const Pos *p, int *moves) {
    int n = B_NAME(oth_horizon_order_, W)(r, p, moves);
    if (n < 2) return n;
    Bb own = p->player ? p->white : p->black, opp = p->player ? p->black : p->white;
    int replies[OTH_MAX_SIZE * OTH_MAX_SIZE];
    for (int i = 0; i < n; i++) {
        int square = moves[i];
        Bb flips = B_NAME(oth_flips_, W)(r, own, opp, square);
        Bb mine = B_OR(B_OR(own, B_BIT(square)), flips), theirs = B_XOR(opp, flips);
        int count = B_COUNT(B_NAME(oth_placements_, W)(r, theirs, mine)), j = i;
        for (; j > 0 && replies[j - 1] > count; j--) {
            replies[j] = replies[j - 1];
            moves[j] = moves[j - 1];
        }
        replies[j] = count;
        moves[j] = square;
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

/* engine/othello/trained.py `value`: the stage's integer weights times the features (Black's
 * count minus White's, in the order of its FEATURES), over the scale: the same double. */
static double B_NAME(oth_trained_, W)(const Rules *r, const Pos *p, Bb black_moves,
                                      Bb white_moves) {
    static const int weights[OTH_STAGES][OTH_FEATURES] = OTH_TRAINED_WEIGHTS;
    Bb black = p->black, white = p->white, occupied = B_OR(black, white);
    Bb empty = B_ANDNOT(r->full, occupied);
    int x_squares = 0, c_squares = 0;
    for (int c = 0; c < 4; c++) {
        if (B_ANY(B_AND(occupied, r->corner[c]))) continue;
        x_squares += B_NAME(oth_difference_, W)(black, white, r->x_square[c]);
        c_squares += B_NAME(oth_difference_, W)(black, white, r->c_squares[c]);
    }
    Bb near_black = B_ZERO, near_white = B_ZERO, near_empty = B_ZERO;
    for (int d = 0; d < 8; d++) {
        near_black = B_OR(near_black, B_AND(B_SHIFT(black, r->step[d]), r->land[d]));
        near_white = B_OR(near_white, B_AND(B_SHIFT(white, r->step[d]), r->land[d]));
        near_empty = B_OR(near_empty, B_AND(B_SHIFT(empty, r->step[d]), r->land[d]));
    }
    Bb anchored = B_ZERO;
    for (int w = 0; w < 8; w++) {
        Bb corner = B_BIT(r->walk[w][0]);
        Bb own = B_ANY(B_AND(black, corner)) ? black : B_ANY(B_AND(white, corner)) ? white : B_ZERO;
        for (int k = 1; k < r->size; k++) {
            Bb bit = B_BIT(r->walk[w][k]);
            if (!B_ANY(B_AND(own, bit))) break;
            anchored = B_OR(anchored, bit);
        }
    }
    int features[OTH_FEATURES], f = 0;
    for (int g = 0; g < OTH_GROUPS; g++)
        features[f++] = B_NAME(oth_difference_, W)(black, white, r->group[g]);
    features[f++] = x_squares;
    features[f++] = c_squares;
    features[f++] = B_COUNT(black_moves) - B_COUNT(white_moves);
    features[f++] = B_COUNT(B_AND(empty, near_white)) - B_COUNT(B_AND(empty, near_black));
    features[f++] = B_NAME(oth_difference_, W)(black, white, near_empty);
    features[f++] = B_NAME(oth_difference_, W)(black, white, anchored);
    int stage = B_COUNT(occupied) * OTH_STAGES / r->squares;
    if (stage > OTH_STAGES - 1) stage = OTH_STAGES - 1;
    long long total = 0;
    for (int i = 0; i < OTH_FEATURES; i++) total += (long long)weights[stage][i] * features[i];
    return (double)total / OTH_TRAINED_SCALE;
}

/* The evaluation `e` fused with the end test: the disc count in the last `size` empties (the
 * last 3 for `patterns`, fitted nearer the end; always for `discs`), else square weights
 * (`positional`), five points per placement more than the opponent (`mobility`), or both
 * (`standard`), integers as in Python; or `trained`, or `patterns` (othello_patterns.c). */
static int B_NAME(oth_leaf_, W)(const Rules *r, const Pos *p, int over, int e, double *value) {
    Bb black = p->black, white = p->white, occupied = B_OR(black, white);
    int discs = B_COUNT(black) - B_COUNT(white);
    (void)over; /* never known: the placements tell */
    Bb black_moves = B_NAME(oth_placements_, W)(r, black, white);
    Bb white_moves = B_NAME(oth_placements_, W)(r, white, black);
    if (!B_ANY(black_moves) && !B_ANY(white_moves)) return 0;
    int counted = r->size;
#if W == 64
    if (e == OTH_PATTERNS) counted = r->squares - 1 - OTH_PATTERN_LAST_DISCS;
#endif
    if (e == OTH_DISCS || r->squares - B_COUNT(occupied) <= counted) {
        *value = discs;
        return 1;
    }
    if (e == OTH_TRAINED) {
        *value = B_NAME(oth_trained_, W)(r, p, black_moves, white_moves);
        return 1;
    }
#if W == 64 /* `patterns` is drawn on 8x8 only: bind_search.c refuses it on another size */
    if (e == OTH_PATTERNS) {
        *value = oth_patterns_value(black, white, B_COUNT(black_moves) - B_COUNT(white_moves),
                                    p->player ? -1 : 1);
        return 1;
    }
#endif
    int score = 0;
    if (e != OTH_MOBILITY) {
        for (int g = 0; g < OTH_GROUPS; g++)
            score += r->weight[g] * B_NAME(oth_difference_, W)(black, white, r->group[g]);
        for (int c = 0; c < 4; c++) {
            if (B_ANY(B_AND(occupied, r->corner[c]))) {
                score += (OTH_EDGE - OTH_C_SQUARE) *
                         B_NAME(oth_difference_, W)(black, white, r->c_squares[c]);
                score += (OTH_SECOND_RING - OTH_X_SQUARE) *
                         B_NAME(oth_difference_, W)(black, white, r->x_square[c]);
            }
        }
    }
    if (e != OTH_POSITIONAL)
        score += OTH_MOBILITY_WEIGHT * (B_COUNT(black_moves) - B_COUNT(white_moves));
    *value = score;
    return 1;
}

static double B_NAME(oth_ended_, W)(const Rules *r, const Pos *p, int me, int ply) {
    (void)r;
    return search_final(B_COUNT(p->black), B_COUNT(p->white), me, ply);
}

static int B_NAME(oth_find_, W)(const Rules *r, const Pos *p, int move) {
    int moves[OTH_MAX_SIZE * OTH_MAX_SIZE], n = B_NAME(oth_horizon_order_, W)(r, p, moves);
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
#define S_HORIZON_ORDER(r, p, moves, over) B_NAME(oth_horizon_order_, W)(r, p, moves)
#define S_VALUE(r, p, k) ((k) == PASS_HANDLE ? -1 : (k))
#define S_CHILD B_NAME(oth_child_, W)
#define S_LEAF B_NAME(oth_leaf_, W)
#define S_ENDED B_NAME(oth_ended_, W)
#define S_FIND B_NAME(oth_find_, W)
#define S_PROGRESS(r, p) B_COUNT(B_OR((p)->black, (p)->white))
#include "search_impl.h"
#undef S_NAME
#undef S_RULES
#undef S_POS
#undef S_MAX_MOVES
#undef S_HANDLES
#undef S_TO_MOVE
#undef S_HASH
#undef S_ORDER
#undef S_HORIZON_ORDER
#undef S_VALUE
#undef S_CHILD
#undef S_LEAF
#undef S_ENDED
#undef S_FIND
#undef S_PROGRESS
#undef Pos
#undef PASS_HANDLE
