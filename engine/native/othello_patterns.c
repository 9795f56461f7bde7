/* engine/othello/patterns.py `value` in C: per instance, its squares' contents in base 3 (the
 * first square the most significant digit) index its kind's table in the stage's weights. */
#include "othello_patterns.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "constants.h"

#define WEIGHTS ((size_t)OTH_PATTERN_STAGES * OTH_PATTERN_STAGE_SIZE)

static int16_t *weights; /* written once, before any search reads it */
static uint8_t spread[256][8]; /* a row's byte as its eight squares, 0 or 1 each */
static const int offsets[OTH_PATTERN_INSTANCES] = OTH_PATTERN_OFFSETS;
static const int lengths[OTH_PATTERN_INSTANCES] = OTH_PATTERN_LENGTHS;
static const int squares[OTH_PATTERN_INSTANCES][OTH_PATTERN_MOST_SQUARES] = OTH_PATTERN_SQUARES;

int oth_patterns_load(const void *data, size_t bytes) {
    if (weights) return 1;
    if (bytes != WEIGHTS * sizeof *weights) return 0;
    int16_t *copy = malloc(bytes);
    if (!copy) return 0;
    memcpy(copy, data, bytes);
    for (int row = 0; row < 256; row++)
        for (int k = 0; k < 8; k++) spread[row][k] = (uint8_t)(row >> k & 1);
    weights = copy;
    return 1;
}

int oth_patterns_loaded(void) { return weights != NULL; }

double oth_patterns_value(uint64_t black, uint64_t white, int mobility, int tempo) {
    int discs = bits_count(black | white);
    int stage = (discs - OTH_PATTERN_FIRST_DISCS) * OTH_PATTERN_STAGES /
                (OTH_PATTERN_LAST_DISCS - OTH_PATTERN_FIRST_DISCS + 1);
    if (stage < 0) stage = 0;
    if (stage > OTH_PATTERN_STAGES - 1) stage = OTH_PATTERN_STAGES - 1;
    const int16_t *table = weights + (size_t)stage * OTH_PATTERN_STAGE_SIZE;
    uint8_t cell[64]; /* each square's digit: empty 0, Black 1, White 2 */
    for (int row = 0; row < 8; row++) {
        const uint8_t *b = spread[black >> 8 * row & 255], *w = spread[white >> 8 * row & 255];
        for (int k = 0; k < 8; k++) cell[8 * row + k] = (uint8_t)(b[k] + 2 * w[k]);
    }
    long total = (long)table[OTH_PATTERN_MOBILITY] * mobility + (long)table[OTH_PATTERN_TEMPO] * tempo;
    for (int i = 0; i < OTH_PATTERN_INSTANCES; i++) {
        int index = 0;
        for (int k = 0; k < lengths[i]; k++) index = 3 * index + cell[squares[i][k]];
        total += table[offsets[i] + index];
    }
    return (double)total / OTH_PATTERN_SCALE;
}
