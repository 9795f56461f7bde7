/* ubao.engine._native.Othello: Othello's rules (othello.c) on the Python engine's
 * `Position(black, white, player)`, whose class the core is given. */
#include "bind.h"

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
int oth_read(OthObject *self, PyObject *position, Bb256 *black, Bb256 *white, int *player) {
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

PyTypeObject OthType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ubao.engine._native.Othello",
    .tp_doc = PyDoc_STR("The rules of Othello on one board size."),
    .tp_basicsize = sizeof(OthObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Oth_new,
    .tp_dealloc = (destructor)Oth_dealloc,
    .tp_methods = Oth_methods,
};
