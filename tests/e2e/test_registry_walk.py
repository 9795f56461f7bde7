"""Every registered game works in the client end to end: a game added to `GAMES` is created on
a real server, played a few plies by two clients over the wire, drawn, exported to a record,
read back and replayed to the server's position. A game the client cannot handle fails here."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text

from tests.support.client import FAST, game_server, until, url_of
from ubao.client.connection import fetch_snapshot
from ubao.client.export import record_of, replay_of
from ubao.client.render import render_board
from ubao.client.seating import SeatSession
from ubao.client.state import GameState
from ubao.client.tokens import TokenStore
from ubao.engine.games import GAMES
from ubao.engine.record import format_record, parse_record
from ubao.protocol import Create, Event, SeatSpec

pytestmark = pytest.mark.timeout(60)

PLIES = 6
"""Enough to sow, capture or flip in every game; a game over sooner stops there."""
COLUMNS = 80


class Player(SeatSession):
    """A seat whose game state follows the server's events: no screen, no engine."""

    def on_event(self, event: Event) -> None:
        self.state.apply(event, time.monotonic())


async def play_a_few_plies(players: tuple[Player, Player]) -> None:
    """Whoever the server offers moves plays one (varied by ply), until PLIES or the end."""
    for ply in range(PLIES):
        await until(lambda: any(p.state.legal for p in players) or players[0].state.over, "a turn")
        if players[0].state.over:
            return
        mover = next(p for p in players if p.state.legal)
        legal = mover.state.legal
        await mover.move(ply, legal[ply % len(legal)])

        def played(ply: int = ply) -> bool:
            return all(p.state.ply > ply for p in players)

        await until(played, f"ply {ply} at both")


@pytest.mark.parametrize("name", sorted(GAMES))
async def test_a_registered_game_plays_draws_exports_and_replays(name: str, tmp_path: Path) -> None:
    info = GAMES[name]
    async with game_server() as server:
        url = url_of(server)
        create = Create(id=0, game=name, options={}, seats=(SeatSpec.open(), SeatSpec.open()))
        south = Player(
            url,
            "alice",
            "human",
            create=create,
            seat=0,
            tokens=TokenStore(tmp_path / "a"),
            backoff=FAST,
        )
        async with south.connected():
            await until(lambda: south.held is not None, "alice's seat")
            assert south.game_id is not None
            north = Player(
                url,
                "bob",
                "human",
                game_id=south.game_id,
                seat=1,
                tokens=TokenStore(tmp_path / "b"),
                backoff=FAST,
            )
            async with north.connected():
                players = (south, north)
                await until(lambda: all(p.state.status == "playing" for p in players), "the start")
                await play_a_few_plies(players)
                assert south.state.history == north.state.history
                assert south.state.history, "moves were played"
                snapshot = await fetch_snapshot(url, "carol", south.game_id)

    assert list(snapshot.history) == south.state.history
    state = GameState(snapshot.game_id)
    state.apply(snapshot, time.monotonic())
    view = state.view
    assert {label for row in view.grid(0) for label in row} <= view.values.keys()
    for viewer in (0, 1):
        text = fragment_list_to_text(render_board(view, viewer, names=state.names()))
        assert all(len(line) <= COLUMNS for line in text.splitlines()), text
        assert "alice" in text and "bob" in text

    record = record_of(snapshot)
    assert parse_record(format_record(record)) == record
    assert (record.tags[info.sides[0]], record.tags[info.sides[1]]) == ("alice", "bob")
    replay = replay_of(parse_record(format_record(record)))
    assert replay.game.format_position(replay.positions[-1]) == snapshot.position
    assert replay.view(len(record.moves)).values == view.values
