"""ubao's own engine driven in process: the client over a `SessionTransport`, no pipes."""

from __future__ import annotations

import pytest

from ubao.engine.games import make_game
from ubao.engine.protocols import EnginePosition, Limits
from ubao.engine.protocols.client import EngineClient, EngineFailure
from ubao.engine.protocols.transports import SessionTransport
from ubao.engine.protocols.ubao import UbaoDialect


@pytest.mark.timeout(120)
async def test_the_engine_in_process_searches_stops_and_quits() -> None:
    transport = SessionTransport()
    client = await EngineClient.start(transport, UbaoDialect(), timeout_s=30)
    await client.configure({"Hash": "1", "Eval": "<empty>"})
    game = make_game("kalah", {"pits": 4, "seeds": 3})
    position = EnginePosition("kalah", {"pits": 4, "seeds": 3}, "startpos", ("1",), 1)
    result = await client.play(position, Limits(depth=3))
    assert result.info is not None and result.info.depth == 3 and result.move is not None
    game.parse_move(game.play_text(game.start(), "1"), result.move)
    big = EnginePosition("kalah", {"pits": 6, "seeds": 6}, "startpos", (), 0)
    result = await client.play(big, Limits(infinite=True), budget_s=0.3)
    assert result.move is not None and not transport.session.searching
    with pytest.raises(EngineFailure, match="engine refused"):
        await client.play(EnginePosition("kalah", {}, "startpos", ("9",), 1), Limits(depth=1))
    await client.quit(10)
    with pytest.raises(EngineFailure, match="quit"):
        await client.new_game()
