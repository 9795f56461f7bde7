/* Bao la Kiswahili's rules: engine/bao/rules.py and the rules methods of engine/bao/game.py, line by
 * line (rule ids [Rx] and sections §x: docs/bao.md). */
#include "bao.h"

#include <stdlib.h>
#include <string.h>

void bao_init(BaoRules *r, int optional_takasa_stop, int namua_singleton, int tax_any_owned,
              int sixteen_rule, int lose_ownership, int mtaji_takasa_stop_at_nyumba,
              int mtaji_capture_nyumba_choice, int takasia, int singleton_exception,
              int first_lap_exception, int attacker_must_capture, int never_ending,
              int immediate_end, int max_plies) {
    int takasa_stop = optional_takasa_stop ? BAO_DECIDE : BAO_STOP;
    r->stop_rule[BAO_NAMUA_CAPTURE] = BAO_DECIDE;
    r->stop_rule[BAO_NAMUA_TAKASA] = takasa_stop;
    r->stop_rule[BAO_TAX] = takasa_stop;
    r->stop_rule[BAO_MTAJI_CAPTURE] = mtaji_capture_nyumba_choice ? BAO_DECIDE : BAO_NO_RULE;
    r->stop_rule[BAO_MTAJI_TAKASA] = mtaji_takasa_stop_at_nyumba ? BAO_STOP : BAO_NO_RULE;
    r->namua_singleton = namua_singleton;
    r->tax_any_owned = tax_any_owned;
    r->sixteen_rule = sixteen_rule;
    r->lose_ownership = lose_ownership;
    r->takasia = takasia;
    r->singleton_exception = singleton_exception;
    r->first_lap_exception = first_lap_exception;
    r->attacker_must_capture = attacker_must_capture;
    r->never_ending = never_ending;
    r->immediate_end = immediate_end;
    r->max_plies = max_plies;
}

/* -- captures and takasia (§7.1, §11) -------------------------------------------------------- */

/* Every mtaji capture start of the owner of `me` [R7.1], as `capture_landings` lists them:
 * holes ascending, clockwise first. Returns how many (at most 32). */
static int landings(const int *me, const int *op, int sixteen_rule, int *holes, int *dirs,
                    int *lands) {
    int n = 0;
    for (int hole = 0; hole < 16; hole++) {
        int seeds = me[hole];
        if (seeds < 2) continue;
        if (seeds < 16) {
            int landing = (hole + seeds) & 15;
            if (landing < 8 && me[landing] && op[7 - landing]) {
                holes[n] = hole, dirs[n] = 1, lands[n++] = landing;
            }
            landing = (hole - seeds) & 15;
            if (landing < 8 && me[landing] && op[7 - landing]) {
                holes[n] = hole, dirs[n] = -1, lands[n++] = landing;
            }
        } else if (!sixteen_rule) { /* a lap of 16+ also fills the landing on earlier circuits */
            int received = (seeds >> 4) + ((seeds & 15) != 0);
            for (int dir = 1; dir >= -1; dir -= 2) {
                int landing = (hole + dir * (seeds & 15)) & 15;
                int before = landing == hole ? 0 : me[landing];
                if (landing < 8 && op[7 - landing] && before + received >= 2) {
                    holes[n] = hole, dirs[n] = dir, lands[n++] = landing;
                }
            }
        }
    }
    return n;
}

/* Whether the owner of `me` has a mtaji capture (`_has_capture`). */
static int has_capture(const int *me, const int *op, int sixteen_rule) {
    for (int hole = 0; hole < 16; hole++) {
        int seeds = me[hole];
        if (seeds >= 2 && seeds < 16) {
            int landing = (hole + seeds) & 15;
            if (landing < 8 && me[landing] && op[7 - landing]) return 1;
            landing = (hole - seeds) & 15;
            if (landing < 8 && me[landing] && op[7 - landing]) return 1;
        } else if (seeds >= 16 && !sixteen_rule) {
            int holes[32], dirs[32], lands[32];
            return landings(me, op, sixteen_rule, holes, dirs, lands) > 0;
        }
    }
    return 0;
}

/* The front holes of the owner of `op` that the owner of `me` could capture, as bits
 * (`capture_targets`). */
static unsigned capture_targets(const int *me, const int *op, int sixteen_rule) {
    int holes[32], dirs[32], lands[32];
    int n = landings(me, op, sixteen_rule, holes, dirs, lands);
    unsigned targets = 0;
    for (int i = 0; i < n; i++) targets |= 1u << (7 - lands[i]);
    return targets;
}

/* The single hole of `targets`, or -1. */
static int only_target(unsigned targets) {
    if (!targets || targets & (targets - 1)) return -1;
    int hole = 0;
    while (!(targets >> hole & 1)) hole++;
    return hole;
}

/* The hole of Y that X's mtaji takasa just blocked, or -1 [R11.1, R11.2] (`takasia_hole`). */
static int takasia_hole(const BaoRules *r, const int *x, const int *y, int y_owns_nyumba) {
    int most = 0;
    for (int i = 0; i < 16; i++)
        if (y[i] > most) most = y[i];
    if (most < 2 || has_capture(y, x, r->sixteen_rule)) return -1;
    int target = only_target(capture_targets(x, y, r->sixteen_rule));
    if (target < 0) return -1;
    int seeds = y[target], empty = 0, several = 0;
    if (seeds == 1 && r->singleton_exception) return -1;
    for (int i = 0; i < 8; i++) {
        empty += !y[i];
        several += y[i] >= 2;
    }
    if (empty == 7) return -1;
    if (seeds >= 2 && several == 1) return -1;
    if (target == BAO_NYUMBA && y_owns_nyumba) return -1;
    return target;
}

/* -- candidates (§6, §7) --------------------------------------------------------------------- */

/* Sowing a lone kichwa toward the back row [R6.4c]. */
static int lone_kichwa_outward(int hole, int dir) {
    return (hole == 0 && dir == -1) || (hole == 7 && dir == 1);
}

/* The moves the mover may try, before simulation (`candidates`); their common kind in *kind.
 * Returns how many (at most 32). */
static int candidates(const BaoRules *r, const BaoPos *p, int *kind, int *holes, int *dirs) {
    int player = p->to_move, n = 0;
    const int *me = p->ring[player], *op = p->ring[1 - player];
    if (p->stock[player]) {
        int owned = p->owned[player];
        for (int hole = 0; hole < 8; hole++) {
            if (me[hole] && op[7 - hole]) {
                if (hole > 1) holes[n] = hole, dirs[n++] = -1; /* right kichwa */
                if (hole < 6) holes[n] = hole, dirs[n++] = 1;  /* left kichwa [R6.3] */
            }
        }
        *kind = BAO_NAMUA_CAPTURE;
        if (n) return n;
        int occupied[8], count = 0;
        for (int hole = 0; hole < 8; hole++)
            if (me[hole]) occupied[count++] = hole;
        int functional = owned && me[BAO_NYUMBA] >= 6;
        if (count == 1 && occupied[0] == BAO_NYUMBA &&
            (functional || (owned && r->tax_any_owned))) {
            *kind = BAO_TAX; /* [R6.6] */
            holes[0] = holes[1] = BAO_NYUMBA;
            dirs[0] = 1;
            dirs[1] = -1;
            return 2;
        }
        int lone = count == 1;
        if (functional) { /* [R6.4a] */
            int kept = 0;
            for (int i = 0; i < count; i++)
                if (occupied[i] != BAO_NYUMBA) occupied[kept++] = occupied[i];
            count = kept;
        }
        int singleton = r->namua_singleton;
        if ((singleton == BAO_SINGLETON_OWNED && !owned) ||
            (singleton == BAO_SINGLETON_FUNCTIONAL && !functional)) {
            int several = 0; /* [R6.4b] */
            for (int i = 0; i < count; i++) several += me[occupied[i]] >= 2;
            if (several) {
                int kept = 0;
                for (int i = 0; i < count; i++)
                    if (me[occupied[i]] >= 2) occupied[kept++] = occupied[i];
                count = kept;
            }
        }
        *kind = BAO_NAMUA_TAKASA;
        for (int i = 0; i < count; i++) {
            for (int dir = 1; dir >= -1; dir -= 2) {
                if (!(lone && lone_kichwa_outward(occupied[i], dir))) {
                    holes[n] = occupied[i], dirs[n++] = dir;
                }
            }
        }
        return n;
    }
    int lands[32];
    n = landings(me, op, r->sixteen_rule, holes, dirs, lands);
    *kind = BAO_MTAJI_CAPTURE;
    if (n) return n;
    int blocked = -1;
    if (r->takasia == BAO_TAKASIA_DE_VOOGT) {
        blocked = p->takasia;
    } else if (r->takasia == BAO_TAKASIA_MTAJI_MOJA && !p->stock[0] && !p->stock[1]) {
        blocked = only_target(capture_targets(op, me, r->sixteen_rule)); /* [R11.5] */
    }
    int empty = 0;
    for (int hole = 0; hole < 8; hole++) empty += !me[hole];
    int lone = empty == 7;
    *kind = BAO_MTAJI_TAKASA;
    for (int hole = 0; hole < 8; hole++) {
        if (me[hole] < 2 || hole == blocked) continue;
        for (int dir = 1; dir >= -1; dir -= 2) {
            if (!(lone && lone_kichwa_outward(hole, dir))) holes[n] = hole, dirs[n++] = dir;
        }
    }
    if (n) return n;
    for (int hole = 8; hole < 16; hole++) { /* [R7.4] back-row fallback */
        if (me[hole] < 2) continue;
        holes[n] = hole, dirs[n++] = 1;
        holes[n] = hole, dirs[n++] = -1;
    }
    return n;
}

/* The kind of every candidate of `p` without listing them (the search's `child`). */
static int kind_of(const BaoRules *r, const BaoPos *p) {
    int player = p->to_move;
    const int *me = p->ring[player], *op = p->ring[1 - player];
    if (!p->stock[player]) {
        return has_capture(me, op, r->sixteen_rule) ? BAO_MTAJI_CAPTURE : BAO_MTAJI_TAKASA;
    }
    int occupied = 0;
    for (int hole = 0; hole < 8; hole++) {
        if (me[hole] && op[7 - hole]) return BAO_NAMUA_CAPTURE;
        occupied += me[hole] != 0;
    }
    int owned = p->owned[player];
    if (occupied == 1 && me[BAO_NYUMBA] &&
        ((owned && me[BAO_NYUMBA] >= 6) || (owned && r->tax_any_owned)))
        return BAO_TAX;
    return BAO_NAMUA_TAKASA;
}

/* -- the simulation of one move (§9) --------------------------------------------------------- */

/* The state of a move between laps. */
typedef struct {
    int me[16], op[16];
    int seeds, cursor, landing, direction, laps, owned, other_owned, decided, hand;
    int taken;   /* seeds captured: the mover's gain of material */
    int endless; /* the move never ends (set when it is over) */
    unsigned captured;
} Lap;

/* What does not change during a move. */
typedef struct {
    const BaoRules *r;
    int capture_move, stop_rule, blocked, first_lap_free, safari, mtaji_stage;
} Move;

/* Sows and resolves laps until the move ends (0) or a lap ends where `simulate` would relay
 * (1): the point where it looks for a never-ending move. */
static inline int run(const Move *m, Lap *s) {
    const BaoRules *r = m->r;
    for (;;) {
        if (s->seeds) {
            int seeds = s->seeds, at = s->cursor, dir = s->direction;
            if (seeds >= 16) { /* [R4.2] no hole is skipped, the start hole included */
                int circuits = seeds >> 4;
                for (int i = 0; i < 16; i++) s->me[i] += circuits;
                seeds &= 15;
            }
            for (int j = 0; j < seeds; j++) {
                at = (at + dir) & 15;
                s->me[at]++;
            }
            s->landing = at;
            s->laps++;
            if (s->me[at] == 1) return 0; /* [R4.4] empty landing */
        }
        int landing = s->landing;
        if (m->capture_move && landing < 8 && s->op[7 - landing]) {
            int target = 7 - landing;
            s->seeds = s->op[target];
            s->taken += s->seeds;
            s->op[target] = 0;
            s->captured |= 1u << target;
            if (target == BAO_NYUMBA) s->other_owned = 0; /* [R10.2b] */
            if (m->mtaji_stage && r->lose_ownership != BAO_LOSE_OFF) {
                s->owned = 0; /* [R7.3] */
                if (r->lose_ownership == BAO_LOSE_BOTH) s->other_owned = 0;
            }
            if (r->immediate_end) {
                int front = 0;
                for (int i = 0; i < 8; i++) front |= s->op[i];
                if (!front) { /* [R12.3] bao hamna ends the game in the middle of the move */
                    s->hand = s->seeds;
                    return 0;
                }
            }
            if (landing < 2) {
                s->direction = 1;
            } else if (landing > 5) {
                s->direction = -1;
            }
            s->cursor = s->direction > 0 ? 15 : 8; /* [R8.1] the first seed into the kichwa */
            continue;
        }
        if (landing == m->blocked && !(m->first_lap_free && s->laps == 1)) return 0; /* [R11.3] */
        if (landing == BAO_NYUMBA && s->owned && m->stop_rule && s->me[BAO_NYUMBA] >= 6) {
            if (m->stop_rule == BAO_STOP) return 0;
            s->decided = 1;
            if (!m->safari) return 0;
        }
        return 1;
    }
}

/* [R4.5] relay: the landing's seeds are sown on. */
static void relay(Lap *s) {
    s->seeds = s->me[s->landing];
    s->me[s->landing] = 0;
    s->cursor = s->landing;
    if (s->landing == BAO_NYUMBA) s->owned = 0;
}

/* The Python simulation records the key (ring, landing, direction, ownership) at every relay
 * from lap 40 on and calls the move never-ending at the first relay point i >= 1 (counting
 * the first recorded one as 0) whose key was seen before or whose lap count passed BAO_MAX_LAPS.
 * Equal keys mean equal futures (a capture raises the mover's total, so between equal keys
 * none happened and the opponent's ring is the same too). */
static int same_key(const Lap *a, const Lap *b) {
    return a->landing == b->landing && a->direction == b->direction && a->owned == b->owned &&
           !memcmp(a->me, b->me, sizeof a->me);
}

/* That relay point i for the move at relay point 0 `start`, or -1 when the move ends first;
 * found without memory by Brent's cycle detection: the first repeat is at mu + lambda. Brent
 * sees a repeat by step 3 (mu + lambda) + 2, so a hare that far past the lap cap's point
 * proves that no repeat comes before it. */
static long endless_at(const Move *m, const Lap *start) {
    Lap tortoise = *start, hare = *start;
    long power = 1, lambda = 1, step = 1, capped = -1;
    relay(&hare);
    if (!run(m, &hare)) return -1;
    if (hare.laps > BAO_MAX_LAPS) capped = 1;
    while (!same_key(&tortoise, &hare)) {
        if (capped >= 0 && step > 3 * capped + 4) return capped;
        if (power == lambda) {
            tortoise = hare;
            power *= 2;
            lambda = 0;
        }
        relay(&hare);
        if (!run(m, &hare)) return capped; /* the move ends: no repeat */
        step++;
        lambda++;
        if (capped < 0 && hare.laps > BAO_MAX_LAPS) capped = step;
    }
    tortoise = hare = *start;
    for (long i = 0; i < lambda; i++) {
        relay(&hare);
        run(m, &hare);
    }
    long mu = 0;
    while (!same_key(&tortoise, &hare)) {
        relay(&tortoise);
        run(m, &tortoise);
        relay(&hare);
        run(m, &hare);
        mu++;
    }
    return capped >= 0 && capped < mu + lambda ? capped : mu + lambda;
}

/* Plays one candidate to its end (`simulate` up to building the child) on `s`; returns
 * whether it never ends. s->decided: a stop/safari decision arose; s->captured: the
 * opponent's front holes captured, as bits. */
static int play_out(const BaoRules *r, const BaoPos *p, int kind, int hole, int dir, int safari,
                    Lap *s) {
    int player = p->to_move, other = 1 - player;
    memcpy(s->me, p->ring[player], sizeof s->me);
    memcpy(s->op, p->ring[other], sizeof s->op);
    s->owned = p->owned[player];
    s->other_owned = p->owned[other];
    Move m;
    m.r = r;
    m.mtaji_stage = !p->stock[0] && !p->stock[1];
    m.capture_move = kind == BAO_NAMUA_CAPTURE || kind == BAO_MTAJI_CAPTURE;
    m.stop_rule = r->stop_rule[kind];
    m.blocked = m.capture_move ? -1 : p->takasia;
    m.first_lap_free = m.blocked >= 0 && r->first_lap_exception && hole == BAO_NYUMBA && s->owned;
    m.safari = safari;

    if (p->stock[player]) s->me[hole]++;
    s->cursor = s->landing = hole;
    if (kind == BAO_NAMUA_CAPTURE) {
        s->seeds = 0; /* the placement itself captures [R6.2] */
    } else if (kind == BAO_TAX) {
        s->me[BAO_NYUMBA] -= 2;
        s->seeds = 2; /* [R6.6] the nyumba stays owned */
    } else {
        s->seeds = s->me[hole];
        s->me[hole] = 0;
        if (hole == BAO_NYUMBA) s->owned = 0; /* [R10.2a] */
    }
    s->direction = dir;
    s->laps = s->hand = s->decided = s->taken = 0;
    s->captured = 0;

    s->endless = 0;
    int more = run(&m, s);
    while (more && s->laps < BAO_CHECK_CYCLES_FROM) {
        relay(s);
        more = run(&m, s);
    }
    if (!more) return 0;
    long limit = endless_at(&m, s);
    for (long i = 1;; i++) {
        relay(s);
        if (!run(&m, s)) return 0;
        if (i == limit) return s->endless = 1;
    }
}

/* The child after a move played out on `s` (the rest of `simulate`). */
static void build_child(const BaoRules *r, const BaoPos *p, int capture_move, int endless,
                        const Lap *s, BaoPos *out) {
    int player = p->to_move, other = 1 - player;
    int takasia = -1;
    if (!p->stock[0] && !p->stock[1] && !capture_move && !endless &&
        r->takasia == BAO_TAKASIA_DE_VOOGT)
        takasia = takasia_hole(r, s->me, s->op, s->other_owned);
    memcpy(out->ring[player], s->me, sizeof s->me);
    memcpy(out->ring[other], s->op, sizeof s->op);
    out->stock[player] = p->stock[player] - (p->stock[player] > 0);
    out->stock[other] = p->stock[other];
    out->owned[player] = s->owned;
    out->owned[other] = s->other_owned;
    out->to_move = endless ? player : other;
    out->takasia = takasia;
    out->target = r->attacker_must_capture && !s->hand ? p->takasia : -1;
    out->hand = s->hand;
    out->endless = endless;
    out->ply = p->ply + 1;
}

/* -- the game -------------------------------------------------------------------------------- */

static int front_empty(const BaoPos *p, int player) {
    const int *ring = p->ring[player];
    return !(ring[0] | ring[1] | ring[2] | ring[3] | ring[4] | ring[5] | ring[6] | ring[7]);
}

/* Finished without looking at the legal moves (`Bao._over`). */
static int over_early(const BaoRules *r, const BaoPos *p) {
    return front_empty(p, 0) || front_empty(p, 1) || p->endless ||
           (r->max_plies > 0 && p->ply >= r->max_plies);
}

static int capture_kind(int kind) { return kind == BAO_NAMUA_CAPTURE || kind == BAO_MTAJI_CAPTURE; }

/* Whether a takasa or tax candidate ends with its first lap, in an empty hole (a shortcut of
 * `has_legal_move`: such a move ends, so it is legal). */
static int ends_at_once(const BaoPos *p, int kind, int hole, int dir) {
    const int *me = p->ring[p->to_move];
    if (kind == BAO_NAMUA_CAPTURE || kind == BAO_MTAJI_CAPTURE) return 0;
    int seeds = kind == BAO_TAX ? 2 : me[hole] + (p->stock[p->to_move] > 0);
    return seeds < 16 && !me[(hole + dir * seeds) & 15];
}

/* Whether the mover has a legal move, playing out no more candidates than needed. */
static int has_legal_move(const BaoRules *r, const BaoPos *p) {
    int holes[32], dirs[32], kind;
    Lap s;
    int n = candidates(r, p, &kind, holes, dirs);
    if (r->never_ending != BAO_ENDLESS_ILLEGAL) return n > 0;
    for (int i = 0; i < n; i++)
        if (ends_at_once(p, kind, holes[i], dirs[i])) return 1;
    for (int i = 0; i < n; i++) /* a stop branch that never ends never met the decision */
        if (!play_out(r, p, kind, holes[i], dirs[i], 0, &s)) return 1;
    return 0;
}

/* The moves of one node of a search, kept to make the children the search visits. */
typedef struct {
    Lap laps[BAO_MAX_MOVES];          /* each move played out */
    signed char slot[BAO_MOVE_CODES]; /* a legal move code's lap, -1: not played out */
    int kind, valid;
} KeptPly;

struct BaoKept {
    KeptPly *plies;
    int count;
};

/* Every legal move (`expand`): its code, and its child into `kids`, the child's material
 * into `materials`, the move played out into `keep` where those are not NULL. A move's
 * material is the mover's plus every seed it captures (sown or in hand): placing from the
 * stock and taxing move none. */
static int expand(const BaoRules *r, const BaoPos *p, int *codes, BaoPos *kids, int *materials,
                  KeptPly *keep) {
    if (over_early(r, p)) return 0;
    int holes[32], dirs[32], kind, n = 0;
    unsigned masks[BAO_MAX_MOVES];
    Lap scratch;
    int count = candidates(r, p, &kind, holes, dirs), capture_move = capture_kind(kind);
    int illegal = r->never_ending == BAO_ENDLESS_ILLEGAL;
    int material = bao_material(p), sign = p->to_move ? -1 : 1;
    if (keep) keep->kind = kind;
    for (int i = 0; i < count; i++) {
        int code = (holes[i] * 2 + (dirs[i] > 0)) * 2;
        if (!kids && ends_at_once(p, kind, holes[i], dirs[i])) { /* no capture, no decision */
            codes[n] = code;
            masks[n] = 0;
            if (materials) materials[n] = material;
            if (keep) keep->slot[code] = -1;
            n++;
            continue;
        }
        for (int safari = 0; safari < 2; safari++) {
            Lap *s = keep ? &keep->laps[n] : &scratch;
            int endless = play_out(r, p, kind, holes[i], dirs[i], safari, s);
            if (endless && illegal) break; /* the safari branch would be the same move */
            codes[n] = code + safari;
            masks[n] = s->captured;
            if (kids) build_child(r, p, capture_move, endless, s, &kids[n]);
            if (materials) materials[n] = material + sign * s->taken;
            if (keep) keep->slot[code + safari] = (signed char)n;
            n++;
            if (!s->decided) break;
        }
    }
    int target = p->target;
    if (target >= 0 && r->attacker_must_capture) {
        int hits = 0; /* [R11.5] the attacker must take the blocked hole when some capture does */
        for (int i = 0; i < n; i++) hits += masks[i] >> target & 1;
        if (hits) {
            int kept = 0;
            for (int i = 0; i < n; i++) {
                if (!(masks[i] >> target & 1)) continue;
                codes[kept] = codes[i];
                if (kids) kids[kept] = kids[i];
                if (materials) materials[kept] = materials[i];
                kept++;
            }
            n = kept;
        }
    }
    return n;
}

int bao_children(const BaoRules *r, const BaoPos *p, int *codes, BaoPos *kids) {
    return expand(r, p, codes, kids, NULL, NULL);
}

int bao_play(const BaoRules *r, const BaoPos *p, int code, BaoPos *out) {
    int codes[BAO_MAX_MOVES];
    BaoPos kids[BAO_MAX_MOVES];
    int n = bao_children(r, p, codes, kids);
    for (int i = 0; i < n; i++) {
        if (codes[i] == code) {
            *out = kids[i];
            return 1;
        }
    }
    return 0;
}

int bao_make(const BaoRules *r, const BaoPos *p, int code, BaoPos *out) {
    int kind = kind_of(r, p);
    Lap s;
    int endless = play_out(r, p, kind, code >> 2, code & 2 ? 1 : -1, code & 1, &s);
    build_child(r, p, capture_kind(kind), endless, &s, out);
    return over_early(r, out) ? 1 : -1;
}

int bao_is_over(const BaoRules *r, const BaoPos *p) {
    return over_early(r, p) || !has_legal_move(r, p);
}

int bao_outcome(const BaoRules *r, const BaoPos *p, int *winner, int *south, int *north,
                int *reason) {
    int player = p->to_move;
    if (front_empty(p, 0) || front_empty(p, 1)) {
        *winner = front_empty(p, 0) ? 1 : 0;
        *reason = BAO_FRONT_ROW_EMPTY;
    } else if (p->endless) {
        *winner = r->never_ending == BAO_ENDLESS_DRAW ? -1 : 1 - player;
        *reason = BAO_NEVER_ENDING;
    } else if (!has_legal_move(r, p)) {
        *winner = 1 - player;
        *reason = BAO_NO_MOVES;
    } else if (r->max_plies > 0 && p->ply >= r->max_plies) {
        *winner = -1;
        *reason = BAO_PLY_LIMIT;
    } else {
        return 0;
    }
    int score[2];
    for (int side = 0; side < 2; side++) {
        score[side] = p->stock[side];
        for (int i = 0; i < 16; i++) score[side] += p->ring[side][i];
    }
    if (*winner >= 0) score[*winner] += p->hand;
    *south = score[0];
    *north = score[1];
    return 1;
}

int bao_material(const BaoPos *p) {
    int difference = p->stock[0] - p->stock[1];
    for (int i = 0; i < 16; i++) difference += p->ring[0][i] - p->ring[1][i];
    return difference + (p->to_move ? p->hand : -p->hand); /* the loser is "to move" */
}

/* Sorts the moves of `p`, the mover's best material first (`search_moves`). */
static int order(const BaoPos *p, int *codes, const int *materials, int n) {
    int keys[BAO_MAX_MOVES], sign = p->to_move ? -1 : 1;
    for (int i = 0; i < n; i++) { /* insertion keeps equal moves in their order, as sorted() */
        int key = sign * materials[i], code = codes[i], j = i;
        for (; j > 0 && keys[j - 1] < key; j--) {
            keys[j] = keys[j - 1];
            codes[j] = codes[j - 1];
        }
        keys[j] = key;
        codes[j] = code;
    }
    return n;
}

int bao_order(const BaoRules *r, const BaoPos *p, int *codes) {
    int materials[BAO_MAX_MOVES];
    return order(p, codes, materials, expand(r, p, codes, NULL, materials, NULL));
}

BaoKept *bao_kept_new(void) { return calloc(1, sizeof(BaoKept)); }

void bao_kept_free(BaoKept *kept) {
    if (kept) free(kept->plies);
    free(kept);
}

int bao_order_kept(const BaoRules *r, const BaoPos *p, int *codes, BaoKept *kept, int ply) {
    if (ply >= kept->count) { /* deeper than before: room for twice as many plies */
        int count = ply < 8 ? 16 : 2 * ply;
        KeptPly *plies = realloc(kept->plies, sizeof *plies * (size_t)count);
        if (!plies) return bao_order(r, p, codes); /* no memory: its children are made again */
        for (int i = kept->count; i < count; i++) plies[i].valid = 0;
        kept->plies = plies;
        kept->count = count;
    }
    KeptPly *keep = &kept->plies[ply];
    int materials[BAO_MAX_MOVES];
    keep->valid = 1;
    return order(p, codes, materials, expand(r, p, codes, NULL, materials, keep));
}

int bao_make_kept(const BaoRules *r, const BaoPos *p, int code, BaoPos *out,
                  const BaoKept *kept, int ply) {
    const KeptPly *keep = ply < kept->count ? &kept->plies[ply] : NULL;
    if (!keep || !keep->valid || keep->slot[code] < 0) return bao_make(r, p, code, out);
    const Lap *s = &keep->laps[keep->slot[code]];
    build_child(r, p, capture_kind(keep->kind), s->endless, s, out);
    return over_early(r, out) ? 1 : -1;
}

/* The largest capture `player` threatens (`_threatened`): namua placements facing seeds, mtaji
 * first laps of 2..15 seeds. */
static int biggest_threat(const BaoPos *p, int player) {
    const int *me = p->ring[player], *op = p->ring[1 - player];
    int biggest = 0;
    if (p->stock[player]) {
        for (int i = 0; i < 8; i++)
            if (me[i] && op[7 - i] > biggest) biggest = op[7 - i];
        return biggest;
    }
    for (int hole = 0; hole < 16; hole++) {
        int seeds = me[hole];
        if (seeds < 2 || seeds >= 16) continue;
        int landing = (hole + seeds) & 15;
        if (landing < 8 && me[landing] && op[7 - landing] > biggest) biggest = op[7 - landing];
        landing = (hole - seeds) & 15;
        if (landing < 8 && me[landing] && op[7 - landing] > biggest) biggest = op[7 - landing];
    }
    return biggest;
}

double bao_balanced(const BaoPos *p) {
    double score = (double)bao_material(p);
    for (int player = 0; player < 2; player++) {
        const int *front = p->ring[player];
        int occupied = 0;
        for (int i = 0; i < 8; i++) occupied += front[i] != 0;
        int functional = p->owned[player] && front[BAO_NYUMBA] >= 6;
        double tempo = player == p->to_move ? 0.5 : 0.2;
        /* one operation per statement, as Python rounds: no fused multiply-add */
        double threat = tempo * biggest_threat(p, player);
        double term = 0.5 * occupied + 2.0 * functional;
        term += threat;
        score = player ? score - term : score + term;
    }
    return score;
}

uint64_t bao_perft(const BaoRules *r, const BaoPos *p, int depth, BaoPos *levels) {
    int codes[BAO_MAX_MOVES];
    if (depth == 0) return 1;
    if (depth == 1) {
        int n = bao_children(r, p, codes, NULL);
        return n ? (uint64_t)n : 1;
    }
    int n = bao_children(r, p, codes, levels);
    if (!n) return 1;
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++)
        nodes += bao_perft(r, &levels[i], depth - 1, levels + BAO_MAX_MOVES);
    return nodes;
}
