/* engine/othello/patterns.py `value` in C: per instance, its squares' contents in base 3 (the
 * first square the most significant digit) index its kind's table in the stage's weights.
 *
 * Two ways to the same indices. The portable one spells each square's digit out and reads an
 * instance's squares one by one. Where the 8x8 board operations run a SIMD path (their CPUs all
 * have BMI2), PEXT gathers an instance's squares of each colour into a few bits at once, and a
 * table per instance turns those bits into their part of the index (the search spends about half
 * its time here). */
#include "othello_patterns.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "constants.h"
#include "othello_board8.h"

#define WEIGHTS ((size_t)OTH_PATTERN_STAGES * OTH_PATTERN_STAGE_SIZE)
#define DISC_COUNTS (OTH_PATTERN_LAST_DISCS - OTH_PATTERN_FIRST_DISCS + 1)
#define BLEND (2 * DISC_COUNTS) /* patterns.BLEND */

/* Per disc count from FIRST_DISCS, the stages' weights blended as patterns.blend_of says:
 * written once, before any search reads it. */
static int16_t *weights;
static uint8_t spread[256][8]; /* a row's byte as its eight squares, 0 or 1 each */
static const int offsets[OTH_PATTERN_INSTANCES] = OTH_PATTERN_OFFSETS;
static const int lengths[OTH_PATTERN_INSTANCES] = OTH_PATTERN_LENGTHS;
static const int squares[OTH_PATTERN_INSTANCES][OTH_PATTERN_MOST_SQUARES] = OTH_PATTERN_SQUARES;

/* For PEXT: each instance's squares as a mask, and per instance, for every set of its squares
 * (bit j the mask's j-th lowest square), the index digits 1 on those squares make. */
static uint64_t masks[OTH_PATTERN_INSTANCES];
static uint16_t *gathered[OTH_PATTERN_INSTANCES];
static int gather; /* whether the PEXT way runs */

/* The masks and tables of the PEXT way; 0 when memory runs out. */
static int gather_tables(void) {
    size_t total = 0;
    for (int i = 0; i < OTH_PATTERN_INSTANCES; i++) total += (size_t)1 << lengths[i];
    uint16_t *all = malloc(total * sizeof *all);
    if (!all) return 0;
    for (int i = 0; i < OTH_PATTERN_INSTANCES; i++) {
        int n = lengths[i], digit[64]; /* a square's digit weight in this instance: 3^place */
        masks[i] = 0;
        for (int k = 0, power = 1; k < n; k++, power *= 3) {
            int square = squares[i][n - 1 - k];
            masks[i] |= (uint64_t)1 << square;
            digit[square] = power;
        }
        int low[OTH_PATTERN_MOST_SQUARES], j = 0; /* the mask's squares, lowest first */
        for (uint64_t m = masks[i]; m; m &= m - 1) low[j++] = bits_lowest(m);
        gathered[i] = all;
        for (int set = 0; set < 1 << n; set++) {
            int index = 0;
            for (int b = 0; b < n; b++)
                if (set >> b & 1) index += digit[low[b]];
            all[set] = (uint16_t)index;
        }
        all += (size_t)1 << n;
    }
    return 1;
}

static int floor_divide(int n, int d) { return n >= 0 ? n / d : -((-n + d - 1) / d); }

static int stage_within(int stage) {
    return stage < 0 ? 0 : stage > OTH_PATTERN_STAGES - 1 ? OTH_PATTERN_STAGES - 1 : stage;
}

/* patterns.blend_of and patterns.blended over every weight of every disc count. */
static void blend(int16_t *out, const int16_t *stages) {
    for (int d = 0; d < DISC_COUNTS; d++, out += OTH_PATTERN_STAGE_SIZE) {
        int place = (2 * d + 1) * OTH_PATTERN_STAGES - DISC_COUNTS;
        int earlier = floor_divide(place, BLEND), share = place - earlier * BLEND;
        const int16_t *a = stages + (size_t)stage_within(earlier) * OTH_PATTERN_STAGE_SIZE;
        const int16_t *b = stages + (size_t)stage_within(earlier + 1) * OTH_PATTERN_STAGE_SIZE;
        for (int i = 0; i < OTH_PATTERN_STAGE_SIZE; i++) {
            int total = a[i] * (BLEND - share) + b[i] * share;
            int rounded = (abs(total) + BLEND / 2) / BLEND;
            out[i] = (int16_t)(total >= 0 ? rounded : -rounded);
        }
    }
}

int oth_patterns_load(const void *data, size_t bytes) {
    if (weights) return 1;
    if (bytes != WEIGHTS * sizeof *weights) return 0;
    int16_t *copy = malloc((size_t)DISC_COUNTS * OTH_PATTERN_STAGE_SIZE * sizeof *copy);
    int16_t *stages = malloc(bytes);
    if (!copy || !stages || !gather_tables()) {
        free(copy);
        free(stages);
        return 0;
    }
    memcpy(stages, data, bytes); /* the buffer need not be aligned for int16_t */
    blend(copy, stages);
    free(stages);
    for (int row = 0; row < 256; row++)
        for (int k = 0; k < 8; k++) spread[row][k] = (uint8_t)(row >> k & 1);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    gather = __builtin_cpu_supports("bmi2") != 0;
#endif
    weights = copy;
    return 1;
}

int oth_patterns_loaded(void) { return weights != NULL; }

static const int16_t *blended_table(uint64_t black, uint64_t white) {
    int row = bits_count(black | white) - OTH_PATTERN_FIRST_DISCS;
    if (row < 0) row = 0;
    if (row > DISC_COUNTS - 1) row = DISC_COUNTS - 1;
    return weights + (size_t)row * OTH_PATTERN_STAGE_SIZE;
}

static long spelled_out(const int16_t *table, uint64_t black, uint64_t white) {
    uint8_t cell[64]; /* each square's digit: empty 0, Black 1, White 2 */
    for (int row = 0; row < 8; row++) {
        const uint8_t *b = spread[black >> 8 * row & 255], *w = spread[white >> 8 * row & 255];
        for (int k = 0; k < 8; k++) cell[8 * row + k] = (uint8_t)(b[k] + 2 * w[k]);
    }
    long total = 0;
    for (int i = 0; i < OTH_PATTERN_INSTANCES; i++) {
        int index = 0;
        for (int k = 0; k < lengths[i]; k++) index = 3 * index + cell[squares[i][k]];
        total += table[offsets[i] + index];
    }
    return total;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("bmi2"))) static long gathered_out(const int16_t *table, uint64_t black,
                                                        uint64_t white) {
    long total = 0;
    for (int i = 0; i < OTH_PATTERN_INSTANCES; i++) {
        const uint16_t *g = gathered[i];
        int index = g[_pext_u64(black, masks[i])] + 2 * g[_pext_u64(white, masks[i])];
        total += table[offsets[i] + index];
    }
    return total;
}
#define GATHERED(table, black, white) gathered_out(table, black, white)
#else
#define GATHERED(table, black, white) spelled_out(table, black, white)
#endif

double oth_patterns_value(uint64_t black, uint64_t white, int mobility, int tempo) {
    const int16_t *table = blended_table(black, white);
    long total = (long)table[OTH_PATTERN_MOBILITY] * mobility;
    /* parity: Black gets the last move (no pass) with an odd number empty and Black to move */
    int last_mover = bits_count(black | white) % 2 ? tempo : -tempo;
    total += (long)table[OTH_PATTERN_TEMPO] * tempo + (long)table[OTH_PATTERN_PARITY] * last_mover;
    total += gather && ob_path_running() != OB_PORTABLE ? GATHERED(table, black, white)
                                                        : spelled_out(table, black, white);
    return (double)total / OTH_PATTERN_SCALE;
}
