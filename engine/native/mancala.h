/* The two-row mancala family (docs/mancala.md), in plain C: no Python here.
 *
 * A position is the ring of holes as in engine/mancala.py (South's pits 0..m-1, South's store m,
 * North's pits m+1..2m, North's store 2m+1) and the player to move. A move is an index into the
 * mover's move table, which lists the moves in the Python engine's legal order. */
#ifndef UBAO_MANCALA_H
#define UBAO_MANCALA_H

#include <stdint.h>

#define MAN_MAX_PITS 12
#define MAN_MAX_RING (2 * MAN_MAX_PITS + 2)
#define MAN_MAX_MOVES (2 * MAN_MAX_PITS) /* Ethiopian: two directions per pit */
#define MAN_MAX_COUNT 1000000            /* per hole: keeps every sum far from int overflow */

typedef struct {
    int pits, ring, lap; /* lap: the holes one sowing lap fills (the ring less one store) */
    int capture_sower, empty_capture, end_mover, remaining_mover, min_seeds;
    int count[2];                                      /* moves per player */
    int move[2][MAN_MAX_MOVES];                        /* the move's value: +pit, or -pit (L) */
    int hole[2][MAN_MAX_MOVES];                        /* the pit it sows from */
    signed char path[2][MAN_MAX_MOVES][MAN_MAX_RING]; /* the holes one lap fills, in order */
} ManRules;

typedef struct {
    int hole[MAN_MAX_RING];
    int to_move;
} ManPos;

/* Fills `r`; pits 1..MAN_MAX_PITS. choose_direction: Ethiopian (both ways, no single seed). */
void man_init(ManRules *r, int pits, int capture_sower, int empty_capture, int end_mover,
              int remaining_mover, int choose_direction);
int man_is_over(const ManRules *r, const ManPos *p);
/* The legal moves as indices into the mover's table; returns how many (0 when over). */
int man_legal(const ManRules *r, const ManPos *p, int *moves);
/* Sows move index `k` (legal) into `out`: captures, the next player, the end sweep; returns
 * whether the game is over after it. */
int man_sow(const ManRules *r, const ManPos *p, int k, ManPos *out);
/* The final stores as the Python engine's `outcome` counts them (only when over). */
void man_final(const ManRules *r, const ManPos *p, int *south, int *north);
uint64_t man_perft(const ManRules *r, const ManPos *p, int depth);

#endif
