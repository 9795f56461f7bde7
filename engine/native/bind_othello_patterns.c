/* ubao.engine._native.load_othello_patterns: hands the `patterns` weights to the core once
 * (engine/backend.py, after engine/othello/patterns.py has checked the file's digest). */
#include "bind.h"
#include "othello_patterns.h"

static PyObject *load_othello_patterns(PyObject *module, PyObject *data) {
    (void)module;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    int loaded = oth_patterns_load(view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (!loaded) {
        PyErr_SetString(PyExc_ValueError, "not the patterns' weights (wrong size)");
        return NULL;
    }
    Py_RETURN_NONE;
}

PyMethodDef oth_pattern_functions[] = {
    {"load_othello_patterns", load_othello_patterns, METH_O,
     PyDoc_STR("Keeps the `patterns` evaluation's weights (native int16s); the first stay.")},
    {NULL, NULL, 0, NULL},
};
