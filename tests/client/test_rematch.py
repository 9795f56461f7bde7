"""Rematch from the game-over screen, against a real in-process server: offered with `r`,
answered y/n, both players (and a spectator) moved on to the new game, seats swapped, each new
token kept under its own player's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.client import game_server, kalah_create, screen, until, url_of
from ubao.client.tokens import TokenStore
from ubao.protocol import SeatSpec

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
                await until(lambda: bob.live.app.answering_rematch, "bob is asked")
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
                await until(lambda: alice.live.app.answering_rematch, "alice is asked")
                alice.type("n")
                await until(lambda: bob.live.app.message[1] == "rematch declined", "declined")
                assert alice.live.game_id == bob.live.game_id == old
                assert not alice.live.app.answering_rematch


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
