/* ubao.engine._native: the rules of the mancala family, Othello and Bao in C, behind the
 * Python engine's own position values (engine/backend.py wraps them as `Game` classes).
 *
 * Positions cross the boundary as the Python engine builds them: a mancala position is a tuple
 * of hole counts and the player to move; an Othello position is `Position(black, white,
 * player)`, whose class the core is given; a Bao position is its tuple of 42 ints and a Bao
 * move a `BaoMove(hole, direction, safari)`, whose class the core is given. Methods return None where the Python rules must
 * answer instead (an illegal move, whose error message the Python class writes). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "mancala.h"
#include "othello.h"
#include "search.h"

#define MAX_HASH_MB (1 << 30) /* a petabyte of table: beyond any machine, and no overflow */
#define MAX_PERFT_DEPTH 1000 /* as deep as Python's recursion limit lets the Python perft go */

/* What the rules' methods raise for a value they cannot take (a position malformed or beyond
 * the core's bounds, a move or depth out of range): ubao.engine.game.PositionError, a
 * ValueError that the API's callers catch as a GameError, as for the Python rules. */
static PyObject *position_error;

/* A perft depth, or -1 with an exception set. */
static int read_depth(PyObject *value) {
    long depth = PyLong_AsLong(value);
    if (depth == -1 && PyErr_Occurred()) return -1;
    if (depth < 0 || depth > MAX_PERFT_DEPTH) {
        PyErr_Format(position_error, "perft depth must be 0 to %d, not %ld", MAX_PERFT_DEPTH,
                     depth);
        return -1;
    }
    return (int)depth;
}

/* -- mancala --------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD ManRules rules;
} ManObject;

/* Reads a position (a tuple, or the list the Python rules sow in) into `p`; 0 with an
 * exception set when it is not a position of this game. */
static int man_read(const ManRules *r, PyObject *tuple, ManPos *p) {
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
                            "remaining_mover", "choose_direction", NULL};
    int pits, capture_sower, empty_capture, end_mover, remaining_mover, choose_direction;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ippppp:Mancala", names, &pits,
                                     &capture_sower, &empty_capture, &end_mover,
                                     &remaining_mover, &choose_direction))
        return NULL;
    if (pits < 1 || pits > MAN_MAX_PITS) {
        PyErr_Format(PyExc_ValueError, "pits must be 1 to %d", MAN_MAX_PITS);
        return NULL;
    }
    ManObject *self = (ManObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    man_init(&self->rules, pits, capture_sower, empty_capture, end_mover, remaining_mover,
             choose_direction);
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

static PyTypeObject ManType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Mancala",
    .tp_doc = PyDoc_STR("The rules of one two-row mancala variant."),
    .tp_basicsize = sizeof(ManObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Man_new,
    .tp_methods = Man_methods,
};

/* -- othello --------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD int wide; /* the board needs four words (above 8x8) */
    Oth64 narrow;
    Oth256 broad;
    PyObject *position_type; /* engine.othello.Position */
} OthObject;

#define OTH_BYTES (8 * OTH_WORDS)

/* A board from a non-negative int below 2**256; 0 with an exception set otherwise. */
static int bb256_read(PyObject *value, Bb256 *out) {
    unsigned char bytes[OTH_BYTES];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t needed = PyLong_AsNativeBytes(value, bytes, OTH_BYTES,
                                             Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                                 Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                                 Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (needed < 0) return 0;
    if (needed > OTH_BYTES) {
        PyErr_SetString(PyExc_OverflowError, "a board of more than 256 squares");
        return 0;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)value, bytes, OTH_BYTES, 1, 0) < 0) return 0;
#endif
    for (int i = 0; i < OTH_WORDS; i++) {
        out->w[i] = 0;
        for (int j = 7; j >= 0; j--) out->w[i] = out->w[i] << 8 | bytes[8 * i + j];
    }
    return 1;
}

static PyObject *bb256_int(Bb256 board) {
    unsigned char bytes[OTH_BYTES];
    for (int i = 0; i < OTH_WORDS; i++)
        for (int j = 0; j < 8; j++) bytes[8 * i + j] = (unsigned char)(board.w[i] >> 8 * j);
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(bytes, OTH_BYTES, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(bytes, OTH_BYTES, 1, 0);
#endif
}

/* Reads `Position(black, white, player)`: both boards (in the low word only on narrow boards)
 * and the player; 0 with an exception set when it is not a position of this board. */
static int oth_read(OthObject *self, PyObject *position, Bb256 *black, Bb256 *white,
                    int *player) {
    int ok = PyTuple_Check(position) && PyTuple_GET_SIZE(position) == 3 &&
             PyLong_Check(PyTuple_GET_ITEM(position, 0)) &&
             PyLong_Check(PyTuple_GET_ITEM(position, 1));
    long mover = ok ? PyLong_AsLong(PyTuple_GET_ITEM(position, 2)) : -1;
    if (mover == -1 && PyErr_Occurred()) PyErr_Clear();
    if (ok && (mover == 0 || mover == 1)) {
        *player = (int)mover;
        *black = *white = (Bb256){{0, 0, 0, 0}};
        if (self->wide) {
            ok = bb256_read(PyTuple_GET_ITEM(position, 0), black) &&
                 bb256_read(PyTuple_GET_ITEM(position, 1), white);
        } else {
            black->w[0] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(position, 0));
            white->w[0] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(position, 1));
            ok = !PyErr_Occurred();
        }
        PyErr_Clear();
        if (ok) {
            Bb256 full = self->wide ? self->broad.full : (Bb256){{self->narrow.full, 0, 0, 0}};
            for (int i = 0; i < OTH_WORDS; i++) {
                uint64_t both = black->w[i] | white->w[i];
                if (black->w[i] & white->w[i] || both & ~full.w[i]) ok = 0;
            }
        }
        if (ok) return 1;
    }
    int size = self->wide ? self->broad.size : self->narrow.size;
    PyErr_Format(position_error,
                 "not a position of othello(%d): Position(black, white, player) with discs "
                 "on the board's %d squares, none on both, and player 0 or 1",
                 size, size * size);
    return 0;
}

static PyObject *oth_position(OthObject *self, Bb256 black, Bb256 white, int player) {
    PyObject *b = self->wide ? bb256_int(black) : PyLong_FromUnsignedLongLong(black.w[0]);
    PyObject *w = self->wide ? bb256_int(white) : PyLong_FromUnsignedLongLong(white.w[0]);
    PyObject *p = PyLong_FromLong(player);
    PyObject *items = b && w && p ? PyTuple_Pack(3, b, w, p) : NULL;
    Py_XDECREF(b);
    Py_XDECREF(w);
    Py_XDECREF(p);
    if (!items) return NULL;
    /* tuple.__new__(Position, items): the named tuple without its Python-level constructor */
    PyObject *args = PyTuple_Pack(1, items);
    Py_DECREF(items);
    if (!args) return NULL;
    PyObject *position =
        PyTuple_Type.tp_new((PyTypeObject *)self->position_type, args, NULL);
    Py_DECREF(args);
    return position;
}

/* The placements of the side to move, and their flips as positions, for both widths. */
static Bb256 oth_placements(OthObject *self, Bb256 own, Bb256 opp) {
    if (self->wide) return oth_placements_256(&self->broad, own, opp);
    return (Bb256){{oth_placements_64(&self->narrow, own.w[0], opp.w[0]), 0, 0, 0}};
}

static Bb256 oth_flips(OthObject *self, Bb256 own, Bb256 opp, int square) {
    if (self->wide) return oth_flips_256(&self->broad, own, opp, square);
    return (Bb256){{oth_flips_64(&self->narrow, own.w[0], opp.w[0], square), 0, 0, 0}};
}

static int bb256_any(Bb256 x) { return (x.w[0] | x.w[1] | x.w[2] | x.w[3]) != 0; }

static int bb256_has(Bb256 x, int square) { return (int)(x.w[square / 64] >> square % 64 & 1); }

static int bb256_count(Bb256 x) {
    int n = 0;
    for (int i = 0; i < OTH_WORDS; i++)
        for (uint64_t word = x.w[i]; word; word &= word - 1) n++;
    return n;
}

static int oth_squares(OthObject *self) {
    return self->wide ? self->broad.squares : self->narrow.squares;
}

/* The position after placing on `square` (a legal placement with these flips). */
static PyObject *oth_after(OthObject *self, Bb256 own, Bb256 opp, int player, int square,
                           Bb256 flips) {
    for (int i = 0; i < OTH_WORDS; i++) {
        own.w[i] |= flips.w[i];
        opp.w[i] ^= flips.w[i];
    }
    own.w[square / 64] |= (uint64_t)1 << square % 64;
    return player ? oth_position(self, opp, own, 0) : oth_position(self, own, opp, 1);
}

/* Set once, at creation, like the mancala rules. */
static PyObject *Oth_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"size", "position_type", NULL};
    int size;
    PyObject *position_type;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO!:Othello", names, &size, &PyType_Type,
                                     &position_type))
        return NULL;
    if (size < 4 || size > OTH_MAX_SIZE || size % 2) {
        PyErr_Format(PyExc_ValueError, "size must be even, 4 to %d", OTH_MAX_SIZE);
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)position_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "position_type must be a tuple type");
        return NULL;
    }
    OthObject *self = (OthObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->wide = size > 8;
    if (self->wide)
        oth_init_256(&self->broad, size);
    else
        oth_init_64(&self->narrow, size);
    Py_INCREF(position_type);
    self->position_type = position_type;
    return (PyObject *)self;
}

static void Oth_dealloc(OthObject *self) {
    Py_XDECREF(self->position_type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define OTH_READ(position)                                                                   \
    Bb256 black, white, own, opp;                                                            \
    int player;                                                                              \
    if (!oth_read(self, (position), &black, &white, &player)) return NULL;                   \
    own = player ? white : black;                                                            \
    opp = player ? black : white

static PyObject *Oth_legal_moves(OthObject *self, PyObject *position) {
    OTH_READ(position);
    Bb256 moves = oth_placements(self, own, opp);
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    if (!bb256_any(moves)) {
        if (!bb256_any(oth_placements(self, opp, own))) return list;
        PyObject *pass = PyLong_FromLong(-1);
        if (!pass || PyList_Append(list, pass) < 0) Py_CLEAR(list);
        Py_XDECREF(pass);
        return list;
    }
    for (int square = 0; square < oth_squares(self); square++) {
        if (!bb256_has(moves, square)) continue;
        PyObject *move = PyLong_FromLong(square);
        if (!move || PyList_Append(list, move) < 0) {
            Py_XDECREF(move);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(move);
    }
    return list;
}

static PyObject *Oth_play(OthObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(position, move)");
        return NULL;
    }
    OTH_READ(args[0]);
    if (!PyLong_Check(args[1])) Py_RETURN_NONE;
    long move = PyLong_AsLong(args[1]);
    if (move == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Bb256 moves = oth_placements(self, own, opp);
    if (move == -1) {
        if (bb256_any(moves) || !bb256_any(oth_placements(self, opp, own))) Py_RETURN_NONE;
        return oth_position(self, black, white, 1 - player);
    }
    if (move < 0 || move >= oth_squares(self) || !bb256_has(moves, (int)move)) Py_RETURN_NONE;
    return oth_after(self, own, opp, player, (int)move, oth_flips(self, own, opp, (int)move));
}

static PyObject *Oth_child(OthObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "child(position, move)");
        return NULL;
    }
    OTH_READ(args[0]);
    long move = PyLong_Check(args[1]) ? PyLong_AsLong(args[1]) : -2;
    if (move == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        move = -2;
    }
    if (move == -1) return oth_position(self, black, white, 1 - player);
    if (move < 0 || move >= oth_squares(self)) {
        PyErr_Format(position_error, "%R is not a square of the board", args[1]);
        return NULL;
    }
    return oth_after(self, own, opp, player, (int)move, oth_flips(self, own, opp, (int)move));
}

static PyObject *Oth_children(OthObject *self, PyObject *position) {
    OTH_READ(position);
    Bb256 moves = oth_placements(self, own, opp);
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    if (!bb256_any(moves)) {
        if (!bb256_any(oth_placements(self, opp, own))) return list;
        PyObject *after = oth_position(self, black, white, 1 - player);
        PyObject *pair = after ? Py_BuildValue("(iN)", -1, after) : NULL;
        if (!pair || PyList_Append(list, pair) < 0) Py_CLEAR(list);
        Py_XDECREF(pair);
        return list;
    }
    for (int square = 0; square < oth_squares(self); square++) {
        if (!bb256_has(moves, square)) continue;
        PyObject *after =
            oth_after(self, own, opp, player, square, oth_flips(self, own, opp, square));
        PyObject *pair = after ? Py_BuildValue("(iN)", square, after) : NULL;
        if (!pair || PyList_Append(list, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return list;
}

static int oth_over(OthObject *self, Bb256 black, Bb256 white) {
    return !bb256_any(oth_placements(self, black, white)) &&
           !bb256_any(oth_placements(self, white, black));
}

static PyObject *Oth_is_over(OthObject *self, PyObject *position) {
    OTH_READ(position);
    (void)own;
    (void)opp;
    return PyBool_FromLong(oth_over(self, black, white));
}

static PyObject *Oth_final_score(OthObject *self, PyObject *position) {
    OTH_READ(position);
    (void)own;
    (void)opp;
    if (!oth_over(self, black, white)) Py_RETURN_NONE;
    return Py_BuildValue("(ii)", bb256_count(black), bb256_count(white));
}

static PyObject *Oth_perft(OthObject *self, PyObject *const *args, Py_ssize_t nargs) {
    uint64_t nodes;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "perft(position, depth)");
        return NULL;
    }
    OTH_READ(args[0]);
    int depth = read_depth(args[1]);
    if (depth < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (self->wide)
        nodes = oth_perft_256(&self->broad, own, opp, depth);
    else
        nodes = oth_perft_64(&self->narrow, own.w[0], opp.w[0], depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(nodes);
}

static PyMethodDef Oth_methods[] = {
    {"legal_moves", (PyCFunction)Oth_legal_moves, METH_O,
     "The legal moves: squares in board order, [-1] to pass, [] when the game is over."},
    {"play", (PyCFunction)(void (*)(void))Oth_play, METH_FASTCALL,
     "The position after a legal move, or None when the move is not legal."},
    {"child", (PyCFunction)(void (*)(void))Oth_child, METH_FASTCALL,
     "The position after a placement or pass, without checking that it is legal here."},
    {"children", (PyCFunction)Oth_children, METH_O, "Every legal move with its position."},
    {"is_over", (PyCFunction)Oth_is_over, METH_O, "Whether neither side can place."},
    {"final_score", (PyCFunction)Oth_final_score, METH_O,
     "The (black, white) disc counts if the game is over, else None."},
    {"perft", (PyCFunction)(void (*)(void))Oth_perft, METH_FASTCALL,
     "Move sequences of `depth` plies, counted without the GIL."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject OthType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Othello",
    .tp_doc = PyDoc_STR("The rules of Othello on one board size."),
    .tp_basicsize = sizeof(OthObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Oth_new,
    .tp_dealloc = (destructor)Oth_dealloc,
    .tp_methods = Oth_methods,
};

/* == Bao la Kiswahili (engine/bao.py natively: bao.c, bao_search.c) ========================= */

#include "bao.h"

typedef struct {
    PyObject_HEAD BaoRules rules;
    PyObject *moves[BAO_MOVE_CODES]; /* the BaoMove of each move code */
} BaoObject;

static const char *const bao_reasons[] = {"front_row_empty", "never_ending", "no_moves",
                                          "ply_limit"};

/* Reads a position (a tuple of 42 ints, or a list) into `p`; 0 with ValueError when it is not
 * one the core takes. */
static int bao_read(PyObject *position, BaoPos *p) {
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
static int bao_code(PyObject *move) {
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

static PyObject *bao_move(BaoObject *self, int code) {
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

/* The rules are set once, at creation, from engine/bao.py's validated options (its FLAGS). */
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

static PyTypeObject BaoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Bao",
    .tp_doc = PyDoc_STR("The rules of Bao la Kiswahili under one set of options."),
    .tp_basicsize = sizeof(BaoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Bao_new,
    .tp_dealloc = (destructor)Bao_dealloc,
    .tp_methods = Bao_methods,
};

/* == end of Bao =============================================================================== */

/* -- the search ------------------------------------------------------------------------------ */

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
} SearchObject;

/* A position of the searched game, read while the GIL is held. */
typedef struct {
    ManPos man;
    OthPos64 narrow;
    OthPos256 broad;
    BaoPos bao;
} SearchPos;

/* Each game's evaluations by name, in the order of its enum in search.h. */
static const char *const man_evaluations[MAN_EVALUATIONS] = {"store_diff", "store_seeds",
                                                              "mobility"};
static const char *const oth_evaluations[OTH_EVALUATIONS] = {"standard", "positional",
                                                              "mobility", "discs"};
static const char *const bao_evaluations[BAO_EVALUATIONS] = {"balanced", "material",
                                                              "front_row"};

/* The algorithms by name, in the order of SEARCH_MINIMAX... (engine/search.py ALGORITHMS). */
static const char *const search_algorithms[SEARCH_ALGORITHMS] = {"minimax", "alphabeta",
                                                                  "negamax"};

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
    static char *names[] = {"rules",     "hash_mb",     "exact", "evaluation",
                            "algorithm", "table_depth", NULL};
    PyObject *rules;
    double hash_mb;
    int exact, table_depth;
    const char *evaluation_name, *algorithm_name;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Odpssi:Search", names, &rules, &hash_mb,
                                     &exact, &evaluation_name, &algorithm_name, &table_depth))
        return NULL;
    if (!PyObject_TypeCheck(rules, &ManType) && !PyObject_TypeCheck(rules, &OthType) &&
        !PyObject_TypeCheck(rules, &BaoType)) {
        PyErr_SetString(PyExc_TypeError,
                        "a search needs the rules of a Mancala, an Othello or a Bao");
        return NULL;
    }
    int evaluation = search_evaluation(rules, evaluation_name);
    if (evaluation < 0) return NULL;
    int algorithm = search_algorithm(algorithm_name);
    if (algorithm < 0) return NULL;
    if (table_depth < 2) { /* one ply above the horizon the children are leaves */
        PyErr_SetString(PyExc_ValueError, "the table's least depth must be at least 2");
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

/* Polled by a long search, probe or build without the GIL: takes the GIL back for a moment to
 * run the signal handlers (Ctrl-C); nonzero, with the exception set, when one raised. */
static int signal_raised(void *context) {
    PyThreadState **save = context;
    PyEval_RestoreThread(*save);
    int raised = PyErr_CheckSignals() < 0;
    *save = PyEval_SaveThread();
    return raised;
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
    {"set_threads", (PyCFunction)Search_set_threads, METH_O,
     "Threads for the next searches (lazy SMP); returns how many will run."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Search",
    .tp_doc = PyDoc_STR("engine/search.py's search over one game's native rules, with its table."),
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Search_new,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
};

/* == the solver (engine/solve.py natively: solve.c, endgame.c) ================================ */

#include "endgame.h"
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

static PyObject *Solver_test(SolverObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Solver *s = &self->solver;
    ManPos p, view;
    int banked, loose, value;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "test(position, beta)");
        return NULL;
    }
    if (!solver_read(self, args[0], &p, &view, &banked, &loose)) return NULL;
    long long beta = PyLong_AsLongLong(args[1]);
    if (beta == -1 && PyErr_Occurred()) return NULL;
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
    PyThreadState *save;
    self->busy = 1;
    s->interrupted = signal_raised;
    s->context = &save;
    save = PyEval_SaveThread();
    value = solve_test(s, &view, window);
    PyEval_RestoreThread(save);
    self->busy = 0;
    if (s->stopped) {
        s->stopped = 0;
        return NULL; /* the exception a signal handler raised */
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
     "else a bound on it."},
    {"best_move", (PyCFunction)Solver_best_move, METH_O,
     "The table's best move for the position, or None."},
    {"counts", (PyCFunction)Solver_counts, METH_NOARGS,
     "(positions expanded, table entries) so far."},
    {"build_endgame", (PyCFunction)Solver_build_endgame, METH_VARARGS | METH_STATIC,
     "build_endgame(rules, seeds, values): fills `values` (a writable buffer of the database's "
     "size) with engine/endgame.py's database values, without the GIL."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SolverType = {
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

/* == end of the solver ========================================================================= */

/* -- the module ------------------------------------------------------------------------------ */

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ubao.engine._native",
    .m_doc = PyDoc_STR("The native core: the rules of the mancala family, Othello and Bao, "
                       "perft, and their negamax search."),
    .m_size = -1,
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
    PyObject *module = PyModule_Create(&native_module);
    if (!module) return NULL;
    if (add_type(module, "Mancala", &ManType) < 0 || add_type(module, "Othello", &OthType) < 0 ||
        add_type(module, "Search", &SearchType) < 0 || add_type(module, "Bao", &BaoType) < 0 ||
        add_type(module, "Solver", &SolverType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
