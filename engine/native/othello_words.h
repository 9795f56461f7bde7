/* The word operations of Othello's boards, for both widths: bb_*64 on one 64-bit word (boards up
 * to 8x8), bb_*256 on four (boards from 10x10 to 16x16; steps are at most 17 squares). The B_*
 * names pick the width W that the including file defines around each inclusion of a template
 * (othello_impl.h: the rules; othello_search_impl.h: the search):
 * B_ZERO, B_OR, B_AND, B_ANDNOT (a & ~b), B_XOR, B_SHIFT (left by a positive step, right by a
 * negative one), B_ANY, B_COUNT, B_BIT (the board with one square), B_LOWEST (the lowest
 * square; the board must not be empty); Bb and Rules are the width's board and rules. */
#ifndef UBAO_OTHELLO_WORDS_H
#define UBAO_OTHELLO_WORDS_H

#include "bits.h"
#include "othello.h"

#define B_CAT(a, b) a##b
#define B_NAME(name, w) B_CAT(name, w)
#define Bb B_NAME(Bb, W)
#define Rules B_NAME(Oth, W)
#define B_ZERO B_NAME(bb_zero, W)()
#define B_OR B_NAME(bb_or, W)
#define B_AND B_NAME(bb_and, W)
#define B_ANDNOT B_NAME(bb_andnot, W)
#define B_XOR B_NAME(bb_xor, W)
#define B_SHIFT B_NAME(bb_shift, W)
#define B_ANY B_NAME(bb_any, W)
#define B_COUNT B_NAME(bb_count, W)
#define B_BIT B_NAME(bb_bit, W)
#define B_LOWEST B_NAME(bb_lowest, W)

/* -- one 64-bit word ------------------------------------------------------------------------ */

static inline Bb64 bb_zero64(void) { return 0; }
static inline Bb64 bb_or64(Bb64 a, Bb64 b) { return a | b; }
static inline Bb64 bb_and64(Bb64 a, Bb64 b) { return a & b; }
static inline Bb64 bb_andnot64(Bb64 a, Bb64 b) { return a & ~b; }
static inline Bb64 bb_xor64(Bb64 a, Bb64 b) { return a ^ b; }
static inline Bb64 bb_shift64(Bb64 x, int step) { return step > 0 ? x << step : x >> -step; }
static inline int bb_any64(Bb64 x) { return x != 0; }
static inline int bb_count64(Bb64 x) { return bits_count(x); }
static inline Bb64 bb_bit64(int square) { return (Bb64)1 << square; }
static inline int bb_lowest64(Bb64 x) { return bits_lowest(x); }

/* -- four words ----------------------------------------------------------------------------- */

static inline Bb256 bb_zero256(void) {
    Bb256 zero = {{0, 0, 0, 0}};
    return zero;
}

static inline Bb256 bb_or256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] |= b.w[i];
    return a;
}

static inline Bb256 bb_and256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] &= b.w[i];
    return a;
}

static inline Bb256 bb_andnot256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] &= ~b.w[i];
    return a;
}

static inline Bb256 bb_xor256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] ^= b.w[i];
    return a;
}

static inline Bb256 bb_shift256(Bb256 x, int step) {
    Bb256 out;
    if (step > 0) {
        for (int i = OTH_WORDS - 1; i > 0; i--)
            out.w[i] = x.w[i] << step | x.w[i - 1] >> (64 - step);
        out.w[0] = x.w[0] << step;
    } else {
        int k = -step;
        for (int i = 0; i < OTH_WORDS - 1; i++) out.w[i] = x.w[i] >> k | x.w[i + 1] << (64 - k);
        out.w[OTH_WORDS - 1] = x.w[OTH_WORDS - 1] >> k;
    }
    return out;
}

static inline int bb_any256(Bb256 x) { return (x.w[0] | x.w[1] | x.w[2] | x.w[3]) != 0; }

static inline int bb_count256(Bb256 x) {
    int n = 0;
    for (int i = 0; i < OTH_WORDS; i++) n += bits_count(x.w[i]);
    return n;
}

static inline Bb256 bb_bit256(int square) {
    Bb256 x = bb_zero256();
    x.w[square / 64] = (uint64_t)1 << (square % 64);
    return x;
}

static inline int bb_lowest256(Bb256 x) {
    int i = 0;
    while (!x.w[i]) i++;
    return 64 * i + bits_lowest(x.w[i]);
}

#endif
