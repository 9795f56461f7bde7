/* The two-row mancala family's rules besides the sowing (mancala.h). */
#include "mancala.h"

#include <string.h>

void man_init(ManRules *r, int pits, int capture_sower, int empty_capture, int end_mover,
              int remaining_mover, int choose_direction, int early_end) {
    memset(r, 0, sizeof *r);
    r->pits = pits;
    r->ring = 2 * pits + 2;
    r->lap = r->ring - 1;
    r->capture_sower = capture_sower;
    r->empty_capture = empty_capture;
    r->end_mover = end_mover;
    r->remaining_mover = remaining_mover;
    r->early_end = early_end;
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
                for (int i = 0; i < MAN_MAX_RING; i++) r->step[player][k][i] = MAN_NEVER;
                for (int i = 0; i < r->lap; i++) {
                    last = (last + way + r->ring) % r->ring;
                    if (last == skipped) last = (last + way + r->ring) % r->ring;
                    r->path[player][k][i] = (signed char)last;
                    r->step[player][k][last] = i + 1;
                }
                k++;
            }
        }
        r->count[player] = k;
    }
}

int man_legal(const ManRules *r, const ManPos *p, int *moves) {
    if (man_is_over(r, p)) return 0;
    int player = p->to_move, n = 0;
    for (int k = 0; k < r->count[player]; k++)
        if (p->hole[r->hole[player][k]] >= r->min_seeds) moves[n++] = k;
    return n;
}

void man_final(const ManRules *r, const ManPos *p, int *south, int *north) {
    ManPos swept = *p;
    man_sweep(r, &swept, 1 - p->to_move);
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
