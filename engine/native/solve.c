/* engine/solve.py's null-window node over the native mancala rules (docs/engine.md, Solver). */
#include "solve.h"

#include <stdlib.h>
#include <string.h>

#include "table.h"

#define BUCKET 4
#define FIBONACCI 0x9E3779B97F4A7C15ULL /* 2^64 / golden ratio: spreads the ranks' bits */
#define CHECK_EVERY 0xfffff             /* expansions between polls of `interrupted` */
/* From this size on the table asks for huge pages: there nearly every probe also missed the
 * TLB, and (6,5) ran 20 % faster with them. Smaller tables keep calloc's lazily zeroed pages: no
 * faster with huge ones at 128 MB, and their allocation stalled small solves. */
#define HUGE_TABLE ((size_t)1 << 30)

int solve_init(Solver *s, const ManRules *r, double megabytes, const int8_t *db, int db_seeds) {
    memset(s, 0, sizeof *s);
    s->rules = *r;
    /* the bucket index scales 32 bits of hash: at most 2^32 buckets (274 GB) */
    double buckets = megabytes * 1e6 / (BUCKET * sizeof(SolveEntry));
    s->buckets = buckets < 1 ? 1 : buckets > 4294967295.0 ? 4294967295u : (uint64_t)buckets;
    size_t bytes = (size_t)s->buckets * BUCKET * sizeof(SolveEntry);
    void *start; /* each bucket on one cache line: a probe costs one miss */
    s->memory = tt_zeroed(bytes, HUGE_TABLE, &start);
    if (!s->memory) return -1;
    s->table = start;
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
    s->memory = NULL;
    s->table = NULL;
    eg_rank_free(&s->key);
    eg_rank_free(&s->db_rank);
}

int solve_reserve(Solver *s, int most) {
    if (s->key.c && most <= s->key.most) return 0;
    if (most > SOLVE_MAX_SEEDS) return -1;
    EgRank key;
    if (eg_rank_init(&key, 2 * s->rules.pits, most) < 0) return -1;
    eg_rank_free(&s->key);
    s->key = key;
    if (s->used) memset(s->table, 0, (size_t)s->buckets * BUCKET * sizeof(SolveEntry));
    s->used = 0;
    return 0;
}

/* -- the table --------------------------------------------------------------------------- */

/* The key's bucket: Fibonacci hashing, then the high bits scaled to the number of buckets. */
static SolveEntry *bucket(const Solver *s, uint64_t key) {
    uint64_t mixed = (key * FIBONACCI) >> 32;
    return s->table + ((mixed * s->buckets) >> 32) * BUCKET;
}

static const SolveEntry *probe(const Solver *s, uint64_t key) {
    const SolveEntry *slot = bucket(s, key);
    for (int i = 0; i < BUCKET; i++)
        if (slot[i].key == key && slot[i].work) return slot + i;
    return NULL;
}

static int bit_length(uint64_t x) {
    int n = 0;
    for (; x; x >>= 1) n++;
    return n;
}

/* Keeps the entry in its own slot if there, else in an empty one, else in place of the one that
 * cost least to prove: the expensive proofs near the root stay, and the newest always enters. */
static void store(Solver *s, uint64_t key, int low, int high, int move, uint64_t work) {
    SolveEntry *slot = bucket(s, key), *victim = slot;
    for (int i = 0; i < BUCKET; i++) {
        if (slot[i].key == key && slot[i].work) {
            victim = slot + i;
            break;
        }
        if (slot[i].work < victim->work) victim = slot + i;
    }
    if (!victim->work) s->used++;
    victim->key = key;
    victim->low = (int16_t)low;
    victim->high = (int16_t)high;
    victim->move = (uint8_t)move;
    victim->work = (uint8_t)bit_length(work);
}

/* -- the search -------------------------------------------------------------------------- */

/* A child: the position after one move, seen from its mover. */
typedef struct {
    ManPos pos;
    uint64_t key; /* its rank: in the database when `known`, else the table's key */
    int pit, gain, extra, loose, known;
} Kid;

static int node(Solver *s, const ManPos *p, uint64_t key, int loose, int beta);

/* Searches one child at the node's window; the value from the node's mover's view. */
static int search_kid(Solver *s, const Kid *kid, int beta) {
    if (kid->extra) return kid->gain + node(s, &kid->pos, kid->key, kid->loose, beta - kid->gain);
    return kid->gain - node(s, &kid->pos, kid->key, kid->loose, kid->gain - beta + 1);
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
 * store. */
static int node(Solver *s, const ManPos *p, uint64_t key, int loose, int beta) {
    if (-loose >= beta) return -loose;
    if (loose < beta) return loose;
    int low = -SOLVE_INF, high = SOLVE_INF, first = SOLVE_NO_MOVE;
    const SolveEntry *entry = probe(s, key);
    if (entry) {
        low = entry->low;
        high = entry->high;
        first = entry->move;
        if (low >= beta) return low;
        if (high < beta) return high;
    }
    if ((++s->expanded & CHECK_EVERY) == 0 && s->interrupted && s->interrupted(s->context))
        s->stopped = 1;
    if (s->stopped) return 0;
    uint64_t before = s->expanded;
    const ManRules *r = &s->rules;
    int m = r->pits, best = -SOLVE_INF, count = 0, searched = 0;
    Kid kids[MAN_MAX_PITS];
    int order[MAN_MAX_PITS], priority[MAN_MAX_PITS];
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
            const SolveEntry *known = probe(s, kid->key);
            if (known) value = kid->extra ? kid->gain + known->low : kid->gain - known->high;
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
    for (int i = 0; i < searched; i++) {
        const Kid *kid = kids + order[i];
        int value = search_kid(s, kid, beta);
        if (s->stopped) return 0;
        if (value > best) {
            best = value;
            if (value >= beta) {
                first = kid->pit;
                break;
            }
        }
    }
    if (best >= beta)
        low = best;
    else
        high = best;
    store(s, key, low, high, first, s->expanded - before + 1);
    return best;
}

int solve_test(Solver *s, const ManPos *p, int beta) {
    int m = s->rules.pits, loose = 0;
    for (int i = 0; i < m; i++) loose += p->hole[i] + p->hole[m + 1 + i];
    return node(s, p, eg_rank(&s->key, p), loose, beta);
}

int solve_best(const Solver *s, const ManPos *p) {
    const SolveEntry *entry = probe(s, eg_rank(&s->key, p));
    return entry && entry->move != SOLVE_NO_MOVE ? entry->move : -1;
}
