"""A client's picture of a game, built only from server events, robust to replays and gaps."""

from __future__ import annotations

import dataclasses

from tests.support.screen import PEOPLE, old_game_left, start_of
from ubao.client.lag import Lag, format_lag
from ubao.client.state import Applied, GameState, describe_result
from ubao.protocol import (
    BotInfo,
    Clocks,
    ClockSpec,
    Moved,
    Over,
    Result,
    SeatEvent,
    SeatInfo,
    Snapshot,
    TakebackRequest,
)

SEATS = (SeatInfo("open", "alice", True), SeatInfo("bot", "ubao-engine (depth 2)", True))
START = "kalah(4,3) S 3,3,3,3/3,3,3,3 0,0"
AFTER_2 = "kalah(4,3) S 3,0,4,4/3,3,3,3 1,0"
AFTER_2_1 = "kalah(4,3) N 0,1,5,5/3,3,3,3 1,0"


def snapshot(v: int = 1, **fields: object) -> Snapshot:
    values: dict[str, object] = {
        "game_id": "g1",
        "v": v,
        "game": "kalah",
        "options": {"pits": 4, "seeds": 3},
        "status": "playing",
        "position": START,
        "to_move": 0,
        "ply": 0,
        "history": (),
        "seats": SEATS,
        "legal": ("1", "2", "3", "4"),
    }
    values.update(fields)
    return Snapshot(**values)  # type: ignore[arg-type]


def moved(v: int, ply: int, move: str, position: str, to_move: int, **fields: object) -> Moved:
    return Moved(
        game_id="g1",
        v=v,
        ply=ply,
        seat=0,
        move=move,
        position=position,
        to_move=to_move,
        **fields,  # type: ignore[arg-type]
    )


def test_a_snapshot_sets_the_game_position_seats_and_legal_moves() -> None:
    state = GameState("g1")
    assert state.apply(snapshot(), now=0.0) is Applied.APPLIED
    assert state.started and state.game_name == "kalah" and state.v == 1
    assert state.view.values["S1"] == 3
    assert state.legal == ("1", "2", "3", "4")
    assert state.names() == ["alice", "ubao-engine (depth 2)"]


def test_a_move_updates_position_history_movers_and_animation_steps() -> None:
    state = GameState("g1")
    state.apply(snapshot(), now=0.0)
    assert state.apply(moved(2, 0, "2", AFTER_2, 0, legal=("1", "3", "4")), 0.0) is Applied.APPLIED
    assert state.ply == 1 and state.history == ["2"] and state.movers == [0]
    assert state.legal == ("1", "3", "4")
    assert state.last is not None
    assert [step.hole for step in state.last.steps] == ["S2", "S3", "S4", "S*"]
    assert state.last.before.values["S2"] == 3 and state.view.values["S2"] == 0
    assert state.last_hole() == "S2"


def test_a_replayed_event_is_ignored() -> None:
    state = GameState("g1")
    state.apply(snapshot(), now=0.0)
    event = moved(2, 0, "2", AFTER_2, 0)
    state.apply(event, 0.0)
    assert state.apply(event, 0.0) is Applied.DUPLICATE
    assert state.history == ["2"]


def test_an_event_after_a_gap_is_refused_until_the_missing_ones_arrive() -> None:
    state = GameState("g1")
    state.apply(snapshot(), now=0.0)
    later = moved(3, 1, "1", AFTER_2_1, 1)
    assert state.apply(later, 0.0) is Applied.GAP
    assert state.history == [] and state.v == 1
    state.apply(moved(2, 0, "2", AFTER_2, 0), 0.0)
    assert state.apply(later, 0.0) is Applied.APPLIED
    assert state.history == ["2", "1"] and state.movers == [0, 0]


def test_events_before_the_first_snapshot_are_a_gap() -> None:
    state = GameState("g1")
    event = SeatEvent(game_id="g1", v=1, seat=1, name="bob", connected=True)
    assert state.apply(event, 0.0) is Applied.GAP


def test_a_snapshot_midgame_rebuilds_who_played_each_move() -> None:
    state = GameState("g1")
    state.apply(snapshot(v=5, history=("2", "1"), position=AFTER_2_1, ply=2, to_move=1), 0.0)
    assert state.movers == [0, 0]
    assert state.last_hole() == "S1"


def test_the_running_clock_ticks_down_locally_and_stops_at_zero() -> None:
    state = GameState("g1")
    state.apply(snapshot(clocks=Clocks((60_000, 30_000), running=0)), now=100.0)
    assert state.remaining_ms(0, now=101.5) == 58_500
    assert state.remaining_ms(1, now=101.5) == 30_000
    assert state.remaining_ms(0, now=500.0) == 0


def test_the_running_clock_is_shown_half_a_round_trip_lower_for_the_events_transit() -> None:
    state = GameState("g1", rtt_ms=400.0)
    state.apply(snapshot(clocks=Clocks((60_000, 30_000), running=0)), now=100.0)
    assert state.remaining_ms(0, now=100.0) == 59_800
    assert state.remaining_ms(0, now=101.0) == 58_800
    assert state.remaining_ms(1, now=101.0) == 30_000  # a stopped clock is exact as sent


def test_lag_starts_with_the_first_round_trip_then_moves_smoothly() -> None:
    lag = Lag()
    assert lag.rtt_ms is None and format_lag(lag.rtt_ms) == "lag -"
    assert lag.observe(sent_ms=1_000, received_ms=1_080) == 80.0
    assert lag.observe(sent_ms=2_000, received_ms=2_480) == 80.0 + (480 - 80) / 4
    assert lag.observe(sent_ms=3_000, received_ms=2_999) == 180.0 * 3 / 4  # never negative
    assert format_lag(lag.rtt_ms) == "lag 135 ms"


def test_game_over_stops_the_clocks_and_withdraws_the_legal_moves() -> None:
    state = GameState("g1")
    state.apply(snapshot(clocks=Clocks((60_000, 30_000), running=0)), now=0.0)
    state.apply(Over(game_id="g1", v=2, result=Result(1, "resign", None)), now=1.0)
    assert state.over and state.legal == ()
    assert state.remaining_ms(0, now=50.0) == 59_000


def test_a_player_leaving_or_coming_back_after_the_end_is_shown() -> None:
    # The server tells presence after the `over` as a seat event at the `over`'s version.
    state = GameState("g1")
    state.apply(snapshot(), now=0.0)
    state.apply(Over(game_id="g1", v=2, result=Result(1, "resign", None)), now=1.0)
    gone = SeatEvent(game_id="g1", v=2, seat=0, name="alice", connected=False, status="over")
    assert state.apply(gone, now=2.0) is Applied.APPLIED and not state.seats[0].connected
    back = SeatEvent(game_id="g1", v=2, seat=0, name="alice", connected=True, status="over")
    assert state.apply(back, now=3.0) is Applied.APPLIED and state.seats[0].connected
    assert state.apply(Over(game_id="g1", v=2, result=Result(1, "resign", None)), now=4.0) is (
        Applied.DUPLICATE
    )


def test_a_dropped_player_shows_the_grace_period_until_they_return() -> None:
    state = GameState("g1")
    state.apply(snapshot(), now=10.0)
    away = SeatEvent(game_id="g1", v=2, seat=0, name="alice", connected=False, grace_ms=30_000)
    state.apply(away, now=10.0)
    assert not state.seats[0].connected and state.away_until[0] == 40.0
    state.apply(SeatEvent(game_id="g1", v=3, seat=0, name="alice", connected=True), now=20.0)
    assert state.seats[0].connected and 0 not in state.away_until


def test_a_seat_event_keeps_what_the_seat_info_says_of_bots() -> None:
    wanted = SeatInfo("open", None, False, wants_bot=True, depth=4)
    state = GameState("g1")
    state.apply(snapshot(seats=(wanted, SEATS[1])), 0.0)
    state.apply(SeatEvent(game_id="g1", v=2, seat=0, name="robo", connected=True), 0.0)
    assert state.seats[0] == SeatInfo("open", "robo", True, wants_bot=True, depth=4)


def test_bot_info_is_kept_per_seat() -> None:
    state = GameState("g1")
    state.apply(snapshot(), 0.0)
    info = BotInfo(depth=4, score=3, nodes=120, time_ms=5, pv=("2", "1"))
    state.apply(moved(2, 0, "2", AFTER_2, 0, info=info), 0.0)
    assert state.info == {0: info}


def test_results_read_as_a_sentence() -> None:
    names = ["alice", None]
    sides = ("South", "North")
    assert describe_result(Result(0, "normal", (10, 8)), names, sides) == (
        "South, alice, wins at the end of play, 10-8"
    )
    assert describe_result(Result(1, "resign", None), names, sides) == (
        "North, open seat, wins by resignation"
    )
    assert describe_result(Result(None, "repetition", None), names, sides) == (
        "Draw by adjudication after a repetition"
    )


def test_the_winners_score_is_written_first() -> None:
    result = describe_result(Result(1, "normal", (10, 14)), ["alice", "bob"], ("South", "North"))
    assert result == "North, bob, wins at the end of play, 14-10"


def test_a_clock_in_its_last_tenth_warns() -> None:
    state = GameState("g1", clock=ClockSpec(60_000, 0))
    state.clocks = Clocks((7_000, 5_000), running=1)
    assert not state.low_on_time(0, 0.0) and state.low_on_time(1, 0.0)
    state.clock = ClockSpec(600_000, 5_000)
    state.clocks = Clocks((31_000, 30_000), running=0)
    assert not state.low_on_time(0, 0.0) and state.low_on_time(1, 0.0)


def test_a_takeback_request_is_pending_until_answered_or_a_move_and_accepted_rewinds() -> None:
    state = GameState("g1")
    state.apply(snapshot(takeback=1), now=0.0)
    assert state.takeback == 1
    state.apply(moved(2, 0, "2", AFTER_2, 0), now=0.0)  # a move ends the request
    assert state.takeback is None
    state.apply(moved(3, 1, "1", AFTER_2_1, 1), now=0.0)
    asked = TakebackRequest(game_id="g1", v=4, seat=0, state="asked", ply=2)
    state.apply(asked, now=0.0)
    assert state.takeback == 0 and state.history == ["2", "1"]
    accepted = TakebackRequest(
        game_id="g1",
        v=5,
        seat=0,
        state="accepted",
        ply=1,
        position=AFTER_2,
        to_move=0,
        legal=("1", "3", "4"),
    )
    assert state.apply(accepted, now=0.0) is Applied.APPLIED
    assert (state.history, state.movers, state.ply, state.to_move) == (["2"], [0], 1, 0)
    assert state.legal == ("1", "3", "4") and state.takeback is None and state.last is None
    assert len(state.positions) == 2 and state.view_at(1).values == state.view.values


def test_an_event_of_another_game_changes_nothing() -> None:
    state = GameState("AbCd1234")
    assert state.apply(start_of("othello", {}, PEOPLE), 0.0) is Applied.APPLIED
    before = dataclasses.replace(state)
    assert state.apply(old_game_left(state.v + 1), 1.0) is Applied.OTHER_GAME
    assert state == before and not state.over and state.seats[1].connected
    other = dataclasses.replace(start_of("kalah", {}, PEOPLE), game_id="OldGameA", v=9)
    assert state.apply(other, 1.0) is Applied.OTHER_GAME and state.game_name == "othello"
