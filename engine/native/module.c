/* ubao.engine._native: the rules of the mancala family and Othello in C, behind the Python
 * engine's own position values (engine/backend.py wraps them as `Game` classes).
 *
 * Positions cross the boundary as the Python engine builds them: a mancala position is a tuple
 * of hole counts and the player to move; an Othello position is `Position(black, white,
 * player)`, whose class the core is given. Methods return None where the Python rules must
 * answer instead (an illegal move, whose error message the Python class writes). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "mancala.h"
#include "othello.h"
#include "search.h"

#define MAX_HASH_MB (1 << 30) /* a petabyte of table: beyond any machine, and no overflow */
#define MAX_PERFT_DEPTH 1000 /* as deep as Python's recursion limit lets the Python perft go */

/* A perft depth, or -1 with an exception set. */
static int read_depth(PyObject *value) {
    long depth = PyLong_AsLong(value);
    if (depth == -1 && PyErr_Occurred()) return -1;
    if (depth < 0 || depth > MAX_PERFT_DEPTH) {
        PyErr_Format(PyExc_ValueError, "perft depth must be 0 to %d, not %ld", MAX_PERFT_DEPTH,
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
        PyErr_Format(PyExc_ValueError, "a position of %d-pit mancala is a tuple of %d integers",
                     r->pits, r->ring + 1);
        return 0;
    }
    for (int i = 0; i <= r->ring; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(tuple, i);
        long value = PyLong_Check(item) ? PyLong_AsLong(item) : -1;
        if (value == -1 && PyErr_Occurred()) PyErr_Clear();
        long high = i == r->ring ? 1 : MAN_MAX_COUNT;
        if (value < 0 || value > high) {
            PyErr_Format(PyExc_ValueError,
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
    PyErr_Format(PyExc_ValueError, "%R is not a move of this game", args[1]);
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
    PyErr_Format(PyExc_ValueError,
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
        PyErr_Format(PyExc_ValueError, "%R is not a square of the board", args[1]);
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

/* -- the search ------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD SearchState search;
    PyObject *rules; /* the Mancala or Othello object searched; its rules never change */
    int busy;        /* a search is running without the GIL: only `stop` may touch the object */
} SearchObject;

/* A position of the searched game, read while the GIL is held. */
typedef struct {
    ManPos man;
    OthPos64 narrow;
    OthPos256 broad;
} SearchPos;

static PyObject *Search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"rules", "hash_mb", "exact", NULL};
    PyObject *rules;
    double hash_mb;
    int exact;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Odp:Search", names, &rules, &hash_mb, &exact))
        return NULL;
    if (!PyObject_TypeCheck(rules, &ManType) && !PyObject_TypeCheck(rules, &OthType)) {
        PyErr_SetString(PyExc_TypeError, "a search needs the rules of a Mancala or an Othello");
        return NULL;
    }
    if (!(hash_mb >= 0 && hash_mb <= MAX_HASH_MB)) {
        PyErr_Format(PyExc_ValueError, "the table's memory must be 0 to %d MB", MAX_HASH_MB);
        return NULL;
    }
    SearchObject *self = (SearchObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (tt_init(&self->search.table, hash_mb) < 0) {
        Py_TYPE(self)->tp_free((PyObject *)self);
        return PyErr_NoMemory();
    }
    self->search.exact = exact;
    Py_INCREF(rules);
    self->rules = rules;
    return (PyObject *)self;
}

static void Search_dealloc(SearchObject *self) {
    tt_free(&self->search.table);
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
    Bb256 black, white;
    int player;
    if (!oth_read((OthObject *)self->rules, position, &black, &white, &player)) return 0;
    p->broad = (OthPos256){black, white, player};
    p->narrow = (OthPos64){black.w[0], white.w[0], player};
    return 1;
}

/* One iteration (GIL released by the caller), or the line after it when `line` is set. */
static int search_run(SearchObject *self, const SearchPos *p, int depth, double *score,
                      int *line) {
    SearchState *s = &self->search;
    if (PyObject_TypeCheck(self->rules, &ManType)) {
        const ManRules *r = &((ManObject *)self->rules)->rules;
        return line ? man_search_pv(s, r, &p->man, depth, line)
                    : man_search_iterate(s, r, &p->man, depth, score);
    }
    const OthObject *othello = (const OthObject *)self->rules;
    if (othello->wide)
        return line ? oth_search_256_pv(s, &othello->broad, &p->broad, depth, line)
                    : oth_search_256_iterate(s, &othello->broad, &p->broad, depth, score);
    return line ? oth_search_64_pv(s, &othello->narrow, &p->narrow, depth, line)
                : oth_search_64_iterate(s, &othello->narrow, &p->narrow, depth, score);
}

static PyObject *Search_begin(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!search_idle(self)) return NULL;
    search_begin(&self->search);
    Py_RETURN_NONE;
}

static PyObject *Search_iterate(SearchObject *self, PyObject *const *args, Py_ssize_t nargs) {
    SearchState *s = &self->search;
    SearchPos p;
    double score = 0.0, seconds;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "iterate(position, depth, root_move, seconds)");
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
    if (args[2] != Py_None) {
        long move = PyLong_AsLong(args[2]);
        if (move == -1 && PyErr_Occurred()) return NULL;
        root_move = (int)move;
    }
    seconds = PyFloat_AsDouble(args[3]);
    if (seconds == -1.0 && PyErr_Occurred()) return NULL;
    self->busy = 1;
    int status;
    Py_BEGIN_ALLOW_THREADS
    s->deadline = search_clock() + seconds;
    s->root_move = root_move;
    status = search_run(self, &p, (int)depth, &score, NULL);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (status < 0) Py_RETURN_NONE;
    return PyFloat_FromDouble(score);
}

static PyObject *Search_counts(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    const SearchState *s = &self->search;
    return Py_BuildValue("(KKKKK)", (unsigned long long)s->generated,
                         (unsigned long long)s->expanded, (unsigned long long)s->evaluated,
                         (unsigned long long)s->cutoffs, (unsigned long long)s->hits);
}

static PyObject *Search_root(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    const SearchState *s = &self->search;
    if (s->root_best == TT_NO_MOVE) return Py_BuildValue("(Od)", Py_None, s->root_score);
    return Py_BuildValue("(id)", s->root_best, s->root_score);
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
        PyObject *move = PyLong_FromLong(line[i]);
        if (!move) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, move);
    }
    return list;
}

static PyObject *Search_entries(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLongLong(self->search.table.used);
}

static PyObject *Search_clear(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!search_idle(self)) return NULL;
    if (tt_clear(&self->search.table) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Search_stop(SearchObject *self, PyObject *Py_UNUSED(ignored)) {
    self->search.stop = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Search_methods[] = {
    {"begin", (PyCFunction)Search_begin, METH_NOARGS,
     "A new search: the table ages, the counters start again."},
    {"iterate", (PyCFunction)(void (*)(void))Search_iterate, METH_FASTCALL,
     "One iteration without the GIL: the score, or None when stopped or out of time."},
    {"counts", (PyCFunction)Search_counts, METH_NOARGS,
     "(generated, expanded, evaluated, cutoffs, table hits) of this search."},
    {"root", (PyCFunction)Search_root, METH_NOARGS,
     "(best root move so far or None, its score) of the iteration under way."},
    {"pv", (PyCFunction)(void (*)(void))Search_pv, METH_FASTCALL,
     "The last iteration's line, continued through the table up to `depth` moves."},
    {"entries", (PyCFunction)Search_entries, METH_NOARGS, "Entries in the table."},
    {"clear", (PyCFunction)Search_clear, METH_NOARGS, "Empty the table."},
    {"stop", (PyCFunction)Search_stop, METH_NOARGS,
     "Make the running search (from any thread) return at its next node."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Search",
    .tp_doc = PyDoc_STR("engine/search.py's negamax over one game's native rules, with its table."),
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Search_new,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
};

/* -- the module ------------------------------------------------------------------------------ */

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ubao.engine._native",
    .m_doc = PyDoc_STR("The native core: the rules of the mancala family and Othello, perft, "
                       "and their negamax search."),
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&ManType) < 0 || PyType_Ready(&OthType) < 0 || PyType_Ready(&SearchType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&native_module);
    if (!module) return NULL;
    Py_INCREF(&ManType);
    if (PyModule_AddObject(module, "Mancala", (PyObject *)&ManType) < 0) {
        Py_DECREF(&ManType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&OthType);
    if (PyModule_AddObject(module, "Othello", (PyObject *)&OthType) < 0) {
        Py_DECREF(&OthType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(module, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
