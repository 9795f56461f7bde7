/* Bao la Kiswahili (docs/bao.md), in plain C: no Python here. engine/bao/rules.py line by line.
 *
 * A position holds the 42 fields of the Python position tuple (docs/bao.md, "Positions and
 * moves"): each player's ring of 16 holes (0..7 = A1..A8, 8..15 = B8..B1, +1 clockwise), the
 * stocks, nyumba ownership, the side to move, the takasia and capture-target holes (-1: none),
 * the seeds in hand after a game-ending capture, the never-ending flag and the ply counter.
 * A move is a code (hole * 2 + (direction > 0)) * 2 + safari, the index of `_MOVES` in
 * engine/bao/rules.py. */
#ifndef UBAO_BAO_H
#define UBAO_BAO_H

#include <stdint.h>

#include "constants.h" /* BAO_FIELDS, BAO_NYUMBA, BAO_MAX_LAPS, UBAO_MAX_COUNT... */

#define BAO_MAX_MOVES 64             /* 32 candidates at most, each with a safari twin */
#define BAO_MOVE_CODES 64            /* 16 holes x 2 directions x stop/safari */
#define BAO_MAX_COUNT UBAO_MAX_COUNT /* per hole, stock or hand: sums stay far from overflow */
#define BAO_MAX_PLY (1 << 30)        /* the ply counter, and `max_plies` */

/* The five kinds of move of bao/rules.py; every candidate of a position has the same kind. */
enum { BAO_NAMUA_CAPTURE, BAO_NAMUA_TAKASA, BAO_TAX, BAO_MTAJI_CAPTURE, BAO_MTAJI_TAKASA };
/* What an owned functional nyumba does to a lap ending in it (§9 step 4). */
enum { BAO_NO_RULE, BAO_STOP, BAO_DECIDE };
/* The values of the flags that are not booleans, in engine/bao/game.py's FLAGS order. */
enum { BAO_SINGLETON_OWNED, BAO_SINGLETON_FUNCTIONAL, BAO_SINGLETON_ALWAYS };
enum { BAO_LOSE_BOTH, BAO_LOSE_MOVER, BAO_LOSE_OFF };
enum { BAO_TAKASIA_DE_VOOGT, BAO_TAKASIA_MTAJI_MOJA, BAO_TAKASIA_NONE };
enum { BAO_ENDLESS_ILLEGAL, BAO_ENDLESS_LOSS, BAO_ENDLESS_DRAW };
/* Why a game ended: `Outcome.reason`. */
enum { BAO_FRONT_ROW_EMPTY, BAO_NEVER_ENDING, BAO_NO_MOVES, BAO_PLY_LIMIT };

typedef struct {
    int stop_rule[5]; /* per kind */
    int namua_singleton, tax_any_owned, sixteen_rule, lose_ownership, takasia;
    int singleton_exception, first_lap_exception, attacker_must_capture, never_ending;
    int immediate_end; /* front_empty_check == "immediate" */
    int max_plies;     /* 0: no limit */
} BaoRules;

typedef struct {
    int ring[2][16];
    int stock[2], owned[2];
    int to_move, takasia, target, hand, endless, ply;
} BaoPos;

/* Fills `r` from the validated flags (the enums above; `optional_takasa_stop`:
 * namua_takasa_nyumba_stop == "optional"). */
void bao_init(BaoRules *r, int optional_takasa_stop, int namua_singleton, int tax_any_owned,
              int sixteen_rule, int lose_ownership, int mtaji_takasa_stop_at_nyumba,
              int mtaji_capture_nyumba_choice, int takasia, int singleton_exception,
              int first_lap_exception, int attacker_must_capture, int never_ending,
              int immediate_end, int max_plies);
/* Every legal move code and its child, in the Python engine's generation order (`expand`); 0
 * when the game is over. `kids` may be NULL when only the codes are wanted. */
int bao_children(const BaoRules *r, const BaoPos *p, int *codes, BaoPos *kids);
/* The child of the move `code` (made as `bao_children` makes it); 0 when it is not a legal
 * move here (then `out` is unspecified). */
int bao_play(const BaoRules *r, const BaoPos *p, int code, BaoPos *out);
/* The child of the legal move `code` for the search (`child`, without checking it): 1 when the
 * game is over there by its board, ply or never-ending flag, -1 when that does not tell. */
int bao_make(const BaoRules *r, const BaoPos *p, int code, BaoPos *out);
/* Whether the game is over (`Bao.is_over`). */
int bao_is_over(const BaoRules *r, const BaoPos *p);
/* 1 and the result when the game is over (`Bao.outcome`): the winner (-1: a draw), each
 * side's seeds and why; 0 when it goes on. */
int bao_outcome(const BaoRules *r, const BaoPos *p, int *winner, int *south, int *north,
                int *reason);
/* Each side's seeds on the board and in stock, difference, with the hand (`material`). */
int bao_material(const BaoPos *p);
/* `search_moves`: the legal codes, the mover's best material first (a stable sort); 0 when the
 * game is over. */
int bao_order(const BaoRules *r, const BaoPos *p, int *codes);
/* What a search keeps of the moves of each ply, so that the children it visits are not
 * played out again (grown as the search goes deeper; the search's own, not shared). */
typedef struct BaoKept BaoKept;
/* A new, empty store; NULL when out of memory. */
BaoKept *bao_kept_new(void);
void bao_kept_free(BaoKept *kept);
/* `bao_order` for the node `ply` plies deep, keeping its moves played out in `kept`. */
int bao_order_kept(const BaoRules *r, const BaoPos *p, int *codes, BaoKept *kept, int ply);
/* `bao_make` of a move that `bao_order_kept` just gave at `ply`, from what it kept. */
int bao_make_kept(const BaoRules *r, const BaoPos *p, int code, BaoPos *out,
                  const BaoKept *kept, int ply);
/* `balanced` of engine/bao/evaluations.py, from South's point of view. */
double bao_balanced(const BaoPos *p);
/* Move sequences of `depth` plies (engine/perft.py `walk`); `levels` holds depth - 1 rows of
 * BAO_MAX_MOVES positions (the children of each ply). */
uint64_t bao_perft(const BaoRules *r, const BaoPos *p, int depth, BaoPos *levels);

#endif
