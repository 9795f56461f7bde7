/* ubao.engine._native.Mancala: the rules of the mancala family (mancala.c) on the Python
 * engine's positions, a tuple of hole counts and the player to move. */
#include "bind.h"

/* Reads a position (a tuple, or the list the Python rules sow in) into `p`; 0 with an
 * exception set when it is not a position of this game. */
int man_read(const ManRules *r, PyObject *tuple, ManPos *p) {
    if (!(PyTuple_Check(tuple) || PyList_Check(tuple)) ||
        PySequence_Fast_GET_SIZE(tuple) != r->ring + 1) {
        PyErr_Format(position_error, "a position of %d-pit mancala is a tuple of %d integers",
                     r->pits, r->ring + 1);
        return 0;
    }
    for (int i = 0; i <= r->ring; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(tuple, i);
        long value = PyLong_Check(item) ? PyLong_AsLong(item) : -1;
        if (value == -1 && PyErr_Occurred()) PyErr_Clear();
        long high = i == r->ring ? 1 : MAN_MAX_COUNT;
        if (value < 0 || value > high) {
            PyErr_Format(position_error,
                         "position item %d must be an integer from 0 to %ld for the native "
                         "core (use backend='python' beyond that)",
                         i, high);
            return 0;
        }
        if (i == r->ring)
            p->to_move = (int)value;
        else
            p->hole[i] = (int)value;
    }
    return 1;
}

static PyObject *man_tuple(const ManRules *r, const ManPos *p) {
    PyObject *tuple = PyTuple_New(r->ring + 1);
    if (!tuple) return NULL;
    for (int i = 0; i <= r->ring; i++) {
        PyObject *item = PyLong_FromLong(i == r->ring ? p->to_move : p->hole[i]);
        if (!item) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

/* The rules are set once, at creation (no __init__), so that a perft running without the GIL
 * never sees them change. */
static PyObject *Man_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"pits",      "capture_sower",   "empty_capture",    "end_mover",
                            "remaining_mover", "choose_direction", "early_end", NULL};
    int pits, capture_sower, empty_capture, end_mover, remaining_mover, choose_direction;
    int early_end = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ippppp|p:Mancala", names, &pits,
                                     &capture_sower, &empty_capture, &end_mover,
                                     &remaining_mover, &choose_direction, &early_end))
        return NULL;
    if (pits < 1 || pits > MAN_MAX_PITS) {
        PyErr_Format(PyExc_ValueError, "pits must be 1 to %d", MAN_MAX_PITS);
        return NULL;
    }
    ManObject *self = (ManObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    man_init(&self->rules, pits, capture_sower, empty_capture, end_mover, remaining_mover,
             choose_direction, early_end);
    return (PyObject *)self;
}

static PyObject *Man_legal_moves(ManObject *self, PyObject *position) {
    const ManRules *r = &self->rules;
    ManPos p;
    int moves[MAN_MAX_MOVES];
    if (!man_read(r, position, &p)) return NULL;
    int n = man_legal(r, &p, moves);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *move = PyLong_FromLong(r->move[p.to_move][moves[i]]);
        if (!move) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, move);
    }
    return list;
}

static PyObject *Man_play(ManObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const ManRules *r = &self->rules;
    ManPos p, after;
    int moves[MAN_MAX_MOVES];
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(position, move)");
        return NULL;
    }
    if (!man_read(r, args[0], &p)) return NULL;
    if (!PyLong_Check(args[1])) Py_RETURN_NONE;
    long move = PyLong_AsLong(args[1]);
    if (move == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int n = man_legal(r, &p, moves);
    for (int i = 0; i < n; i++) {
        if (r->move[p.to_move][moves[i]] == move) {
            man_sow(r, &p, moves[i], &after);
            return man_tuple(r, &after);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *Man_child(ManObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const ManRules *r = &self->rules;
    ManPos p, after;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "child(position, move)");
        return NULL;
    }
    if (!man_read(r, args[0], &p)) return NULL;
    long move = PyLong_Check(args[1]) ? PyLong_AsLong(args[1]) : 0;
    if (move == -1 && PyErr_Occurred()) PyErr_Clear();
    for (int k = 0; k < r->count[p.to_move]; k++) {
        if (r->move[p.to_move][k] == move) {
            man_sow(r, &p, k, &after);
            return man_tuple(r, &after);
        }
    }
    PyErr_Format(position_error, "%R is not a move of this game", args[1]);
    return NULL;
}

static PyObject *Man_children(ManObject *self, PyObject *position) {
    const ManRules *r = &self->rules;
    ManPos p, child;
    int moves[MAN_MAX_MOVES];
    if (!man_read(r, position, &p)) return NULL;
    int n = man_legal(r, &p, moves);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        man_sow(r, &p, moves[i], &child);
        PyObject *pair = PyTuple_New(2), *move = PyLong_FromLong(r->move[p.to_move][moves[i]]);
        PyObject *tuple = man_tuple(r, &child);
        if (!pair || !move || !tuple) {
            Py_XDECREF(pair);
            Py_XDECREF(move);
            Py_XDECREF(tuple);
            Py_DECREF(list);
            return NULL;
        }
        PyTuple_SET_ITEM(pair, 0, move);
        PyTuple_SET_ITEM(pair, 1, tuple);
        PyList_SET_ITEM(list, i, pair);
    }
    return list;
}

static PyObject *Man_is_over(ManObject *self, PyObject *position) {
    ManPos p;
    if (!man_read(&self->rules, position, &p)) return NULL;
    return PyBool_FromLong(man_is_over(&self->rules, &p));
}

static PyObject *Man_final_score(ManObject *self, PyObject *position) {
    ManPos p;
    int south, north;
    if (!man_read(&self->rules, position, &p)) return NULL;
    if (!man_is_over(&self->rules, &p)) Py_RETURN_NONE;
    man_final(&self->rules, &p, &south, &north);
    return Py_BuildValue("(ii)", south, north);
}

static PyObject *Man_perft(ManObject *self, PyObject *const *args, Py_ssize_t nargs) {
    ManPos p;
    uint64_t nodes;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "perft(position, depth)");
        return NULL;
    }
    if (!man_read(&self->rules, args[0], &p)) return NULL;
    int depth = read_depth(args[1]);
    if (depth < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    nodes = man_perft(&self->rules, &p, depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(nodes);
}

static PyMethodDef Man_methods[] = {
    {"legal_moves", (PyCFunction)Man_legal_moves, METH_O, "The legal moves, in the rules' order."},
    {"play", (PyCFunction)(void (*)(void))Man_play, METH_FASTCALL,
     "The position after a legal move, or None when the move is not legal."},
    {"child", (PyCFunction)(void (*)(void))Man_child, METH_FASTCALL,
     "The position after a move of the game, without checking that it is legal here."},
    {"children", (PyCFunction)Man_children, METH_O, "Every legal move with its position."},
    {"is_over", (PyCFunction)Man_is_over, METH_O, "Whether the game is over."},
    {"final_score", (PyCFunction)Man_final_score, METH_O,
     "The final (south, north) stores if the game is over, else None."},
    {"perft", (PyCFunction)(void (*)(void))Man_perft, METH_FASTCALL,
     "Move sequences of `depth` plies, counted without the GIL."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ManType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Mancala",
    .tp_doc = PyDoc_STR("The rules of one two-row mancala variant."),
    .tp_basicsize = sizeof(ManObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Man_new,
    .tp_methods = Man_methods,
};
