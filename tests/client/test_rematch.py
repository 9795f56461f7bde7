"""Rematch from the game-over screen, against a real in-process server: offered with `r`,
answered y/n, both players (and a spectator) moved on to the new game, seats swapped, each new
token kept under its own player's name."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.support.client import Proxy, game_server, kalah_create, screen, until, url_of
from tests.support.screen import PEOPLE, dialog, finished, old_game_left, sized, start_of
from ubao.client.input_machine import Dialog
from ubao.client.live import LiveGame
from ubao.client.state import GameState
from ubao.client.tokens import SeatToken, TokenStore
from ubao.protocol import SeatInfo, SeatSpec
from ubao.server.app import GameServer, ServerConfig

pytestmark = pytest.mark.timeout(120)


async def test_a_rematch_is_offered_accepted_and_followed_by_players_and_watchers(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        tokens = tmp_path / "tokens.json"  # one user, one HOME: both names in one store
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            old = alice.live.game_id
            assert old is not None
            async with (
                screen(url, "bob", tokens, game_id=old) as bob,
                screen(url, "fan", tmp_path / "fan.json", game_id=old, watch=True) as fan,
            ):
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type("\x12y")  # Ctrl-R, y: resign
                await until(lambda: bob.live.state.over, "the end")
                assert "r: rematch" in alice.live.app._help_text()[0][1]
                alice.type("r")
                await until(lambda: dialog(bob.live.app) is Dialog.ANSWER_REMATCH, "bob is asked")
                question = bob.live.app._question()
                assert question == "South offers a rematch, seats swapped: y = accept, n = decline"
                bob.type("y")
                await until(lambda: alice.live.game_id != old, "alice's rematch")
                await until(lambda: bob.live.state.legal, "bob moves first now")
                new = alice.live.game_id
                assert new is not None and bob.live.game_id == new
                assert (alice.live.app.seat, bob.live.app.seat) == (1, 0)
                assert alice.live.state.names() == ["bob", "alice"]
                store = TokenStore(tokens)
                alice_token, bob_token = store.get(url, new, "alice"), store.get(url, new, "bob")
                assert alice_token is not None and bob_token is not None
                assert (alice_token.seat, bob_token.seat) == (1, 0)
                assert alice_token.token != bob_token.token
                await until(lambda: fan.live.game_id == new and fan.live.state.started, "fan")
                bob.type("1\r")
                await until(lambda: alice.live.state.history == ["1"], "bob's move at alice's")
                await until(lambda: fan.live.state.history == ["1"], "and at the fan's")


async def test_a_declined_offer_leaves_everyone_in_the_old_game(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            old = alice.live.game_id
            async with screen(url, "bob", tmp_path / "b.json", game_id=old) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type("resign\ry")
                await until(lambda: bob.live.state.over, "the end")
                bob.type("rematch\r")
                await until(
                    lambda: dialog(alice.live.app) is Dialog.ANSWER_REMATCH, "alice is asked"
                )
                alice.type("n")
                await until(lambda: bob.live.app.message[1] == "rematch declined", "declined")
                assert alice.live.game_id == bob.live.game_id == old
                assert dialog(alice.live.app) is not Dialog.ANSWER_REMATCH


async def test_a_server_bot_accepts_at_once(tmp_path: Path) -> None:
    async with game_server() as server:
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(1))
        async with screen(url_of(server), "alice", tmp_path / "a.json", create=create) as alice:
            await until(lambda: alice.live.state.legal, "alice's turn")
            old = alice.live.game_id
            alice.type("\x12y")
            await until(lambda: alice.live.state.over, "the end")
            alice.type("r")
            await until(lambda: alice.live.game_id != old, "the rematch")
            assert alice.live.app.seat == 1
            await until(lambda: alice.live.state.legal, "the bot moved first")
            assert alice.live.state.seats[0].kind == "bot" and alice.live.state.history


async def test_no_rematch_is_offered_once_the_opponent_has_left(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        tokens = tmp_path / "tokens.json"
        async with screen(url, "alice", tokens, create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            async with screen(url, "bob", tokens, game_id=alice.live.game_id) as bob:
                await until(lambda: alice.live.state.legal, "alice's turn")
                alice.type("\x12y")  # Ctrl-R, y: resign
                await until(lambda: bob.live.state.over, "the end")
                assert "r: rematch" in alice.live.app._help_text()[0][1]
            await until(lambda: not alice.live.state.seats[1].connected, "bob has left")
            assert "r: rematch" not in alice.live.app._help_text()[0][1]
            assert "rematch" not in str(alice.live.app._end_text())


def test_a_bot_or_an_offer_that_waits_is_there_to_answer() -> None:
    state = GameState("g", status="over")
    state.seats = [SeatInfo("open", "alice", True), SeatInfo("open", "bob", False)]
    assert not state.can_rematch(0)
    state.rematch = 1  # bob's offer, made before he left, still waits
    assert state.can_rematch(0)
    state.rematch = None
    state.seats[1] = SeatInfo("bot", "bot d4", False)
    assert state.can_rematch(0)
    state.seats[1] = SeatInfo("open", None, False)  # nobody ever sat there
    assert not state.can_rematch(0)
    state.status = "playing"
    state.seats[1] = SeatInfo("open", "bob", True)
    assert not state.can_rematch(0)


@pytest.mark.timeout(300)
async def test_a_rematch_offer_that_lapsed_with_a_restart_is_not_shown_after_it(
    tmp_path: Path,
) -> None:
    """The server restarts while South's offer waits: offers are not stored, so after the
    resume neither screen shows it (nor asks y/n for it)."""
    config = ServerConfig(port=0, db=tmp_path / "games.db")
    first = GameServer(config)
    await first.start()
    proxy = Proxy(first.port)
    await proxy.start()
    second: GameServer | None = None
    try:
        url = proxy.url
        async with screen(url, "alice", tmp_path / "a.json", create=kalah_create()) as alice:
            await until(lambda: alice.live.state.started, "alice's game")
            game_id = alice.live.game_id
            async with screen(url, "bob", tmp_path / "b.json", game_id=game_id) as bob:
                await until(lambda: alice.live.state.legal, "the game under way")
                alice.live.app.enter("resign")
                alice.live.app.enter("y")
                await until(lambda: bob.live.state.over, "the resignation at bob's")
                alice.type("r")
                await until(
                    lambda: dialog(bob.live.app) is Dialog.ANSWER_REMATCH, "the offer at bob's"
                )
                assert "offers a rematch" in bob.live.app.message[1]
                await first.stop()
                second = GameServer(dataclasses.replace(config, port=0))
                await second.start()
                proxy.target_port = second.port
                for live in (alice.live, bob.live):
                    await until(lambda: live.session.reconnects >= 1, "reconnected")  # noqa: B023
                    await until(live.session.connected.is_set, "resumed")
                await until(lambda: bob.live.state.seats[0].connected, "alice back at bob's")
                for player in (alice, bob):
                    app = player.live.app
                    assert player.live.state.rematch is None
                    assert dialog(app) is not Dialog.ANSWER_REMATCH and app._question() is None
                    assert "rematch" not in app.message[1], app.message
    finally:
        await proxy.close()
        for server in (first, second):
            if server is not None:
                await server.stop()


@pytest.mark.timeout(300)
def test_the_end_of_the_game_empties_the_input_line_so_that_r_offers_a_rematch() -> None:
    events = finished("kalah", 1)  # North to move when South resigns
    app = sized(80, 24, seat=1)
    for event in events[:-1]:
        app.on_event(event)
    app.buffer.text = "2"  # half typed
    app.on_event(events[-1])
    assert app.buffer.text == "" and app.state.over
    # `r` (and `q`) act on an empty line only: they do now.
    assert app._game_keys().get_bindings_for_keys(("r",))[0].filter()


@pytest.mark.timeout(300)
async def test_the_old_games_news_keeps_the_rematchs_seat_token(tmp_path: Path) -> None:
    """A player's screen in game B hears game A's `seat` event: B stays as it was, and its
    token stays in the store (it was forgotten as if B were over)."""
    store = TokenStore(tmp_path / "tokens.json")
    url, held = "ws://127.0.0.1:9/", SeatToken(0, "token-of-game-b")
    store.put(url, "AbCd1234", "root", held)
    with create_pipe_input() as keys:
        live = LiveGame(
            url, "root", game_id="AbCd1234", tokens=store, input=keys, output=DummyOutput()
        )
        live.held = held
        live.on_event(start_of("othello", {}, PEOPLE))
        live.on_event(old_game_left(live.state.v + 1))
        assert not live.state.over and live.state.status == "playing"
        assert live.state.seats[1].connected and live.app.message[1] == ""
    assert TokenStore(tmp_path / "tokens.json").get(url, "AbCd1234", "root") == held
