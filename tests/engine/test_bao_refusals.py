"""Why a Bao start is refused: `refusal` agrees with the legal moves, and names the right rule.

Rule ids and sections refer to docs/bao.md. Positions are in its one-line notation (the four
screen rows of §2.3, side to move, stocks South-North, nyumba owners); a hole is the mover's
ring index (§2.2: A1..A8 are 0..7, B8..B1 are 8..15).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from ubao.client.entry import Reject, read_entry
from ubao.engine.bao import rules
from ubao.engine.bao.game import Bao
from ubao.engine.bao.rules import Position, refusal

CORE = Bao()

VARIANTS: list[dict[str, Any]] = [
    {},
    {"profile": "nierse"},
    {"profile": "kujifunza"},
    {"tax_any_owned": True, "namua_singleton": "functional"},
    {"takasia_attacker_must_capture": True, "mtaji_capture_nyumba_choice": True},
    {"never_ending": "loss", "namua_takasa_nyumba_stop": "optional"},
]
"""CORE, the profiles, and flags that change which starts are legal."""


def positions(game: Bao, games: int, seed: int) -> Iterator[Position]:
    """Every position of `games` seeded random games that still has a move to make."""
    rng = random.Random(seed)
    for _ in range(games):
        position = game.start()
        while moves := game.legal_moves(position):
            yield position
            position = game.play(position, rng.choice(moves))


@pytest.mark.parametrize("options", VARIANTS, ids=lambda options: Bao(options).describe())
def test_every_refused_choice_has_a_reason_and_no_legal_one_has(options: dict[str, Any]) -> None:
    """For each hole a player could pick, with or without a direction and a safari, the
    reason is None exactly when a legal move matches: the explanation can never contradict
    the rules. Every position of 20 random games per rule set (about 1,100)."""
    game = Bao(options)
    seen: set[str] = set()
    for position in positions(game, 20, seed=11):
        legal = game.legal_moves(position)
        for hole in range(16):
            for direction in (None, 1, -1):
                for safari in (None, False, True):
                    matches = any(
                        move.hole == hole
                        and direction in (None, move.direction)
                        and safari in (None, move.safari)
                        for move in legal
                    )
                    reason = refusal(position, game.rules, hole, direction, safari)
                    assert (reason is None) == matches, (
                        game.format_position(position),
                        hole,
                        direction,
                        safari,
                        reason,
                    )
                    if reason is not None:
                        seen.add(reason)
    assert len(seen) >= 6  # the games reach the common refusals, not just one


def at(text: str, game: Bao = CORE) -> Position:
    return game.parse_position(text)


START = CORE.start()
"""South to move in namua: A5 is the functional nyumba, A6 and A7 the other occupied holes."""


@pytest.mark.parametrize(
    ("hole", "direction", "safari", "reason"),
    [
        (0, None, None, rules.EMPTY),  # A1
        (4, None, None, rules.NYUMBA_KEPT),  # A5
        (15, None, None, rules.BACK_ROW_NAMUA),  # B1
        (5, -1, True, rules.NO_SAFARI),  # A6L+
        (5, -1, None, None),  # A6L
    ],
)
def test_the_start_position_names_the_namua_rules(
    hole: int, direction: int | None, safari: bool | None, reason: str | None
) -> None:
    """[R6.4] An empty hole and the back row start no namua move, and the functional nyumba
    waits while other front holes are occupied; [R10.3] no safari without a decision."""
    assert refusal(START, CORE.rules, hole, direction, safari) == reason


def test_a_capture_position_names_the_compulsory_capture_and_the_kichwa() -> None:
    """[R5.2] With a capture possible, a hole that captures nothing is refused; [R6.3] a
    capture at A2 sows from the left kichwa only."""
    position = at("00000000/01000000/01000020/00000000 S 3-3 -")  # A2 faces a7; A7 nothing
    assert CORE.legal_moves(position) == [CORE.parse_move(position, "A2L")]
    assert refusal(position, CORE.rules, 6) == rules.MUST_CAPTURE  # A7
    assert refusal(position, CORE.rules, 1, -1) == rules.LEFT_KICHWA  # A2R
    assert refusal(position, CORE.rules, 1) is None
    right = at("00000000/00000010/00000020/00000000 S 3-3 -")  # A7 faces a2
    assert refusal(right, CORE.rules, 6, 1) == rules.RIGHT_KICHWA  # A7L
    assert refusal(right, CORE.rules, 6, -1) is None


def test_a_singleton_and_a_lone_kichwa_name_their_rules() -> None:
    """[R6.4b] Without a nyumba a single seed waits while a hole holds 2; [R6.4c] a lone
    kichwa is sown toward the centre."""
    singles = at("00000000/00000001/10200000/00000000 S 3-3 -")
    assert refusal(singles, CORE.rules, 0) == rules.SINGLETON
    lone = at("00000000/10000000/00000003/00000000 S 3-3 -")
    assert refusal(lone, CORE.rules, 7, 1) == rules.LONE_KICHWA_NAMUA
    assert refusal(lone, CORE.rules, 7) is None


def test_mtaji_refusals_name_seeds_capture_direction_and_the_back_row() -> None:
    """[R7.1] A singleton starts nothing, [R5.2] only the capturing direction is legal, and
    [R7.4] the back row waits for an empty front row."""
    capture = at("00000000/02000001/11000000/20000000 S 0-0 -")  # B1L captures a7
    assert refusal(capture, CORE.rules, 0) == rules.FEW_SEEDS  # A1: one seed
    assert refusal(capture, CORE.rules, 15, -1) == rules.OTHER_WAY  # B1R
    takasa = at("00000000/00000001/02000000/00000300 S 0-0 -")
    assert refusal(takasa, CORE.rules, 10) == rules.BACK_ROW_MTAJI  # B6
    assert refusal(takasa, CORE.rules, 1) is None  # A2
    sixteen = at("00000000/00001000/(16)0201000/00000000 S 0-0 -")  # A3R captures a4
    assert refusal(sixteen, CORE.rules, 0) == rules.SIXTEEN  # A1
    lone = at("00000000/10000000/00000003/00000000 S 0-0 -")
    assert refusal(lone, CORE.rules, 7, 1) == rules.LONE_KICHWA_MTAJI  # A8R


def test_takasia_and_mtaji_moja_name_the_blocked_hole() -> None:
    """[R11.3] The hole takasia blocks is refused for this move; [R11.5] so is the one
    target under mtaji moja."""
    blocked = at("00000000/00000002/30211020/00000000 S 0-0 - takasia=A3")
    assert refusal(blocked, CORE.rules, 2) == rules.TAKASIA_BLOCKED
    moja = Bao({"takasia": "mtaji_moja"})
    victim = moja.play_text(at("00000000/00200020/00320010/00000000 S 0-0 -", moja), "A3R")
    assert refusal(victim, moja.rules, 1) == rules.MTAJI_MOJA  # a2, North's one target


def test_a_never_ending_move_and_the_takasia_target_are_named() -> None:
    """§13 A move that never ends is illegal (its other direction is not); [R11.5] with
    takasia_attacker_must_capture a capture that misses the blocked hole is refused."""
    endless = at("30181030/4(11)1(15)1721/11010000/00101001 N 0-0 - ply=61")
    assert refusal(endless, CORE.rules, 1, 1) == rules.NEVER_ENDS  # a2R
    assert refusal(endless, CORE.rules, 1) is None  # a2L ends
    must = Bao({"takasia_attacker_must_capture": True})
    target = at("00000000/02000101/01020100/20000000 S 0-0 - target=a7", must)
    assert refusal(target, must.rules, 3, 1) == rules.MUST_TAKE_TARGET  # A4R takes a3 only
    assert refusal(target, must.rules, 3, -1) is None


def test_a_finished_game_refuses_everything() -> None:
    """[R12.1] A side with an empty front row has lost: nothing is played any more."""
    over = at("00000000/00000000/10000000/00000000 N 3-3 SN")
    assert {refusal(over, CORE.rules, hole) for hole in range(16)} == {rules.GAME_OVER}


def test_every_reason_is_one_short_sentence_citing_its_rule() -> None:
    """Each reason fits the client's refusal line after the hole, and cites a rule."""
    reasons = [
        value for name, value in vars(rules).items() if name.isupper() and isinstance(value, str)
    ]
    assert len(reasons) == 19
    for reason in reasons:
        assert len(reason) <= 76, reason
        assert re.fullmatch(r"[a-z0-9][^\[\]§]+ \[(R\d+\.\d+[a-z]?|§\d+)\]", reason), reason


@pytest.mark.parametrize(
    ("text", "typed", "reason"),
    [
        ("00000000/01000000/01000020/00000000 S 3-3 -", "a7", rules.MUST_CAPTURE),
        ("00000000/01000000/01000020/00000000 S 3-3 -", "A2R", rules.LEFT_KICHWA),
        ("00000000/00000001/02000000/00000300 S 0-0 -", "B6:ccw", rules.BACK_ROW_MTAJI),
        ("00000000/00000002/30211020/00000000 S 0-0 - takasia=A3", "A3L", rules.TAKASIA_BLOCKED),
        ("00000000/00000001/02000000/00000300 S 0-0 -", "a2r+", rules.NO_SAFARI),
    ],
)
def test_the_client_refuses_a_typed_bao_move_with_the_rules_reason(
    text: str, typed: str, reason: str
) -> None:
    """What a player types (any case, letter or :cw/:ccw, `+`) is refused with the reason (and
    what may be played instead), by the rules' own parser, as the server refuses it too."""
    position = at(text)
    legal = [CORE.format_move(position, move) for move in CORE.legal_moves(position)]
    refused = read_entry(typed, legal, CORE, position)
    assert isinstance(refused, Reject) and refused.message.startswith(f"{typed}: {reason}; ")
