"""`ubao play` and `ubao watch` against a real in-process server, typed through pipe input."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input

from tests.support.client import (
    Proxy,
    game_server,
    kalah_create,
    recording,
    screen,
    until,
    url_of,
)
from tests.support.screen import (
    PEOPLE,
    Shown,
    SizedOutput,
    draw,
    legal_snapshot,
    played,
    status_lines,
)
from ubao.client.commands import report_end
from ubao.client.connection import FATAL_CLOSE_CODES
from ubao.client.input_machine import SEAT_LOST
from ubao.client.live import LiveGame
from ubao.client.tokens import SeatToken, TokenStore
from ubao.engine.games import make_game
from ubao.protocol import AppCloseCode, Clocks, ClockSpec, Create, Move, SeatEvent, SeatSpec

pytestmark = pytest.mark.timeout(120)


def board_text(live: object) -> str:
    return fragment_list_to_text(live.app._board_text())  # type: ignore[attr-defined]


async def test_two_players_see_the_board_and_a_typed_move_reaches_both(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            assert "waiting for a player" in alice.live.app.turn_text()[1]
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                assert alice.live.app.seat == 0 and bob.live.app.seat == 1
                assert alice.live.app.turn_text() == ("class:status.turn", "Your move (South)")
                text = board_text(alice.live)
                assert "North: bob" in text and "South: alice" in text
                assert set(alice.live.app.legal_holes()) == {"S1", "S2", "S3", "S4"}
                alice.type("2\r")
                await until(lambda: bob.live.state.history == ["2"], "the move at bob's")
                assert alice.live.state.history == ["2"]
                assert bob.live.state.view.values["S2"] == 0
                assert bob.live.app.turn_text()[1] == "South, alice, to move"  # extra turn
                # Both screens pinged the server and show the round trip.
                await until(lambda: bob.live.state.rtt_ms is not None, "bob's first ping")
                assert bob.live.session.lag.rtt_ms == bob.live.state.rtt_ms


async def test_an_illegal_entry_is_refused_locally_and_nothing_is_sent(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id):
                await until(lambda: alice.live.state.legal)
                with recording(alice.live) as sent:
                    alice.type("9\r")
                    await until(lambda: alice.live.app.message[1], "a message")
                    assert "pit 9 does not exist" in alice.live.app.message[1]
                    assert alice.live.app.message[0] == "class:status.error"
                    alice.type("3\r")
                    await until(lambda: alice.live.state.history, "the legal move")
                assert [type(command) for command in sent] == [Move]
                assert alice.live.state.history == ["3"]


async def test_a_bare_enter_plays_nothing_and_arrows_then_enter_play_a_hole(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id):
                await until(lambda: alice.live.state.legal)
                app = alice.live.app
                with recording(alice.live) as sent:
                    alice.type("\r")  # a stray Enter on a fresh turn
                    await until(lambda: "arrow keys" in app.message[1], "the hint")
                    assert sent == [] and app.board()[1].cursor is None
                alice.type("\x1b[C")  # the first arrow shows the cursor where it is
                await until(lambda: app.board()[1].cursor == "S1", "the cursor on S1")
                alice.type("\x1b[C\x1b[C")  # right, right
                await until(lambda: app.cursor == "S3", "the cursor on S3")
                alice.type("\r")
                await until(lambda: alice.live.state.history == ["3"], "the move 3")


async def test_a_bao_move_without_its_letter_is_completed_by_a_question(tmp_path: Path) -> None:
    async with game_server() as server:
        create = Create(id=0, game="bao", options={}, seats=(SeatSpec.open(), SeatSpec.bot(1)))
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=create) as alice:
            live = alice.live
            await until(lambda: live.state.legal, "alice's turn")
            await until(lambda: live.app.seat == 0, "alice's seat")
            assert set(live.app.legal_holes()) == {"A6", "A7"}
            with recording(live) as sent:
                alice.type("a6\r")
                await until(lambda: live.app.input.question is not None, "the question")
                question = live.app.input.question
                assert question is not None
                assert "L sows A5 A4 A3," in question.question
                assert "R sows A7 A8 B8." in question.question
                alice.type("x\r")  # a wrong answer: said so, and asked again
                await until(lambda: "answer L or R" in live.app.message[1], "the refusal")
                assert live.app.input.question == question and sent == []
                assert question.question in fragment_list_to_text(live.app._status_text())
                alice.type("L\r")
                await until(lambda: live.state.history, "the move")
            assert live.state.history[0] == "A6L"
            assert [type(command) for command in sent] == [Move]


async def test_resigning_asks_first_then_ends_the_game_with_a_result_screen(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            async with screen(url, "bob", tmp_path / "b.json", game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal)
                alice.type("\x12")  # Ctrl-R
                await until(lambda: alice.live.app.input.confirming_resign, "the question")
                alice.type("n")
                await until(lambda: not alice.live.app.input.confirming_resign, "the answer")
                assert not alice.live.state.over
                alice.type("\x12y")
                await until(lambda: bob.live.state.over, "the end at bob's")
                result = bob.live.state.result
                assert result is not None and (result.winner, result.reason) == (1, "resign")
                end = fragment_list_to_text(bob.live.app._end_text())
                assert "North, bob, wins by resignation" in end
                assert (
                    TokenStore(tmp_path / "a.json").get(url, alice.live.game_id or "", "alice")
                    is None
                )


async def test_playing_a_server_bot_shows_its_moves_and_engine_info(tmp_path: Path) -> None:
    async with game_server() as server:
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(2))
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=create) as alice:
            live = alice.live
            while not live.state.over:
                await until(lambda: live.state.legal or live.state.over, "a turn or the end")
                if live.state.over:
                    break
                ply = live.state.ply
                alice.type(live.state.legal[0] + "\r")

                def moved(ply: int = ply) -> bool:
                    return live.state.ply > ply or live.state.over

                await until(moved, "the move")
            assert live.state.info, "the bot's search reports"
            assert 1 in live.state.movers, "the bot moved"
            info = fragment_list_to_text(live.app._info_text())
            assert "North: depth 2" in info and "pv" in info
            game = make_game("kalah", live.state.options)
            position = game.start()
            for move in live.state.history:
                position = game.play_text(position, move)
            assert game.format_position(position) == game.format_position(live.state.position)


async def test_watching_an_ai_vs_ai_game_follows_it_to_the_end(tmp_path: Path) -> None:
    async with game_server() as server:
        create = kalah_create(SeatSpec.bot(1), SeatSpec.bot(2))
        async with screen(
            url_of(server),
            "carol",
            tmp_path / "c.json",
            create=create,
            watch=True,
            step_seconds=0.001,
        ) as carol:
            live = carol.live
            await until(lambda: live.state.over, "the end of the bots' game")
            await until(lambda: live.app.animation.frame is None, "the last move shown")
            assert live.app.seat is None and live.session.role == "spectator"
            game = make_game("kalah", live.state.options)
            position = game.start()
            for move in live.state.history:
                position = game.play_text(position, move)
            outcome = game.outcome(position)
            result = live.state.result
            assert outcome is not None and result is not None
            assert (result.winner, result.reason) == (outcome.winner, outcome.reason)
            end = fragment_list_to_text(live.app._end_text())
            assert ("wins" if result.winner is not None else "Draw") in end
            assert "to move" not in board_text(live)
            assert live.state.history and live.state.movers.count(1) > 0


async def test_a_dropped_connection_reconnects_and_resumes_with_the_missed_moves(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        proxy = Proxy(server.port)
        await proxy.start()
        try:
            async with screen(
                proxy.url,
                "alice",
                tmp_path / "a.json",
                create=kalah_create(options={"pits": 4, "seeds": 1}),
            ) as alice:
                await until(lambda: alice.live.state.started)
                game_id = alice.live.game_id
                async with screen(
                    url_of(server), "bob", tmp_path / "b.json", game_id=game_id
                ) as bob:
                    await until(lambda: alice.live.state.legal)
                    alice.type("1\r")  # one seed from S1 to S2: bob's turn
                    await until(lambda: bob.live.state.legal, "bob's turn")
                    proxy.cut()
                    await until(lambda: not alice.live.session.connected.is_set(), "the drop")
                    await until(lambda: not bob.live.state.seats[0].connected, "bob sees it")
                    bob.type(bob.live.state.legal[0] + "\r")
                    await until(lambda: len(bob.live.state.history) == 2, "bob's move")
                    assert len(alice.live.state.history) == 1
                    proxy.restore()
                    await until(lambda: len(alice.live.state.history) == 2, "the missed move")
                    assert alice.live.session.reconnects >= 1
                    assert alice.live.app.seat == 0
                    await until(lambda: bob.live.state.seats[0].connected, "alice is back")
                    if alice.live.state.legal:
                        ply = alice.live.state.ply
                        alice.type(alice.live.state.legal[0] + "\r")
                        await until(lambda: bob.live.state.ply > ply, "alice moves again")
        finally:
            await proxy.close()


async def test_restarting_play_join_returns_to_the_same_seat(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        tokens = tmp_path / "a.json"
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            game_id = alice.live.game_id
            assert game_id is not None
            await alice.quit()
        assert TokenStore(tokens).get(url, game_id, "alice") is not None
        async with screen(url, "bob", tmp_path / "b.json", game_id=game_id) as bob:
            await until(lambda: bob.live.app.seat == 1, "bob in the free seat")
            async with screen(url, "alice", tokens, game_id=game_id) as again:
                with recording(again.live) as sent:
                    await until(lambda: again.live.state.legal, "alice's turn after the restart")
                assert again.live.app.seat == 0
                assert [type(c).__name__ for c in sent] == ["Hello", "Resume"]
                again.type(again.live.state.legal[0] + "\r")
                await until(lambda: bob.live.state.history, "the move at bob's")


async def test_two_names_sharing_one_token_file_each_keep_their_own_seat(tmp_path: Path) -> None:
    """Two terminals of one user (one HOME): bob joining must not resume alice's seat."""
    async with game_server() as server:
        url, tokens = url_of(server), tmp_path / "tokens.json"
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.app.seat == 0, "alice's seat")
            game_id = alice.live.game_id
            async with screen(url, "bob", tokens, game_id=game_id) as bob:
                await until(lambda: bob.live.app.seat == 1, "bob in the other seat")
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type(alice.live.state.legal[0] + "\r")
                await until(lambda: bob.live.state.history, "alice's move at bob's")
                assert alice.live.error is None and alice.live.session.connected.is_set()
                store = TokenStore(tokens)
                alice_token = store.get(url, game_id or "", "alice")
                bob_token = store.get(url, game_id or "", "bob")
                assert alice_token is not None and bob_token is not None
                assert (alice_token.seat, bob_token.seat) == (0, 1)


async def test_seat_asks_for_the_other_seat_instead_of_resuming_the_stored_one(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url, tokens = url_of(server), tmp_path / "tokens.json"
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.app.seat == 0, "alice's seat")
            game_id = alice.live.game_id
            await alice.quit()
        async with screen(url, "alice", tokens, game_id=game_id, seat=1) as again:
            await until(lambda: again.live.app.seat == 1, "the seat asked for")


async def test_a_game_id_that_does_not_exist_ends_with_the_servers_reason(
    tmp_path: Path,
) -> None:
    async with (
        game_server() as server,
        screen(url_of(server), "alice", tmp_path / "a.json", game_id="nope") as alice,
    ):
        await asyncio.wait_for(alice.task, 30)
        assert alice.live.error is not None and "there is no game 'nope'" in alice.live.error


async def test_a_stored_token_the_server_no_longer_knows_is_replaced_by_a_join(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            game_id = alice.live.game_id
            assert game_id is not None
            stale = TokenStore(tmp_path / "b.json")
            stale.put(url, game_id, "bob", SeatToken(0, "not-a-token"))
            async with screen(url, "bob", tmp_path / "b.json", game_id=game_id) as bob:
                await until(lambda: bob.live.app.seat == 1, "bob's new seat")
                held = TokenStore(tmp_path / "b.json").get(url, game_id, "bob")
                assert held is not None and held.seat == 1 and held.token != "not-a-token"


async def test_resigning_a_game_nobody_joined_withdraws_it(tmp_path: Path) -> None:
    """As on lichess: a game still waiting for its opponent is cancelled, not aborted."""
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started)
            assert alice.live.state.status == "waiting"
            alice.type("\x12")  # Ctrl-R
            await until(lambda: alice.live.app.input.confirming_resign, "the question")
            assert alice.live.app._question() == "Cancel this game? y = yes, n or Esc = no"
            alice.type("y")
            await until(lambda: alice.live.state.over, "the end")
            result = alice.live.state.result
            assert result is not None and (result.winner, result.reason) == (None, "cancelled")


@pytest.mark.timeout(300)
async def test_a_screen_whose_seat_was_taken_over_no_longer_acts_live(tmp_path: Path) -> None:
    snapshot = dataclasses.replace(
        legal_snapshot("kalah"),
        seats=PEOPLE,
        clock=ClockSpec(60_000, 1_000),
        clocks=Clocks((58_000, 47_000), running=0, increment_ms=1_000),
    )
    with create_pipe_input() as keys:
        live = LiveGame(
            "ws://127.0.0.1:9/",
            "root",
            game_id="AbCd1234",
            tokens=TokenStore(tmp_path / "tokens.json"),
            input=keys,
            output=SizedOutput(80, 24),
        )
        app = live.app
        app.set_seat(0)
        app.set_connection("connected", True)
        app.on_event(snapshot)
        assert app.turn_text()[1].startswith("Your move")
        live.on_closed(FATAL_CLOSE_CODES[AppCloseCode.SEAT_TAKEN_OVER])
        shown = "\n".join(draw(app.application, 80, 24))
        assert "Your move" not in shown and "lag -" in shown, shown
        assert " connected" not in shown and "not known" in shown, shown
        assert not app.my_turn and app._clock(0, app.clock() + 5)[0][0] == "class:label"
        app.enter("3")
        assert app.message == ("class:status.error", SEAT_LOST)
        assert app.unsent is None


@pytest.mark.timeout(300)
async def test_leaving_a_waiting_game_says_it_expires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with game_server() as server:
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=kalah_create()) as a:
            await until(lambda: a.live.state.started, "the waiting game")
            await a.quit()
        assert report_end(a.live) == 0
    said = capsys.readouterr().out
    assert f"left game {a.live.game_id}, which waits for an opponent" in said, said
    assert "within 60 s" in said and "expires" in said and "--join=" in said, said


@pytest.mark.parametrize("shown", [(0, 80, 24)], indirect=True, ids=["seat 0"])
async def test_a_player_back_after_a_restart_hears_of_the_other_not_of_himself(
    shown: Shown,
) -> None:
    """After a server restart both seats come back: the status line names the opponent's
    return, never the player's own ("South, root, is here" on root's screen)."""
    snapshot, _ = played("kalah")
    shown.app.on_event(dataclasses.replace(snapshot, seats=PEOPLE))
    v = snapshot.v + 1
    shown.app.on_event(SeatEvent(game_id="AbCd1234", v=v, seat=0, name="root", connected=True))
    assert "is here" not in "\n".join(status_lines(shown.app))
    shown.app.on_event(SeatEvent(game_id="AbCd1234", v=v + 1, seat=1, name="bob", connected=True))
    assert "bob, is here" in "\n".join(status_lines(shown.app))


async def test_joining_a_full_game_suggests_watching_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(1))
        async with screen(url, "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            game_id = alice.live.game_id
            assert game_id is not None
            async with screen(url, "carol", tmp_path / "c.json", game_id=game_id) as carol:
                await asyncio.wait_for(carol.task, 30)  # refused: the screen closes
            assert report_end(carol.live) == 1
    error = capsys.readouterr().err
    assert "is taken" in error and f"to watch it: ubao watch --server={url} {game_id}" in error
