"""Bao la Kiswahili: the rules core (move generation, the simulation of one move, and why a
start is refused, `refusal`, for players who picked a hole the rules do not allow).

Everything here is a pure function of a position, a move and the rule flags, written for speed:
a position is one flat tuple of ints and a move is simulated on two plain lists of 16 ints.
Section and rule numbers ([Rx], §x) refer to the Rules part of docs/bao.md.

Ring indices follow §2.2: each player's ring runs 0..7 = A1..A8 (front row, from the owner's
left), 8..15 = B8..B1 (back row); `+1` is clockwise, and front hole `i` faces the opponent's
front hole `7 - i`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

Position = tuple[int, ...]
"""South's ring (16 ints), North's ring (16), then the fields at the indices below."""

STOCK = 32
"""Stock (seeds still in hand during namua) of South; North's at STOCK + 1."""
OWNED = 34
"""1 while South still owns its nyumba; North's at OWNED + 1."""
TO_MOVE = 36
TAKASIA = 37
"""The mover's front hole that takasia blocks for this move, or -1 (§11)."""
TARGET = 38
"""The opponent's front hole the mover must capture (`takasia_attacker_must_capture`), or -1."""
HAND = 39
"""Seeds captured by a game-ending capture and never sown [R12.3]."""
ENDLESS = 40
"""1 after a never-ending move when such moves are a loss or a draw (§13)."""
PLY = 41
"""Plies played, for the draw convention of engine play."""

NYUMBA = 4
"""Ring index of A5, the nyumba."""
FRONT = range(8)

NAMUA_CAPTURE, NAMUA_TAKASA, TAX, MTAJI_CAPTURE, MTAJI_TAKASA = range(5)
"""The five kinds of move; a candidate is (kind, hole, direction)."""
Candidate = tuple[int, int, int]

_NO_RULE, _STOP, _DECIDE = range(3)
"""What an owned functional nyumba does to a lap that ends in it (§9 step 4)."""

CHECK_CYCLES_FROM = 40
"""Laps after which a move starts recording states to detect a never-ending move (§13).

A move that never ends repeats a state however late the recording starts, and 99 % of moves
end within 15 laps, so ordinary moves never pay for building the keys."""
MAX_LAPS = 100_000
"""Safety cap: more laps than this count as a never-ending move. Cycle detection is exact, so
only a pathological pre-period could reach it; the longest legal moves known have 166 (§13)
and 230 laps (tests/engine/test_bao_rules.py)."""


class BaoMove(NamedTuple):
    """A move: the start hole, the direction of the first sown seed, and the nyumba decision."""

    hole: int
    """The mover's ring index (0..7 front A1..A8, 8..15 back B8..B1)."""
    direction: int
    """+1 (clockwise) or -1. For a namua capture it follows from the kichwa: left = +1."""
    safari: bool = False
    """True when the move continues (safari) at a namua nyumba decision; False = stop."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The variation flags of §14, already validated (see `game.FLAGS` for names and values)."""

    namua_takasa_nyumba_stop: str = "forced"
    namua_singleton: str = "owned"
    tax_any_owned: bool = False
    sixteen_rule: bool = True
    ownership_lost_first_mtaji_capture: str = "both"
    mtaji_takasa_stop_at_nyumba: bool = False
    mtaji_capture_nyumba_choice: bool = False
    takasia: str = "de_voogt"
    takasia_singleton_exception: bool = True
    takasia_nyumba_first_lap_exception: bool = False
    takasia_attacker_must_capture: bool = False
    never_ending: str = "illegal"
    front_empty_check: str = "immediate"


def _sequences(direction: int) -> list[tuple[int, ...]]:
    """For every cursor c and count k < 16, the holes a lap of k seeds from c fills, in order."""
    return [
        tuple((cursor + direction * j) & 15 for j in range(1, count + 1))
        for cursor in range(16)
        for count in range(16)
    ]


_CLOCKWISE = _sequences(1)
_ANTICLOCKWISE = _sequences(-1)


def rings(position: Position, player: int) -> tuple[Position, Position]:
    """The ring of `player` and the ring of the opponent."""
    if player:
        return position[16:32], position[0:16]
    return position[0:16], position[16:32]


def front_empty(position: Position, player: int) -> bool:
    """Whether `player`'s front row is empty: he has lost [R12.1a]."""
    start = 16 * player
    return not any(position[start : start + 8])


def capture_landings(
    me: Sequence[int], op: Sequence[int], sixteen_rule: bool
) -> list[tuple[int, int, int]]:
    """Every mtaji capture start (hole, direction, landing) of the player owning `me` [R7.1]."""
    found = []
    for hole, seeds in enumerate(me):
        if seeds < 2:
            continue
        if seeds < 16:  # both directions written out: this is hot in mtaji move generation
            landing = (hole + seeds) & 15
            if landing < 8 and me[landing] and op[7 - landing]:
                found.append((hole, 1, landing))
            landing = (hole - seeds) & 15
            if landing < 8 and me[landing] and op[7 - landing]:
                found.append((hole, -1, landing))
        elif not sixteen_rule:
            # A lap of 16+ seeds also fills the landing hole on earlier circuits.
            laps, rest = divmod(seeds, 16)
            received = laps + (1 if rest else 0)
            for direction in (1, -1):
                landing = (hole + direction * seeds) & 15
                before = 0 if landing == hole else me[landing]
                if landing < 8 and op[7 - landing] and before + received >= 2:
                    found.append((hole, direction, landing))
    return found


def _has_capture(me: Sequence[int], op: Sequence[int], sixteen_rule: bool) -> bool:
    """Whether any mtaji capture start exists, stopping at the first (hot in takasia checks)."""
    for hole in range(16):
        seeds = me[hole]
        if 2 <= seeds < 16:
            for landing in ((hole + seeds) & 15, (hole - seeds) & 15):
                if landing < 8 and me[landing] and op[7 - landing]:
                    return True
        elif seeds >= 16 and not sixteen_rule:
            return bool(capture_landings(me, op, sixteen_rule))
    return False


def capture_targets(me: Sequence[int], op: Sequence[int], rules: Rules) -> set[int]:
    """The opponent's front holes the owner of `me` could capture by a mtaji first lap."""
    return {7 - landing for _, _, landing in capture_landings(me, op, rules.sixteen_rule)}


def takasia_hole(
    x_ring: Sequence[int], y_ring: Sequence[int], y_owns_nyumba: int, rules: Rules
) -> int:
    """The hole of Y that X's mtaji takasa just blocked, or -1 [R11.1, R11.2]."""
    if max(y_ring) < 2 or _has_capture(y_ring, x_ring, rules.sixteen_rule):
        return -1  # Y cannot move at all (the game is over) or Y has a capture
    targets = capture_targets(x_ring, y_ring, rules)
    if len(targets) != 1:
        return -1
    (target,) = targets
    seeds = y_ring[target]
    if seeds == 1 and rules.takasia_singleton_exception:
        return -1
    front = y_ring[:8]
    if front.count(0) == 7:
        return -1
    if seeds >= 2 and sum(1 for n in front if n >= 2) == 1:
        return -1
    if target == NYUMBA and y_owns_nyumba:
        return -1
    return target


def candidates(position: Position, rules: Rules) -> list[Candidate]:
    """The moves the mover may try, before simulation drops never-ending ones (§6, §7)."""
    player = position[TO_MOVE]
    me, op = rings(position, player)
    if position[STOCK + player]:
        return _namua_candidates(me, op, position[OWNED + player], rules)
    return _mtaji_candidates(position, me, op, rules)


# Move generation narrows the starts down step by step with the predicates below; `refusal`
# reads the same steps to name the one that excluded a start (tests/engine/test_bao_refusals.py
# checks on random games that a reason is given exactly when no legal move matches).


def _lone_front(me: Sequence[int]) -> bool:
    """Exactly one front hole is occupied: a kichwa there may not be sown outward."""
    return me[:8].count(0) == 7


def _lone_kichwa_outward(hole: int, direction: int) -> bool:
    """Sowing a lone kichwa toward the back row, which would empty the front row [R6.4c]."""
    return (hole == 0 and direction == -1) or (hole == 7 and direction == 1)


_KICHWAS = ((1,), (1,), (-1, 1), (-1, 1), (-1, 1), (-1, 1), (-1,), (-1,))
"""Per front hole, the kichwas (left = +1) a namua capture there may sow from: a kimbi group
from its own end, a central hole from either [R6.3]."""


def _functional(me: Sequence[int], owned: int) -> bool:
    """The mover's nyumba is owned and holds 6 or more (before the stock seed) [R10.1]."""
    return bool(owned) and me[NYUMBA] >= 6


def _taxed(me: Sequence[int], owned: int, rules: Rules) -> bool:
    """When the nyumba is the only occupied front hole: whether it is taxed, being functional
    (or, with `tax_any_owned`, just owned); its two tax moves are then the only moves [R6.6]."""
    return bool(owned) and (me[NYUMBA] >= 6 or (rules.tax_any_owned and me[NYUMBA] > 0))


def _namua_takasa_holes(me: Sequence[int], owned: int, rules: Rules) -> list[int]:
    """The front holes a namua takasa may start from, when no capture exists and no tax is due:
    the occupied ones, less a functional nyumba [R6.4a] and, by `namua_singleton`, the single
    seeds while some hole holds 2 or more [R6.4b]."""
    occupied = [hole for hole in FRONT if me[hole]]
    functional = _functional(me, owned)
    if functional:
        occupied.remove(NYUMBA)
    singleton = rules.namua_singleton
    if (singleton == "owned" and not owned) or (singleton == "functional" and not functional):
        several = [hole for hole in occupied if me[hole] >= 2]
        if several:
            occupied = several
    return occupied


def _namua_candidates(me: Position, op: Position, owned: int, rules: Rules) -> list[Candidate]:
    captures = [  # [R6.1] an occupied front hole facing seeds captures
        (NAMUA_CAPTURE, hole, direction)
        for hole in FRONT
        if me[hole] and op[7 - hole]
        for direction in _KICHWAS[hole]
    ]
    if captures:
        return captures
    lone = _lone_front(me)
    if lone and _taxed(me, owned, rules):
        return [(TAX, NYUMBA, 1), (TAX, NYUMBA, -1)]
    return [
        (NAMUA_TAKASA, hole, direction)
        for hole in _namua_takasa_holes(me, owned, rules)
        for direction in (1, -1)
        if not (lone and _lone_kichwa_outward(hole, direction))
    ]


def _blocked(position: Position, me: Position, op: Position, rules: Rules) -> int:
    """The front hole takasia (or Nierse's mtaji moja) keeps the mover from starting a takasa
    from, or -1 [R11.3, R11.5]."""
    if rules.takasia == "de_voogt":
        return position[TAKASIA]
    if rules.takasia == "mtaji_moja" and not position[STOCK] and not position[STOCK + 1]:
        targets = capture_targets(op, me, rules)  # [R11.5] Nierse: decided at Y's own turn
        if len(targets) == 1:
            (blocked,) = targets
            return blocked
    return -1


def _mtaji_candidates(
    position: Position, me: Position, op: Position, rules: Rules
) -> list[Candidate]:
    landings = capture_landings(me, op, rules.sixteen_rule)
    if landings:
        return [(MTAJI_CAPTURE, hole, direction) for hole, direction, _ in landings]
    blocked = _blocked(position, me, op, rules)
    lone = _lone_front(me)
    front = [
        (MTAJI_TAKASA, hole, direction)
        for hole in FRONT
        if me[hole] >= 2 and hole != blocked
        for direction in (1, -1)
        if not (lone and _lone_kichwa_outward(hole, direction))
    ]
    if front:
        return front
    return [  # [R7.4] back-row fallback
        (MTAJI_TAKASA, hole, direction)
        for hole in range(8, 16)
        if me[hole] >= 2
        for direction in (1, -1)
    ]


Trace = list[tuple[str, int, int]]
"""What a move did, for animation: (action, player, ring index) in order."""

Simulate = Callable[
    [Position, int, int, int, bool, "Trace | None"], tuple[Position | None, bool, int]
]
"""simulate(position, kind, hole, direction, safari, trace) -> (child, decided, captured)."""


def make_simulate(rules: Rules) -> Simulate:
    """The simulation of one move under `rules`, with the flags bound once for speed."""
    takasa_stop = _DECIDE if rules.namua_takasa_nyumba_stop == "optional" else _STOP
    stop_rules = (  # per move kind: what an owned functional nyumba does (§9 step 4)
        _DECIDE,  # namua capture: stop or safari
        takasa_stop,  # namua takasa
        takasa_stop,  # tax (the lap never reaches the nyumba)
        _DECIDE if rules.mtaji_capture_nyumba_choice else _NO_RULE,
        _STOP if rules.mtaji_takasa_stop_at_nyumba else _NO_RULE,
    )
    lose_ownership = rules.ownership_lost_first_mtaji_capture
    immediate_end = rules.front_empty_check == "immediate"
    first_lap_exception = rules.takasia_nyumba_first_lap_exception
    endless_illegal = rules.never_ending == "illegal"
    de_voogt = rules.takasia == "de_voogt"
    attacker_must_capture = rules.takasia_attacker_must_capture
    capture_kinds = (NAMUA_CAPTURE, MTAJI_CAPTURE)

    def simulate(
        position: Position,
        kind: int,
        hole: int,
        direction: int,
        safari: bool,
        trace: Trace | None = None,
    ) -> tuple[Position | None, bool, int]:
        """Play one candidate to its end (§9).

        Returns the child (None for a never-ending move when those are illegal), whether a
        stop/safari decision arose, and the bit set of the opponent's front holes captured.
        """
        player = position[TO_MOVE]
        other = 1 - player
        if player:
            me, op = list(position[16:32]), list(position[0:16])
        else:
            me, op = list(position[0:16]), list(position[16:32])
        stock = position[STOCK + player]
        owned, other_owned = position[OWNED + player], position[OWNED + other]
        mtaji_stage = not position[STOCK] and not position[STOCK + 1]
        capture_move = kind in capture_kinds
        stop_rule = stop_rules[kind]
        blocked = -1 if capture_move else position[TAKASIA]
        first_lap_free = blocked >= 0 and first_lap_exception and hole == NYUMBA and owned

        if stock:
            stock -= 1
            me[hole] += 1
            if trace is not None:
                trace.append(("place", player, hole))
        cursor = landing = hole
        if kind == NAMUA_CAPTURE:
            seeds = 0  # the placement itself captures [R6.2]
        elif kind == TAX:
            me[NYUMBA] -= 2
            seeds = 2  # [R6.6] the nyumba stays owned
        else:
            seeds = me[hole]
            me[hole] = 0
            if hole == NYUMBA:
                owned = 0  # [R10.2a]
        if seeds and trace is not None:
            trace.append(("lift", player, hole))

        table = _CLOCKWISE if direction > 0 else _ANTICLOCKWISE
        laps = hand = endless = captured = 0
        decided = False
        seen: set[tuple[object, ...]] | None = None
        while True:
            if seeds:
                if seeds < 16:
                    holes = table[(cursor << 4) | seeds]
                    for i in holes:
                        me[i] += 1
                    landing = holes[-1]
                else:  # [R4.2] no hole is skipped, the start hole included
                    circuits, rest = divmod(seeds, 16)
                    me = [n + circuits for n in me]
                    holes = table[(cursor << 4) | rest]
                    for i in holes:
                        me[i] += 1
                    landing = holes[-1] if rest else cursor
                if trace is not None:
                    trace.extend(
                        ("sow", player, (cursor + direction * j) & 15) for j in range(1, seeds + 1)
                    )
                laps += 1
                if me[landing] == 1:
                    break  # [R4.4] empty landing
            if capture_move and landing < 8 and op[7 - landing]:
                target = 7 - landing
                seeds = op[target]
                op[target] = 0
                captured |= 1 << target
                if target == NYUMBA:
                    other_owned = 0  # [R10.2b]
                if mtaji_stage and lose_ownership != "off":
                    owned = 0  # [R7.3]
                    if lose_ownership == "both":
                        other_owned = 0
                if trace is not None:
                    trace.append(("capture", other, target))
                if immediate_end and not any(op[:8]):
                    hand = seeds  # [R12.3] bao hamna ends the game in the middle of the move
                    break
                if landing < 2:
                    direction, table = 1, _CLOCKWISE
                elif landing > 5:
                    direction, table = -1, _ANTICLOCKWISE
                cursor = 15 if direction > 0 else 8  # [R8.1] the first seed goes into the kichwa
                continue
            if landing == blocked and not (first_lap_free and laps == 1):
                break  # [R11.3]
            if landing == NYUMBA and owned and stop_rule and me[NYUMBA] >= 6:
                if stop_rule == _STOP:
                    break
                decided = True
                if not safari:
                    break
            if laps >= CHECK_CYCLES_FROM:
                key = (tuple(me), landing, direction, owned)
                if seen is None:
                    seen = set()
                elif key in seen or laps > MAX_LAPS:
                    endless = 1
                    break
                seen.add(key)
            seeds = me[landing]  # [R4.5] relay
            me[landing] = 0
            cursor = landing
            if landing == NYUMBA:
                owned = 0
            if trace is not None:
                trace.append(("lift", player, landing))

        if endless and endless_illegal:
            return None, decided, captured
        takasia = -1
        if mtaji_stage and not capture_move and not endless and de_voogt:
            takasia = takasia_hole(me, op, other_owned, rules)
        target = position[TAKASIA] if attacker_must_capture and not hand else -1
        tail = (
            player if endless else other,
            takasia,
            target,
            hand,
            endless,
            position[PLY] + 1,
        )
        if player:
            child = (*op, *me, position[STOCK], stock, other_owned, owned, *tail)
        else:
            child = (*me, *op, stock, position[STOCK + 1], owned, other_owned, *tail)
        return child, decided, captured

    return simulate


_MOVES = [
    BaoMove(hole, direction, safari)
    for hole in range(16)
    for direction in (-1, 1)
    for safari in (False, True)
]
"""Every move, built once: index (hole * 2 + (direction > 0)) * 2 + safari."""


def expand(position: Position, rules: Rules, simulate: Simulate) -> list[tuple[BaoMove, Position]]:
    """Every legal move with its child position, in a fixed order."""
    moves = _MOVES
    found: list[tuple[BaoMove, Position]] = []
    masks: list[int] = []
    for kind, hole, direction in candidates(position, rules):
        child, decided, captured = simulate(position, kind, hole, direction, False, None)
        if child is None:
            continue  # never-ending; the safari branch would be the same move
        index = (hole * 2 + (direction > 0)) * 2
        found.append((moves[index], child))
        masks.append(captured)
        if decided:
            child, _, captured = simulate(position, kind, hole, direction, True, None)
            if child is not None:
                found.append((moves[index + 1], child))
                masks.append(captured)
    target = position[TARGET]
    if target >= 0 and rules.takasia_attacker_must_capture:
        hits = [entry for entry, mask in zip(found, masks, strict=True) if mask >> target & 1]
        if hits:  # [R11.5] the attacker must take the blocked hole when some capture does
            return hits
    return found


def has_legal_move(position: Position, rules: Rules, simulate: Simulate) -> bool:
    """Whether the mover has a legal move, simulating no more candidates than needed."""
    moves = candidates(position, rules)
    if rules.never_ending != "illegal":
        return bool(moves)
    # If the stop branch never ends, it never met the decision, so neither does safari.
    return any(
        simulate(position, kind, hole, direction, False, None)[0] is not None
        for kind, hole, direction in moves
    )


def capture_position(position: Position, rules: Rules) -> bool:
    """Whether the mover must capture [R5.2]: then every legal move is a capture move."""
    return any(kind in (NAMUA_CAPTURE, MTAJI_CAPTURE) for kind, _, _ in candidates(position, rules))


def kind_of(position: Position, move: BaoMove, rules: Rules) -> int:
    """The kind of a candidate move; (hole, direction) names at most one candidate."""
    for kind, hole, direction in candidates(position, rules):
        if hole == move.hole and direction == move.direction:
            return kind
    raise ValueError(f"{move} is not a candidate move")


# -- why a start is refused --------------------------------------------------------------------

GAME_OVER = "the game is over [R12.1]"
BACK_ROW_NAMUA = "the back row plays no part in namua [R6.4]"
MUST_CAPTURE = "capturing is compulsory, and this captures nothing [R5.2]"
OTHER_WAY = "capturing is compulsory, and only the other way captures [R5.2]"
LEFT_KICHWA = "a capture in the left kimbi sows from the left kichwa (L) [R6.3]"
RIGHT_KICHWA = "a capture in the right kimbi sows from the right kichwa (R) [R6.3]"
EMPTY = "an empty hole starts no move [R6.4]"
NYUMBA_KEPT = "a functional nyumba is played only when it is your last front hole [R6.4a]"
SINGLETON = "a single seed starts no takasa while a front hole holds 2 or more [R6.4b]"
LONE_KICHWA_NAMUA = "a lone kichwa is sown only toward the centre [R6.4c]"
FEW_SEEDS = "a move starts from a hole of 2 or more seeds [R7.1]"
SIXTEEN = "16 or more seeds start no capture, and capturing is compulsory [R7.1]"
TAKASIA_BLOCKED = "takasia blocks this hole for this move [R11.3]"
MTAJI_MOJA = "mtaji moja: the opponent's only target may not be sown [R11.5]"
BACK_ROW_MTAJI = "the back row is played only when no front hole holds 2 or more seeds [R7.4]"
LONE_KICHWA_MTAJI = "a lone kichwa is sown only toward the centre [R7.4]"
NEVER_ENDS = "this move would never end, and such moves are illegal [§13]"
NO_SAFARI = "this move meets no stop/safari decision [R10.3]"
MUST_TAKE_TARGET = "you must capture the hole takasia blocked, and a capture does [R11.5]"


def refusal(
    position: Position,
    rules: Rules,
    hole: int,
    direction: int | None = None,
    safari: bool | None = None,
) -> str | None:
    """Why the mover may not play from `hole` (a ring index of his) in `direction` (None: either
    way) with `safari` (None: with or without), in one short sentence citing its rule; None
    when some legal move matches.

    The first rule that excludes the start is named, in the order the rules narrow the moves
    down (stage, compulsory capture, the start's own restrictions), then what only the
    simulation shows: a never-ending move, no stop/safari decision, the takasia target.
    """
    if front_empty(position, 0) or front_empty(position, 1) or position[ENDLESS]:
        return GAME_OVER
    ways = (1, -1) if direction is None else (direction,)
    found = candidates(position, rules)
    tried = [candidate for candidate in found if candidate[1] == hole and candidate[2] in ways]
    if not tried:
        return _not_a_start(position, rules, found, hole)
    simulate = make_simulate(rules)
    legal = {
        (move.hole, move.direction, move.safari) for move, _ in expand(position, rules, simulate)
    }
    choices = (False, True) if safari is None else (safari,)
    if any((hole, way, choice) in legal for way in ways for choice in choices):
        return None
    stops = [(c, simulate(position, *c, False, None)) for c in tried]
    if all(child is None for _, (child, _, _) in stops):
        return NEVER_ENDS
    if safari:
        decisions = [c for c, (child, decided, _) in stops if child is not None and decided]
        if not decisions:
            return NO_SAFARI
        if all(simulate(position, *c, True, None)[0] is None for c in decisions):
            return NEVER_ENDS
    return MUST_TAKE_TARGET  # simulated to their end, but `expand` kept only the target's takers


def _not_a_start(position: Position, rules: Rules, found: list[Candidate], hole: int) -> str:
    """Why none of the position's candidates, `found`, starts at `hole` in the direction asked
    for: the narrowing of `candidates`, step by step, read from the same predicates. A reason
    that holds for one direction only (a kichwa, the other way capturing) is the one asked
    for: with either direction allowed, every hole that passes the hole's own checks is a
    candidate."""
    player = position[TO_MOVE]
    me, op = rings(position, player)
    if position[STOCK + player]:  # namua [R5.1]
        if hole >= 8:
            return BACK_ROW_NAMUA
        if found and found[0][0] == NAMUA_CAPTURE:  # captures exist, and only they are tried
            if all(start != hole for _, start, _ in found):
                return MUST_CAPTURE
            return LEFT_KICHWA if hole < 2 else RIGHT_KICHWA  # a capture hole, the wrong kichwa
        if not me[hole]:
            return EMPTY
        owned = position[OWNED + player]
        if hole not in _namua_takasa_holes(me, owned, rules):
            return NYUMBA_KEPT if hole == NYUMBA and _functional(me, owned) else SINGLETON
        return LONE_KICHWA_NAMUA
    if me[hole] < 2:
        return FEW_SEEDS
    landings = capture_landings(me, op, rules.sixteen_rule)
    if landings:
        if me[hole] >= 16 and rules.sixteen_rule:
            return SIXTEEN
        if any(start == hole for start, _, _ in landings):
            return OTHER_WAY  # the hole captures, in the direction not asked for
        return MUST_CAPTURE
    if hole == _blocked(position, me, op, rules):
        return TAKASIA_BLOCKED if rules.takasia == "de_voogt" else MTAJI_MOJA
    if hole >= 8:
        return BACK_ROW_MTAJI
    return LONE_KICHWA_MTAJI
