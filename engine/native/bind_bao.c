/* ubao.engine._native.Bao: Bao's rules (bao.c) on the Python engine's positions, tuples of 42
 * ints, and moves, `BaoMove(hole, direction, safari)`, whose class the core is given. */
#include "bind.h"

#include <string.h>

static const char *const bao_reasons[] = {"front_row_empty", "never_ending", "no_moves",
                                          "ply_limit"};

/* Reads a position (a tuple of 42 ints, or a list) into `p`; 0 with ValueError when it is not
 * one the core takes. */
int bao_read(PyObject *position, BaoPos *p) {
    /* each field's range: the ring, stocks and hand up to BAO_MAX_COUNT, flags 0/1, holes */
    static const struct {
        int low, high;
    } fields[BAO_FIELDS - 32] = {{0, BAO_MAX_COUNT}, {0, BAO_MAX_COUNT}, {0, 1}, {0, 1},
                                 {0, 1},             {-1, 7},            {-1, 7}, {0, BAO_MAX_COUNT},
                                 {0, 1},             {0, BAO_MAX_PLY}};
    int value[BAO_FIELDS];
    if (!(PyTuple_Check(position) || PyList_Check(position)) ||
        PySequence_Fast_GET_SIZE(position) != BAO_FIELDS) {
        PyErr_SetString(position_error, "a Bao position is a tuple of 42 integers");
        return 0;
    }
    for (int i = 0; i < BAO_FIELDS; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(position, i);
        long number = PyLong_Check(item) ? PyLong_AsLong(item) : -2;
        if (number == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            number = -2;
        }
        int low = i < 32 ? 0 : fields[i - 32].low, high = i < 32 ? BAO_MAX_COUNT : fields[i - 32].high;
        if (number < low || number > high) {
            PyErr_Format(position_error,
                         "Bao position item %d must be an integer from %d to %d for the native "
                         "core (use backend='python' beyond that)",
                         i, low, high);
            return 0;
        }
        value[i] = (int)number;
    }
    memcpy(p->ring, value, sizeof p->ring);
    p->stock[0] = value[32];
    p->stock[1] = value[33];
    p->owned[0] = value[34];
    p->owned[1] = value[35];
    p->to_move = value[36];
    p->takasia = value[37];
    p->target = value[38];
    p->hand = value[39];
    p->endless = value[40];
    p->ply = value[41];
    return 1;
}

static PyObject *bao_tuple(const BaoPos *p) {
    const int tail[BAO_FIELDS - 32] = {p->stock[0], p->stock[1], p->owned[0], p->owned[1],
                                       p->to_move,  p->takasia,  p->target,   p->hand,
                                       p->endless,  p->ply};
    PyObject *tuple = PyTuple_New(BAO_FIELDS);
    if (!tuple) return NULL;
    for (int i = 0; i < BAO_FIELDS; i++) {
        PyObject *item = PyLong_FromLong(i < 32 ? p->ring[i / 16][i % 16] : tail[i - 32]);
        if (!item) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return tuple;
}

/* The code of a move `(hole, direction, safari)`, or -1 when it is not one. */
int bao_code(PyObject *move) {
    if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 3) return -1;
    long item[3];
    for (int i = 0; i < 3; i++) {
        PyObject *value = PyTuple_GET_ITEM(move, i);
        item[i] = PyLong_Check(value) ? PyLong_AsLong(value) : -2;
        if (item[i] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
    }
    if (item[0] < 0 || item[0] > 15 || (item[1] != 1 && item[1] != -1) ||
        (item[2] != 0 && item[2] != 1))
        return -1;
    return (int)((item[0] * 2 + (item[1] > 0)) * 2 + item[2]);
}

PyObject *bao_move(BaoObject *self, int code) {
    Py_INCREF(self->moves[code]);
    return self->moves[code];
}

/* Index of `value` in `names`, or -1 with ValueError naming the option. */
static int bao_choice(const char *option, const char *value, const char *const *names,
                      int count) {
    for (int i = 0; i < count; i++)
        if (!strcmp(value, names[i])) return i;
    PyErr_Format(PyExc_ValueError, "bao option %s cannot be %s", option, value);
    return -1;
}

/* The rules are set once, at creation, from engine/bao/game.py's validated options (its FLAGS). */
static PyObject *Bao_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"move_type",
                            "max_plies",
                            "namua_takasa_nyumba_stop",
                            "namua_singleton",
                            "tax_any_owned",
                            "sixteen_rule",
                            "ownership_lost_first_mtaji_capture",
                            "mtaji_takasa_stop_at_nyumba",
                            "mtaji_capture_nyumba_choice",
                            "takasia",
                            "takasia_singleton_exception",
                            "takasia_nyumba_first_lap_exception",
                            "takasia_attacker_must_capture",
                            "never_ending",
                            "front_empty_check",
                            NULL};
    static const char *const stops[] = {"forced", "optional"};
    static const char *const singletons[] = {"owned", "functional", "always"};
    static const char *const losses[] = {"both", "mover", "off"};
    static const char *const takasias[] = {"de_voogt", "mtaji_moja", "none"};
    static const char *const endings[] = {"illegal", "loss", "draw"};
    static const char *const checks[] = {"immediate", "end_of_move"};
    PyObject *move_type;
    int max_plies, tax_any_owned, sixteen_rule, takasa_stop_at_nyumba, capture_nyumba_choice;
    int singleton_exception, first_lap_exception, attacker_must_capture;
    const char *stop, *singleton, *lose, *takasia, *never_ending, *front_check;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwargs, "O!issppsppspppss:Bao", names, &PyType_Type, &move_type, &max_plies,
            &stop, &singleton, &tax_any_owned, &sixteen_rule, &lose, &takasa_stop_at_nyumba,
            &capture_nyumba_choice, &takasia, &singleton_exception, &first_lap_exception,
            &attacker_must_capture, &never_ending, &front_check))
        return NULL;
    int stop_i = bao_choice("namua_takasa_nyumba_stop", stop, stops, 2);
    int singleton_i = stop_i < 0 ? -1 : bao_choice("namua_singleton", singleton, singletons, 3);
    int lose_i = singleton_i < 0 ? -1
                                 : bao_choice("ownership_lost_first_mtaji_capture", lose, losses, 3);
    int takasia_i = lose_i < 0 ? -1 : bao_choice("takasia", takasia, takasias, 3);
    int ending_i = takasia_i < 0 ? -1 : bao_choice("never_ending", never_ending, endings, 3);
    int check_i = ending_i < 0 ? -1 : bao_choice("front_empty_check", front_check, checks, 2);
    if (check_i < 0) return NULL;
    if (max_plies < 0 || max_plies > BAO_MAX_PLY) {
        PyErr_Format(PyExc_ValueError, "max_plies must be 0 to %d", BAO_MAX_PLY);
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)move_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "move_type must be a tuple type");
        return NULL;
    }
    BaoObject *self = (BaoObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    bao_init(&self->rules, stop_i, singleton_i, tax_any_owned, sixteen_rule, lose_i,
             takasa_stop_at_nyumba, capture_nyumba_choice, takasia_i, singleton_exception,
             first_lap_exception, attacker_must_capture, ending_i, check_i == 0, max_plies);
    for (int code = 0; code < BAO_MOVE_CODES; code++) {
        /* tuple.__new__(BaoMove, items): the named tuple without its Python constructor */
        PyObject *items = Py_BuildValue("(iiO)", code >> 2, code & 2 ? 1 : -1,
                                        code & 1 ? Py_True : Py_False);
        PyObject *call = items ? PyTuple_Pack(1, items) : NULL;
        Py_XDECREF(items);
        self->moves[code] = call ? PyTuple_Type.tp_new((PyTypeObject *)move_type, call, NULL)
                                 : NULL;
        Py_XDECREF(call);
        if (!self->moves[code]) {
            Py_DECREF(self);
            return NULL;
        }
    }
    return (PyObject *)self;
}

static void Bao_dealloc(BaoObject *self) {
    for (int code = 0; code < BAO_MOVE_CODES; code++) Py_XDECREF(self->moves[code]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Bao_children(BaoObject *self, PyObject *position) {
    BaoPos p, kids[BAO_MAX_MOVES];
    int codes[BAO_MAX_MOVES];
    if (!bao_read(position, &p)) return NULL;
    int n = bao_children(&self->rules, &p, codes, kids);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *child = bao_tuple(&kids[i]);
        PyObject *pair = child ? PyTuple_Pack(2, self->moves[codes[i]], child) : NULL;
        Py_XDECREF(child);
        if (!pair) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, pair);
    }
    return list;
}

static PyObject *Bao_search_moves(BaoObject *self, PyObject *position) {
    BaoPos p;
    int codes[BAO_MAX_MOVES];
    if (!bao_read(position, &p)) return NULL;
    int n = bao_order(&self->rules, &p, codes);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(list, i, bao_move(self, codes[i]));
    return list;
}

static PyObject *Bao_play(BaoObject *self, PyObject *const *args, Py_ssize_t nargs) {
    BaoPos p, child;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(position, move)");
        return NULL;
    }
    if (!bao_read(args[0], &p)) return NULL;
    int code = bao_code(args[1]);
    if (code < 0 || !bao_play(&self->rules, &p, code, &child)) Py_RETURN_NONE;
    return bao_tuple(&child);
}

static PyObject *Bao_is_over(BaoObject *self, PyObject *position) {
    BaoPos p;
    if (!bao_read(position, &p)) return NULL;
    return PyBool_FromLong(bao_is_over(&self->rules, &p));
}

static PyObject *Bao_outcome(BaoObject *self, PyObject *position) {
    BaoPos p;
    int winner, south, north, reason;
    if (!bao_read(position, &p)) return NULL;
    if (!bao_outcome(&self->rules, &p, &winner, &south, &north, &reason)) Py_RETURN_NONE;
    if (winner < 0) return Py_BuildValue("(O(ii)s)", Py_None, south, north, bao_reasons[reason]);
    return Py_BuildValue("(i(ii)s)", winner, south, north, bao_reasons[reason]);
}

static PyObject *Bao_perft(BaoObject *self, PyObject *const *args, Py_ssize_t nargs) {
    BaoPos p;
    uint64_t nodes;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "perft(position, depth)");
        return NULL;
    }
    if (!bao_read(args[0], &p)) return NULL;
    int depth = read_depth(args[1]);
    if (depth < 0) return NULL;
    /* the children of every ply but the last, on the heap: deep counts need no deep stack */
    BaoPos *levels = NULL;
    if (depth > 1) {
        levels = PyMem_Malloc(sizeof *levels * BAO_MAX_MOVES * (size_t)(depth - 1));
        if (!levels) return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    nodes = bao_perft(&self->rules, &p, depth, levels);
    Py_END_ALLOW_THREADS
    PyMem_Free(levels);
    return PyLong_FromUnsignedLongLong(nodes);
}

static PyMethodDef Bao_methods[] = {
    {"children", (PyCFunction)Bao_children, METH_O,
     "Every legal move with its position, in generation order."},
    {"search_moves", (PyCFunction)Bao_search_moves, METH_O,
     "The legal moves, the mover's best material first (`Bao.search_moves`)."},
    {"play", (PyCFunction)(void (*)(void))Bao_play, METH_FASTCALL,
     "The position after a legal move, or None when the move is not legal."},
    {"is_over", (PyCFunction)Bao_is_over, METH_O, "Whether the game is over."},
    {"outcome", (PyCFunction)Bao_outcome, METH_O,
     "(winner or None, (south, north), reason) if the game is over, else None."},
    {"perft", (PyCFunction)(void (*)(void))Bao_perft, METH_FASTCALL,
     "Move sequences of `depth` plies, counted without the GIL."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject BaoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Bao",
    .tp_doc = PyDoc_STR("The rules of Bao la Kiswahili under one set of options."),
    .tp_basicsize = sizeof(BaoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Bao_new,
    .tp_dealloc = (destructor)Bao_dealloc,
    .tp_methods = Bao_methods,
};
