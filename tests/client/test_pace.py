"""`--pace` on the commands that create games (issue 12/13 follow-ups): README's AI-vs-AI match
(`ubao bot --new GAME --vs-bot D`) can be followed by a spectator, the server bot keeping the
pace sent in `create` and the bot client the same pace."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from pathlib import Path

import pytest

from tests.support.client import FAST, game_server, kalah_create, url_of
from ubao.client.__main__ import build_parser
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.commands import creation, opponent_seats, watch_creation
from ubao.client.connection import ServerSession
from ubao.client.tokens import TokenStore
from ubao.protocol import Event, Moved, SeatSpec, Watch

pytestmark = pytest.mark.timeout(120)

PACE = 0.4


@pytest.mark.parametrize(
    ("argv", "pace_ms"),
    [
        (["bot", "--depth", "2", "--new", "kalah", "--vs-bot", "3", "--pace", "1.5"], 1500),
        (["bot", "--depth", "2", "--new", "kalah", "--vs-bot", "3"], None),
        (["play", "--new", "kalah", "--vs-bot", "3", "--pace", "0.25"], 250),
        (["play", "--new", "kalah"], None),
    ],
)
def test_pace_is_sent_with_the_game_created(argv: list[str], pace_ms: int | None) -> None:
    args = build_parser().parse_args(argv)
    assert creation(args, opponent_seats(args)).pace_ms == pace_ms


def test_watch_new_keeps_its_default_pace_of_a_second() -> None:
    args = build_parser().parse_args(["watch", "--new", "kalah", "--bot", "1", "--bot", "2"])
    assert watch_creation(args).pace_ms == 1000


def test_a_pace_beyond_the_protocols_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(["bot", "--depth", "1", "--new", "kalah", "--pace", "61"])
    assert exit.value.code == 2 and "give 0 to 60 seconds" in capsys.readouterr().err


async def test_a_paced_ai_match_goes_a_move_at_a_time_for_its_spectators(tmp_path: Path) -> None:
    """`ubao bot --new kalah --vs-bot 1 --pace 0.4`: a spectator sees no move follow the one
    before it sooner than the pace allows (half of it, as a bound that load cannot break),
    the bot client's moves as the server bot's."""
    async with game_server() as server:
        url = url_of(server)
        create = dataclasses.replace(
            kalah_create(SeatSpec.open(), SeatSpec.bot(1), options={"pits": 3, "seeds": 2}),
            pace_ms=round(PACE * 1000),
        )
        bot = BotGame(
            url,
            "robo",
            EngineSettings(depth=1),
            create=create,
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            backoff=FAST,
            pace=PACE,
        )
        seen: list[tuple[float, int]] = []

        def on_event(event: Event) -> None:
            if isinstance(event, Moved):
                seen.append((time.monotonic(), event.seat))

        spectator = ServerSession(url, "eve", "spectator", on_event=on_event, backoff=FAST)
        watching = asyncio.create_task(spectator.run())
        playing = asyncio.create_task(bot.run())
        try:
            await asyncio.wait_for(spectator.connected.wait(), 30)
            for _ in range(300):  # bounded: the game is created at once
                if bot.game_id is not None:
                    break
                await asyncio.sleep(0.01)
            assert bot.game_id is not None
            await spectator.request(Watch(id=0, game_id=bot.game_id))
            result = await asyncio.wait_for(playing, 90)
        finally:
            await spectator.close()
            await asyncio.gather(watching, return_exceptions=True)
    assert result is not None and bot.error is None
    gaps = [(later - earlier, seat) for (earlier, _), (later, seat) in itertools.pairwise(seen)]
    assert {seat for _, seat in gaps} == {0, 1}, seen  # both bots moved after a move seen
    assert all(gap >= PACE / 2 for gap, _ in gaps), gaps
