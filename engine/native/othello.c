/* Othello for both board widths: the word operations of each, then the shared rules and
 * search. */
#include "othello.h"

#include <math.h>

#include "bits.h"
#include "search.h"

/* -- one 64-bit word: boards up to 8x8 ---------------------------------------------------- */

static inline Bb64 shift64(Bb64 x, int step) { return step > 0 ? x << step : x >> -step; }

#define W 64
#define B_ZERO ((Bb64)0)
#define B_OR(a, b) ((a) | (b))
#define B_AND(a, b) ((a) & (b))
#define B_ANDNOT(a, b) ((a) & ~(b))
#define B_XOR(a, b) ((a) ^ (b))
#define B_SHIFT(x, step) shift64((x), (step))
#define B_ANY(x) ((x) != 0)
#define B_COUNT(x) bits_count(x)
#define B_BIT(square) ((Bb64)1 << (square))
#define B_LOWEST(x) bits_lowest(x)
#define B_HASH(x) search_int_hash(x)
#include "othello_impl.h"
#undef W
#undef B_ZERO
#undef B_OR
#undef B_AND
#undef B_ANDNOT
#undef B_XOR
#undef B_SHIFT
#undef B_ANY
#undef B_COUNT
#undef B_BIT
#undef B_LOWEST
#undef B_HASH

/* -- four words: boards from 10x10 to 16x16 (steps are at most 17 squares) ------------------ */

static const Bb256 zero256 = {{0, 0, 0, 0}};

static inline Bb256 or256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] |= b.w[i];
    return a;
}

static inline Bb256 and256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] &= b.w[i];
    return a;
}

static inline Bb256 andnot256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] &= ~b.w[i];
    return a;
}

static inline Bb256 xor256(Bb256 a, Bb256 b) {
    for (int i = 0; i < OTH_WORDS; i++) a.w[i] ^= b.w[i];
    return a;
}

static inline Bb256 shift256(Bb256 x, int step) {
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

static inline int any256(Bb256 x) { return (x.w[0] | x.w[1] | x.w[2] | x.w[3]) != 0; }

static inline int count256(Bb256 x) {
    int n = 0;
    for (int i = 0; i < OTH_WORDS; i++) n += bits_count(x.w[i]);
    return n;
}

static inline Bb256 bit256(int square) {
    Bb256 x = zero256;
    x.w[square / 64] = (uint64_t)1 << (square % 64);
    return x;
}

static inline int lowest256(Bb256 x) {
    int i = 0;
    while (!x.w[i]) i++;
    return 64 * i + bits_lowest(x.w[i]);
}

/* Python's hash of the int: its value modulo 2**61 - 1, word by word from the top (2**64 is 8
 * modulo 2**61 - 1). */
static inline uint64_t hash256(Bb256 x) {
    uint64_t h = 0;
    for (int i = OTH_WORDS - 1; i >= 0; i--) {
        h = search_int_hash(h * 8) + search_int_hash(x.w[i]);
        h = search_int_hash(h);
    }
    return h;
}

#define W 256
#define B_ZERO zero256
#define B_OR or256
#define B_AND and256
#define B_ANDNOT andnot256
#define B_XOR xor256
#define B_SHIFT shift256
#define B_ANY any256
#define B_COUNT count256
#define B_BIT bit256
#define B_LOWEST lowest256
#define B_HASH hash256
#include "othello_impl.h"
