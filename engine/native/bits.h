/* Bit counting on 64-bit words: compiler built-ins where there are some, portable C99 else. */
#ifndef UBAO_BITS_H
#define UBAO_BITS_H

#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define BITS_X86 1
/* Whether bits_count runs the CPU's POPCNT instruction: set with the 8x8 board operations' path
 * (othello_board8.c), on every SIMD path. A build for any x86-64 CPU has no POPCNT in
 * __builtin_popcountll, which calls a library function; the search counts bits at every node. */
extern int bits_popcnt;
#else
#define BITS_X86 0
#endif

static inline int bits_count(uint64_t x) {
#if BITS_X86
    if (bits_popcnt) {
        uint64_t n;
        __asm__("popcntq %1, %0" : "=r"(n) : "rm"(x));
        return (int)n;
    }
#endif
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
