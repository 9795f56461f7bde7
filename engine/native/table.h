/* The transposition table of engine/search/ (`TranspositionTable`), entry for entry: the same
 * capacity for the same megabytes, buckets of two slots at `key % buckets`, the same replacement
 * and the same doubling as it fills, so that a native search visits the same nodes. Plain C:
 * it allocates with malloc and runs without the GIL.
 *
 * Several threads may probe and store at once (a parallel search, search.c) once the table is
 * `shared`: it no longer grows, and each slot keeps its key XOR its data (lockless hashing, as
 * Crafty and Stockfish do), so that a slot torn by two threads writing it at once reads as no
 * match instead of a wrong entry. Every field is read and written whole (relaxed atomics).
 * Nothing else is written while shared: the threads count the slots they fill apart (a counter
 * every thread bumped would move its cache line, which every probe reads, from core to core). */
#ifndef UBAO_TABLE_H
#define UBAO_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "constants.h" /* TT_EXACT..., TT_AGE_BITS, TT_DEPTH_SHIFT, TT_ENTRY_BYTES */

#define TT_NO_MOVE INT32_MIN

/* POSIX threads, where the search, the solver and the database builder run on several cores
 * (each of their files defines _POSIX_C_SOURCE before any header); elsewhere they run on one. */
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define UBAO_PTHREADS 1
#endif

/* A word read or written whole while another thread may write it (no ordering implied). */
#if defined(__GNUC__) || defined(__clang__)
#define RELAXED_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define RELAXED_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define RELAXED_LOAD(x) (x)
#define RELAXED_STORE(x, v) ((x) = (v))
#endif

/* *x becomes `v` if it is `was`, in one step however other threads write it; whether it did. */
static inline int relaxed_swap_if(int *x, int was, int v) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_compare_exchange_n(x, &was, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#else
    return *x == was ? (*x = v, 1) : 0;
#endif
}

/* The keys that threads are searching (ABDADA; the parallel search's and the solver's): a
 * thread that meets a child another thread is searching leaves it for after its node's other
 * moves. BUSY_SLOTS words, far more than the threads' lines hold at once; a slot holds key + 1
 * while a thread searches that key (0: free). Keys that share a slot only wait their turn. */
#define BUSY_BITS 12
#define BUSY_SLOTS ((size_t)1 << BUSY_BITS)
#define BUSY_SPREAD 0x9E3779B97F4A7C15ULL /* 2^64 / golden ratio: spreads the keys' bits */

static inline uint64_t *busy_slot(uint64_t *busy, uint64_t key) {
    return busy + ((key * BUSY_SPREAD) >> (64 - BUSY_BITS));
}

static inline int busy_has(uint64_t *busy, uint64_t key) {
    return key + 1 && RELAXED_LOAD(*busy_slot(busy, key)) == key + 1;
}

static inline void busy_mark(uint64_t *busy, uint64_t key, int on) {
    uint64_t *slot = busy_slot(busy, key);
    if (on)
        RELAXED_STORE(*slot, key + 1);
    else if (RELAXED_LOAD(*slot) == key + 1)
        RELAXED_STORE(*slot, 0);
}

/* One entry, 32 bytes (ENTRY_BYTES of the Python table); a bucket is one 64-byte line. */
typedef struct {
    uint64_t check; /* the key XOR the three words below: they belong together */
    uint64_t meta;  /* depth << 10 | age << 2 | flag; 0 marks an empty slot */
    uint64_t score; /* the bits of the double */
    uint64_t move;  /* the best move (as uint32), or TT_NO_MOVE */
} TableSlot;

typedef struct {
    TableSlot *slot;
    void *block; /* what malloc gave, `slot` aligned in it */
    int64_t slots, used, capacity;
    int age;
    int shared; /* threads store at once: no growing, `used` counted by them (tt_store) */
} Table;

typedef struct {
    int depth, flag, move;
    double score;
} TableEntry;

/* A zeroed block of `bytes` (what to free; NULL: out of memory), its start aligned to a
 * 64-byte cache line in *start. From `huge` bytes on it asks for huge pages (2 MB, Linux's
 * transparent huge pages), which the TLB maps by the hundred where it maps only a few MB of
 * 4 kB pages: a large table's probes then miss the cache only. */
void *tt_zeroed(size_t bytes, size_t huge, void **start);
/* 0, or -1 when the first slots could not be allocated. */
int tt_init(Table *t, double megabytes);
void tt_free(Table *t);
/* Empties the table to its first size; 0, or -1 when out of memory. */
int tt_clear(Table *t);
void tt_next_search(Table *t);
/* Grows the table (as far as its memory goes) to twice what its entries need, as it would
 * while they fill it, before threads share it for one iteration of a search: that iteration
 * may store about as many entries again, and a shared table does not grow. */
void tt_make_room(Table *t);
/* Whether the entry took an empty slot: `used` counts it, but not while shared (the storing
 * thread counts it then, and the count is added up when the threads are done). */
int tt_store(Table *t, int64_t key, int depth, int flag, double score, int move);

/* The probe is inline (the search probes at every interior node), with what it needs. */


/* The first slot of `key`'s bucket: Python's `key % buckets * 2`, a floor modulo (a mask
 * when the buckets are a power of two, as they are unless the memory given stops the
 * doubling elsewhere). */
static inline int64_t tt_bucket(const Table *t, int64_t key) {
    int64_t buckets = t->slots >> 1;
    if (!(buckets & (buckets - 1))) return 2 * (key & (buckets - 1));
    int64_t i = key % buckets;
    return 2 * (i < 0 ? i + buckets : i);
}

/* A slot read word by word: its key if the words belong together (and to no empty slot of
 * another key), with its meta, score and move. */
typedef struct {
    uint64_t key, meta, score, move;
} TableRead;

static inline TableRead tt_read(const TableSlot *slot) {
    TableRead r;
    uint64_t check = RELAXED_LOAD(slot->check);
    r.meta = RELAXED_LOAD(slot->meta);
    r.score = RELAXED_LOAD(slot->score);
    r.move = RELAXED_LOAD(slot->move);
    r.key = check ^ r.meta ^ r.score ^ r.move;
    return r;
}

/* Whether `key` has an entry, then in *entry. */
static inline int tt_probe(const Table *t, int64_t key, TableEntry *entry) {
    if (!t->slots) return 0;
    const TableSlot *at = t->slot + tt_bucket(t, key);
    TableRead r = tt_read(at);
    if (r.key != (uint64_t)key) {
        r = tt_read(at + 1);
        if (r.key != (uint64_t)key) return 0;
    }
    if (!r.meta) return 0;
    entry->depth = (int)(r.meta >> TT_DEPTH_SHIFT);
    entry->flag = (int)(r.meta & 3);
    memcpy(&entry->score, &r.score, sizeof entry->score);
    entry->move = (int32_t)(uint32_t)r.move;
    return 1;
}

/* Asks the memory for `key`'s bucket, which a probe will soon read: its cache miss then
 * overlaps with the work before the probe instead of stalling it. Only a hint: it changes
 * nothing that a probe reads. */
static inline void tt_prefetch(const Table *t, int64_t key) {
#if defined(__GNUC__) || defined(__clang__)
    if (t->slots) __builtin_prefetch(t->slot + tt_bucket(t, key));
#else
    (void)t;
    (void)key;
#endif
}

#endif
