"""Bao la Kiswahili (Zanzibar Bao) behind the `Game` interface.

The rules are the Rules part of docs/bao.md (CORE profile by default, every §14 flag as an
option); the core is `rules`, the notation `notation` and the evaluations `evaluations`, beside
this module. See docs/bao.md for the options, notation grammars, draw convention and
evaluations. Rule ids [Rx] and sections §x refer to docs/bao.md.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

from ubao.engine.bao import notation
from ubao.engine.bao.evaluations import EVALUATIONS, material
from ubao.engine.bao.rules import (
    ENDLESS,
    HAND,
    PLY,
    STOCK,
    TO_MOVE,
    BaoMove,
    Position,
    Rules,
    capture_position,
    expand,
    front_empty,
    has_legal_move,
    kind_of,
    make_simulate,
    refusal,
)
from ubao.engine.game import (
    IllegalMoveError,
    NotationError,
    OptionsError,
    Outcome,
    Step,
    listed,
    shown,
)
from ubao.engine.searchable import Searchable, SearchHints

FLAGS: dict[str, tuple[Any, ...]] = {
    "namua_takasa_nyumba_stop": ("forced", "optional"),
    "namua_singleton": ("owned", "functional", "always"),
    "tax_any_owned": (False, True),
    "sixteen_rule": (True, False),
    "ownership_lost_first_mtaji_capture": ("both", "mover", "off"),
    "mtaji_takasa_stop_at_nyumba": (False, True),
    "mtaji_capture_nyumba_choice": (False, True),
    "takasia": ("de_voogt", "mtaji_moja", "none"),
    "takasia_singleton_exception": (True, False),
    "takasia_nyumba_first_lap_exception": (False, True),
    "takasia_attacker_must_capture": (False, True),
    "never_ending": ("illegal", "loss", "draw"),
    "front_empty_check": ("immediate", "end_of_move"),
}
"""Every variation flag of §14 with its allowed values; the first is the CORE choice."""

SETUPS = ("namua", "kujifunza")
"""Start positions: 6-2-2 with 22 seeds in stock each, or 2 in every hole (Bao la Kujifunza)."""

PROFILES: dict[str, dict[str, Any]] = {
    "core": {},
    "nierse": {
        "namua_takasa_nyumba_stop": "optional",
        "namua_singleton": "always",
        "sixteen_rule": False,
        "takasia": "mtaji_moja",
    },
    "kujifunza": {"setup": "kujifunza", "takasia": "none"},
}
"""Named rule sets (§14): what each changes from CORE."""

DEFAULT_MAX_PLIES = 500
"""The draw convention of engine play: a game still running after this many plies is drawn."""

CACHE_SIZE = 8192
"""Positions whose children are kept, so that `legal_moves` then `play` simulate once."""


def _validated(options: Mapping[str, Any]) -> dict[str, Any]:
    """The complete options: the profile's values, then the given overrides, all checked."""
    known = ("profile", "setup", "max_plies", *FLAGS)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise OptionsError(f"unknown bao option(s) {listed(unknown)}; known: {', '.join(known)}")
    profile = options.get("profile", "core")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise OptionsError(
            f"bao option 'profile' must be one of {', '.join(PROFILES)}, not {shown(profile)}"
        )
    merged: dict[str, Any] = {
        "profile": profile,
        "setup": SETUPS[0],
        "max_plies": DEFAULT_MAX_PLIES,
        **{name: values[0] for name, values in FLAGS.items()},
        **PROFILES[profile],
        **options,
    }
    for name, values in (("setup", SETUPS), *FLAGS.items()):
        value = merged[name]
        if not any(type(value) is type(allowed) and value == allowed for allowed in values):
            choices = ", ".join(
                repr(v).replace("True", "true").replace("False", "false") for v in values
            )
            message = f"bao option {name!r} must be one of {choices}, not {shown(value)}"
            raise OptionsError(message)
    plies = merged["max_plies"]
    if type(plies) is not int or not 0 <= plies <= notation.MAX_PLY:
        raise OptionsError(
            f"bao option 'max_plies' must be an integer from 0 (no limit) to "
            f"{notation.MAX_PLY:,}, not {shown(plies)}"
        )
    return merged


class Bao(Searchable[Position, BaoMove]):
    """Bao la Kiswahili with a rule profile and flag overrides; see docs/bao.md."""

    name: ClassVar[str] = "bao"
    # measured: docs/engine.md, Iterative deepening and time control
    search_hints = SearchHints(deepening_step=2, reversed_helpers=True)

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = _validated(options or {})
        self.rules = Rules(**{name: self.options[name] for name in FLAGS})
        self._simulate = make_simulate(self.rules)
        self.max_plies: int = self.options["max_plies"]
        self.evaluations = dict(EVALUATIONS)
        self._children: dict[Position, list[tuple[BaoMove, Position]]] = {}

    def describe(self) -> str:
        """`bao(core)`, or the profile with the options that differ from it."""
        profile = self.options["profile"]
        base = _validated({"profile": profile})
        changed = [f"{k}={v}" for k, v in self.options.items() if base[k] != v]
        return f"bao({', '.join([profile, *changed])})"

    # -- rules ----------------------------------------------------------------------------

    def start(self) -> Position:
        if self.options["setup"] == "kujifunza":
            return (2,) * 32 + (0, 0, 0, 0, 0, -1, -1, 0, 0, 0)
        ring = (0, 0, 0, 0, 6, 2, 2) + (0,) * 9
        return ring + ring + (22, 22, 1, 1, 0, -1, -1, 0, 0, 0)

    def to_move(self, position: Position) -> int:
        return position[TO_MOVE]

    def _over(self, position: Position) -> bool:
        """Finished without looking at the legal moves: empty front row, endless move, ply limit."""
        return (
            front_empty(position, 0)
            or front_empty(position, 1)
            or bool(position[ENDLESS])
            or 0 < self.max_plies <= position[PLY]
        )

    def _expanded(self, position: Position) -> list[tuple[BaoMove, Position]]:
        """Every move with its child, from the cache (not to be changed by the caller)."""
        cache = self._children
        found = cache.get(position)
        if found is None:
            found = [] if self._over(position) else expand(position, self.rules, self._simulate)
            if len(cache) >= CACHE_SIZE:
                cache.clear()
            cache[position] = found
        return found

    def children(self, position: Position) -> list[tuple[BaoMove, Position]]:
        return list(self._expanded(position))

    def search_moves(self, position: Position) -> list[BaoMove]:
        """The moves that leave the mover the most seeds first: the biggest captures (with
        their relay captures) lead. One simulation makes every child, so ordering them by
        their material costs only the sums."""
        found = self._expanded(position)
        sign = -1.0 if position[TO_MOVE] else 1.0
        ranked = sorted(found, key=lambda kid: -sign * material(kid[1]))
        return [move for move, _ in ranked]

    def child(self, position: Position, move: BaoMove) -> Position:
        for legal, kid in self._expanded(position):
            if legal == move:
                return kid
        raise IllegalMoveError(f"{move!r} is not legal here")

    def legal_moves(self, position: Position) -> list[BaoMove]:
        """In notation order (`A2L A3L A3R A3R+`), as the reference vectors list them;
        `children` keeps the cheaper generation order for search."""
        moves = [move for move, _ in self.children(position)]
        return sorted(moves, key=lambda move: notation.move_text(position, move))

    def play(self, position: Position, move: BaoMove) -> Position:
        found = self.children(position)
        for legal, child in found:
            if legal == move:
                return child
        raise self._illegal(position, move)

    def _illegal(self, position: Position, move: Any) -> IllegalMoveError:
        """The error that says why `move`, not a legal move of `position`, is refused."""
        listed = " ".join(self.format_move(position, m) for m in self.legal_moves(position))
        return IllegalMoveError(
            f"{move!r} is not legal here; legal moves: {listed or 'none, the game is over'}"
        )

    def outcome(self, position: Position) -> Outcome | None:
        for loser in (0, 1):
            if front_empty(position, loser):
                return self._result(position, 1 - loser, "front_row_empty")
        player = position[TO_MOVE]
        if position[ENDLESS]:
            winner = None if self.rules.never_ending == "draw" else 1 - player
            return self._result(position, winner, "never_ending")
        at_limit = 0 < self.max_plies <= position[PLY]
        cached = None if at_limit else self._children.get(position)
        if not (
            bool(cached)
            if cached is not None
            else has_legal_move(position, self.rules, self._simulate)
        ):
            return self._result(position, 1 - player, "no_moves")
        if at_limit:
            return self._result(position, None, "ply_limit")
        return None

    def is_over(self, position: Position) -> bool:
        """`outcome(position) is not None` without building the outcome (hot in search)."""
        if self._over(position):
            return True
        cached = self._children.get(position)
        if cached is not None:
            return not cached
        return not has_legal_move(position, self.rules, self._simulate)

    @staticmethod
    def _result(position: Position, winner: int | None, reason: str) -> Outcome:
        """Each side's seeds (holes and stock; the winner also the captured seeds in hand)."""
        score = [sum(position[16 * p : 16 * p + 16]) + position[STOCK + p] for p in (0, 1)]
        if winner is not None:
            score[winner] += position[HAND]
        return Outcome(winner, (score[0], score[1]), reason)

    def key(self, position: Position) -> Hashable:
        """The position without its ply counter, so that repeated positions share a key."""
        return position[:PLY]

    def sowing_path(self, position: Position, move: BaoMove) -> list[Step]:
        self.play(position, move)  # raises if illegal
        trace: list[tuple[str, int, int]] = []
        kind = kind_of(position, move, self.rules)
        self._simulate(position, kind, move.hole, move.direction, move.safari, trace)
        return [Step(notation.hole_label(player, hole), action) for action, player, hole in trace]

    # -- notation -------------------------------------------------------------------------

    def format_move(self, position: Position, move: BaoMove) -> str:
        """IllegalMoveError, as `play` says it, for anything but a legal move of `position`:
        the letter depends on the position (a namua capture names its kichwa)."""
        if all(legal != move for legal, _ in self._expanded(position)):
            raise self._illegal(position, move)
        return notation.move_text(position, move)

    def parse_move(self, position: Position, text: str) -> BaoMove:
        typed = notation.parse_move_text(text)
        written = text.strip()
        moves = self.legal_moves(position)
        if not moves:
            raise IllegalMoveError(f"{written}: the game is over")

        def why(direction: int | None = None, safari: bool | None = None) -> str:
            """The rule that refuses the typed move, as `rules.refusal` states it."""
            return refusal(position, self.rules, typed.hole, direction, safari) or "not legal"

        at_hole = [move for move in moves if move.hole == typed.hole]
        if not at_hole:
            listed = " ".join(self.format_move(position, move) for move in moves)
            raise IllegalMoveError(f"{written}: {why()}; legal moves: {listed}")
        matching = [m for m in at_hole if notation.letter_matches(position, m, typed)]
        if not matching:
            options = " ".join(self.format_move(position, m) for m in at_hole)
            other = [way for way in (1, -1) if all(m.direction != way for m in at_hole)]
            reason = why(other[0]) if other else "not that way"
            raise IllegalMoveError(f"{written}: {reason}; from this hole: {options}")
        chosen = [m for m in matching if m.safari == typed.safari]
        if not chosen:
            play = self.format_move(position, matching[0])
            reason = why(matching[0].direction, typed.safari)
            raise IllegalMoveError(f"{written}: {reason}; play {play}")
        if len(chosen) > 1:
            options = " ".join(self.format_move(position, m) for m in chosen)
            raise NotationError(f"{written} is incomplete: say which, {options}")
        if typed.takasa and capture_position(position, self.rules):
            raise IllegalMoveError(f"{written}: '*' marks a non-capturing move, but this captures")
        return chosen[0]

    def format_position(self, position: Position) -> str:
        return notation.position_text(position)

    def parse_position(self, text: str) -> Position:
        return notation.parse_position_text(text)

    def position_json(self, position: Position) -> Any:
        outcome = self.outcome(position)
        return notation.position_json(position, outcome.winner if outcome else None)

    def parse_position_json(self, data: Any) -> Position:
        position, winner = notation.parse_position_json(data)
        if winner is not None:
            outcome = self.outcome(position)
            if outcome is None or outcome.winner != winner:
                raise NotationError(
                    f"bad Bao position JSON: it says {notation.SIDES[winner]} won, "
                    "but that does not follow from the position"
                )
        return position
