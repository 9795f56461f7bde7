/* ubao.engine._native's 8x8 board operations (othello_board8.h) seen from Python: which path
 * runs and which may, a switch between them, and the operations themselves on two words, so that the tests
 * compare the paths square for square and the benchmarks time each. */
#include "bind.h"
#include "othello_board8.h"

static PyObject *othello_board8_path(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    return PyUnicode_FromString(ob_path_name(ob_path_running()));
}

static PyObject *othello_board8_paths(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    PyObject *offered = PyList_New(0);
    for (int path = 0; offered && path < OB_PATHS; path++) {
        if (!ob_path_available(path)) continue;
        PyObject *name = PyUnicode_FromString(ob_path_name(path));
        if (!name || PyList_Append(offered, name) < 0) Py_CLEAR(offered);
        Py_XDECREF(name);
    }
    return offered;
}

static PyObject *set_othello_board8_path(PyObject *module, PyObject *name) {
    (void)module;
    const char *asked = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (!asked) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "a path's name: 'portable', 'avx2' or 'avx512'");
        return NULL;
    }
    int path = ob_path_named(asked);
    if (path < 0) {
        PyErr_Format(PyExc_ValueError, "no board path %R: 'portable', 'avx2' or 'avx512'", name);
        return NULL;
    }
    if (!ob_path_available(path)) {
        PyErr_Format(PyExc_ValueError, "this CPU (or build) has no %s path", asked);
        return NULL;
    }
    return PyUnicode_FromString(ob_path_name(ob_select(path)));
}

/* Two words (the mover's discs, the opponent's), disjoint; 0 with an exception set if not. */
static int ob_read(PyObject *const *args, uint64_t *own, uint64_t *opp) {
    *own = PyLong_AsUnsignedLongLong(args[0]);
    if (PyErr_Occurred()) return 0;
    *opp = PyLong_AsUnsignedLongLong(args[1]);
    if (PyErr_Occurred()) return 0;
    if (*own & *opp) {
        PyErr_SetString(position_error, "the two boards share a square");
        return 0;
    }
    return 1;
}

static PyObject *othello_board8_placements(PyObject *module, PyObject *const *args,
                                           Py_ssize_t nargs) {
    (void)module;
    uint64_t own, opp;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "othello_board8_placements(own, opp)");
        return NULL;
    }
    if (!ob_read(args, &own, &opp)) return NULL;
    return PyLong_FromUnsignedLongLong(ob_placements(own, opp));
}

static PyObject *othello_board8_flips(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    uint64_t own, opp;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "othello_board8_flips(own, opp, square)");
        return NULL;
    }
    if (!ob_read(args, &own, &opp)) return NULL;
    long square = PyLong_AsLong(args[2]);
    if (square == -1 && PyErr_Occurred()) return NULL;
    if (square < 0 || square >= 64 || ((own | opp) >> square & 1)) {
        PyErr_SetString(position_error, "not an empty square of the board");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(ob_flips(own, opp, (int)square));
}

PyMethodDef ob_functions[] = {
    {"othello_board8_path", othello_board8_path, METH_NOARGS,
     PyDoc_STR("The path of the 8x8 board operations that runs: 'portable', 'avx2', 'avx512'.")},
    {"othello_board8_paths", othello_board8_paths, METH_NOARGS,
     PyDoc_STR("The paths this CPU (and build) runs, the slowest first.")},
    {"set_othello_board8_path", set_othello_board8_path, METH_O,
     PyDoc_STR("Runs the 8x8 board operations by the path named; returns its name.")},
    {"othello_board8_placements", (PyCFunction)(void (*)(void))othello_board8_placements,
     METH_FASTCALL, PyDoc_STR("The squares where the mover (own) may place a disc.")},
    {"othello_board8_flips", (PyCFunction)(void (*)(void))othello_board8_flips, METH_FASTCALL,
     PyDoc_STR("The opponent discs a disc of the mover's on an empty square turns.")},
    {NULL, NULL, 0, NULL},
};
