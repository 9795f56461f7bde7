/* The 8x8 board operations of othello_board8.h: the rays the portable flips walk, and the choice
 * of path. Bit `row * 8 + column` is a square: a1 is bit 0, h1 bit 7, a8 bit 56. */
#include "othello_board8.h"

#include <stdlib.h> /* getenv */
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
__attribute__((aligned(64)))
#endif
uint64_t ob_rays[64][8];
int ob_simd;

/* The rays: per square and direction, the squares stepped to until the edge. */
static void ob_init_rays(void) {
    static const int row_step[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    static const int column_step[8] = {1, -1, 0, 1, -1, 1, 0, -1};
    for (int square = 0; square < 64; square++) {
        for (int d = 0; d < 8; d++) {
            uint64_t ray = 0;
            int row = square / 8 + row_step[d], column = square % 8 + column_step[d];
            for (; row >= 0 && row < 8 && column >= 0 && column < 8;
                 row += row_step[d], column += column_step[d])
                ray |= (uint64_t)1 << (row * 8 + column);
            ob_rays[square][d] = ray;
        }
    }
}

int ob_simd_available(void) {
#if OB_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
#else
    return 0;
#endif
}

int ob_select(int simd) {
    ob_init_rays();
    ob_simd = simd && ob_simd_available();
    return ob_simd;
}

/* The environment's choice at module load: UBAO_OTHELLO_SIMD=0 keeps the portable path. */
int ob_select_from_environment(void) {
    const char *asked = getenv("UBAO_OTHELLO_SIMD");
    return ob_select(!(asked && strcmp(asked, "0") == 0));
}
