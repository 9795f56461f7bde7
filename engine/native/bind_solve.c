/* ubao.engine._native.Solver: the mancala solver of solve.h (and the endgame database of
 * endgame.h) over the rules of a Mancala object, without the GIL. */
#include "bind.h"

#include "endgame.h"
#include "search.h"
#include "solve.h"

typedef struct {
    PyObject_HEAD Solver solver;
    PyObject *rules; /* the Mancala object solved; its rules never change */
    Py_buffer db;    /* the endgame database's values, held while solving (db.obj NULL: none) */
    int busy;        /* a probe is running without the GIL */
} SolverObject;

/* The rules of a Mancala object that does not sow both ways; NULL with TypeError/ValueError. */
static const ManRules *solver_rules(PyObject *rules) {
    if (!PyObject_TypeCheck(rules, &ManType)) {
        PyErr_SetString(PyExc_TypeError, "the solver needs the rules of a Mancala");
        return NULL;
    }
    const ManRules *r = &((ManObject *)rules)->rules;
    if (r->min_seeds != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "sowing both ways repeats positions: no native solver");
        return NULL;
    }
    return r;
}

static PyObject *Solver_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"rules", "hash_mb", "endgame", "endgame_seeds", "threads", NULL};
    PyObject *rules, *endgame = Py_None;
    double hash_mb;
    int seeds = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Od|Oii:Solver", names, &rules, &hash_mb,
                                     &endgame, &seeds, &threads))
        return NULL;
    const ManRules *r = solver_rules(rules);
    if (!r) return NULL;
    if (!(hash_mb >= 0 && hash_mb <= MAX_HASH_MB)) {
        PyErr_Format(PyExc_ValueError, "the table's memory must be 0 to %d MB", MAX_HASH_MB);
        return NULL;
    }
    if (threads < 1 || threads > SOLVE_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads must be 1 to %d", SOLVE_MAX_THREADS);
        return NULL;
    }
    SolverObject *self = (SolverObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    Py_INCREF(rules);
    self->rules = rules;
    if (endgame != Py_None) {
        if (PyObject_GetBuffer(endgame, &self->db, PyBUF_SIMPLE) < 0) goto fail;
        EgRank size;
        if (seeds < 0 || seeds > EG_MAX_SEEDS || eg_rank_init(&size, 2 * r->pits, seeds) < 0) {
            PyErr_Format(PyExc_ValueError, "an endgame database holds 0 to %d seeds",
                         EG_MAX_SEEDS);
            goto fail;
        }
        int fits = (uint64_t)self->db.len == size.size;
        eg_rank_free(&size);
        if (!fits) {
            PyErr_Format(PyExc_ValueError, "not the values of a %d-pit database of %d seeds",
                         r->pits, seeds);
            goto fail;
        }
    }
    if (solve_init(&self->solver, r, hash_mb, self->db.obj ? self->db.buf : NULL, seeds,
                   threads) < 0) {
        PyErr_NoMemory();
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static void Solver_dealloc(SolverObject *self) {
    solve_free(&self->solver);
    if (self->db.obj) PyBuffer_Release(&self->db);
    Py_XDECREF(self->rules);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A position of the solved game (not while a probe runs): its board from the mover's side into
 * `view`, the stores' difference from his side and the seeds on the board. */
static int solver_read(SolverObject *self, PyObject *position, ManPos *p, ManPos *view,
                       int *banked, int *loose) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "a probe is running on this solver");
        return 0;
    }
    const ManRules *r = &self->solver.rules;
    if (!man_read(r, position, p)) return 0;
    int m = r->pits;
    eg_mover_view(r, p, view);
    *banked = (p->hole[m] - p->hole[2 * m + 1]) * (p->to_move ? -1 : 1);
    *loose = 0;
    for (int i = 0; i < m; i++) *loose += view->hole[i] + view->hole[m + 1 + i];
    return 1;
}

/* What a probe polls every 2^18 positions: a signal's handler, then its deadline. */
typedef struct {
    PyThreadState *save;
    double deadline; /* on search_clock's clock; 0: none */
} ProbePoll;

static int probe_interrupted(void *context) {
    ProbePoll *poll = context;
    if (signal_raised(&poll->save)) return 1;
    if (poll->deadline == 0 || search_clock() < poll->deadline) return 0;
    PyEval_RestoreThread(poll->save);
    PyErr_SetString(PyExc_TimeoutError, "the solver's time ran out");
    poll->save = PyEval_SaveThread();
    return 1;
}

static PyObject *Solver_test(SolverObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Solver *s = &self->solver;
    ManPos p, view;
    int banked, loose, value;
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "test(position, beta, seconds=None)");
        return NULL;
    }
    if (!solver_read(self, args[0], &p, &view, &banked, &loose)) return NULL;
    long long beta = PyLong_AsLongLong(args[1]);
    if (beta == -1 && PyErr_Occurred()) return NULL;
    ProbePoll poll = {NULL, 0};
    if (nargs == 3 && args[2] != Py_None) {
        double seconds = PyFloat_AsDouble(args[2]);
        if (seconds == -1 && PyErr_Occurred()) return NULL;
        poll.deadline = search_clock() + (seconds > 0 ? seconds : 0);
    }
    int moves[MAN_MAX_MOVES];
    if (!man_legal(&s->rules, &p, moves)) {
        int south, north;
        man_final(&s->rules, &p, &south, &north);
        return PyLong_FromLong((long)(south - north) * (p.to_move ? -1 : 1));
    }
    if (loose <= s->db_seeds)
        return PyLong_FromLong(banked + (s->db ? s->db[eg_rank(&s->db_rank, &view)] : 0));
    if (solve_reserve(s, loose) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "%d seeds on the board: too many for the native solver "
                     "(use backend 'python')",
                     loose);
        return NULL;
    }
    /* every value lies within +-loose: a window beyond that only needs to stay beyond it */
    long long relative = beta - banked;
    int window = relative > SOLVE_INF    ? SOLVE_INF
                 : relative < -SOLVE_INF ? -SOLVE_INF
                                         : (int)relative;
    self->busy = 1;
    s->interrupted = probe_interrupted;
    s->context = &poll;
    poll.save = PyEval_SaveThread();
    value = solve_test(s, &view, window);
    PyEval_RestoreThread(poll.save);
    self->busy = 0;
    if (s->stopped) {
        s->stopped = 0;
        return NULL; /* the exception a signal handler raised, or TimeoutError */
    }
    return PyLong_FromLong(banked + value);
}

static PyObject *Solver_best_move(SolverObject *self, PyObject *position) {
    ManPos p, view;
    int banked, loose;
    if (!solver_read(self, position, &p, &view, &banked, &loose)) return NULL;
    if (!self->solver.key.c || loose > self->solver.key.most) Py_RETURN_NONE;
    int pit = solve_best(&self->solver, &view);
    if (pit < 0) Py_RETURN_NONE;
    return PyLong_FromLong(pit + 1);
}

static PyObject *Solver_counts(SolverObject *self, PyObject *Py_UNUSED(ignored)) {
    uint64_t expanded, used;
    solve_counts(&self->solver, &expanded, &used);
    return Py_BuildValue("(KK)", (unsigned long long)expanded, (unsigned long long)used);
}

static PyObject *Solver_threads(SolverObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(self->solver.threads);
}

static PyGetSetDef Solver_getset[] = {
    {"threads", (getter)Solver_threads, NULL, "the threads that search each probe", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *Solver_build_endgame(PyObject *Py_UNUSED(cls), PyObject *args) {
    PyObject *rules;
    Py_buffer values;
    int seeds, status;
    if (!PyArg_ParseTuple(args, "Oiw*:build_endgame", &rules, &seeds, &values)) return NULL;
    const ManRules *r = solver_rules(rules);
    EgRank size;
    if (!r) goto fail;
    if (seeds < 0 || seeds > EG_MAX_SEEDS || eg_rank_init(&size, 2 * r->pits, seeds) < 0) {
        PyErr_Format(PyExc_ValueError, "an endgame database holds 0 to %d seeds", EG_MAX_SEEDS);
        goto fail;
    }
    int fits = (uint64_t)values.len == size.size;
    eg_rank_free(&size);
    if (!fits) {
        PyErr_Format(PyExc_ValueError, "not room for a %d-pit database of %d seeds", r->pits,
                     seeds);
        goto fail;
    }
    PyThreadState *save = PyEval_SaveThread();
    status = eg_build(r, seeds, values.buf, signal_raised, &save);
    PyEval_RestoreThread(save);
    PyBuffer_Release(&values);
    if (status == 0) Py_RETURN_NONE;
    return status == -1 ? PyErr_NoMemory() : NULL;
fail:
    PyBuffer_Release(&values);
    return NULL;
}

static PyMethodDef Solver_methods[] = {
    {"test", (PyCFunction)(void (*)(void))Solver_test, METH_FASTCALL,
     "A null-window probe without the GIL: the mover's final margin if it is beta - 1 or beta, "
     "else a bound on it; TimeoutError after `seconds`, if given (polled every 2^18 positions)."},
    {"best_move", (PyCFunction)Solver_best_move, METH_O,
     "The table's best move for the position, or None."},
    {"counts", (PyCFunction)Solver_counts, METH_NOARGS,
     "(positions expanded, table entries) so far."},
    {"build_endgame", (PyCFunction)Solver_build_endgame, METH_VARARGS | METH_STATIC,
     "build_endgame(rules, seeds, values): fills `values` (a writable buffer of the database's "
     "size) with engine/endgame.py's database values, without the GIL."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Solver",
    .tp_doc = PyDoc_STR("engine/solve.py's solver over one mancala variant's native rules."),
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Solver_new,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};
