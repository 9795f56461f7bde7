/* The transposition table: a line-by-line port of `TranspositionTable` in engine/search.py,
 * with each slot's key kept XOR its data (table.h) so that threads may share it. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#define ENTRY_BYTES 32 /* as the Python table counts: the same megabytes give the same slots */
#define FIRST_SLOTS 4096
#define AGE_BITS 8
#define DEPTH_SHIFT (2 + AGE_BITS)
#define LINE 64 /* a bucket's two slots on one cache line */

static int allocate(Table *t, int64_t slots) {
    size_t bytes = (size_t)(slots ? slots : 1) * sizeof(TableSlot);
    void *block = calloc(bytes + LINE, 1);
    if (!block) return -1;
    t->block = block;
    t->slot = (TableSlot *)((uintptr_t)block + LINE - 1 - ((uintptr_t)block + LINE - 1) % LINE);
    t->slots = slots;
    t->used = 0;
    return 0;
}

int tt_init(Table *t, double megabytes) {
    t->capacity = (int64_t)(megabytes * (1 << 20)) / ENTRY_BYTES / 2 * 2;
    t->age = 0;
    t->shared = 0;
    return allocate(t, t->capacity < FIRST_SLOTS ? t->capacity : FIRST_SLOTS);
}

void tt_free(Table *t) { free(t->block); }

int tt_clear(Table *t) {
    Table fresh = *t;
    if (allocate(&fresh, t->capacity < FIRST_SLOTS ? t->capacity : FIRST_SLOTS) < 0) return -1;
    free(t->block);
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

/* A slot read word by word: its key if the words belong together (and to no empty slot of
 * another key), with its meta, score and move. */
typedef struct {
    uint64_t key, meta, score, move;
} Read;

static Read read_slot(TableSlot *slot) {
    Read r;
    uint64_t check = RELAXED_LOAD(slot->check);
    r.meta = RELAXED_LOAD(slot->meta);
    r.score = RELAXED_LOAD(slot->score);
    r.move = RELAXED_LOAD(slot->move);
    r.key = check ^ r.meta ^ r.score ^ r.move;
    return r;
}

int tt_probe(const Table *t, int64_t key, TableEntry *entry) {
    if (!t->slots) return 0;
    TableSlot *at = t->slot + bucket(t, key);
    Read r = read_slot(at);
    if (r.key != (uint64_t)key) {
        r = read_slot(at + 1);
        if (r.key != (uint64_t)key) return 0;
    }
    if (!r.meta) return 0;
    entry->depth = (int)(r.meta >> DEPTH_SHIFT);
    entry->flag = (int)(r.meta & 3);
    memcpy(&entry->score, &r.score, sizeof entry->score);
    entry->move = (int32_t)(uint32_t)r.move;
    return 1;
}

/* How much an entry is worth keeping: this search's first, then the deeper. */
static uint64_t worth(const Table *t, uint64_t meta) {
    uint64_t current = ((meta >> 2) & ((1 << AGE_BITS) - 1)) == (uint64_t)t->age;
    return current << 16 | meta >> DEPTH_SHIFT;
}

static void grow(Table *t);

int tt_store(Table *t, int64_t key, int depth, int flag, double score, int move) {
    if (!t->slots) return 0;
    TableSlot *at = t->slot + bucket(t, key);
    Read first = read_slot(at);
    uint64_t was = first.meta;
    if (!(first.key == (uint64_t)key && first.meta)) {
        Read second = read_slot(at + 1);
        int same = second.key == (uint64_t)key && second.meta;
        if (same || !second.meta || (first.meta && worth(t, second.meta) < worth(t, first.meta))) {
            at++;
            was = second.meta;
        }
    }
    if (!was && !t->shared) t->used++;
    uint64_t meta = (uint64_t)depth << DEPTH_SHIFT | (uint64_t)t->age << 2 | (uint64_t)flag;
    uint64_t bits, word = (uint64_t)(uint32_t)move;
    memcpy(&bits, &score, sizeof bits);
    RELAXED_STORE(at->check, (uint64_t)key ^ meta ^ bits ^ word);
    RELAXED_STORE(at->meta, meta);
    RELAXED_STORE(at->score, bits);
    RELAXED_STORE(at->move, word);
    if (!t->shared && 2 * t->used > t->slots && t->slots < t->capacity) grow(t);
    return !was;
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
        Read r = read_slot(old.slot + i);
        if (r.meta) {
            double score;
            memcpy(&score, &r.score, sizeof score);
            t->age = (int)((r.meta >> 2) % (1 << AGE_BITS));
            tt_store(t, (int64_t)r.key, (int)(r.meta >> DEPTH_SHIFT), (int)(r.meta & 3), score,
                     (int32_t)(uint32_t)r.move);
        }
    }
    t->age = old.age;
    free(old.block);
}

void tt_make_room(Table *t) {
    while (4 * t->used > t->slots && t->slots < t->capacity) {
        int64_t before = t->slots;
        grow(t);
        if (t->slots == before) break; /* out of memory: it stays this size */
    }
}
