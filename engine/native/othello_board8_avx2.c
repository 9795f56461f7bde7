/* The AVX2 path of othello_board8.h: the four directions of a slant (steps 1, 7, 8, 9, as lanes
 * 0 to 3) in one 256-bit register, shifted each by its own step. Compiled for AVX2 function by
 * function, so that the module still runs on any x86-64 (ob_select runs these only on a CPU that
 * has it); other compilers and CPUs build nothing here. */
#include "othello_board8.h"

#if OB_AVX2
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define ALL 0xffffffffffffffffULL

/* The lanes' union. */
AVX2 static inline uint64_t ob_union(__m256i x) {
    __m128i half = _mm_or_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half)));
}

/* Where runs may pass, per lane: not through columns a or h, but along a column. */
AVX2 static inline __m256i ob_lines(uint64_t opp) {
    return _mm256_and_si256(_mm256_set1_epi64x((long long)opp),
                            _mm256_set_epi64x((long long)OB_INNER, (long long)ALL,
                                              (long long)OB_INNER, (long long)OB_INNER));
}

/* ob_placements_portable's runs, in both senses of the four lanes at once. */
AVX2 uint64_t ob_placements_avx2(uint64_t own, uint64_t opp) {
    const __m256i step = _mm256_set_epi64x(9, 8, 7, 1), double_step = _mm256_add_epi64(step, step);
    __m256i own4 = _mm256_set1_epi64x((long long)own), line = ob_lines(opp);
    __m256i up = _mm256_and_si256(_mm256_sllv_epi64(own4, step), line);
    __m256i down = _mm256_and_si256(_mm256_srlv_epi64(own4, step), line);
    __m256i pairs_up = _mm256_and_si256(line, _mm256_sllv_epi64(line, step));
    __m256i pairs_down = _mm256_srlv_epi64(pairs_up, step);
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, step), line));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step), line));
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, double_step), pairs_up));
    down = _mm256_or_si256(down,
                           _mm256_and_si256(_mm256_srlv_epi64(down, double_step), pairs_down));
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, double_step), pairs_up));
    down = _mm256_or_si256(down,
                           _mm256_and_si256(_mm256_srlv_epi64(down, double_step), pairs_down));
    __m256i found = _mm256_or_si256(_mm256_sllv_epi64(up, step), _mm256_srlv_epi64(down, step));
    return ob_union(found) & ~(own | opp);
}

/* Towards h8, the rays' lowest square not the opponent's closes a run when it is the mover's
 * (as in ob_flips_portable); towards a1, the runs grow from the placed disc by doubling shifts,
 * as the placements do, and count when the square past them is the mover's. */
AVX2 uint64_t ob_flips_avx2(uint64_t own, uint64_t opp, int square) {
    const __m256i step = _mm256_set_epi64x(9, 8, 7, 1), double_step = _mm256_add_epi64(step, step);
    const __m256i zero = _mm256_setzero_si256();
    __m256i own4 = _mm256_set1_epi64x((long long)own), opp4 = _mm256_set1_epi64x((long long)opp);
    __m256i ray = _mm256_load_si256((const __m256i *)ob_rays[square]);
    __m256i beyond = _mm256_andnot_si256(opp4, ray);
    __m256i closer = _mm256_and_si256(_mm256_and_si256(beyond, _mm256_sub_epi64(zero, beyond)), own4);
    __m256i up = _mm256_andnot_si256(_mm256_cmpeq_epi64(closer, zero),
                                     _mm256_and_si256(_mm256_sub_epi64(closer, _mm256_set1_epi64x(1)), ray));
    __m256i line = ob_lines(opp);
    __m256i placed = _mm256_set1_epi64x((long long)((uint64_t)1 << square));
    __m256i down = _mm256_and_si256(_mm256_srlv_epi64(placed, step), line);
    __m256i pairs = _mm256_and_si256(line, _mm256_srlv_epi64(line, step));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step), line));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, double_step), pairs));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, double_step), pairs));
    __m256i closed = _mm256_and_si256(_mm256_srlv_epi64(down, step), own4);
    down = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed, zero), down);
    return ob_union(_mm256_or_si256(up, down));
}
#endif
