/* The transposition table: a line-by-line port of `TranspositionTable` in engine/search/table.py,
 * with each slot's key kept XOR its data (table.h) so that threads may share it. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, posix_memalign */
#endif
#include "table.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define LINE 64 /* a bucket's two slots on one cache line */

#define HUGE_PAGE ((size_t)2 << 20)

void *tt_zeroed(size_t bytes, size_t huge, void **start) {
#ifdef MADV_HUGEPAGE
    if (bytes >= huge) {
        void *block;
        if (posix_memalign(&block, HUGE_PAGE, bytes)) return NULL;
        madvise(block, bytes, MADV_HUGEPAGE); /* a hint: if refused, small pages */
        *start = block;
        return memset(block, 0, bytes);
    }
#endif
    void *block = calloc(bytes + LINE, 1);
    *start = block ? (void *)(((uintptr_t)block + LINE - 1) / LINE * LINE) : NULL;
    return block;
}

static int allocate(Table *t, int64_t slots) {
    size_t bytes = (size_t)(slots ? slots : 1) * sizeof(TableSlot);
    void *start;
    /* huge pages from 2 MB on: with 4 kB pages nearly every probe of a 16 MB table would also
     * miss the TLB, which maps only a few MB of small pages */
    void *block = tt_zeroed(bytes, HUGE_PAGE, &start);
    if (!block) return -1;
    t->block = block;
    t->slot = start;
    t->slots = slots;
    t->used = 0;
    return 0;
}

int tt_init(Table *t, double megabytes) {
    t->capacity = (int64_t)(megabytes * (1 << 20)) / TT_ENTRY_BYTES / 2 * 2;
    t->age = 0;
    t->shared = 0;
    return allocate(t, t->capacity < TT_FIRST_SLOTS ? t->capacity : TT_FIRST_SLOTS);
}

void tt_free(Table *t) { free(t->block); }

int tt_clear(Table *t) {
    Table fresh = *t;
    if (allocate(&fresh, t->capacity < TT_FIRST_SLOTS ? t->capacity : TT_FIRST_SLOTS) < 0) return -1;
    free(t->block);
    *t = fresh;
    t->age = 0;
    return 0;
}

void tt_next_search(Table *t) { t->age = (t->age + 1) % (1 << TT_AGE_BITS); }

/* How much an entry is worth keeping: this search's first, then the deeper. */
static uint64_t worth(const Table *t, uint64_t meta) {
    uint64_t current = ((meta >> 2) & ((1 << TT_AGE_BITS) - 1)) == (uint64_t)t->age;
    return current << 16 | meta >> TT_DEPTH_SHIFT;
}

static void grow(Table *t);

int tt_store(Table *t, int64_t key, int depth, int flag, double score, int move) {
    if (!t->slots) return 0;
    TableSlot *at = t->slot + tt_bucket(t, key);
    TableRead first = tt_read(at);
    uint64_t was = first.meta;
    if (!(first.key == (uint64_t)key && first.meta)) {
        TableRead second = tt_read(at + 1);
        int same = second.key == (uint64_t)key && second.meta;
        if (same || !second.meta || (first.meta && worth(t, second.meta) < worth(t, first.meta))) {
            at++;
            was = second.meta;
        }
    }
    if (!was && !t->shared) t->used++;
    uint64_t meta = (uint64_t)depth << TT_DEPTH_SHIFT | (uint64_t)t->age << 2 | (uint64_t)flag;
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
        TableRead r = tt_read(old.slot + i);
        if (r.meta) {
            double score;
            memcpy(&score, &r.score, sizeof score);
            t->age = (int)((r.meta >> 2) % (1 << TT_AGE_BITS));
            tt_store(t, (int64_t)r.key, (int)(r.meta >> TT_DEPTH_SHIFT), (int)(r.meta & 3), score,
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
