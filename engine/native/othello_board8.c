/* The 8x8 board operations of othello_board8.h by both paths. Bit `row * 8 + column` is a
 * square: a1 is bit 0, h1 bit 7, a8 bit 56. A shift by 1 steps along a row, by 8 along a column,
 * by 7 and 9 along the diagonals; runs along rows and diagonals pass through columns b to g
 * only, so that no shift wraps round a row's end. */
#include "othello_board8.h"

#include <stdlib.h> /* getenv */
#include <string.h>

#include "bits.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define OB_X86 1 /* the compiler builds the SIMD paths, run only where the CPU has them */
#include <immintrin.h>
#else
#define OB_X86 0
#endif

#define INNER 0x7e7e7e7e7e7e7e7eULL /* columns b to g */

/* Per square, the squares beyond it in each direction up to the board's edge: the four
 * directions towards h8 (steps +1, +7, +8, +9), then the four towards a1 (-1, -7, -8, -9). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((aligned(64)))
#endif
static uint64_t rays[64][8];
static int rays_ready, running = OB_PORTABLE;
#if BITS_X86
int bits_popcnt;
#endif

static void ob_init_rays(void) {
    if (rays_ready) return; /* once: a search may be reading them */
    static const int row_step[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    static const int column_step[8] = {1, -1, 0, 1, -1, 1, 0, -1};
    for (int square = 0; square < 64; square++) {
        for (int d = 0; d < 8; d++) {
            uint64_t ray = 0;
            int row = square / 8 + row_step[d], column = square % 8 + column_step[d];
            for (; row >= 0 && row < 8 && column >= 0 && column < 8;
                 row += row_step[d], column += column_step[d])
                ray |= (uint64_t)1 << (row * 8 + column);
            rays[square][d] = ray;
        }
    }
    rays_ready = 1;
}

/* -- the portable path ---------------------------------------------------------------------- */

/* The empty squares one direction's runs reach: the opponent discs (`line`, kept off the
 * columns a shift by `d` would wrap into) next to an own disc, grown by one, then twice by two
 * (up to 6 discs: no run is longer), one step on. */
static inline uint64_t reach_up(uint64_t own, uint64_t line, int d) {
    uint64_t run = own << d & line, pairs = line & line << d;
    run |= run << d & line;
    run |= run << 2 * d & pairs;
    run |= run << 2 * d & pairs;
    return run << d;
}

static inline uint64_t reach_down(uint64_t own, uint64_t line, int d) {
    uint64_t run = own >> d & line, pairs = line & line >> d;
    run |= run >> d & line;
    run |= run >> 2 * d & pairs;
    run |= run >> 2 * d & pairs;
    return run >> d;
}

static uint64_t placements_portable(uint64_t own, uint64_t opp) {
    uint64_t inner = opp & INNER;
    uint64_t found = reach_up(own, opp, 8) | reach_down(own, opp, 8) | reach_up(own, inner, 1) |
                     reach_down(own, inner, 1) | reach_up(own, inner, 7) |
                     reach_down(own, inner, 7) | reach_up(own, inner, 9) | reach_down(own, inner, 9);
    return found & ~(own | opp);
}

/* Along each ray from the placed disc, the first square that is not the opponent's (towards h8
 * the ray's lowest such bit, towards a1 its highest) closes the run when it is the mover's; the
 * run is the ray's squares before it. */
static uint64_t flips_portable(uint64_t own, uint64_t opp, int square) {
    const uint64_t *ray = rays[square];
    uint64_t flips = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t beyond = ~opp & ray[d];
        uint64_t closer = beyond & (0 - beyond) & own;
        flips |= (closer - (closer != 0)) & ray[d];
    }
    for (int d = 4; d < 8; d++) {
        uint64_t beyond = ~opp & ray[d];
        uint64_t closer = ((uint64_t)1 << 63 >> bits_leading(beyond | 1)) & beyond & own;
        flips |= (0 - (closer << 1)) & ray[d];
    }
    return flips;
}

/* -- the AVX2 path: the steps 1, 7, 8, 9 as the lanes 0 to 3 of one register --------------- */

#if OB_X86
#define AVX2 __attribute__((target("avx2")))

/* The lanes' union. */
AVX2 static inline uint64_t lanes_union(__m256i x) {
    __m128i half = _mm_or_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half)));
}

/* The opponent discs a run may pass, per lane: along a column anywhere, else columns b to g. */
AVX2 static inline __m256i lanes_line(uint64_t opp) {
    const __m256i inner = _mm256_set_epi64x((long long)INNER, -1, (long long)INNER,
                                            (long long)INNER);
    return _mm256_and_si256(_mm256_set1_epi64x((long long)opp), inner);
}

/* reach_up and reach_down, for the four steps at once. */
AVX2 static uint64_t placements_avx2(uint64_t own, uint64_t opp) {
    const __m256i step = _mm256_set_epi64x(9, 8, 7, 1), step2 = _mm256_add_epi64(step, step);
    __m256i own4 = _mm256_set1_epi64x((long long)own), line = lanes_line(opp);
    __m256i up = _mm256_and_si256(_mm256_sllv_epi64(own4, step), line);
    __m256i down = _mm256_and_si256(_mm256_srlv_epi64(own4, step), line);
    __m256i pairs_up = _mm256_and_si256(line, _mm256_sllv_epi64(line, step));
    __m256i pairs_down = _mm256_srlv_epi64(pairs_up, step);
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, step), line));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step), line));
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, step2), pairs_up));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step2), pairs_down));
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, step2), pairs_up));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step2), pairs_down));
    __m256i found = _mm256_or_si256(_mm256_sllv_epi64(up, step), _mm256_srlv_epi64(down, step));
    return lanes_union(found) & ~(own | opp);
}

/* Towards h8, the rays' first square not the opponent's, as flips_portable; towards a1 (no
 * highest-bit instruction in AVX2), the runs grown from the placed disc as reach_down grows
 * them, kept where the square past them is the mover's. */
AVX2 static uint64_t flips_avx2(uint64_t own, uint64_t opp, int square) {
    const __m256i step = _mm256_set_epi64x(9, 8, 7, 1), step2 = _mm256_add_epi64(step, step);
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1);
    __m256i own4 = _mm256_set1_epi64x((long long)own), opp4 = _mm256_set1_epi64x((long long)opp);
    __m256i ray = _mm256_load_si256((const __m256i *)rays[square]);
    __m256i beyond = _mm256_andnot_si256(opp4, ray);
    __m256i lowest = _mm256_and_si256(beyond, _mm256_sub_epi64(zero, beyond));
    __m256i closer = _mm256_and_si256(lowest, own4);
    __m256i up = _mm256_and_si256(_mm256_sub_epi64(closer, one), ray);
    up = _mm256_andnot_si256(_mm256_cmpeq_epi64(closer, zero), up);
    __m256i line = lanes_line(opp);
    __m256i placed = _mm256_set1_epi64x((long long)((uint64_t)1 << square));
    __m256i down = _mm256_and_si256(_mm256_srlv_epi64(placed, step), line);
    __m256i pairs = _mm256_and_si256(line, _mm256_srlv_epi64(line, step));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step), line));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step2), pairs));
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, step2), pairs));
    __m256i closed = _mm256_and_si256(_mm256_srlv_epi64(down, step), own4);
    down = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed, zero), down);
    return lanes_union(_mm256_or_si256(up, down));
}

/* -- the AVX-512 path: the AVX2 one but for these flips (AVX-512VL and CD on 256 bits) ------ */

/* flips_avx2 with the flips towards a1 as those towards h8: the rays' highest square not the
 * opponent's, by AVX-512's leading-zero count. */
#define AVX512 __attribute__((target("avx2,avx512f,avx512vl,avx512cd")))
AVX512 static uint64_t flips_avx512(uint64_t own, uint64_t opp, int square) {
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi64x(1);
    const __m256i top = _mm256_set1_epi64x((long long)((uint64_t)1 << 63));
    __m256i own4 = _mm256_set1_epi64x((long long)own), opp4 = _mm256_set1_epi64x((long long)opp);
    __m256i ray_up = _mm256_load_si256((const __m256i *)rays[square]);
    __m256i ray_down = _mm256_load_si256((const __m256i *)rays[square] + 1);
    __m256i beyond = _mm256_andnot_si256(opp4, ray_up);
    __m256i lowest = _mm256_and_si256(beyond, _mm256_sub_epi64(zero, beyond));
    __m256i closer = _mm256_and_si256(lowest, own4);
    __m256i up = _mm256_maskz_and_epi64(_mm256_test_epi64_mask(closer, closer),
                                        _mm256_sub_epi64(closer, one), ray_up);
    beyond = _mm256_andnot_si256(opp4, ray_down);
    __m256i highest = _mm256_srlv_epi64(top, _mm256_lzcnt_epi64(beyond)); /* none: 0 */
    closer = _mm256_and_si256(highest, own4);
    __m256i down = _mm256_and_si256(_mm256_sub_epi64(zero, _mm256_add_epi64(closer, closer)),
                                    ray_down);
    return lanes_union(_mm256_or_si256(up, down));
}
#endif

/* -- the choice ------------------------------------------------------------------------------ */

uint64_t ob_placements(uint64_t own, uint64_t opp) {
#if OB_X86
    if (running != OB_PORTABLE) return placements_avx2(own, opp);
#endif
    return placements_portable(own, opp);
}

uint64_t ob_flips(uint64_t own, uint64_t opp, int square) {
#if OB_X86
    if (running == OB_AVX512) return flips_avx512(own, opp, square);
    if (running == OB_AVX2) return flips_avx2(own, opp, square);
#endif
    return flips_portable(own, opp, square);
}

static const char *const names[OB_PATHS] = {"portable", "avx2", "avx512"};

const char *ob_path_name(int path) { return names[path]; }

int ob_path_named(const char *name) {
    for (int path = 0; path < OB_PATHS; path++)
        if (strcmp(name, names[path]) == 0) return path;
    return -1;
}

int ob_path_available(int path) {
#if OB_X86
    __builtin_cpu_init();
    if (path == OB_AVX512)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512cd");
    if (path == OB_AVX2) return __builtin_cpu_supports("avx2") != 0;
#endif
    return path == OB_PORTABLE;
}

int ob_path_running(void) { return running; }

int ob_select(int path) {
    ob_init_rays();
    while (!ob_path_available(path)) path--;
    running = path;
#if BITS_X86
    bits_popcnt = path != OB_PORTABLE && __builtin_cpu_supports("popcnt");
#endif
    return running;
}

int ob_select_from_environment(void) {
    const char *asked = getenv("UBAO_OTHELLO_SIMD");
    int path = asked ? ob_path_named(asked) : -1;
    if (asked && strcmp(asked, "0") == 0) path = OB_PORTABLE;
    return ob_select(path < 0 ? OB_PATHS - 1 : path);
}
