/* ubao.engine._native: the rules of the mancala family, Othello and Bao in C, behind the
 * Python engine's own position values (engine/backend.py wraps them as `Game` classes), their
 * search and the mancala solver. This file holds the module and what its types share (bind.h);
 * each type is bound in its own file: bind_mancala.c, bind_othello.c, bind_bao.c,
 * bind_search.c, bind_solve.c, bind_othello_endgame.c, bind_othello_patterns.c,
 * bind_othello_board8.c. */
#include "bind.h"
#include "othello_board8.h" /* ob_select_from_environment */

PyObject *position_error;

int read_depth(PyObject *value) {
    long depth = PyLong_AsLong(value);
    if (depth == -1 && PyErr_Occurred()) return -1;
    if (depth < 0 || depth > MAX_PERFT_DEPTH) {
        PyErr_Format(position_error, "perft depth must be 0 to %d, not %ld", MAX_PERFT_DEPTH,
                     depth);
        return -1;
    }
    return (int)depth;
}

int signal_raised(void *context) {
    PyThreadState **save = context;
    PyEval_RestoreThread(*save);
    int raised = PyErr_CheckSignals() < 0;
    *save = PyEval_SaveThread();
    return raised;
}

/* -- the module ------------------------------------------------------------------------------ */

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ubao.engine._native",
    .m_doc = PyDoc_STR("The native core: the rules of the mancala family, Othello and Bao, "
                       "perft, and their negamax search."),
    .m_size = -1,
    .m_methods = oth_pattern_functions,
};

/* Readies `type` and adds it to `module` as `name`; -1 with an exception set on failure. */
static int add_type(PyObject *module, const char *name, PyTypeObject *type) {
    if (PyType_Ready(type) < 0) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *game = PyImport_ImportModule("ubao.engine.game");
    if (!game) return NULL;
    position_error = PyObject_GetAttrString(game, "PositionError");
    Py_DECREF(game);
    if (!position_error) return NULL;
    ob_select_from_environment(); /* the 8x8 board operations' path: before any use */
    PyObject *module = PyModule_Create(&native_module);
    if (!module) return NULL;
    if (PyModule_AddFunctions(module, ob_functions) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    if (add_type(module, "Mancala", &ManType) < 0 || add_type(module, "Othello", &OthType) < 0 ||
        add_type(module, "Search", &SearchType) < 0 || add_type(module, "Bao", &BaoType) < 0 ||
        add_type(module, "Solver", &SolverType) < 0 ||
        add_type(module, "OthelloEndgame", &EndgameType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
