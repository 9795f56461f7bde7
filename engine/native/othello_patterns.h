/* The `patterns` evaluation of 8x8 Othello (engine/othello/patterns.py): the instances' squares
 * from constants.h, the weights handed over once by the Python engine (bind_othello_patterns.c). */
#ifndef UBAO_OTHELLO_PATTERNS_H
#define UBAO_OTHELLO_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

/* Keeps a copy of the weights (OTH_PATTERN_STAGES * OTH_PATTERN_STAGE_SIZE int16s, native
 * order); the first load stays. 0 when `bytes` is not that size or memory runs out. */
int oth_patterns_load(const void *weights, size_t bytes);
int oth_patterns_loaded(void);

/* Black's expected final margin in discs, `mobility` Black's placements minus White's, `tempo`
 * 1 when Black is to move and -1 when White is: the same double as patterns.value. Only once
 * loaded. */
double oth_patterns_value(uint64_t black, uint64_t white, int mobility, int tempo);

#endif
