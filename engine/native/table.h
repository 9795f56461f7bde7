/* The transposition table of engine/search.py (`TranspositionTable`), entry for entry: the same
 * capacity for the same megabytes, buckets of two slots at `key % buckets`, the same replacement
 * and the same doubling as it fills, so that a native search visits the same nodes. Plain C:
 * it allocates with malloc and runs without the GIL. */
#ifndef UBAO_TABLE_H
#define UBAO_TABLE_H

#include <stdint.h>

#define TT_NO_MOVE INT32_MIN
#define TT_EXACT 0
#define TT_LOWER 1
#define TT_UPPER 2

typedef struct {
    int64_t *keys, *meta; /* meta: depth << 10 | age << 2 | flag; 0 marks an empty slot */
    double *scores;
    int32_t *moves; /* the best move, or TT_NO_MOVE */
    int64_t slots, used, capacity;
    int age;
} Table;

typedef struct {
    int depth, flag, move;
    double score;
} TableEntry;

/* 0, or -1 when the first slots could not be allocated. */
int tt_init(Table *t, double megabytes);
void tt_free(Table *t);
/* Empties the table to its first size; 0, or -1 when out of memory. */
int tt_clear(Table *t);
void tt_next_search(Table *t);
int tt_probe(const Table *t, int64_t key, TableEntry *entry);
void tt_store(Table *t, int64_t key, int depth, int flag, double score, int move);

#endif
