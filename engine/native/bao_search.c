/* The search's Bao instance: engine/bao/game.py's `search_moves`, `child`, `key` and `outcome` and
 * the evaluations of engine/bao/evaluations.py behind the template of search_impl.h. Move handles
 * are the move codes of bao.h. The order plays out every move, so it keeps them per ply and
 * the tree makes its children from them (S_ORDER_PLY, S_CHILD_PLY). */
#include <math.h>

#include "bao_search.h"

/* Whether constants.h has the evaluations bao_leaf scores: a new one fails the build here. */
typedef char bao_evaluations_known[BAO_EVALUATIONS == 3 ? 1 : -1];

/* Python's hash of `Bao.key(position)`: the tuple of every field but the ply counter (a
 * non-negative int hashes to itself, -1 to -2). */
static int64_t bao_hash(const BaoSearch *r, const BaoPos *p) {
    const int tail[9] = {p->stock[0], p->stock[1], p->owned[0], p->owned[1], p->to_move,
                         p->takasia,  p->target,   p->hand,     p->endless};
    uint64_t acc = SEARCH_HASH_START;
    (void)r;
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 16; i++) acc = search_hash_item(acc, (uint64_t)p->ring[side][i]);
    for (int i = 0; i < 9; i++)
        acc = search_hash_item(acc, tail[i] == -1 ? (uint64_t)-2 : (uint64_t)tail[i]);
    return search_hash_end(acc, BAO_KEY_FIELDS);
}

/* The seeds `player` threatens to capture (`_threatened` summed): in namua each front hole
 * facing seeds from an occupied one, in mtaji each distinct landing of a first lap of 2..15
 * seeds. */
static int bao_threatened(const BaoPos *p, int player) {
    const int *me = p->ring[player], *op = p->ring[1 - player];
    int landed = 0, seeds = 0; /* a bit per front hole landed on */
    if (p->stock[player]) {
        for (int i = 0; i < 8; i++)
            if (me[i]) seeds += op[7 - i];
        return seeds;
    }
    for (int hole = 0; hole < 16; hole++) {
        int n = me[hole];
        if (n < 2 || n >= 16) continue;
        int ahead = (hole + n) & 15, behind = (hole - n) & 15;
        if (ahead < 8 && me[ahead] && op[7 - ahead]) landed |= 1 << ahead;
        if (behind < 8 && me[behind] && op[7 - behind]) landed |= 1 << behind;
    }
    for (int i = 0; i < 8; i++)
        if (landed >> i & 1) seeds += op[7 - i];
    return seeds;
}

/* `front_row` of engine/bao/evaluations.py: front seeds twice less the threatened ones, the back row
 * and the stock, South's less North's (integers: exact in a double). */
static double bao_front_row(const BaoPos *p) {
    int score = 0;
    for (int player = 0; player < 2; player++) {
        const int *ring = p->ring[player];
        int front = 0, back = 0;
        for (int i = 0; i < 8; i++) front += ring[i], back += ring[i + 8];
        int term = 2 * (front - bao_threatened(p, 1 - player)) + back + p->stock[player];
        score += player ? -term : term;
    }
    return score;
}

/* The evaluation `e` fused with the end test (`leaf_evaluation`). */
static int bao_leaf(const BaoSearch *r, const BaoPos *p, int over, int e, double *value) {
    if (over == 1 || bao_is_over(r->rules, p)) return 0;
    *value = e == BAO_BALANCED   ? bao_balanced(p)
             : e == BAO_MATERIAL ? (double)bao_material(p)
                                 : bao_front_row(p);
    return 1;
}

/* `final_score` of the outcome: the winner by the rules, then the margin of seeds (at least
 * 0: a winner may hold fewer), then the plies. */
static double bao_ended(const BaoSearch *r, const BaoPos *p, int me, int ply) {
    int winner, score[2], reason;
    if (!bao_outcome(r->rules, p, &winner, &score[0], &score[1], &reason) || winner < 0) return 0.0;
    int margin = score[winner] - score[1 - winner];
    double value = SEARCH_MATE + SEARCH_PLY_SPAN * (margin > 0 ? margin : 0) - ply;
    return winner == me ? value : -value;
}

static int bao_find(const BaoSearch *r, const BaoPos *p, int move) {
    int codes[BAO_MAX_MOVES], n = bao_children(r->rules, p, codes, NULL);
    for (int i = 0; i < n; i++)
        if (codes[i] == move) return move;
    return -1;
}

#define S_NAME(x) bao_search_##x
#define S_RULES BaoSearch
#define S_POS BaoPos
#define S_MAX_MOVES BAO_MAX_MOVES
#define S_HANDLES BAO_MOVE_CODES
#define S_TO_MOVE to_move
#define S_HASH bao_hash
#define S_ORDER_PLY(r, p, moves, ply) bao_order_kept((r)->rules, p, moves, (r)->kept, ply)
#define S_VALUE(r, p, k) (k)
#define S_CHILD(r, p, k, out) bao_make((r)->rules, p, k, out)
#define S_CHILD_PLY(r, p, k, out, ply) bao_make_kept((r)->rules, p, k, out, (r)->kept, ply)
#define S_LEAF bao_leaf
#define S_ENDED bao_ended
#define S_FIND bao_find
#include "search_impl.h"
