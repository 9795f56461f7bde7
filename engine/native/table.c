/* The transposition table: a line-by-line port of `TranspositionTable` in engine/search.py. */
#include "table.h"

#include <stdlib.h>

#define ENTRY_BYTES 32 /* as the Python table counts: the same megabytes give the same slots */
#define FIRST_SLOTS 4096
#define AGE_BITS 8
#define DEPTH_SHIFT (2 + AGE_BITS)

static int allocate(Table *t, int64_t slots) {
    size_t n = (size_t)slots;
    int64_t *keys = calloc(n ? n : 1, sizeof *keys), *meta = calloc(n ? n : 1, sizeof *meta);
    double *scores = calloc(n ? n : 1, sizeof *scores);
    int32_t *moves = calloc(n ? n : 1, sizeof *moves);
    if (!keys || !meta || !scores || !moves) {
        free(keys);
        free(meta);
        free(scores);
        free(moves);
        return -1;
    }
    t->keys = keys;
    t->meta = meta;
    t->scores = scores;
    t->moves = moves;
    t->slots = slots;
    t->used = 0;
    return 0;
}

static void release(Table *t) {
    free(t->keys);
    free(t->meta);
    free(t->scores);
    free(t->moves);
}

int tt_init(Table *t, double megabytes) {
    t->capacity = (int64_t)(megabytes * (1 << 20)) / ENTRY_BYTES / 2 * 2;
    t->age = 0;
    return allocate(t, t->capacity < FIRST_SLOTS ? t->capacity : FIRST_SLOTS);
}

void tt_free(Table *t) { release(t); }

int tt_clear(Table *t) {
    Table fresh = *t;
    if (allocate(&fresh, t->capacity < FIRST_SLOTS ? t->capacity : FIRST_SLOTS) < 0) return -1;
    release(t);
    *t = fresh;
    t->age = 0;
    return 0;
}

void tt_next_search(Table *t) { t->age = (t->age + 1) % (1 << AGE_BITS); }

/* The first slot of `key`'s bucket: Python's `key % buckets * 2`, a floor modulo (a mask
 * when the buckets are a power of two, as they are unless the memory given stops the
 * doubling elsewhere). */
static int64_t bucket(const Table *t, int64_t key) {
    int64_t buckets = t->slots >> 1;
    if (!(buckets & (buckets - 1))) return 2 * (key & (buckets - 1));
    int64_t i = key % buckets;
    return 2 * (i < 0 ? i + buckets : i);
}

int tt_probe(const Table *t, int64_t key, TableEntry *entry) {
    if (!t->slots) return 0;
    int64_t i = bucket(t, key);
    if (t->keys[i] != key) {
        i++;
        if (t->keys[i] != key) return 0;
    }
    int64_t meta = t->meta[i];
    if (!meta) return 0;
    entry->depth = (int)(meta >> DEPTH_SHIFT);
    entry->flag = (int)(meta & 3);
    entry->score = t->scores[i];
    entry->move = t->moves[i];
    return 1;
}

/* How much an entry is worth keeping: this search's first, then the deeper. */
static int64_t worth(const Table *t, int64_t meta) {
    int64_t current = ((meta >> 2) & ((1 << AGE_BITS) - 1)) == t->age; /* meta >= 0 */
    return current << 16 | meta >> DEPTH_SHIFT;
}

static void grow(Table *t);

void tt_store(Table *t, int64_t key, int depth, int flag, double score, int move) {
    if (!t->slots) return;
    int64_t i = bucket(t, key);
    int64_t *keys = t->keys, *meta = t->meta;
    if (!(keys[i] == key && meta[i])) {
        int64_t j = i + 1;
        int same = keys[j] == key && meta[j];
        if (same || !meta[j] || (meta[i] && worth(t, meta[j]) < worth(t, meta[i]))) i = j;
    }
    if (!meta[i]) t->used++;
    keys[i] = key;
    t->scores[i] = score;
    meta[i] = (int64_t)depth << DEPTH_SHIFT | (int64_t)t->age << 2 | flag;
    t->moves[i] = move;
    if (2 * t->used > t->slots && t->slots < t->capacity) grow(t);
}

/* Twice the slots (within the memory), every entry moved over in slot order; out of memory,
 * the table stops growing where it is. */
static void grow(Table *t) {
    Table old = *t;
    int64_t slots = 2 * t->slots < t->capacity ? 2 * t->slots : t->capacity;
    if (allocate(t, slots) < 0) {
        t->capacity = t->slots;
        return;
    }
    for (int64_t i = 0; i < old.slots; i++) {
        if (old.meta[i]) {
            t->age = (int)((old.meta[i] >> 2) % (1 << AGE_BITS));
            tt_store(t, old.keys[i], (int)(old.meta[i] >> DEPTH_SHIFT), (int)(old.meta[i] & 3),
                     old.scores[i], old.moves[i]);
        }
    }
    t->age = old.age;
    release(&old);
}
