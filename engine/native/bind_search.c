/* ubao.engine._native.Search: the search of search.h over the rules of a Mancala, an Othello
 * or a Bao object, without the GIL, on one thread or several. */
#include "bind.h"

#include <string.h>

#include "bao_search.h"
#include "mancala_search.h"
#include "othello_patterns.h"
#include "othello_search.h"

/* One thread's state besides the main one, with its own Bao rules (moves kept per thread). */
typedef struct {
    SearchState state;
    BaoSearch bao;
} SearchHelper;

typedef struct {
    PyObject_HEAD SearchState search;
    PyObject *rules; /* the Mancala, Othello or Bao object searched; its rules never change */
    int busy;        /* a search is running without the GIL: only `stop` may touch the object */
    BaoSearch bao;   /* a Bao search's rules and what it keeps per ply (kept NULL otherwise) */
    Table table;     /* shared by the threads */
    int threads;     /* the main thread and threads - 1 helpers */
    SearchHelper *helpers[SEARCH_MAX_THREADS - 1];
    int root_moves[SEARCH_MAX_ROOT_MOVES]; /* the search's root moves, when restricted */
    ProbCut probcut; /* multi-ProbCut's checks, when set (search.probcut then points here) */
} SearchObject;

/* A position of the searched game, read while the GIL is held. */
typedef struct {
    ManPos man;
    OthPos64 narrow;
    OthPos256 broad;
    BaoPos bao;
} SearchPos;

/* Each game's evaluations and the algorithms by name, numbered as their enums (constants.h). */
static const char *const man_evaluations[MAN_EVALUATIONS] = MAN_EVALUATION_NAMES;
static const char *const oth_evaluations[OTH_EVALUATIONS] = OTH_EVALUATION_NAMES;
static const char *const bao_evaluations[BAO_EVALUATIONS] = BAO_EVALUATION_NAMES;
static const char *const search_algorithms[SEARCH_ALGORITHMS] = SEARCH_ALGORITHM_NAMES;

/* The number of the algorithm `name`; -1 with ValueError set when there is none. */
static int search_algorithm(const char *name) {
    for (int i = 0; i < SEARCH_ALGORITHMS; i++)
        if (!strcmp(search_algorithms[i], name)) return i;
    PyErr_Format(PyExc_ValueError, "the native core has no algorithm '%s'", name);
    return -1;
}

/* The number of the evaluation `name` of the game of `rules`; -1 with ValueError set when it
 * has none of that name. */
static int search_evaluation(PyObject *rules, const char *name) {
    const char *const *names = man_evaluations;
    int n = MAN_EVALUATIONS;
    if (PyObject_TypeCheck(rules, &OthType)) names = oth_evaluations, n = OTH_EVALUATIONS;
    if (PyObject_TypeCheck(rules, &BaoType)) names = bao_evaluations, n = BAO_EVALUATIONS;
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    PyErr_Format(PyExc_ValueError, "the native core has no evaluation '%s' for this game", name);
    return -1;
}

static PyObject *Search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"rules",      "hash_mb",          "exact",
                            "evaluation", "algorithm",        "table_depth",
                            "sort_depth", "reversed_helpers", NULL};
    PyObject *rules;
    double hash_mb;
    int exact, table_depth, sort_depth, reversed_helpers;
    const char *evaluation_name, *algorithm_name;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Odpssiip:Search", names, &rules, &hash_mb,
                                     &exact, &evaluation_name, &algorithm_name, &table_depth,
                                     &sort_depth, &reversed_helpers))
        return NULL;
    if (!PyObject_TypeCheck(rules, &ManType) && !PyObject_TypeCheck(rules, &OthType) &&
        !PyObject_TypeCheck(rules, &BaoType)) {
        PyErr_SetString(PyExc_TypeError,
                        "a search needs the rules of a Mancala, an Othello or a Bao");
        return NULL;
    }
    int evaluation = search_evaluation(rules, evaluation_name);
    if (evaluation < 0) return NULL;
    if (PyObject_TypeCheck(rules, &OthType) && evaluation == OTH_PATTERNS &&
        (((OthObject *)rules)->wide || ((OthObject *)rules)->narrow.size != OTH_PATTERN_SIZE ||
         !oth_patterns_loaded())) {
        PyErr_SetString(PyExc_ValueError,
                        "the patterns evaluation needs an 8x8 board and its loaded weights");
        return NULL;
    }
    int algorithm = search_algorithm(algorithm_name);
    if (algorithm < 0) return NULL;
    if (table_depth < 2) { /* one ply above the horizon the children are leaves */
        PyErr_SetString(PyExc_ValueError, "the table's least depth must be at least 2");
        return NULL;
    }
    if (sort_depth < 0) {
        PyErr_SetString(PyExc_ValueError, "the least depth to sort at must be 0 (never) or more");
        return NULL;
    }
    if (!(hash_mb >= 0 && hash_mb <= MAX_HASH_MB)) {
        PyErr_Format(PyExc_ValueError, "the table's memory must be 0 to %d MB", MAX_HASH_MB);
        return NULL;
    }
    SearchObject *self = (SearchObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (PyObject_TypeCheck(rules, &BaoType)) {
        self->bao.rules = &((BaoObject *)rules)->rules;
        self->bao.kept = bao_kept_new();
        if (!self->bao.kept) {
            Py_TYPE(self)->tp_free((PyObject *)self);
            return PyErr_NoMemory();
        }
    }
    if (tt_init(&self->table, hash_mb) < 0) {
        bao_kept_free(self->bao.kept);
        Py_TYPE(self)->tp_free((PyObject *)self);
        return PyErr_NoMemory();
    }
    self->search.table = &self->table;
    self->search.exact = exact;
    self->search.table_depth = table_depth;
    self->search.sort_depth = sort_depth;
    self->search.reversed_helpers = reversed_helpers;
    self->search.evaluation = evaluation;
    self->search.algorithm = algorithm;
    self->threads = 1;
    Py_INCREF(rules);
    self->rules = rules;
    return (PyObject *)self;
}

static void search_drop_helpers(SearchObject *self) {
    for (int i = 0; i < SEARCH_MAX_THREADS - 1; i++) {
        if (self->helpers[i]) bao_kept_free(self->helpers[i]->bao.kept);
        PyMem_RawFree(self->helpers[i]);
        self->helpers[i] = NULL;
    }
}

static void Search_dealloc(SearchObject *self) {
    tt_free(&self->table);
    bao_kept_free(self->bao.kept);
    search_drop_helpers(self);
    Py_DECREF(self->rules);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* 0 with RuntimeError set while a search runs. */
static int search_idle(SearchObject *self) {
    if (!self->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "a search is running on this object");
    return 0;
}

/* Reads a position of the searched game; 0 with an exception set when it is not one. */
static int search_read(SearchObject *self, PyObject *position, SearchPos *p) {
    if (PyObject_TypeCheck(self->rules, &ManType))
        return man_read(&((ManObject *)self->rules)->rules, position, &p->man);
    if (PyObject_TypeCheck(self->rules, &BaoType)) return bao_read(position, &p->bao);
    Bb256 black, white;
    int player;
    if (!oth_read((OthObject *)self->rules, position, &black, &white, &player)) return 0;
    p->broad = (OthPos256){black, white, player};
    p->narrow = (OthPos64){black.w[0], white.w[0], player};
    return 1;
}

/* One iteration on every thread (GIL released by the caller), or the line after it when
 * `line` is set. */
static int search_run(SearchObject *self, const SearchPos *p, int depth, double *score,
                      int *line) {
    SearchState *s = &self->search;
    SearchThread threads[SEARCH_MAX_THREADS];
    SearchRun run;
    const void *rules, *position;
    if (PyObject_TypeCheck(self->rules, &ManType)) {
        const ManRules *r = &((ManObject *)self->rules)->rules;
        if (line) return man_search_pv(s, r, &p->man, depth, line);
        run = man_search_run, rules = r, position = &p->man;
    } else if (PyObject_TypeCheck(self->rules, &BaoType)) {
        if (line) return bao_search_pv(s, &self->bao, &p->bao, depth, line);
        run = bao_search_run, rules = &self->bao, position = &p->bao;
    } else if (((const OthObject *)self->rules)->wide) {
        const Oth256 *r = &((const OthObject *)self->rules)->broad;
        if (line) return oth_search_256_pv(s, r, &p->broad, depth, line);
        run = oth_search_256_run, rules = r, position = &p->broad;
    } else {
        const Oth64 *r = &((const OthObject *)self->rules)->narrow;
        if (line) return oth_search_64_pv(s, r, &p->narrow, depth, line);
        run = oth_search_64_run, rules = r, position = &p->narrow;
    }
    threads[0] = (SearchThread){s, rules};
    for (int i = 1; i < self->threads; i++) {
        SearchHelper *h = self->helpers[i - 1];
        threads[i] = (SearchThread){&h->state, rules == &self->bao ? (void *)&h->bao : rules};
    }
    return search_parallel(threads, self->threads, run, position, depth, score);
}

/* A move of the searched game as the Python engine writes it: an int, or Bao's BaoMove. */
static PyObject *search_move(SearchObject *self, int move) {
    if (PyObject_TypeCheck(self->rules, &BaoType)) return bao_move((BaoObject *)self->rules, move);
    return PyLong_FromLong(move);
}

static PyObject *Search_begin(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!search_idle(self)) return NULL;
    tt_next_search(&self->table);
    search_begin(&self->search);
    for (int i = 1; i < self->threads; i++) search_begin(&self->helpers[i - 1]->state);
    Py_RETURN_NONE;
}

/* The move value of the Python move `move` in *value (a Bao move that is none: TT_NO_MOVE);
 * 0, or -1 with an exception set. */
static int search_code(SearchObject *self, PyObject *move, int *value) {
    if (PyObject_TypeCheck(self->rules, &BaoType)) {
        int code = bao_code(move);
        *value = code < 0 ? TT_NO_MOVE : code;
        return 0;
    }
    long number = PyLong_AsLong(move);
    if (number == -1 && PyErr_Occurred()) return -1;
    *value = (int)number;
    return 0;
}

/* The root moves (a sequence of legal moves, or None: every move) into the search. */
static int search_root_moves(SearchObject *self, PyObject *moves) {
    SearchState *s = &self->search;
    s->nroot = 0;
    if (moves == Py_None) return 0;
    PyObject *seq = PySequence_Fast(moves, "the root moves must be a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > SEARCH_MAX_ROOT_MOVES) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "the root moves must be 1 to %d moves",
                     SEARCH_MAX_ROOT_MOVES);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (search_code(self, PySequence_Fast_GET_ITEM(seq, i), &self->root_moves[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    s->root_moves = self->root_moves;
    s->nroot = (int)n;
    return 0;
}

static PyObject *Search_iterate(SearchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    SearchState *s = &self->search;
    SearchPos p;
    double score = 0.0, seconds;
    if (nargs < 4 || nargs > 6) {
        PyErr_SetString(PyExc_TypeError,
                        "iterate(position, depth, root_move, seconds[, nodes[, root_moves]])");
        return NULL;
    }
    if (!search_idle(self) || !search_read(self, args[0], &p)) return NULL;
    long depth = PyLong_AsLong(args[1]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    if (depth < 1 || depth > SEARCH_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "the depth must be 1 to %d", SEARCH_MAX_DEPTH);
        return NULL;
    }
    int root_move = TT_NO_MOVE;
    if (args[2] != Py_None && search_code(self, args[2], &root_move) < 0) return NULL;
    seconds = PyFloat_AsDouble(args[3]);
    if (seconds == -1.0 && PyErr_Occurred()) return NULL;
    unsigned long long nodes = 0; /* the search's node limit, every thread's nodes; 0: none */
    if (nargs >= 5) {
        nodes = PyLong_AsUnsignedLongLong(args[4]);
        if (nodes == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    }
    if (search_root_moves(self, nargs == 6 ? args[5] : Py_None) < 0) return NULL;
    /* Each thread may generate its share of the nodes left (a thread counts its own). */
    unsigned long long done = s->generated, share = 0;
    for (int i = 1; i < self->threads; i++) done += self->helpers[i - 1]->state.generated;
    if (nodes) {
        if (done >= nodes) { /* spent: the iteration stops at its root, as in Python */
            s->root_best = TT_NO_MOVE;
            Py_RETURN_NONE;
        }
        share = (nodes - done) / (unsigned)self->threads;
        if (!share) share = 1;
    }
    s->max_nodes = share ? s->generated + share : 0;
    for (int i = 1; i < self->threads; i++) {
        SearchState *h = &self->helpers[i - 1]->state;
        h->max_nodes = share ? h->generated + share : 0;
    }
    self->busy = 1;
    PyThreadState *save = PyEval_SaveThread();
    s->deadline = search_clock() + seconds;
    s->root_move = root_move;
    s->interrupted = signal_raised; /* Ctrl-C ends the search within SEARCH_POLL_S */
    s->context = &save;
    s->next_poll = search_clock() + SEARCH_POLL_S;
    s->signalled = 0;
    int status = search_run(self, &p, (int)depth, &score, NULL);
    s->interrupted = NULL;
    PyEval_RestoreThread(save);
    self->busy = 0;
    if (s->signalled) return NULL; /* KeyboardInterrupt, say: as the Python search raises */
    if (status < 0) Py_RETURN_NONE;
    return PyFloat_FromDouble(score);
}

static PyObject *Search_counts(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    const SearchState *s = &self->search;
    uint64_t n[6] = {s->generated, s->expanded, s->evaluated,
                     s->cutoffs,   s->hits,     s->open_hits};
    for (int i = 1; i < self->threads; i++) {
        s = &self->helpers[i - 1]->state;
        n[0] += s->generated, n[1] += s->expanded, n[2] += s->evaluated;
        n[3] += s->cutoffs, n[4] += s->hits, n[5] += s->open_hits;
    }
    return Py_BuildValue("(KKKKKK)", (unsigned long long)n[0], (unsigned long long)n[1],
                         (unsigned long long)n[2], (unsigned long long)n[3],
                         (unsigned long long)n[4], (unsigned long long)n[5]);
}

static PyObject *Search_root(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    const SearchState *s = &self->search;
    if (s->root_best == TT_NO_MOVE) return Py_BuildValue("(Od)", Py_None, s->root_score);
    return Py_BuildValue("(Nd)", search_move(self, s->root_best), s->root_score);
}

static PyObject *Search_pv(SearchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    SearchPos p;
    int line[SEARCH_MAX_DEPTH + 2];
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pv(position, depth)");
        return NULL;
    }
    if (!search_idle(self) || !search_read(self, args[0], &p)) return NULL;
    long depth = PyLong_AsLong(args[1]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    int n = search_run(self, &p, depth < SEARCH_MAX_DEPTH ? (int)depth : SEARCH_MAX_DEPTH, NULL,
                       line);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *move = search_move(self, line[i]);
        if (!move) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, move);
    }
    return list;
}

static PyObject *Search_entries(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLongLong(self->table.used);
}

static PyObject *Search_clear(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!search_idle(self)) return NULL;
    if (tt_clear(&self->table) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Search_stop(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    RELAXED_STORE(self->search.stop, SEARCH_STOPPED); /* its end stops the helpers */
    Py_RETURN_NONE;
}

/* One check (a tuple (shallow, slope, high, low), or None: no check) into *c; 0, or -1 with
 * an exception set. */
static int search_probcut_check(PyObject *item, ProbCutCheck *c, int depth) {
    c->shallow = 0;
    if (item == Py_None) return 0;
    if (!PyArg_ParseTuple(item, "iddd", &c->shallow, &c->slope, &c->high, &c->low)) return -1;
    if (c->shallow < 1 || c->shallow >= depth || !(c->slope > 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "a ProbCut check needs a shallow depth from 1 to below its node's and "
                        "a positive slope");
        return -1;
    }
    return 0;
}

/* Multi-ProbCut's checks for the next searches (`ProbCut.stages` and `.checks`), or None for
 * none: the strength mode's negamax of a game that measures progress (Othello). */
static PyObject *Search_set_probcut(SearchObject *self, PyObject *const *args,
                                    Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_probcut(stages, checks)");
        return NULL;
    }
    if (!search_idle(self)) return NULL;
    self->search.probcut = NULL;
    if (args[0] == Py_None) Py_RETURN_NONE;
    if (!PyObject_TypeCheck(self->rules, &OthType)) {
        PyErr_SetString(PyExc_ValueError, "only an Othello search takes ProbCut checks");
        return NULL;
    }
    ProbCut *pc = &self->probcut;
    memset(pc, 0, sizeof *pc);
    PyObject *stages = PySequence_Fast(args[0], "the stages must be a sequence");
    if (!stages) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(stages);
    PyObject *checks = PySequence_Fast(args[1], "the checks must be a sequence");
    if (!checks) {
        Py_DECREF(stages);
        return NULL;
    }
    Py_ssize_t nstages = PySequence_Fast_GET_SIZE(checks);
    const OthObject *oth = (const OthObject *)self->rules;
    int squares = oth->wide ? oth->broad.squares : oth->narrow.squares;
    int ok = n == squares + 1 && nstages >= 1 && nstages <= SEARCH_PROBCUT_STAGES;
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "ProbCut needs a stage for every count of squares "
                                          "occupied, and 1 to 32 rows of checks");
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        long stage = PyLong_AsLong(PySequence_Fast_GET_ITEM(stages, i));
        if (stage == -1 && PyErr_Occurred()) ok = 0;
        else if (stage < 0 || stage >= nstages) {
            PyErr_SetString(PyExc_ValueError, "a ProbCut stage out of range");
            ok = 0;
        } else
            pc->stage[i] = (unsigned char)stage;
    }
    for (Py_ssize_t i = 0; ok && i < nstages; i++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(checks, i),
                                        "a stage's checks must be a sequence");
        if (!row) {
            ok = 0;
            break;
        }
        Py_ssize_t depths = PySequence_Fast_GET_SIZE(row);
        if (i == 0) pc->depths = (int)depths;
        if (depths != pc->depths || depths > SEARCH_PROBCUT_DEPTHS) {
            PyErr_SetString(PyExc_ValueError, "every stage needs as many ProbCut depths, "
                                              "fewer than 32");
            ok = 0;
        }
        for (Py_ssize_t d = 0; ok && d < depths; d++)
            ok = search_probcut_check(PySequence_Fast_GET_ITEM(row, d), &pc->check[i][d],
                                      (int)d) == 0;
        Py_DECREF(row);
    }
    Py_DECREF(stages);
    Py_DECREF(checks);
    if (!ok) return NULL;
    self->search.probcut = pc;
    Py_RETURN_NONE;
}

/* Threads for the next searches (at least 1); returns how many will run: fewer where threads
 * are not built, beyond SEARCH_MAX_THREADS, or out of memory. The exact mode, alphabeta and
 * minimax run one. */
static PyObject *Search_set_threads(SearchObject *self, PyObject *arg) {
    long asked = PyLong_AsLong(arg);
    if (asked == -1 && PyErr_Occurred()) return NULL;
    if (asked < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be 1 or more");
        return NULL;
    }
    if (!search_idle(self)) return NULL;
    int alone = self->search.exact || self->search.algorithm != SEARCH_NEGAMAX;
    int threads = alone || !search_threads_built() ? 1
                  : asked > SEARCH_MAX_THREADS     ? SEARCH_MAX_THREADS
                                                   : (int)asked;
    search_drop_helpers(self);
    self->threads = 1;
    for (; self->threads < threads; self->threads++) {
        SearchHelper *h = PyMem_RawCalloc(1, sizeof *h);
        if (!h) break;
        self->helpers[self->threads - 1] = h;
        h->state.table = &self->table;
        if (self->bao.kept) {
            h->bao.rules = self->bao.rules;
            h->bao.kept = bao_kept_new();
            if (!h->bao.kept) break;
        }
    }
    if (self->threads < threads && self->helpers[self->threads - 1]) { /* half made: drop it */
        PyMem_RawFree(self->helpers[self->threads - 1]);
        self->helpers[self->threads - 1] = NULL;
    }
    return PyLong_FromLong(self->threads);
}

static PyMethodDef Search_methods[] = {
    {"begin", (PyCFunction)Search_begin, METH_NOARGS,
     "A new search: the table ages, the counters start again."},
    {"iterate", (PyCFunction)(void (*)(void))Search_iterate, METH_FASTCALL,
     "One iteration without the GIL: the score, or None when stopped, out of time or past "
     "`nodes` (the search's, every thread's, since `begin`)."},
    {"counts", (PyCFunction)Search_counts, METH_NOARGS,
     "(generated, expanded, evaluated, cutoffs, table hits, hits of entries that met the "
     "horizon) of this search, every thread's."},
    {"root", (PyCFunction)Search_root, METH_NOARGS,
     "(best root move so far or None, its score) of the iteration under way."},
    {"pv", (PyCFunction)(void (*)(void))Search_pv, METH_FASTCALL,
     "The last iteration's line, continued through the table up to `depth` moves."},
    {"entries", (PyCFunction)Search_entries, METH_NOARGS, "Entries in the table."},
    {"clear", (PyCFunction)Search_clear, METH_NOARGS, "Empty the table."},
    {"stop", (PyCFunction)Search_stop, METH_NOARGS,
     "Make the running search (from any thread) return at its next node."},
    {"set_probcut", (PyCFunction)(void (*)(void))Search_set_probcut, METH_FASTCALL,
     "Multi-ProbCut's checks for the next searches: (stages, checks), or (None, None)."},
    {"set_threads", (PyCFunction)Search_set_threads, METH_O,
     "Threads for the next searches (ABDADA); returns how many will run."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Search",
    .tp_doc = PyDoc_STR("engine/search/'s search over one game's native rules, with its table."),
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Search_new,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
};
