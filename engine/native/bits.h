/* Bit counting on 64-bit words: compiler built-ins where there are some, portable C99 else. */
#ifndef UBAO_BITS_H
#define UBAO_BITS_H

#include <stdint.h>

static inline int bits_count(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
#endif
}

/* The index of the lowest set bit; x must not be 0. */
static inline int bits_lowest(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    for (; !(x & 1); x >>= 1) n++;
    return n;
#endif
}

/* The number of zero bits above the highest set bit; x must not be 0. */
static inline int bits_leading(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_clzll(x);
#else
    int n = 0;
    for (; !(x >> 63); x <<= 1) n++;
    return n;
#endif
}

#endif
