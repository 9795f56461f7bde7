/* The searches of engine/search/, node for node (docs/engine.md, "One interior node"):
 * negamax with the same table, the game's static order with the table's move first, principal
 * variation search, the horizon loop, the exact mode's root ties and the strength mode's
 * aspiration window; alphabeta and minimax as the Python engine writes them; scored by any of
 * the game's evaluations (constants.h's enums, in the order of the Python game's
 * `evaluations`). This header is the driver's, and knows no game: the search is written once
 * in search_impl.h and compiled per game, whose header declares it (mancala_search.c and .h:
 * the mancala family; othello.c and othello_search.h: Othello in both board widths;
 * bao_search.c and .h: Bao). Plain C: it runs without the GIL; `stop` may be set from another
 * thread. `search_parallel` runs one negamax iteration on several threads sharing the table
 * (ABDADA, docs/engine.md). */
#ifndef UBAO_SEARCH_H
#define UBAO_SEARCH_H

#include <stdint.h>
#include <string.h>

#include "constants.h" /* SEARCH_MAX_DEPTH, SEARCH_MATE..., the algorithms and evaluations */
#include "interrupted.h"
#include "table.h"

#define SEARCH_MAX_ROOT_MOVES 256 /* the most root moves a search may be restricted to */
#define SEARCH_POLL_S 0.05 /* between two polls of SearchState.interrupted */

/* SearchState.stop: 0 while the search may go on; SEARCH_STOPPED when the search must end
 * (its caller's `stop`; a helper's when the main thread is done); SEARCH_OVERTAKEN when a
 * helper finished the main thread's iteration first (search_parallel). */
#define SEARCH_STOPPED 1
#define SEARCH_OVERTAKEN 2

/* A helper that searches in reverse order (SearchState.reverse) does so at the root (every
 * move) and this many plies below it (every move after the table's or the game's first). */
#define SEARCH_REVERSED_PLIES 4

/* Multi-ProbCut's checks (engine/searchable.py `ProbCut`): by row (a stage), then by a node's depth,
 * the shallow depth (0: no check), the slope and the high and low offsets; the stage of each
 * progress value (a game's S_PROGRESS: Othello's squares occupied). */
#define SEARCH_PROBCUT_STAGES 32
#define SEARCH_PROBCUT_DEPTHS 32
#define SEARCH_PROBCUT_PROGRESS 257
typedef struct {
    int shallow;
    double slope, high, low;
} ProbCutCheck;
typedef struct {
    unsigned char stage[SEARCH_PROBCUT_PROGRESS];
    int depths; /* checks for depths below this */
    ProbCutCheck check[SEARCH_PROBCUT_STAGES][SEARCH_PROBCUT_DEPTHS];
} ProbCut;

/* What one search (one thread of it) keeps besides the game's rules. */
typedef struct {
    Table *table; /* shared by every thread of a search */
    int exact;
    int table_depth; /* the least depth left at which a node below the root uses the table */
    int sort_depth;  /* the least depth left at which negamax sorts by evaluation (0: never) */
    int evaluation; /* one of the game's enum in constants.h */
    int algorithm;  /* SEARCH_NEGAMAX, the only one `search_parallel` runs on threads */
    const ProbCut *probcut; /* negamax's checks, for a game with S_PROGRESS (NULL: none) */
    uint64_t generated, expanded, evaluated, cutoffs, hits; /* over one search's iterations */
    uint64_t open_hits; /* hits of entries whose search met the horizon (not FINAL_DEPTH) */
    int64_t filled; /* the table's empty slots this thread filled (counted while it is shared) */
    int reversed_helpers; /* the odd helpers search in reverse order near the root */
    int reverse; /* a helper's: its moves in reverse order near the root (search_parallel) */
    uint64_t *busy; /* threads > 1: the keys some thread is searching (ABDADA); NULL alone */
    double scores[2]; /* the root's last two scores, for the aspiration window */
    int nscores;
    int root_move, root_best; /* the move to search first; the best so far (TT_NO_MOVE: none) */
    const int *root_moves; /* the only root moves searched, move values (`root_moves` of
                            * Searcher.search; the root's value is then not stored) */
    int nroot;             /* how many; 0: every move */
    double root_score;
    double deadline; /* on the clock of search_clock */
    uint64_t max_nodes; /* the search ends once `generated` reaches it (0: no node limit) */
    int stop; /* set by another thread (SEARCH_STOPPED, or SEARCH_OVERTAKEN): RELAXED_* */
    int aborted;
    Interrupted interrupted; /* polled every SEARCH_POLL_S (NULL: never): Ctrl-C, say */
    void *context;           /* `interrupted`'s */
    double next_poll;        /* on the clock of search_clock */
    int signalled;           /* the search ended because `interrupted` said so */
    unsigned ticks;
    int pv_len[SEARCH_MAX_DEPTH + 2];
    int pv[SEARCH_MAX_DEPTH + 2][SEARCH_MAX_DEPTH + 2]; /* the line of each ply, move values */
} SearchState;

/* Seconds on a monotonic clock. */
double search_clock(void);
/* Whether the search must end at this reading of the clock: the deadline passed, or
 * `interrupted` said so at its poll (then s->signalled is set). */
static inline int search_clock_stop(SearchState *s) {
    double now = search_clock();
    if (now >= s->deadline) return 1;
    if (!s->interrupted || now < s->next_poll) return 0;
    s->next_poll = now + SEARCH_POLL_S;
    s->signalled = s->interrupted(s->context);
    return s->signalled;
}

/* A new search for this thread: the counters, `stop` and the aspiration window start again
 * (the caller ages the table, once for all threads). */
void search_begin(SearchState *s);

/* One iteration to `depth` from `p`; 0 and the score (the side to move's view) in *score, or
 * -1 when the deadline passed or `stop` was set. Then the root's line, continued through the
 * table up to `depth` moves, into `line`; returns its length. `_run` is `_iterate` on untyped
 * rules and position, for search_parallel. Each game's search header declares its own. */
#define SEARCH_DECLARE(NAME, RULES, POS)                                                   \
    int NAME##_iterate(SearchState *s, const RULES *r, const POS *p, int depth,           \
                       double *score);                                                     \
    int NAME##_run(SearchState *s, const void *r, const void *p, int depth, double *score); \
    int NAME##_pv(SearchState *s, const RULES *r, const POS *p, int depth, int *line);

typedef int (*SearchRun)(SearchState *s, const void *rules, const void *p, int depth,
                         double *score);

/* One thread of a parallel search: its state and its rules (Bao keeps moves per thread). */
typedef struct {
    SearchState *state;
    const void *rules;
} SearchThread;

/* One iteration to `depth` from `p`, as `run` does, on every thread at once sharing the table
 * and the busy keys (ABDADA, docs/engine.md): `threads[0]` (the main thread, the caller's) and
 * threads[1..n-1] search the same root to the same depth with the main thread's search, window
 * and root move, and the first to finish it ends it: a helper that finishes first stops the
 * main thread, whose state then takes the helper's score, move, line and window, as if it had
 * finished; the main thread's end (finished, out of time or stopped) stops the helpers. The
 * table makes room for the iteration first (it does not grow while shared); where threads are
 * not built, the main thread searches alone. Returns 0 and the score in *score, or -1 as `run` does. */
int search_parallel(const SearchThread *threads, int n, SearchRun run, const void *p, int depth,
                    double *score);
/* Whether this build runs threads (POSIX threads). */
int search_threads_built(void);

/* nextafter(x, +inf) on the bits, for windows (x is never NaN). */
static inline double search_next_up(double x) {
    int64_t bits;
    if (x == 0.0) return 4.9406564584124654e-324; /* the smallest positive double */
    if (x > 1.7976931348623157e308) return x;     /* +inf */
    memcpy(&bits, &x, sizeof bits);
    bits += x > 0.0 ? 1 : -1;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A finished game's score for `player`, `ply` plies from the root (`final_score`), from each
 * side's final points. */
static inline double search_final(int first, int second, int player, int ply) {
    if (first == second) return 0.0;
    int margin = first > second ? first - second : second - first;
    double value = SEARCH_MATE + SEARCH_PLY_SPAN * margin - ply;
    return (first > second) == (player == 0) ? value : -value;
}

/* Python's hash of a non-negative int below 2**64: its value modulo 2**61 - 1. */
static inline uint64_t search_int_hash(uint64_t n) {
    const uint64_t modulus = ((uint64_t)1 << 61) - 1;
    uint64_t h = (n & modulus) + (n >> 61);
    return h >= modulus ? h - modulus : h;
}

/* Python's hash of a tuple (CPython 3.8+, 64-bit: xxHash's lanes): SEARCH_HASH_START, then
 * search_hash_item with each item's hash, then search_hash_end with the tuple's length. */
#define SEARCH_HASH_START 2870177450012600261ULL

static inline uint64_t search_hash_item(uint64_t acc, uint64_t lane) {
    acc += lane * 14029467366897019727ULL;
    acc = acc << 31 | acc >> 33;
    return acc * 11400714785074694791ULL;
}

static inline int64_t search_hash_end(uint64_t acc, int n) {
    acc += (uint64_t)n ^ (SEARCH_HASH_START ^ 3527539ULL);
    return acc == UINT64_MAX ? 1546275796 : (int64_t)acc;
}

#endif
