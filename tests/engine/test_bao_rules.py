"""Bao rules: tests named after the numbered rule [Rx] of docs/bao.md they prove.

Each rule test names its rule in its docstring (`[R4.2] ...`); tests/engine/test_bao_coverage.py
checks that every rule is proved by such a test or by a vector, and lists the vectors that
prove each rule. Expected results are derived by hand from the specification.

Positions are written in the one-line notation of docs/bao.md: the four screen rows of §2.3
(North back b8..b1 / North front a8..a1 / South front A1..A8 / South back B1..B8), the side to
move, the stocks South-North, and who owns a nyumba. Ring indices (§2.2): front hole A(i+1) is
ring i and faces the opponent's ring 7 - i; B8..B1 are rings 8..15.
"""

from __future__ import annotations

import pytest

from ubao.engine.bao.game import Bao
from ubao.engine.bao.rules import OWNED, PLY, TAKASIA, TARGET, Position, takasia_hole

CORE = Bao()


def at(text: str, game: Bao = CORE) -> Position:
    return game.parse_position(text)


def legal(text: str, game: Bao = CORE) -> list[str]:
    position = at(text, game)
    return sorted(game.format_move(position, move) for move in game.legal_moves(position))


def after(text: str, move: str, game: Bao = CORE) -> str:
    """The position after `move`, without the ply counter the vectors do not carry."""
    result = game.play_text(at(text, game), move)
    return game.format_position((*result[:PLY], 0))


def path(text: str, move: str, game: Bao = CORE) -> list[str]:
    position = at(text, game)
    steps = game.sowing_path(position, game.parse_move(position, move))
    return [f"{step.action}:{step.hole}" for step in steps]


def sows(*holes: str) -> list[str]:
    return [f"sow:{hole}" for hole in holes]


# -- §3 Material, initial position and game state ---------------------------------------------


def test_R3_1_start_6_2_2_with_22_in_stock_both_nyumba_owned_south_to_move() -> None:
    """[R3.1] 64 seeds, 32 a side: 6-2-2 in A5-A7 and 22 in stock each, both nyumba
    owned, South to move.
    """
    start = CORE.start()
    assert CORE.format_position(start) == "00000000/02260000/00006220/00000000 S 22-22 SN"
    assert CORE.to_move(start) == 0
    assert sum(start[0:16]) + start[32] == sum(start[16:32]) + start[33] == 32


def test_R3_2_the_position_holds_every_state_field() -> None:
    """[R3.2] Board, stocks, ownership, side to move, takasia, the capture target of a
    variant, seeds in hand and the ply counter all survive text and JSON.
    """
    text = "00000000/00000001/00000000/20000000 S 0-0 - takasia=A1 target=a1 hand=3 ply=7 endless"
    position = at(text)
    assert CORE.format_position(position) == text
    assert CORE.parse_position_json(CORE.position_json(position)) == position


def test_R3_4_namua_turn_means_own_stock_so_a_player_without_stock_plays_mtaji() -> None:
    """[R3.4] [R5.1] namua_turn(p) is stock[p] > 0: without stock South plays the mtaji
    rules (a back-row takasa) although North still has stock.
    """
    # South has no stock while North has: South plays the mtaji back-row fallback [R5.1].
    text = "00000000/00000001/10000000/20000000 S 0-2 -"
    assert legal(text) == ["B1L", "B1R"]
    assert after(text, "B1L") == "00000000/00000001/21000000/00000000 N 0-2 -"


# -- §4 Sowing primitives ---------------------------------------------------------------------


def test_R4_1_a_lap_drops_one_seed_in_each_next_hole() -> None:
    """[R4.1] A lap of k seeds drops one in each of the next k holes (vector N01)."""
    assert path(CORE.format_position(CORE.start()), "A6L") == [
        "place:A6",
        "lift:A6",
        *sows("A5", "A4", "A3"),
    ]


SEVENTEEN = "00000000/00000001/000(17)0000/00000000 S 0-0 -"


def test_R4_2_a_lap_of_17_passes_its_start_hole_and_fills_it() -> None:
    """[R4.2] A lap of 17 does not skip its emptied start hole (16 exactly: vector M03)."""
    steps = path(SEVENTEEN, "A4R")
    first_lap = ["A5", "A6", "A7", "A8", "B8", "B7", "B6", "B5", "B4", "B3", "B2", "B1"]
    assert steps[:19] == ["lift:A4", *sows(*first_lap, "A1", "A2", "A3", "A4", "A5"), "lift:A5"]
    assert after(SEVENTEEN, "A4R") == "00000000/00000001/02021202/20202020 N 0-0 -"


def test_R4_3_captured_seeds_start_in_the_kichwa_itself() -> None:
    """[R4.3] Capture re-entry puts the first seed into the kichwa itself (vector N06a)."""
    text = "00000000/43180256/12008034/00000000 S 10-10 SN"  # Nierse diagram (vector N06a)
    assert path(text, "A1L") == ["place:A1", "capture:a8", *sows("A1", "A2", "A3", "A4")]


def test_R4_4_a_lap_ending_in_an_empty_hole_ends_the_move() -> None:
    """[R4.4] An unoccupied landing (now 1 seed) ends the move."""
    steps = path("00000000/10000000/00201000/00000000 S 0-0 -", "A3L")
    assert steps == ["lift:A3", *sows("A2", "A1")]


def test_R4_5_an_occupied_landing_relays_in_the_same_direction() -> None:
    """[R4.5] An occupied landing is lifted and sown on in the same direction."""
    text = "00000000/10000000/00201000/00000000 S 0-0 -"
    assert path(text, "A3R") == ["lift:A3", *sows("A4", "A5"), "lift:A5", *sows("A6", "A7")]
    assert after(text, "A3R") == "00000000/10000000/00010110/00000000 N 0-0 -"


# -- §5 Turn structure ------------------------------------------------------------------------


def test_R5_3_a_namua_takasa_relays_through_a_hole_facing_seeds_without_capturing() -> None:
    """[R5.3] A namua takasa never captures, even on a later lap facing seeds."""
    # The first lap fills the empty A5; a later lap ends there, facing North's 2 in a4.
    text = "33010212/120(14)2000/00400281/00112213 S 4-4 N"
    steps = path(text, "A6L")
    assert "lift:A5" in steps and not any(step.startswith("capture") for step in steps)
    assert after(text, "A6L").split("/")[:2] == text.split("/")[:2]  # North untouched


NAMUA_TAKASA_ROUND = "00000000/00000003/01010120/10101010 S 5-5 -"
"""No capture hole; without a nyumba only A7 (2) may start. A7R goes round the whole ring."""


def test_R5_3_a_namua_takasa_lap_ending_in_a_hole_it_filled_facing_seeds_relays_on() -> None:
    """[R5.3] The first lap of A7R fills the empty A8 (facing North's 3 in a1); seven relays
    later a lap ends there again: a takasa captures nothing, so A8 is lifted and sown on.
    """
    assert legal(NAMUA_TAKASA_ROUND) == ["A7L", "A7R"]
    assert path(NAMUA_TAKASA_ROUND, "A7R") == [
        "place:A7",
        "lift:A7",
        *sows("A8", "B8", "B7"),
        "lift:B7",
        *sows("B6", "B5"),
        "lift:B5",
        *sows("B4", "B3"),
        "lift:B3",
        *sows("B2", "B1"),
        "lift:B1",
        *sows("A1", "A2"),
        "lift:A2",
        *sows("A3", "A4"),
        "lift:A4",
        *sows("A5", "A6"),
        "lift:A6",
        *sows("A7", "A8"),
        "lift:A8",  # occupied, facing a1: relay, no capture
        *sows("B8", "B7"),  # B7 was emptied: the move ends
    ]
    assert after(NAMUA_TAKASA_ROUND, "A7R") == "00000000/00000003/10101010/01010112 N 4-5 -"


def test_R5_5_only_front_rows_are_captured_the_back_row_is_safe() -> None:
    """[R5.5] A lap ending opposite an empty front hole with a full back hole behind it
    captures nothing.
    """
    # North's back row is full, yet South's capture only ever takes front holes.
    text = "55555555/02000001/01020000/00000000 S 0-0 -"
    steps = path(text, "A4L")
    assert [step for step in steps if step.startswith("capture")] == ["capture:a7"]
    assert after(text, "A4L").startswith("55555555/00000001/")


# -- §6 The namua stage -----------------------------------------------------------------------


def test_R6_1_an_empty_own_hole_cannot_capture_even_facing_seeds() -> None:
    """[R6.1] A capture hole needs seeds of its own before the stock seed."""
    # A3 is empty and faces North's 5: the only move is the takasa of the lone kichwa A1.
    text = "00000000/00500000/20000000/00000000 S 5-5 -"
    assert legal(text) == ["A1R"]
    assert after(text, "A1R") == "00000000/00500000/01110000/00000000 N 4-5 -"


def test_R6_2_a_namua_capture_keeps_its_seeds_and_takes_the_nyumba_with_its_ownership() -> None:
    """[R6.2] Stock -1, the capturing hole keeps its seeds (1 + 1), the captured nyumba
    loses ownership and its seeds are sown from a kichwa.
    """
    text = "00000000/00020001/00010000/00000000 S 3-3 SN"
    assert after(text, "A4L") == "00000000/00000001/11020000/00000000 N 2-3 S"


def test_R6_4c_a_lone_right_kichwa_is_sown_toward_the_centre_only() -> None:
    """[R6.4c] A8 is South's only occupied front hole: A8R would empty the front row, so only
    A8L (the mirror of vector N16's A1R) is legal.
    """
    text = "00000000/10000000/00000003/00000000 S 3-3 -"
    assert legal(text) == ["A8L"]
    assert after(text, "A8L") == "00000000/10000000/00011110/00000000 N 2-3 -"


# -- §7 The mtaji stage -----------------------------------------------------------------------


def test_R7_1_singletons_never_start_and_back_row_starts_capture_round_the_corner() -> None:
    """[R7.1] Singletons never start a move; a back-row hole may start a capture."""
    # A1 (1) would land in A2 facing a7 but is a singleton; B1 (2) reaches A2 and captures.
    text = "00000000/02000001/11000000/20000000 S 0-0 -"
    assert legal(text) == ["B1L"]
    assert path(text, "B1L")[:4] == ["lift:B1", "sow:A1", "sow:A2", "capture:a7"]
    assert after(text, "B1L") == "00000000/00000001/30111000/00000000 N 0-0 -"


def test_R7_2_a_mtaji_capture_from_the_owned_nyumba_ends_its_ownership() -> None:
    """[R7.2] Lifting the owned nyumba to start a mtaji capture ends its ownership, then
    the move captures and re-enters from the kichwa of §8.
    """
    # With R7.3 switched off only the lifting itself can end South's ownership.
    game = Bao({"ownership_lost_first_mtaji_capture": "off"})
    text = "00000000/00100001/00102000/00000000 S 0-0 SN"
    assert legal(text, game) == ["A5L"]
    assert after(text, "A5L", game) == "00000000/00000001/00210001/00000000 N 0-0 N"


R7_3 = "00000000/00100001/20103000/00000000 S 0-0 SN"
"""South's A1R captures a6 in the mtaji stage; neither nyumba is touched."""


@pytest.mark.parametrize(
    ("value", "owners"), [("both", "-"), ("mover", "N"), ("off", "SN")], ids=str
)
def test_R7_3_the_first_mtaji_capture_ends_nyumba_ownership(value: str, owners: str) -> None:
    """[R7.3] The first mtaji capture ends both players' ownership (and the variants)."""
    game = Bao({"ownership_lost_first_mtaji_capture": value})
    assert after(R7_3, "A1R", game) == f"00000000/00000001/11203000/00000000 N 0-0 {owners}"


def test_R7_4_a_hole_of_16_or_more_may_start_a_takasa() -> None:
    """[R7.4] Holes with 16 or more seeds are eligible for takasa."""
    assert legal(SEVENTEEN) == ["A4L", "A4R"]


def test_R7_4_front_row_first_even_when_the_back_row_is_fuller() -> None:
    """[R7.4] The back row is only a fallback when no front hole holds 2 or more."""
    assert legal("00000000/00000001/20000000/09000000 S 0-0 -") == ["A1R"]


# -- §8 Captures and direction ----------------------------------------------------------------


def test_R8_1_a_capture_in_the_left_kimbi_reverses_the_direction() -> None:
    """[R8.1] A capture in the left kimbi group re-enters at A1, clockwise."""
    text = "00000000/02000001/01020000/00000000 S 0-0 -"
    assert path(text, "A4L") == [
        "lift:A4",
        *sows("A3", "A2"),  # anticlockwise
        "capture:a7",
        *sows("A1", "A2"),  # from the left kichwa, clockwise
        "lift:A2",
        *sows("A3", "A4", "A5"),
    ]


def test_R8_1_a_central_capture_keeps_the_direction_of_a_back_row_start() -> None:
    """[R8.1] A central mtaji capture keeps the first lap's direction, round the corner."""
    text = "00000000/00020001/00010000/05000000 S 0-0 -"
    steps = path(text, "B2L")
    assert steps[:8] == ["lift:B2", *sows("B1", "A1", "A2", "A3", "A4"), "capture:a5", "sow:A1"]
    assert after(text, "B2L") == "00000000/00000001/20201110/10000000 N 0-0 -"


# -- §10 Nyumba -------------------------------------------------------------------------------


def test_R10_1_a_dormant_nyumba_refilled_to_6_stops_a_namua_takasa() -> None:
    """[R10.1] [R10.5] A dormant (owned, 5) nyumba is an ordinary start; refilled to 6
    it is functional again and stops a namua takasa.
    """
    text = "00000000/00000001/00105000/00000000 S 3-3 S"
    assert legal(text) == ["A3L", "A3R", "A5L", "A5R"]  # dormant: an ordinary start [R10.5]
    assert after(text, "A3R") == "00000000/00000001/00016000/00000000 N 2-3 S"


def test_R10_2_a_dormant_nyumba_sown_in_namua_loses_ownership() -> None:
    """[R10.2] a) Lifting a dormant nyumba as a namua takasa start ends ownership."""
    text = "00000000/00000001/00105000/00000000 S 3-3 S"
    assert after(text, "A5R") == "00000000/00000001/00100111/00000111 N 2-3 -"


def test_R10_2_a_safari_loses_ownership() -> None:
    """[R10.2] a) A safari ends ownership; the stop keeps it (vector N15a)."""
    text = "00000000/10500000/00205000/00000000 S 1-1 S"  # vector N15a
    assert legal(text) == ["A3L", "A3L+", "A3R"]
    assert after(text, "A3L").endswith(" N 0-1 S")
    assert after(text, "A3L+").endswith(" N 0-1 -")


def test_R10_3_a_capture_lap_ending_in_the_nyumba_facing_seeds_captures_not_stops() -> None:
    """[R10.3] A capture lap ending in the functional nyumba facing seeds captures: no
    stop/safari decision arises.
    """
    text = "00000000/50002001/10006000/00000000 S 5-5 SN"
    assert legal(text) == ["A1L", "A5L", "A5R"]  # no A1L+: no decision arises
    assert path(text, "A1L")[:8] == [
        "place:A1",
        "capture:a8",
        *sows("A1", "A2", "A3", "A4", "A5"),
        "capture:a4",
    ]
    assert after(text, "A1L") == "00000000/00000001/40208100/00000000 N 4-5 SN"


def test_R10_4_in_mtaji_the_lone_functional_nyumba_is_sown_whole_not_taxed() -> None:
    """[R10.4] No tax in the mtaji stage: the owned nyumba of 6, the only occupied front hole,
    is an ordinary start (all 6 seeds, ownership lost); with stock the same board is a tax.
    """
    mtaji = "00000000/00000002/00006000/00000000 S 0-0 S"
    assert legal(mtaji) == ["A5L", "A5R"]
    assert after(mtaji, "A5R") == "00000000/00000002/00000111/00000111 N 0-0 -"
    namua = "00000000/00000002/00006000/00000000 S 1-1 S"
    assert legal(namua) == ["A5L", "A5R"]
    assert after(namua, "A5R") == "00000000/00000002/00005110/00000000 N 0-1 S"


OWNED_TARGET = "00000000/20020000/02000200/00000000 S 0-0 {}"
"""South's A6L fills A4, so that A2 (2) could land there and take North's a5 (2), the one
target; North (a5 and a8 with 2 each) has no capture."""


@pytest.mark.parametrize(
    ("owners", "result", "replies"),
    [
        ("N", "N 0-0 N", ["a5L", "a5R", "a8L", "a8R"]),
        ("-", "N 0-0 - takasia=a5", ["a8L", "a8R"]),
    ],
    ids=["owned", "not-owned"],
)
def test_R10_4_an_owned_nyumba_target_is_not_blocked_an_unowned_one_is(
    owners: str, result: str, replies: list[str]
) -> None:
    """[R10.4] [R11.2] The nyumba is the one target: owned, it is not blocked; once ownership is
    gone it is an ordinary hole, and blocked.
    """
    text = OWNED_TARGET.format(owners)
    assert legal(text) == ["A2L", "A2R", "A6L", "A6R"]
    assert after(text, "A6L") == f"00000000/20020000/02011000/00000000 {result}"
    assert legal(after(text, "A6L")) == replies


NYUMBA_TARGET = "13212332/11(11)310(10)0/03000000/01214063 S 0-0 {} ply=48"
"""South's A2R leaves one target, North's nyumba a5."""


def test_R10_4_an_owned_nyumba_cannot_be_the_takasia_target() -> None:
    """[R10.4] The one target being North's owned nyumba blocks nothing (random play)."""
    assert at(after(NYUMBA_TARGET.format("N"), "A2R"))[TAKASIA] == -1
    assert at(after(NYUMBA_TARGET.format("-"), "A2R"))[TAKASIA] == 4  # a5, an ordinary hole


# -- §11 Takasia ------------------------------------------------------------------------------


def test_R11_1_the_namua_to_mtaji_transition_move_never_sets_takasia() -> None:
    """[R11.1] North's last stock seed: a position that would block South's A2 does not."""
    text = "21000000/100(22)0000/0440(19)011/10012013 N 0-1 SN ply=43"
    child = CORE.play_text(at(text), "a8L")
    assert child[TAKASIA] == -1
    north, south = list(child[16:32]), list(child[0:16])
    assert takasia_hole(north, south, child[OWNED], CORE.rules) == 1


BLOCK_A6 = "00000000/00300002/20000200/00000000 N 0-0 -"
"""North's a6L sows a5, a4, a3; then North's a1 (2) could land in a3 and take South's A6 (2),
the one target. South (A1 and A6, 2 each) has no capture."""


def test_R11_1_a_mtaji_takasa_leaving_one_target_blocks_it() -> None:
    """[R11.1] After North's mtaji takasa South has no capture and exactly one hole, A6, that
    North could take: A6 is blocked for South's next move.
    """
    assert legal(BLOCK_A6) == ["a1L", "a1R", "a6L", "a6R"]
    blocked = after(BLOCK_A6, "a6L")
    assert blocked == "00000000/00011102/20000200/00000000 S 0-0 - takasia=A6"
    assert legal(blocked) == ["A1L", "A1R"]


def test_R11_1_the_last_namua_move_never_blocks() -> None:
    """[R11.1] The same board made by North's last stock seed (2 + 1 seeds sown from a6): the
    move did not start with both stocks at 0, so nothing is blocked.
    """
    text = "00000000/00200002/20000200/00000000 N 0-1 -"
    assert legal(text) == ["a1L", "a1R", "a6L", "a6R"]
    free = after(text, "a6L")
    assert free == "00000000/00011102/20000200/00000000 S 0-0 -"
    assert legal(free) == ["A1L", "A1R", "A6L", "A6R"]


@pytest.mark.parametrize(
    ("text", "result"),
    [
        # a7 (4) and a1 (2) both land in a3: two capture moves, one target hole -> blocked.
        (
            "00000000/04300002/20000200/00000000 N 0-0 -",
            "00000000/04011102/20000200/00000000 S 0-0 - takasia=A6",
        ),
        # a2 (2) lands in a4 facing A5 (1) as well: two target holes -> no takasia.
        (
            "00000000/00300022/20001200/00000000 N 0-0 -",
            "00000000/00011122/20001200/00000000 S 0-0 -",
        ),
        # South's A2 (2) could land in A4 and take a5: the victim can capture -> no takasia.
        (
            "00000000/00300002/02010200/00000000 N 0-0 -",
            "00000000/00011102/02010200/00000000 S 0-0 -",
        ),
    ],
    ids=["two-moves-one-target", "two-targets", "victim-can-capture"],
)
def test_R11_1_takasia_needs_exactly_one_target_hole_and_no_capture_for_the_victim(
    text: str, result: str
) -> None:
    """[R11.1] Target holes are counted, not capture moves; a second target hole, or a
    capture for the victim, means no takasia. North plays a6L as in BLOCK_A6.
    """
    assert after(text, "a6L") == result


@pytest.mark.parametrize(
    ("south", "exception", "takasia"),
    [
        # A6 holds 1: not blocked in CORE (de Voogt 2001); blocked with the exception off.
        ("20000100/00000000", True, ""),
        ("20000100/00000000", False, " takasia=A6"),
        # A6 (1) is South's only occupied front hole (B1 holds 2): not blocked, even flag off.
        ("00000100/20000000", False, ""),
        # A6 (2) is South's only front hole with 2 or more (A1 holds 1): not blocked.
        ("10000200/00000000", True, ""),
    ],
    ids=["one-seed", "one-seed-exception-off", "only-occupied", "only-2-or-more"],
)
def test_R11_2_the_exceptions_leave_the_one_target_unblocked(
    south: str, exception: bool, takasia: str
) -> None:
    """[R11.2] BLOCK_A6 with South's rows changed: a one-seed target, the victim's only
    occupied front hole and his only front hole with 2 or more are not blocked (the owned
    nyumba: test_R10_4_an_owned_nyumba_target_is_not_blocked_an_unowned_one_is).
    """
    game = Bao({"takasia_singleton_exception": exception})
    text = f"00000000/00300002/{south} N 0-0 -"
    assert after(text, "a6L", game) == f"00000000/00011102/{south} S 0-0 -{takasia}"


SINGLETON_TARGET = "00231330/11000000/50818112/5(10)521010 S 0-0 - ply=66"
"""South's A1R leaves one target, North's a7 holding a single seed."""


def test_R11_2_a_single_seed_target_is_not_blocked() -> None:
    """[R11.2] A one-seed target is not blocked (flag off: it is); from random play."""
    assert CORE.play_text(at(SINGLETON_TARGET), "A1R")[TAKASIA] == -1
    game = Bao({"takasia_singleton_exception": False})
    assert game.play_text(at(SINGLETON_TARGET, game), "A1R")[TAKASIA] == 6


def test_R11_2_the_only_occupied_front_hole_is_not_blocked() -> None:
    """[R11.2] The victim's only occupied front hole is not blocked (random play)."""
    # a5 holds North's only front seed: no takasia even without the single-seed exception.
    game = Bao({"takasia_singleton_exception": False})
    text = "12013102/00010000/41241(13)1(11)/50321014 S 0-0 - ply=78"
    assert game.play_text(at(text, game), "A1R")[TAKASIA] == -1


def test_R11_2_the_only_front_hole_with_2_or_more_is_not_blocked() -> None:
    """[R11.2] The victim's only front hole with 2 or more is not blocked (random play)."""
    text = "00102010/21001000/01(17)40611/47112236 S 0-0 - ply=66"
    assert CORE.play_text(at(text), "A4R")[TAKASIA] == -1


def test_R11_3_a_takasa_lap_ending_in_the_blocked_hole_stops_there() -> None:
    """[R11.3] A lap ending in the blocked hole stops there, unlifted (random play)."""
    text = "11301330/11000000/61018112/6(11)632110 S 0-0 - takasia=A1 ply=68"
    steps = path(text, "A5R")
    assert steps[-1] == "sow:A1" and "lift:A1" not in steps
    assert after(text, "A5R").split("/")[2].startswith("7")  # A1: 6 + 1, not lifted


def test_R11_3_a_lap_from_the_nyumba_ending_in_the_blocked_hole_stops_too() -> None:
    """[R11.3] The block applies to a first lap from the nyumba too (CORE)."""
    text = "00000000/00000200/02003000/00000000 S 0-0 S takasia=A2"
    assert legal(text) == ["A5L", "A5R"]
    assert after(text, "A5L") == "00000000/00000200/03110000/00000000 N 0-0 -"


BLOCKED_A3 = "00000000/00000002/30211020/00000000 S 0-0 - takasia=A3"
"""South may not start from A3 (2 seeds); North's only seeds, a1, face the empty A8."""


def test_R11_3_the_blocked_hole_is_no_start_a_lap_passing_it_adds_a_seed() -> None:
    """[R11.3] A3 is no start; A1R passes through A3 (2 -> 3) and relays on from A4."""
    assert legal(BLOCKED_A3) == ["A1L", "A1R", "A7L", "A7R"]
    assert path(BLOCKED_A3, "A1R") == [
        "lift:A1",
        *sows("A2", "A3", "A4"),
        "lift:A4",
        *sows("A5", "A6"),
    ]
    assert after(BLOCKED_A3, "A1R") == "00000000/00000002/01302120/00000000 N 0-0 -"


def test_R11_3_a_relay_lap_ending_in_the_blocked_hole_stops_there() -> None:
    """[R11.3] A7L relays from A5 into A3, the blocked hole: the move ends, A3 keeps 3."""
    assert path(BLOCKED_A3, "A7L") == ["lift:A7", *sows("A6", "A5"), "lift:A5", *sows("A4", "A3")]
    assert after(BLOCKED_A3, "A7L") == "00000000/00000002/30320100/00000000 N 0-0 -"


def test_R11_4_takasia_lasts_one_move() -> None:
    """[R11.4] The victim's block ends with his move (vector M08b)."""
    text = "00000000/00200020/00031110/00000000 N 0-0 - takasia=a2"  # vector M08b
    assert at(text)[TAKASIA] == 1
    assert at(after(text, "a6L"))[TAKASIA] == -1


# -- §12 End of the game ----------------------------------------------------------------------


def test_R12_1_a_player_with_an_empty_front_row_has_lost_at_once() -> None:
    """[R12.1] a) An empty front row is a loss, with no move to make."""
    position = at("00000000/00000000/10000000/00000000 N 3-3 SN")
    assert CORE.legal_moves(position) == []
    outcome = CORE.outcome(position)
    assert outcome is not None and (outcome.winner, outcome.reason) == (0, "front_row_empty")


def test_R12_2_no_traditional_draw_but_engine_play_is_drawn_at_the_ply_limit() -> None:
    """[R12.2] No draw by the rules; only engine play's ply-limit convention draws."""
    game = Bao({"max_plies": 12})
    position = game.start()
    for _ in range(12):
        assert game.outcome(position) is None
        position = game.play(position, game.legal_moves(position)[0])
    assert game.legal_moves(position) == []
    outcome = game.outcome(position)
    assert outcome is not None and (outcome.winner, outcome.reason) == (None, "ply_limit")


def test_R12_3_the_game_ending_capture_leaves_its_seeds_in_hand() -> None:
    """[R12.3] The game-ending capture keeps its seeds in hand; the winner scores them."""
    text = "00000000/00002000/00003000/00100000 S 5-5 SN"  # vector N17
    result = CORE.play_text(at(text), "A5L")
    assert CORE.format_position(result).endswith(" N 4-5 SN hand=2 ply=1")
    outcome = CORE.outcome(result)
    assert outcome is not None and outcome.winner == 0 and outcome.score == (11, 5)


# -- §13 Never-ending moves -------------------------------------------------------------------

ENDLESS = "30181030/4(11)1(15)1721/11010000/00101001 N 0-0 - ply=61"
"""North's a2R and a8L never end (found in random play; they still run after 20,000 laps)."""


def test_never_ending_moves_are_illegal() -> None:
    assert legal(ENDLESS) == ["a2L", "a3L", "a3R", "a5L", "a5R", "a7L", "a7R", "a8R"]


@pytest.mark.parametrize(("value", "winner"), [("loss", 0), ("draw", None)], ids=str)
def test_never_ending_moves_as_a_loss_or_a_draw(value: str, winner: int | None) -> None:
    game = Bao({"never_ending": value})
    assert "a2R" in legal(ENDLESS, game)
    result = game.play_text(at(ENDLESS, game), "a2R")
    assert game.legal_moves(result) == []
    outcome = game.outcome(result)
    assert outcome is not None and (outcome.winner, outcome.reason) == (winner, "never_ending")
    assert sum(result[:34]) == 64


def test_a_230_lap_move_is_legal_the_safety_cap_does_not_trip() -> None:
    text = "32121214/2(11)13(18)162/00010000/00010011 N 0-0 - ply=95"
    assert "a8L" in legal(text)
    laps = [step for step in path(text, "a8L") if step.split(":")[0] in ("lift", "capture")]
    assert len(laps) == 230


# -- §14 Flags that no rule test above switches ----------------------------------------------


def test_flag_namua_takasa_nyumba_stop_optional_offers_a_safari() -> None:
    text = "00000000/10100000/02006000/00000000 S 5-5 SN"  # vector N13a
    assert legal(text) == ["A2L", "A2R"]
    game = Bao({"namua_takasa_nyumba_stop": "optional"})
    assert legal(text, game) == ["A2L", "A2R", "A2R+"]
    assert after(text, "A2R", game) == after(text, "A2R")
    assert after(text, "A2R+", game).endswith(" N 4-5 N")


@pytest.mark.parametrize(
    ("value", "moves"),
    [
        ("owned", ["A1L", "A1R", "A2L", "A2R"]),  # owned (dormant) nyumba: singletons allowed
        ("functional", ["A2L", "A2R"]),  # not functional: only holes with 2+
        ("always", ["A1L", "A1R", "A2L", "A2R"]),
    ],
    ids=str,
)
def test_flag_namua_singleton(value: str, moves: list[str]) -> None:
    """[R6.4b] The singleton restriction keyed on owned (CORE), functional or never."""
    text = "00000000/00000003/12000000/00000000 S 5-5 S"
    assert legal(text, Bao({"namua_singleton": value})) == moves


def test_flag_namua_singleton_always_allows_singletons_without_a_nyumba() -> None:
    """[R6.4b] Nierse's reading: singletons are always eligible (CORE: vector N11)."""
    text = "00000000/00000003/12000000/00000000 S 5-5 -"  # vector N11
    assert legal(text, Bao({"namua_singleton": "always"})) == ["A1L", "A1R", "A2L", "A2R"]


def test_flag_tax_any_owned_taxes_a_dormant_nyumba() -> None:
    text = "00000030/02000000/00005000/00000000 S 1-1 S"  # vector N19
    game = Bao({"tax_any_owned": True})
    assert after(text, "A5L", game) == "00000030/02000000/00114000/00000000 N 0-1 S"


def test_flag_sixteen_rule_off_lets_17_seeds_capture() -> None:
    text = "00000000/30200000/2(17)100000/00000000 S 0-0 -"  # vector M02
    assert legal(text) == ["A1R"]
    assert legal(text, Bao({"sixteen_rule": False})) == ["A1R", "A2L", "A2R"]


def test_flag_mtaji_capture_nyumba_choice_offers_stop_or_safari() -> None:
    text = "00000030/00500100/20106000/00000000 S 0-0 S"  # vector M07
    game = Bao({"mtaji_capture_nyumba_choice": True, "ownership_lost_first_mtaji_capture": "off"})
    assert legal(text, game) == ["A1R", "A1R+"]
    assert legal(text, Bao({"mtaji_capture_nyumba_choice": True})) == ["A1R"]  # R7.3 first


M08A = "00000000/00200020/00320010/00000000 S 0-0 -"
"""Vector M08a: South's A3R leaves North's a2 as the one target."""


def test_R11_5_takasia_none_never_blocks() -> None:
    """[R11.5] Variant none (Bao la Kujifunza): no takasia after vector M08a's move."""
    game = Bao({"takasia": "none"})
    assert game.play_text(at(M08A, game), "A3R")[TAKASIA] == -1


def test_R11_5_mtaji_moja_blocks_the_one_target_at_the_victims_turn() -> None:
    """[R11.5] Variant mtaji_moja (Nierse): the victim may not sow the one target."""
    game = Bao({"takasia": "mtaji_moja"})
    after_move = after(M08A, "A3R", game)
    assert "takasia" not in after_move
    assert legal(after_move, game) == ["a6L", "a6R"]
    assert legal(after_move, Bao({"takasia": "none"})) == ["a2L", "a2R", "a6L", "a6R"]


def test_R11_3_the_nyumba_first_lap_exception_flag_sows_on_through_the_blocked_hole() -> None:
    """[R11.3] With takasia_nyumba_first_lap_exception a first lap from the owned nyumba
    relays on from the blocked hole.
    """
    text = "00000000/00000200/02003000/00000000 S 0-0 S takasia=A2"
    game = Bao({"takasia_nyumba_first_lap_exception": True})
    assert after(text, "A5L", game) == "00000000/00000200/10110000/11000000 N 0-0 -"


def test_R11_5_the_attacker_must_capture_the_blocked_hole() -> None:
    """[R11.5] Variant takasia_attacker_must_capture: only captures that take the blocked
    hole at some point stay legal.
    """
    game = Bao({"takasia_attacker_must_capture": True})
    blocked = game.play_text(at(M08A, game), "A3R")
    after_victim = game.play_text(blocked, "a6L")
    assert after_victim[TARGET] == 1  # South must now take North's a2 if it can
    text = "00000000/02000101/01020100/20000000 S 0-0 - target=a7"
    assert legal(text) == ["A4L", "A4R", "B1L"]
    assert legal(text, game) == ["A4L", "B1L"]  # A4R captures a3 only


def test_flag_front_empty_check_end_of_move_finishes_the_sowing() -> None:
    text = "00000000/00002000/00003000/00100000 S 5-5 SN"  # vector N17
    game = Bao({"front_empty_check": "end_of_move"})
    result = game.play_text(at(text, game), "A5L")
    assert game.format_position(result) == "00000000/00000000/11004000/00100000 N 4-5 SN ply=1"
    outcome = game.outcome(result)
    assert outcome is not None and outcome.winner == 0


# -- Profiles ---------------------------------------------------------------------------------


def test_profile_nierse_sets_its_four_flags() -> None:
    options = Bao({"profile": "nierse"}).options
    assert options["namua_takasa_nyumba_stop"] == "optional"
    assert options["namua_singleton"] == "always"
    assert options["sixteen_rule"] is False
    assert options["takasia"] == "mtaji_moja"


def test_profile_kujifunza_starts_with_2_everywhere_no_stock_no_nyumba() -> None:
    game = Bao({"profile": "kujifunza"})
    start = game.start()
    assert game.format_position(start) == "22222222/22222222/22222222/22222222 S 0-0 -"
    assert game.options["takasia"] == "none"
    assert legal(game.format_position(start), game)  # South captures at once
