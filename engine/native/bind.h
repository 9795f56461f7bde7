/* What the binding files of ubao.engine._native share: module.c (the module, its errors and
 * helpers) and one bind_*.c per Python type. The rules' objects are here because the Search and
 * Solver types read positions through them.
 *
 * Positions cross the boundary as the Python engine builds them (each bind_*.c says how), and
 * methods return None where the Python rules must answer instead (an illegal move, whose error
 * message the Python class writes). */
#ifndef UBAO_BIND_H
#define UBAO_BIND_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bao.h"
#include "constants.h" /* MAX_PERFT_DEPTH */
#include "mancala.h"
#include "othello.h"

#define MAX_HASH_MB (1 << 30) /* a petabyte of table: beyond any machine, and no overflow */

/* What the rules' methods raise for a value they cannot take (a position malformed or beyond
 * the core's bounds, a move or depth out of range): ubao.engine.game.PositionError, a
 * ValueError that the API's callers catch as a GameError, as for the Python rules. */
extern PyObject *position_error;

/* A perft depth, or -1 with an exception set. */
int read_depth(PyObject *value);

/* Polled by a long search, probe or build without the GIL (`context`: the PyThreadState saved
 * when it was released): takes the GIL back for a moment to run the signal handlers (Ctrl-C);
 * nonzero, with the exception set, when one raised. */
int signal_raised(void *context);

extern PyTypeObject ManType, OthType, BaoType, SearchType, SolverType, EndgameType;
extern PyMethodDef oth_pattern_functions[]; /* bind_othello_patterns.c */
extern PyMethodDef ob_functions[];          /* bind_othello_board8.c */

typedef struct {
    PyObject_HEAD ManRules rules;
} ManObject;

typedef struct {
    PyObject_HEAD int wide; /* the board needs four words (above 8x8) */
    Oth64 narrow;
    Oth256 broad;
    PyObject *position_type; /* engine.othello.Position */
} OthObject;

typedef struct {
    PyObject_HEAD BaoRules rules;
    PyObject *moves[BAO_MOVE_CODES]; /* the BaoMove of each move code */
} BaoObject;

/* Reads a position of the game into the core's; 0 with an exception set when it is not one
 * (Othello's boards in the low word only on narrow boards). */
int man_read(const ManRules *r, PyObject *tuple, ManPos *p);
int oth_read(OthObject *self, PyObject *position, Bb256 *black, Bb256 *white, int *player);
int bao_read(PyObject *position, BaoPos *p);

/* A Bao move: its code (-1 when `move` is not a BaoMove of the core's range), and the BaoMove
 * of a code (a new reference). */
int bao_code(PyObject *move);
PyObject *bao_move(BaoObject *self, int code);

#endif
