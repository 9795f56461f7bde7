/* A plain negamax for Kalah (6,4) with empty captures (docs/mancala.md): no table, the pits
 * from the store's end, the store difference at the leaves, every call a node. The yardstick
 * for the native search's nodes per second (docs/benchmarks.md, "The native search"):
 *
 *     gcc -O3 -march=native -o /tmp/kalah_negamax benchmarks/kalah_negamax.c
 *     /tmp/kalah_negamax 20       # depth 20 from the start
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef struct { unsigned char b[14]; int side; } Pos; /* pits 0-5 South, 6 store; 7-12 North, 13 store */
static long long nodes;
static int over(const Pos *p) {
    int s = 0, n = 0;
    for (int i = 0; i < 6; i++) { s += p->b[i]; n += p->b[7 + i]; }
    return s == 0 || n == 0;
}
static int play(const Pos *p, int pit, Pos *c) {
    *c = *p;
    int me = p->side, base = me ? 7 : 0, store = me ? 13 : 6, skip = me ? 6 : 13;
    int h = base + pit, seeds = c->b[h];
    c->b[h] = 0;
    while (seeds) { h = (h + 1) % 14; if (h == skip) continue; c->b[h]++; seeds--; }
    if (h == store) return 1; /* extra turn: same side */
    if (h >= base && h < base + 6 && c->b[h] == 1) { /* capture, empty capture allowed */
        int o = 12 - h;
        c->b[store] += c->b[o] + 1; c->b[o] = 0; c->b[h] = 0;
    }
    c->side = !me;
    return 0;
}
static int eval(const Pos *p) { /* for the side to move; at the end, the rest to each owner */
    int s = p->b[6], n = p->b[13];
    if (over(p)) for (int i = 0; i < 6; i++) { s += p->b[i]; n += p->b[7 + i]; }
    return p->side ? n - s : s - n;
}
static int negamax(const Pos *p, int depth, int alpha, int beta) {
    nodes++;
    if (depth == 0 || over(p)) return eval(p);
    int base = p->side ? 7 : 0, best = -1000;
    for (int pit = 5; pit >= 0; pit--) {
        if (!p->b[base + pit]) continue;
        Pos c;
        int same = play(p, pit, &c);
        int v = same ? negamax(&c, depth - 1, alpha, beta) : -negamax(&c, depth - 1, -beta, -alpha);
        if (v > best) { best = v; if (v > alpha) { alpha = v; if (v >= beta) break; } }
    }
    return best;
}
int main(int argc, char **argv) {
    int depth = argc > 1 ? atoi(argv[1]) : 14;
    Pos p; memset(&p, 0, sizeof p);
    for (int i = 0; i < 6; i++) p.b[i] = p.b[7 + i] = 4;
    clock_t t = clock();
    int v = negamax(&p, depth, -1000, 1000);
    double s = (double)(clock() - t) / CLOCKS_PER_SEC;
    printf("depth %d value %d nodes %lld seconds %.3f nodes/s %.2f M\n", depth, v, nodes, s, nodes / s / 1e6);
    return 0;
}
