"""A server's engine bots from the client's side: `--vs-bot ENGINE:DEPTH`, the engines a
server offers, and a game against one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.client import FAST, kalah_create, url_of
from tests.support.server import fake_engine
from ubao.client.__main__ import build_parser
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.commands import opponent_seats
from ubao.client.connection import ServerError
from ubao.client.seating import check_engines
from ubao.client.tokens import TokenStore
from ubao.protocol import ErrorCode, SeatSpec
from ubao.server.app import GameServer, ServerConfig
from ubao.server.bots import BotSettings, EngineBot


def test_vs_bot_names_an_engine_bot_before_its_depth() -> None:
    parse = build_parser().parse_args
    args = parse(["play", "--new", "othello", "--vs-bot", "edax:10"])
    assert opponent_seats(args) == (SeatSpec.open(), SeatSpec.bot(10, engine="edax"))
    assert opponent_seats(parse(["play", "--new", "kalah", "--vs-bot", "6"]))[1] == SeatSpec.bot(6)
    args = parse(["watch", "--new", "kalah", "--bot", "edax:2", "--bot", "3"])
    assert args.seats == [SeatSpec.bot(2, engine="edax"), SeatSpec.bot(3)]


def test_a_seat_asking_for_an_engine_the_server_does_not_offer_is_refused_here() -> None:
    create = kalah_create(SeatSpec.open(), SeatSpec.bot(2, engine="edax"))
    check_engines(create, ("edax",))
    for offered, words in [((), "(on offer: none)"), (("zebra",), "(on offer: zebra)")]:
        with pytest.raises(ServerError, match="no engine bot 'edax'") as refusal:
            check_engines(create, offered)
        assert refusal.value.code == ErrorCode.BAD_OPTIONS and words in refusal.value.message


@pytest.mark.timeout(120)
async def test_a_bot_client_plays_a_whole_game_against_a_servers_engine_bot(
    tmp_path: Path,
) -> None:
    twin = EngineBot("twin", "ubao", fake_engine())
    config = ServerConfig(port=0, db=":memory:", bots=BotSettings(engine_bots=(twin,)))
    async with GameServer(config) as server:

        def game(engine: str) -> BotGame:
            return BotGame(
                url_of(server),
                "robo",
                EngineSettings(depth=1),
                create=kalah_create(SeatSpec.open(), SeatSpec.bot(1, engine=engine)),
                seat=0,
                tokens=TokenStore(tmp_path / f"{engine}.json"),
                backoff=FAST,
            )

        bot = game("twin")
        result = await asyncio.wait_for(bot.run(), 60)
        assert result is not None and bot.error is None
        assert bot.session.engines == ("twin",)
        assert bot.state.seats[1].name == "twin (depth 1)" and bot.state.seats[1].engine == "twin"
        assert bot.state.info.get(1) is not None  # the engine bot's reports came with its moves
        stranger = game("zebra")
        assert await asyncio.wait_for(stranger.run(), 60) is None
        assert stranger.error is not None and "no engine bot 'zebra'" in stranger.error
