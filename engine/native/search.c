/* The search's driver, shared by every game: the clock, a new search, and one iteration on
 * several threads (search_parallel). The searches themselves are each game's (search.h). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* clock_gettime, threads */
#endif
#include "search.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

double search_clock(void) {
#ifdef _WIN32
    LARGE_INTEGER now, frequency;
    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&frequency);
    return (double)now.QuadPart / (double)frequency.QuadPart;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
#endif
}

void search_begin(SearchState *s) {
    s->generated = s->expanded = s->evaluated = s->cutoffs = s->hits = s->open_hits = 0;
    s->nscores = 0;
    RELAXED_STORE(s->stop, 0);
}

int search_threads_built(void) {
#ifdef UBAO_PTHREADS
    return 1;
#else
    return 0;
#endif
}

#ifdef UBAO_PTHREADS
/* A helper thread of one iteration, and its score if it is the first to finish it. */
typedef struct {
    const SearchThread *thread;
    SearchRun run;
    const void *position;
    int depth;
    int index; /* in the threads of search_parallel */
    SearchState *main;
    int *first; /* the index of the helper that finished first (0: none yet) */
    double score;
} Helper;

/* Searches the main thread's iteration; the first helper to finish it stops the main thread
 * (SEARCH_OVERTAKEN, unless it was stopped already). */
static void *helper_main(void *arg) {
    Helper *h = arg;
    if (h->run(h->thread->state, h->thread->rules, h->position, h->depth, &h->score) == 0 &&
        relaxed_swap_if(h->first, 0, h->index))
        relaxed_swap_if(&h->main->stop, 0, SEARCH_OVERTAKEN);
    return NULL;
}

/* A helper's state for an iteration of `main`'s: the same search, the same window; the odd
 * helpers search in reverse order near the root, so that they start where the main thread
 * ends (threads in the same order search the same nodes at once, none finding the others'). */
static void helper_ready(SearchState *s, const SearchState *main, int index) {
    s->table = main->table;
    s->exact = main->exact;
    s->table_depth = main->table_depth;
    s->evaluation = main->evaluation;
    s->algorithm = main->algorithm;
    s->probcut = main->probcut;
    s->deadline = main->deadline;
    s->root_move = main->root_move;
    s->root_moves = main->root_moves;
    s->nroot = main->nroot;
    s->scores[0] = main->scores[0];
    s->scores[1] = main->scores[1];
    s->nscores = main->nscores;
    s->filled = 0;
    s->busy = main->busy;
    s->reverse = main->reversed_helpers && index & 1;
    RELAXED_STORE(s->stop, 0);
}

/* The main thread's iteration is the helper's that finished it: its score (the caller's),
 * move, line and aspiration window. */
static void take_over(SearchState *main, const SearchState *helper) {
    main->root_best = helper->root_best;
    main->root_score = helper->root_score;
    main->scores[0] = helper->scores[0];
    main->scores[1] = helper->scores[1];
    main->nscores = helper->nscores;
    main->pv_len[0] = helper->pv_len[0];
    memcpy(main->pv[0], helper->pv[0], sizeof *helper->pv[0] * (size_t)helper->pv_len[0]);
}
#endif

int search_parallel(const SearchThread *threads, int n, SearchRun run, const void *p, int depth,
                    double *score) {
    SearchState *main = threads[0].state;
#ifdef UBAO_PTHREADS
    Helper helpers[SEARCH_MAX_THREADS];
    pthread_t ids[SEARCH_MAX_THREADS];
    Table *table = main->table;
    uint64_t busy[BUSY_SLOTS];
    int started = 1, first = 0;
    if (n > 1) {
        tt_make_room(table);
        table->shared = 1;
        main->filled = 0;
        memset(busy, 0, sizeof busy);
        main->busy = busy;
    }
    for (; started < n && started < SEARCH_MAX_THREADS; started++) {
        helper_ready(threads[started].state, main, started);
        helpers[started] = (Helper){threads + started, run, p, depth, started, main, &first, 0.0};
        if (pthread_create(ids + started, NULL, helper_main, helpers + started)) break;
    }
#endif
    int status = run(main, threads[0].rules, p, depth, score);
#ifdef UBAO_PTHREADS
    if (started > 1) {
        for (int i = 1; i < started; i++) RELAXED_STORE(threads[i].state->stop, SEARCH_STOPPED);
        for (int i = 1; i < started; i++) pthread_join(ids[i], NULL);
        relaxed_swap_if(&main->stop, SEARCH_OVERTAKEN, 0); /* a caller's stop stays */
        if (status < 0 && first) {
            take_over(main, threads[first].state);
            *score = helpers[first].score;
            status = 0;
        }
    }
    if (n > 1) {
        for (int i = 0; i < started; i++) {
            table->used += threads[i].state->filled;
            threads[i].state->busy = NULL;
        }
        if (table->used > table->slots) table->used = table->slots; /* two filled one slot */
        table->shared = 0;
    }
#else
    (void)n;
#endif
    return status;
}
