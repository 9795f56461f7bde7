/* The two-row mancala family: a line-by-line port of engine/mancala.py's `_sow`. */
#include "mancala.h"

#include <string.h>

void man_init(ManRules *r, int pits, int capture_sower, int empty_capture, int end_mover,
              int remaining_mover, int choose_direction) {
    memset(r, 0, sizeof *r);
    r->pits = pits;
    r->ring = 2 * pits + 2;
    r->lap = r->ring - 1;
    r->capture_sower = capture_sower;
    r->empty_capture = empty_capture;
    r->end_mover = end_mover;
    r->remaining_mover = remaining_mover;
    r->min_seeds = choose_direction ? 2 : 1;
    for (int player = 0; player < 2; player++) {
        int first = player ? pits + 1 : 0;
        int skipped = player ? pits : 2 * pits + 1; /* the opponent's store */
        int k = 0;
        for (int pit = 1; pit <= pits; pit++) {
            for (int way = choose_direction ? -1 : 1; way <= 1; way += 2) {
                int last = first + pit - 1;
                r->move[player][k] = way * pit;
                r->hole[player][k] = last;
                for (int i = 0; i < r->lap; i++) {
                    last = (last + way + r->ring) % r->ring;
                    if (last == skipped) last = (last + way + r->ring) % r->ring;
                    r->path[player][k][i] = (signed char)last;
                }
                k++;
            }
        }
        r->count[player] = k;
    }
}

static int row_can_move(const ManRules *r, const ManPos *p, int player) {
    const int *row = p->hole + (player ? r->pits + 1 : 0);
    for (int i = 0; i < r->pits; i++)
        if (row[i] >= r->min_seeds) return 1;
    return 0;
}

int man_is_over(const ManRules *r, const ManPos *p) {
    if (r->end_mover) return !row_can_move(r, p, p->to_move);
    return !(row_can_move(r, p, 0) && row_can_move(r, p, 1));
}

int man_legal(const ManRules *r, const ManPos *p, int *moves) {
    if (man_is_over(r, p)) return 0;
    int player = p->to_move, n = 0;
    for (int k = 0; k < r->count[player]; k++)
        if (p->hole[r->hole[player][k]] >= r->min_seeds) moves[n++] = k;
    return n;
}

/* The seeds left in the pits go to the stores, as option `remaining` says. */
static void sweep(const ManRules *r, ManPos *p, int last_mover) {
    int m = r->pits, left[2] = {0, 0};
    for (int player = 0; player < 2; player++) {
        int *row = p->hole + (player ? m + 1 : 0);
        for (int i = 0; i < m; i++) {
            left[player] += row[i];
            row[i] = 0;
        }
    }
    if (!r->remaining_mover) {
        p->hole[m] += left[0];
        p->hole[2 * m + 1] += left[1];
    } else {
        int holder = (left[0] && left[1]) ? last_mover : (left[0] ? 0 : 1);
        p->hole[holder ? 2 * m + 1 : m] += left[0] + left[1];
    }
}

int man_sow(const ManRules *r, const ManPos *p, int k, ManPos *out) {
    int m = r->pits, player = p->to_move;
    int store = player ? 2 * m + 1 : m, first = player ? m + 1 : 0;
    int hole = r->hole[player][k];
    const signed char *path = r->path[player][k];
    int *board = out->hole;
    *out = *p;
    int seeds = board[hole];
    board[hole] = 0;
    int laps = seeds / r->lap, rest = seeds % r->lap;
    if (laps)
        for (int i = 0; i < r->lap; i++) board[path[i]] += laps;
    for (int i = 0; i < rest; i++) board[path[i]]++;
    int last = rest ? path[rest - 1] : hole; /* after whole laps, the pit itself */
    if (last == store) {
        out->to_move = player;
    } else {
        out->to_move = 1 - player;
        if (first <= last && last < first + m && board[last] == 1) {
            int opposite = 2 * m - last, taken = board[opposite];
            if (taken || r->empty_capture) {
                board[opposite] = 0;
                if (r->capture_sower) {
                    taken++;
                    board[last] = 0;
                }
                board[store] += taken;
            }
        }
    }
    if (!man_is_over(r, out)) return 0;
    sweep(r, out, player);
    return 1;
}

void man_final(const ManRules *r, const ManPos *p, int *south, int *north) {
    ManPos swept = *p;
    sweep(r, &swept, 1 - p->to_move);
    *south = swept.hole[r->pits];
    *north = swept.hole[2 * r->pits + 1];
}

uint64_t man_perft(const ManRules *r, const ManPos *p, int depth) {
    int moves[MAN_MAX_MOVES];
    if (depth == 0) return 1;
    int n = man_legal(r, p, moves);
    if (n == 0) return 1; /* a sequence that ends the game early counts once */
    if (depth == 1) return (uint64_t)n;
    uint64_t total = 0;
    ManPos child;
    for (int i = 0; i < n; i++) {
        man_sow(r, p, moves[i], &child);
        total += man_perft(r, &child, depth - 1);
    }
    return total;
}
