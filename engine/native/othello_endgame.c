/* The 8x8 Othello endgame solver of othello_endgame.h. Bit `row * 8 + column` is a square, as
 * everywhere in ubao's Othello: a1 is bit 0, h1 bit 7, a8 bit 56. */
#include "othello_endgame.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "othello_board8.h"
#include "othello_patterns.h"
#include "search.h" /* search_clock */
#include "table.h"  /* RELAXED_LOAD, RELAXED_STORE */

#define NOT_A 0xfefefefefefefefeULL /* every square but column a */
#define NOT_H 0x7f7f7f7f7f7f7f7fULL
#define COLUMN_A 0x0101010101010101ULL
#define COLUMNS_AH 0x8181818181818181ULL
#define ROWS_18 0xff000000000000ffULL
#define EDGES (COLUMNS_AH | ROWS_18)
#define CORNERS 0x8100000000000081ULL
#define BEYOND 65 /* beyond any margin */
#define POLL_NODES 65536 /* positions between two looks at the clock and the signals */
#define OE_TABLE_EMPTIES 8 /* from here up, nodes keep their bounds in the table, */
#define OE_ETC_EMPTIES 12  /* and from here up look their children up (cache misses below) */
#define OE_SORT_EMPTIES 12 /* from here up, a shallow search's estimate sorts the moves too, */
#define OE_SORT_STEP 3     /* one ply deeper each 3 empties more, */
#define OE_SORT_MOST 3     /* up to 3 plies; */
#define OE_SORT_MARGIN 8   /* discs below alpha under which its estimate need not be precise */
#define OE_W_MOBILITY 64   /* the move order's weights: per reply of the opponent's, */
#define OE_W_FRONTIER 8    /* per empty square beside the mover's discs, */
#define OE_W_CORNER 32     /* per disc safe by a corner, */
#define OE_W_EVAL 2        /* per 1/16 disc of the estimate */
#define OE_ASPIRE_EMPTIES 12 /* from here up, a wide window at the root becomes narrow ones */
#define OE_GUESS_DEPTH 4     /* around the estimate of a search this deep */

/* The 15 diagonals of each slant, as boards: where a full one makes its discs safe from it. */
static uint64_t diagonals[2][15];
/* Each square's neighbours: a placement turns none unless one of them is the opponent's. */
static uint64_t neighbours[64];

static void oe_tables(void) {
    for (int square = 0; square < 64; square++) {
        uint64_t disc = (uint64_t)1 << square, beside = (disc << 1 & NOT_A) | (disc >> 1 & NOT_H);
        beside |= disc;
        neighbours[square] = (beside | beside << 8 | beside >> 8) & ~disc;
    }
    for (int k = 0; k < 15; k++) {
        uint64_t down = 0, up = 0; /* a1-h8 slant (step 9), h1-a8 slant (step 7) */
        for (int row = 0; row < 8; row++) {
            int column = k - 7 + row, back = 7 - column;
            if (column >= 0 && column < 8) {
                down |= (uint64_t)1 << (row * 8 + column);
                up |= (uint64_t)1 << (row * 8 + back);
            }
        }
        diagonals[0][k] = down;
        diagonals[1][k] = up;
    }
}

/* The discs of `opp` that no move can ever turn, or fewer: a disc is safe along a line when
 * the line is full, or a neighbour on it is the board's edge or a safe disc of its colour;
 * safe along all four lines, it is stable (grown from nothing to a fixed point). */
static uint64_t oe_stable(uint64_t own, uint64_t opp) {
    uint64_t occupied = own | opp, rows = occupied, columns = occupied, slants[2] = {0, 0};
    rows &= rows >> 1;
    rows &= rows >> 2;
    rows &= rows >> 4;
    rows = (rows & COLUMN_A) * 0xff;
    columns &= columns >> 8;
    columns &= columns >> 16;
    columns &= columns >> 32;
    columns = (columns & 0xff) * COLUMN_A;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 15; k++)
            if ((occupied & diagonals[s][k]) == diagonals[s][k]) slants[s] |= diagonals[s][k];
    uint64_t stable = 0, grown;
    for (;;) {
        uint64_t along_row = rows | COLUMNS_AH | (stable << 1 & NOT_A) | (stable >> 1 & NOT_H);
        uint64_t along_column = columns | ROWS_18 | stable << 8 | stable >> 8;
        uint64_t down = slants[0] | EDGES | (stable << 9 & NOT_A) | (stable >> 9 & NOT_H);
        uint64_t up = slants[1] | EDGES | (stable << 7 & NOT_H) | (stable >> 7 & NOT_A);
        grown = opp & along_row & along_column & down & up;
        if (grown == stable) return stable;
        stable = grown;
    }
}

/* -- the table ---------------------------------------------------------------------------- */

static inline OeEntry *oe_bucket(const OeSolver *s, uint64_t own, uint64_t opp) {
    uint64_t h = own * 0x9E3779B97F4A7C15ULL ^ (opp + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    return s->table + 2 * (h & (s->buckets - 1));
}

static inline const OeEntry *oe_find(const OeSolver *s, uint64_t own, uint64_t opp) {
    const OeEntry *slot = oe_bucket(s, own, opp);
    for (int i = 0; i < 2; i++)
        if (slot[i].own == own && slot[i].opp == opp) return slot + i;
    return NULL;
}

static void oe_store(OeSolver *s, uint64_t own, uint64_t opp, int empties, int low, int high,
                     int move) {
    OeEntry *slot = oe_bucket(s, own, opp);
    for (int i = 0; i < 2; i++) {
        if (slot[i].own == own && slot[i].opp == opp) { /* both pairs are proved: keep both */
            if (low > slot[i].low) slot[i].low = (int8_t)low;
            if (high < slot[i].high) slot[i].high = (int8_t)high;
            slot[i].move = (uint8_t)move;
            return;
        }
    }
    OeEntry entry = {own, opp, (int8_t)low, (int8_t)high, (uint8_t)move, (uint8_t)empties};
    if (empties >= slot[0].empties) slot[1] = slot[0], slot[0] = entry;
    else slot[1] = entry;
}

int oe_init(OeSolver *s, double hash_mb) {
    memset(s, 0, sizeof *s);
    oe_tables();
    uint64_t buckets = 1;
    while ((double)(buckets * 2 * 2 * sizeof(OeEntry)) <= hash_mb * 1e6) buckets *= 2;
    s->table = calloc(2 * buckets, sizeof(OeEntry));
    if (!s->table) return -1;
    s->buckets = buckets;
    return 0;
}

void oe_free(OeSolver *s) {
    free(s->table);
    s->table = NULL;
}

void oe_clear(OeSolver *s) { memset(s->table, 0, 2 * s->buckets * sizeof(OeEntry)); }

int oe_table_move(const OeSolver *s, uint64_t own, uint64_t opp) {
    const OeEntry *entry = oe_find(s, own, opp);
    return entry && entry->move != OE_NO_MOVE ? entry->move : -1;
}

/* -- the search ----------------------------------------------------------------------------- */

/* Whether the search must end: polled every POLL_NODES positions. */
static int oe_stop(OeSolver *s) {
    if (s->nodes < s->next_poll) return s->stopped;
    s->next_poll = s->nodes + POLL_NODES;
    if (RELAXED_LOAD(s->halt) ||
        (s->deadline > 0 && search_clock() >= s->deadline) ||
        (s->interrupted && s->interrupted(s->context)))
        s->stopped = 1;
    return s->stopped;
}

/* The four quadrants, as boards, and which quadrants a parity word's bits name. */
static const uint64_t QUADRANT[4] = {0x000000000f0f0f0fULL, 0x00000000f0f0f0f0ULL,
                                     0x0f0f0f0f00000000ULL, 0xf0f0f0f000000000ULL};

static inline int oe_quadrant(int square) { return (square >> 5 & 2) | (square >> 2 & 1); }

static unsigned oe_parity(uint64_t empty) {
    unsigned parity = 0;
    for (int q = 0; q < 4; q++) parity |= (unsigned)(bits_count(empty & QUADRANT[q]) & 1) << q;
    return parity;
}

/* ob_flips, answering at once where no neighbour is the opponent's (most empty squares tried
 * in place near the end). */
static inline uint64_t oe_flips(uint64_t own, uint64_t opp, int square) {
    return neighbours[square] & opp ? ob_flips(own, opp, square) : 0;
}

static inline int oe_final(uint64_t own, uint64_t opp) {
    return bits_count(own) - bits_count(opp);
}

/* The last empty square: only its flips are counted, the mover's, else the opponent's. */
static int oe_last(OeSolver *s, uint64_t own, uint64_t opp, int square) {
    s->nodes++;
    int margin = 2 * bits_count(own) - 63; /* the margin with the square left empty */
    int turned = bits_count(oe_flips(own, opp, square));
    if (turned) return margin + 2 * turned + 1;
    turned = bits_count(oe_flips(opp, own, square));
    if (turned) return margin - 2 * turned - 1;
    return margin;
}

/* The last two empty squares, `a` and `b`: each tried in place; `passed` when the opponent
 * could not move before (neither can: the game is over). */
static int oe_last_two(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta, int a, int b,
                       int passed) {
    s->nodes++;
    int best = -BEYOND;
    uint64_t flips = oe_flips(own, opp, a);
    if (flips) {
        best = -oe_last(s, opp ^ flips, own | flips | (uint64_t)1 << a, b);
        if (best >= beta) return best;
    }
    flips = oe_flips(own, opp, b);
    if (flips) {
        int value = -oe_last(s, opp ^ flips, own | flips | (uint64_t)1 << b, a);
        if (value > best) best = value;
    }
    if (best > -BEYOND) return best;
    if (passed) return oe_final(own, opp);
    return -oe_last_two(s, opp, own, -beta, -alpha, a, b, 1);
}

/* Few empties: each empty square tried in place, odd regions first; no table. */
static int oe_shallow(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta, int empties,
                      unsigned parity) {
    s->nodes++;
    uint64_t empty = ~(own | opp), odd = 0;
    for (int q = 0; q < 4; q++)
        if (parity >> q & 1) odd |= QUADRANT[q];
    uint64_t groups[2] = {empty & odd, empty & ~odd};
    int best = -BEYOND;
    for (int g = 0; g < 2; g++) {
        for (uint64_t left = groups[g]; left; left &= left - 1) {
            int square = bits_lowest(left);
            uint64_t flips = oe_flips(own, opp, square);
            if (!flips) continue;
            uint64_t mine = opp ^ flips, theirs = own | flips | (uint64_t)1 << square;
            uint64_t rest = empty & ~((uint64_t)1 << square);
            int value = empties == 3 ? -oe_last_two(s, mine, theirs, -beta, -alpha,
                                                    bits_lowest(rest), 63 - bits_leading(rest), 0)
                                     : -oe_shallow(s, mine, theirs, -beta, -alpha, empties - 1,
                                                   parity ^ 1u << oe_quadrant(square));
            if (value > best) {
                best = value;
                if (value >= beta) return best;
                if (value > alpha) alpha = value;
            }
        }
    }
    if (best > -BEYOND) return best;
    if (!ob_placements(opp, own)) return oe_final(own, opp);
    return -oe_shallow(s, opp, own, -beta, -alpha, empties, parity); /* the mover passes */
}

static int oe_deep(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta, int empties);

/* The child searched on: the shallow search below OE_SHALLOW + 1 empties, else the deep one. */
static inline int oe_child(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta,
                           int empties) {
    if (empties > OE_SHALLOW) return oe_deep(s, own, opp, alpha, beta, empties);
    uint64_t empty = ~(own | opp);
    if (empties == 2) return oe_last_two(s, own, opp, alpha, beta, bits_lowest(empty), 63 - bits_leading(empty), 0);
    if (empties == 1) return oe_last(s, own, opp, bits_lowest(empty));
    if (empties == 0) return oe_final(own, opp);
    return oe_shallow(s, own, opp, alpha, beta, empties, oe_parity(~(own | opp)));
}

typedef struct {
    uint64_t flips;
    int square, score; /* the higher the score, the sooner the move is searched */
} OeMove;

/* A shallow negamax with the pattern evaluation at its leaves: the mover's expected margin in
 * 1/16 discs, for the move order only (the weights are read as the mover's, who may be White,
 * the mover as Black: close enough to sort by). */
static int oe_estimate(OeSolver *s, uint64_t own, uint64_t opp, int depth, int alpha, int beta) {
    s->nodes++;
    uint64_t moves = ob_placements(own, opp);
    if (depth == 0) {
        int mobility = bits_count(moves) - bits_count(ob_placements(opp, own));
        return (int)(16 * oth_patterns_value(own, opp, mobility, 1));
    }
    if (!moves) {
        if (!ob_placements(opp, own)) return 16 * oe_final(own, opp);
        return -oe_estimate(s, opp, own, depth, -beta, -alpha);
    }
    int best = -16 * BEYOND;
    for (; moves; moves &= moves - 1) {
        int square = bits_lowest(moves);
        uint64_t flips = ob_flips(own, opp, square);
        int value = -oe_estimate(s, opp ^ flips, own | flips | (uint64_t)1 << square, depth - 1,
                                 -beta, -(alpha > best ? alpha : best));
        if (value > best) {
            best = value;
            if (best >= beta) break;
        }
    }
    return best;
}

/* The mover's discs that can never turn because they hold a corner or sit on an edge beside
 * their own corner: a cheap part of the stable discs. */
static inline int oe_corner_stable(uint64_t own) {
    uint64_t corners = own & CORNERS;
    uint64_t beside = (corners << 1 & NOT_A) | (corners >> 1 & NOT_H) | corners << 8 | corners >> 8;
    return bits_count(corners | (beside & EDGES & own));
}

/* The empty squares beside a disc of `discs`: where the other side may come to move. */
static inline uint64_t oe_frontier(uint64_t discs, uint64_t empty) {
    uint64_t around = (discs << 1 & NOT_A) | (discs >> 1 & NOT_H);
    around |= discs | around;
    around |= around << 8 | around >> 8;
    return around & empty;
}

/* How deep the shallow search that sorts the moves of a node with `empties` empties goes: -1
 * below OE_SORT_EMPTIES (mobility alone sorts there), or when no evaluation is loaded. */
static inline int oe_sort_depth(int empties) {
    if (empties < OE_SORT_EMPTIES || !oth_patterns_loaded()) return -1;
    int depth = (empties - OE_SORT_EMPTIES) / OE_SORT_STEP;
    return depth > OE_SORT_MOST ? OE_SORT_MOST : depth;
}

/* The score a move sorts by: few replies for the opponent (corners counting twice), few
 * empty squares beside the mover's discs, discs safe by a corner, and the shallow search's
 * estimate where it runs; the table's move before all. */
static int oe_move_score(OeSolver *s, uint64_t mine, uint64_t theirs, int sort_depth,
                         int alpha) {
    uint64_t replies = ob_placements(mine, theirs), empty = ~(mine | theirs);
    int score = -(bits_count(replies) + bits_count(replies & CORNERS)) * OE_W_MOBILITY;
    score -= bits_count(oe_frontier(theirs, empty)) * OE_W_FRONTIER;
    score += oe_corner_stable(theirs) * OE_W_CORNER;
    if (sort_depth >= 0) {
        int bound = 16 * (alpha - OE_SORT_MARGIN);
        if (bound < -16 * 64) bound = -16 * 64;
        score -= oe_estimate(s, mine, theirs, sort_depth, -16 * BEYOND, -bound) * OE_W_EVAL;
    }
    return score;
}

/* Many empties: the table, stability, a sorted move order and null windows after the first. */
static int oe_deep(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta, int empties) {
    s->nodes++;
    if (oe_stop(s)) return 0;
    uint64_t moves = ob_placements(own, opp);
    if (!moves) {
        if (!ob_placements(opp, own)) return oe_final(own, opp);
        return -oe_deep(s, opp, own, -beta, -alpha, empties);
    }
    /* the opponent's stable discs bound the mover's margin from above */
    if (alpha >= 64 - 2 * bits_count(opp)) {
        int most = 64 - 2 * bits_count(oe_stable(own, opp));
        if (most <= alpha) return most;
    }
    int first = OE_NO_MOVE, low = -64, high = 64;
    const OeEntry *entry = empties >= OE_TABLE_EMPTIES ? oe_find(s, own, opp) : NULL;
    if (entry) {
        if (entry->low >= beta) return entry->low;
        if (entry->high <= alpha) return entry->high;
        if (entry->low == entry->high) return entry->low;
        low = entry->low;
        high = entry->high;
        first = entry->move;
        if (low > alpha) alpha = low;
        if (high < beta) beta = high;
    }
    OeMove list[32];
    int n = 0, sort_depth = oe_sort_depth(empties);
    for (; moves; moves &= moves - 1) {
        int square = bits_lowest(moves);
        uint64_t flips = ob_flips(own, opp, square);
        uint64_t mine = opp ^ flips, theirs = own | flips | (uint64_t)1 << square;
        if (empties >= OE_ETC_EMPTIES) { /* a child's table entry may refute the window at once */
            const OeEntry *known = oe_find(s, mine, theirs);
            if (known && -known->high >= beta) return -known->high;
        }
        int score = square == first ? 1 << 30 : oe_move_score(s, mine, theirs, sort_depth, alpha);
        list[n++] = (OeMove){flips, square, score};
    }
    int best = -BEYOND, best_move = OE_NO_MOVE, from = alpha;
    for (int i = 0; i < n; i++) {
        int pick = i;
        for (int j = i + 1; j < n; j++)
            if (list[j].score > list[pick].score) pick = j;
        OeMove move = list[pick];
        list[pick] = list[i];
        uint64_t mine = opp ^ move.flips, theirs = own | move.flips | (uint64_t)1 << move.square;
        int value;
        if (i == 0) {
            value = -oe_child(s, mine, theirs, -beta, -alpha, empties - 1);
        } else {
            value = -oe_child(s, mine, theirs, -alpha - 1, -alpha, empties - 1);
            if (value > alpha && value < beta && !s->stopped)
                value = -oe_child(s, mine, theirs, -beta, -alpha, empties - 1);
        }
        if (s->stopped) return 0;
        if (value > best) {
            best = value;
            best_move = move.square;
            if (value >= beta) break;
            if (value > alpha) alpha = value;
        }
    }
    if (empties >= OE_TABLE_EMPTIES) /* what the window proved: a bound, or the margin itself */
        oe_store(s, own, opp, empties, best <= from ? low : best, best >= beta ? high : best,
                 best_move);
    return best;
}

void oe_halt(OeSolver *s) { RELAXED_STORE(s->halt, 1); }

/* The root with a wide window: narrow ones (two wide: margins are even but for games ended
 * with squares empty) around a guess from a shallow search. A window failed high (one move
 * proved it, cheap) moves the guess up to the bound proved; one failed low (every move
 * refuted: about a whole search, however far off the guess was) opens the window down from
 * the bound it proved instead. */
static int oe_aspire(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta, int empties) {
    int guess = oe_estimate(s, own, opp, OE_GUESS_DEPTH, -16 * BEYOND, 16 * BEYOND);
    guess = (guess + (guess >= 0 ? 16 : -16)) / 32 * 2; /* to the nearest even margin */
    int above = alpha; /* proved: the margin is above it */
    for (;;) {
        if (guess <= above) guess = above + 1;
        if (guess >= beta) guess = beta - 1;
        int a = guess - 1 > above ? guess - 1 : above, b = guess + 1 < beta ? guess + 1 : beta;
        int value = oe_deep(s, own, opp, a, b, empties);
        if (s->stopped || (value > a && value < b)) return value;
        if (value <= a)
            return value <= alpha ? value : oe_deep(s, own, opp, above, value + 1, empties);
        if (value >= beta) return value;
        above = value - 1;
        guess = value + (value & 1);
    }
}

int oe_search(OeSolver *s, uint64_t own, uint64_t opp, int alpha, int beta) {
    s->stopped = 0;
    RELAXED_STORE(s->halt, 0);
    s->next_poll = s->nodes;
    int empties = 64 - bits_count(own | opp);
    if (empties >= OE_ASPIRE_EMPTIES && beta - alpha > 2 && oth_patterns_loaded())
        return oe_aspire(s, own, opp, alpha, beta, empties);
    if (empties > OE_SHALLOW) return oe_deep(s, own, opp, alpha, beta, empties);
    return oe_child(s, own, opp, alpha, beta, empties);
}
