/* engine/solve.py's null-window node over the native mancala rules (docs/engine.md, Solver),
 * on one thread or several (solve.h). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* threads */
#endif
#include "solve.h"

#include <stdlib.h>
#include <string.h>

#include "table.h"

#define BUCKET 4
#define FIBONACCI 0x9E3779B97F4A7C15ULL /* 2^64 / golden ratio: spreads the ranks' bits */
#define CHECK_EVERY 0x3ffff             /* expansions between polls of `interrupted` */
/* From this size on the table asks for huge pages: there nearly every probe also missed the
 * TLB, and (6,5) ran 20 % faster with them. Smaller tables keep calloc's lazily zeroed pages: no
 * faster with huge ones at 128 MB, and their allocation stalled small solves. */
#define HUGE_TABLE ((size_t)1 << 30)

int solve_init(Solver *s, const ManRules *r, double megabytes, const int8_t *db, int db_seeds,
               int threads) {
    memset(s, 0, sizeof *s);
    s->rules = *r;
#ifdef UBAO_PTHREADS
    s->threads = threads < 1 ? 1 : threads > SOLVE_MAX_THREADS ? SOLVE_MAX_THREADS : threads;
#else
    (void)threads;
    s->threads = 1;
#endif
    for (int i = 0; i < s->threads; i++) {
        s->thread[i].solver = s;
        s->thread[i].index = i;
    }
    /* the bucket index scales 32 bits of hash: at most 2^32 buckets (274 GB) */
    double buckets = megabytes * 1e6 / (BUCKET * sizeof(SolveEntry));
    s->buckets = buckets < 1 ? 1 : buckets > 4294967295.0 ? 4294967295u : (uint64_t)buckets;
    size_t bytes = (size_t)s->buckets * BUCKET * sizeof(SolveEntry);
    void *start; /* each bucket on one cache line: a probe costs one miss */
    s->memory = tt_zeroed(bytes, HUGE_TABLE, &start);
    if (!s->memory) return -1;
    s->table = start;
    if (s->threads > 1 && !(s->busy = calloc(BUSY_SLOTS, sizeof *s->busy))) {
        solve_free(s);
        return -1;
    }
    if (db) {
        if (eg_rank_init(&s->db_rank, 2 * r->pits, db_seeds) < 0) {
            solve_free(s);
            return -1;
        }
        s->db = db;
        s->db_seeds = db_seeds;
    }
    return 0;
}

void solve_free(Solver *s) {
    free(s->memory);
    free(s->busy);
    s->memory = NULL;
    s->table = NULL;
    s->busy = NULL;
    eg_rank_free(&s->key);
    eg_rank_free(&s->db_rank);
}

void solve_counts(const Solver *s, uint64_t *expanded, uint64_t *used) {
    *expanded = *used = 0;
    for (int i = 0; i < s->threads; i++) {
        *expanded += RELAXED_LOAD(s->thread[i].expanded);
        *used += s->thread[i].used;
    }
    uint64_t slots = s->buckets * BUCKET;
    if (*used > slots) *used = slots; /* two threads filled one slot at once */
}

int solve_reserve(Solver *s, int most) {
    if (s->key.c && most <= s->key.most) return 0;
    if (most > SOLVE_MAX_SEEDS) return -1;
    EgRank key;
    if (eg_rank_init(&key, 2 * s->rules.pits, most) < 0) return -1;
    eg_rank_free(&s->key);
    s->key = key;
    uint64_t expanded, used;
    solve_counts(s, &expanded, &used);
    if (used) memset(s->table, 0, (size_t)s->buckets * BUCKET * sizeof(SolveEntry));
    for (int i = 0; i < s->threads; i++) s->thread[i].used = 0;
    return 0;
}

/* -- the table --------------------------------------------------------------------------- */

#define LOW(data) ((int16_t)(uint16_t)(data))
#define HIGH(data) ((int16_t)(uint16_t)((data) >> 16))
#define MOVE(data) ((int)((data) >> 32 & 0xff))
#define WORK(data) ((unsigned)((data) >> 40 & 0xff))

/* What a slot's check hides its key under: the data's bits spread over all 64, so that a
 * torn slot (one thread's check, another's data) matches no rank of the table's. */
static uint64_t scrambled(uint64_t data) { return data * FIBONACCI; }

/* The key's bucket: Fibonacci hashing, then the high bits scaled to the number of buckets. */
static SolveEntry *bucket(const Solver *s, uint64_t key) {
    uint64_t mixed = (key * FIBONACCI) >> 32;
    return s->table + ((mixed * s->buckets) >> 32) * BUCKET;
}

/* The data of the key's entry; 0: none. */
static uint64_t probe(const Solver *s, uint64_t key) {
    const SolveEntry *slot = bucket(s, key);
    for (int i = 0; i < BUCKET; i++) {
        uint64_t data = RELAXED_LOAD(slot[i].data);
        if (data && (RELAXED_LOAD(slot[i].check) ^ scrambled(data)) == key) return data;
    }
    return 0;
}

static unsigned bit_length(uint64_t x) {
    unsigned n = 0;
    for (; x; x >>= 1) n++;
    return n;
}

/* Keeps the entry in its own slot if there, else in an empty one, else in place of the one that
 * cost least to prove: the expensive proofs near the root stay, and the newest always enters. */
static void store(SolveThread *t, uint64_t key, int low, int high, int move, uint64_t work) {
    SolveEntry *slot = bucket(t->solver, key);
    int at = 0;
    unsigned least = 256;
    uint64_t was = 0;
    for (int i = 0; i < BUCKET; i++) {
        uint64_t data = RELAXED_LOAD(slot[i].data);
        if (data && (RELAXED_LOAD(slot[i].check) ^ scrambled(data)) == key) {
            at = i;
            was = data;
            break;
        }
        if (WORK(data) < least) {
            least = WORK(data);
            at = i;
            was = data;
        }
    }
    if (!was) t->used++;
    uint64_t data = (uint64_t)(uint16_t)low | (uint64_t)(uint16_t)high << 16 |
                    (uint64_t)(uint8_t)move << 32 | (uint64_t)bit_length(work) << 40;
    RELAXED_STORE(slot[at].data, data);
    RELAXED_STORE(slot[at].check, key ^ scrambled(data));
}

/* -- the search -------------------------------------------------------------------------- */

/* A child: the position after one move, seen from its mover. */
typedef struct {
    ManPos pos;
    uint64_t key; /* its rank: in the database when `known`, else the table's key */
    int pit, gain, extra, loose, known;
} Kid;

static int node(SolveThread *t, const ManPos *p, uint64_t key, int loose, int beta);

/* Searches one child at the node's window; the value from the node's mover's view. */
static int search_kid(SolveThread *t, const Kid *kid, int beta) {
    if (kid->extra) return kid->gain + node(t, &kid->pos, kid->key, kid->loose, beta - kid->gain);
    return kid->gain - node(t, &kid->pos, kid->key, kid->loose, kid->gain - beta + 1);
}

/* Asks the memory for what the child will read: its bucket, or its database byte. The
 * children's cache misses then overlap instead of following one another. */
static void prefetch(const Solver *s, const Kid *kid) {
#if defined(__GNUC__) || defined(__clang__)
    if (!kid->known)
        __builtin_prefetch(bucket(s, kid->key));
    else if (s->db)
        __builtin_prefetch(s->db + kid->key);
#else
    (void)s;
    (void)kid;
#endif
}

/* engine/solve.py's `node` on the gain from the board: cut by the seeds loose, then by the
 * table; every child made, then each valued when it is known (nothing loose, the database) or
 * its table bound refutes the window (enhanced transposition cutoff); then the rest searched:
 * the table's move, extra turns, then by what the move banks, ties from the pit nearest the
 * store. With threads, a child after the first that another thread is searching waits until
 * the others are searched. */
static int node(SolveThread *t, const ManPos *p, uint64_t key, int loose, int beta) {
    Solver *s = t->solver;
    if (-loose >= beta) return -loose;
    if (loose < beta) return loose;
    int low = -SOLVE_INF, high = SOLVE_INF, first = SOLVE_NO_MOVE;
    uint64_t entry = probe(s, key);
    if (entry) {
        low = LOW(entry);
        high = HIGH(entry);
        first = MOVE(entry);
        if (low >= beta) return low;
        if (high < beta) return high;
    }
    if ((++t->expanded & CHECK_EVERY) == 0 && t->index == 0 && s->interrupted &&
        s->interrupted(s->context)) {
        s->stopped = 1;
        RELAXED_STORE(s->halt, 1);
    }
    if (RELAXED_LOAD(s->halt)) {
        t->aborted = 1;
        return 0;
    }
    uint64_t before = t->expanded;
    const ManRules *r = &s->rules;
    int m = r->pits, best = -SOLVE_INF, count = 0, searched = 0, waiting = 0;
    Kid kids[MAN_MAX_PITS];
    int order[MAN_MAX_PITS], priority[MAN_MAX_PITS], later[MAN_MAX_PITS];
    for (int pit = m - 1; pit >= 0; pit--) {
        if (!p->hole[pit]) continue;
        Kid *kid = kids + count++;
        ManPos out;
        man_sow(r, p, pit, &out);
        eg_mover_view(r, &out, &kid->pos);
        kid->pit = pit;
        kid->gain = out.hole[m] - out.hole[2 * m + 1];
        kid->extra = !out.to_move;
        kid->loose = loose - out.hole[m] - out.hole[2 * m + 1];
        kid->known = kid->loose <= s->db_seeds;
        kid->key = kid->known ? (s->db ? eg_rank(&s->db_rank, &kid->pos) : 0)
                              : eg_rank(&s->key, &kid->pos);
        prefetch(s, kid);
    }
    for (int i = 0; i < count; i++) {
        const Kid *kid = kids + i;
        int value = -SOLVE_INF;
        if (kid->known) {
            int rest = s->db ? s->db[kid->key] : 0;
            value = kid->extra ? kid->gain + rest : kid->gain - rest;
            if (value > best) best = value;
        } else {
            uint64_t known = probe(s, kid->key);
            if (known) value = kid->extra ? kid->gain + LOW(known) : kid->gain - HIGH(known);
            int rank = kid->pit == first ? 3 * SOLVE_INF
                       : kid->extra      ? SOLVE_INF + kid->gain
                                         : kid->gain;
            /* insertion by priority, stable: equal priorities keep the pit order */
            int at = searched++;
            for (; at > 0 && priority[at - 1] < rank; at--) {
                priority[at] = priority[at - 1];
                order[at] = order[at - 1];
            }
            priority[at] = rank;
            order[at] = i;
        }
        if (value >= beta) {
            best = value;
            first = kid->pit;
            searched = 0;
            break;
        }
    }
    /* the children in order, then those that waited for another thread */
    for (int pass = 0, n = searched; pass < 2 && best < beta; pass++, n = waiting) {
        const int *list = pass ? later : order;
        for (int i = 0; i < n; i++) {
            const Kid *kid = kids + list[i];
            if (s->busy && !pass && i > 0 && busy_has(s->busy, kid->key)) {
                later[waiting++] = list[i];
                continue;
            }
            if (s->busy) busy_mark(s->busy, kid->key, 1);
            int value = search_kid(t, kid, beta);
            if (s->busy) busy_mark(s->busy, kid->key, 0);
            if (t->aborted) return 0;
            if (value > best) {
                best = value;
                if (value >= beta) {
                    first = kid->pit;
                    break;
                }
            }
        }
    }
    if (best >= beta)
        low = best;
    else
        high = best;
    store(t, key, low, high, first, t->expanded - before + 1);
    return best;
}

/* One thread's search of the probe; the first to finish it halts the others. */
typedef struct {
    SolveThread *thread;
    const ManPos *p;
    uint64_t key;
    int loose, beta;
} Probe;

static void *probe_main(void *arg) {
    Probe *probe = arg;
    SolveThread *t = probe->thread;
    t->aborted = 0;
    t->value = node(t, probe->p, probe->key, probe->loose, probe->beta);
    if (!t->aborted) relaxed_swap_if(&t->solver->halt, 0, 2 + t->index);
    return NULL;
}

int solve_test(Solver *s, const ManPos *p, int beta) {
    int m = s->rules.pits, loose = 0;
    for (int i = 0; i < m; i++) loose += p->hole[i] + p->hole[m + 1 + i];
    uint64_t key = eg_rank(&s->key, p);
    Probe probes[SOLVE_MAX_THREADS];
    for (int i = 0; i < s->threads; i++) probes[i] = (Probe){s->thread + i, p, key, loose, beta};
    RELAXED_STORE(s->halt, 0);
    int started = 1;
#ifdef UBAO_PTHREADS
    pthread_t ids[SOLVE_MAX_THREADS];
    for (; started < s->threads; started++)
        if (pthread_create(ids + started, NULL, probe_main, probes + started)) break;
#endif
    probe_main(probes);
#ifdef UBAO_PTHREADS
    relaxed_swap_if(&s->halt, 0, 1); /* answered: the helpers stop */
    for (int i = 1; i < started; i++) pthread_join(ids[i], NULL);
#endif
    int halt = RELAXED_LOAD(s->halt);
    return s->stopped || halt < 2 ? 0 : s->thread[halt - 2].value;
}

int solve_best(const Solver *s, const ManPos *p) {
    uint64_t entry = probe(s, eg_rank(&s->key, p));
    return entry && MOVE(entry) != SOLVE_NO_MOVE ? MOVE(entry) : -1;
}
