/* ubao.engine._native.OthelloEndgame: the 8x8 endgame solver of othello_endgame.h over an
 * Othello object's positions, without the GIL. */
#include "bind.h"

#include "othello_endgame.h"
#include "search.h" /* search_clock */

typedef struct {
    PyObject_HEAD OeSolver solver;
    PyObject *rules; /* the Othello object whose positions are solved (8x8) */
    int busy;        /* a search is running without the GIL */
} EndgameObject;

static PyObject *Endgame_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"rules", "hash_mb", NULL};
    PyObject *rules;
    double hash_mb;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!d:OthelloEndgame", names, &OthType, &rules,
                                     &hash_mb))
        return NULL;
    OthObject *othello = (OthObject *)rules;
    if (othello->wide || othello->narrow.size != 8) {
        PyErr_SetString(PyExc_ValueError, "the endgame solver plays 8x8 boards only");
        return NULL;
    }
    if (!(hash_mb >= 0 && hash_mb <= MAX_HASH_MB)) {
        PyErr_Format(PyExc_ValueError, "the table's memory must be 0 to %d MB", MAX_HASH_MB);
        return NULL;
    }
    EndgameObject *self = (EndgameObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (oe_init(&self->solver, hash_mb) < 0) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    Py_INCREF(rules);
    self->rules = rules;
    return (PyObject *)self;
}

static void Endgame_dealloc(EndgameObject *self) {
    oe_free(&self->solver);
    Py_XDECREF(self->rules);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The mover's discs and the opponent's; 0 with an exception set. */
static int endgame_read(EndgameObject *self, PyObject *position, uint64_t *own, uint64_t *opp) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "a search is running on this solver");
        return 0;
    }
    Bb256 black, white;
    int player;
    if (!oth_read((OthObject *)self->rules, position, &black, &white, &player)) return 0;
    *own = player ? white.w[0] : black.w[0];
    *opp = player ? black.w[0] : white.w[0];
    return 1;
}

static PyObject *Endgame_search(EndgameObject *self, PyObject *const *args, Py_ssize_t nargs) {
    uint64_t own, opp;
    if (nargs < 3 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError, "search(position, alpha, beta, seconds=0.0)");
        return NULL;
    }
    if (!endgame_read(self, args[0], &own, &opp)) return NULL;
    long alpha = PyLong_AsLong(args[1]), beta = PyLong_AsLong(args[2]);
    double seconds = nargs == 4 ? PyFloat_AsDouble(args[3]) : 0.0;
    if (PyErr_Occurred()) return NULL;
    if (!(-64 <= alpha && alpha < beta && beta <= 64) || !(seconds >= 0)) {
        PyErr_SetString(PyExc_ValueError, "need -64 <= alpha < beta <= 64 and seconds >= 0");
        return NULL;
    }
    OeSolver *s = &self->solver;
    PyThreadState *save;
    s->interrupted = signal_raised;
    s->context = &save;
    s->deadline = seconds > 0 ? search_clock() + seconds : 0;
    self->busy = 1;
    save = PyEval_SaveThread();
    int value = oe_search(s, own, opp, (int)alpha, (int)beta);
    PyEval_RestoreThread(save);
    self->busy = 0;
    if (PyErr_Occurred()) return NULL; /* Ctrl-C */
    if (s->stopped) Py_RETURN_NONE;    /* out of time */
    return PyLong_FromLong(value);
}

static PyObject *Endgame_table_move(EndgameObject *self, PyObject *position) {
    uint64_t own, opp;
    if (!endgame_read(self, position, &own, &opp)) return NULL;
    int move = oe_table_move(&self->solver, own, opp);
    if (move < 0) Py_RETURN_NONE;
    return PyLong_FromLong(move);
}

static PyObject *Endgame_nodes(EndgameObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromUnsignedLongLong(self->solver.nodes);
}

static PyObject *Endgame_stop(EndgameObject *self, PyObject *unused) {
    (void)unused;
    oe_halt(&self->solver);
    Py_RETURN_NONE;
}

static PyObject *Endgame_clear(EndgameObject *self, PyObject *unused) {
    (void)unused;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "a search is running on this solver");
        return NULL;
    }
    oe_clear(&self->solver);
    Py_RETURN_NONE;
}

static PyMethodDef Endgame_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Endgame_search, METH_FASTCALL,
     "The mover's final disc margin if strictly between alpha and beta, else a bound on it; "
     "None when `seconds` (0: no limit) ran out first."},
    {"table_move", (PyCFunction)Endgame_table_move, METH_O,
     "The best placement the table holds for the position, or None."},
    {"nodes", (PyCFunction)Endgame_nodes, METH_NOARGS,
     "Positions searched since the solver was made (read live during a search too)."},
    {"stop", (PyCFunction)Endgame_stop, METH_NOARGS,
     "Ends the running search from any thread: it returns None."},
    {"clear", (PyCFunction)Endgame_clear, METH_NOARGS, "Empties the table."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject EndgameType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.OthelloEndgame",
    .tp_doc = PyDoc_STR("The exact 8x8 Othello endgame solver, with its own table."),
    .tp_basicsize = sizeof(EndgameObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Endgame_new,
    .tp_dealloc = (destructor)Endgame_dealloc,
    .tp_methods = Endgame_methods,
};
