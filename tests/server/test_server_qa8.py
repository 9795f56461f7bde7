"""Server defects QA found (round 8): after a restart, no clock runs for a player not back yet,
at any turn; reading old finished games by id leaves the lobby's recent results alone; a
wrong `--engine` stops the server at its start; settings of 0 that would leave a server that
cannot be used are refused; an IPv6 address is in brackets in the listening URL; an empty
`UBAO_DB`, a relative `XDG_DATA_HOME` and a port over 65535; `ply_limit`'s two sources."""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.server.test_core import move, started_game
from tests.support.server import TIMEOUT, Client, Harness, fake_engine, small_limits
from ubao.protocol import (
    Create,
    Moved,
    Ok,
    Ping,
    Result,
    SeatSpec,
    Watch,
    decode_server_message,
    encode,
)
from ubao.server.__main__ import SETTINGS, Options, parse_args
from ubao.server.app import GameServer, ServerConfig, address
from ubao.server.bots import BotSettings
from ubao.server.room import Bounds
from ubao.server.store import default_path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


# -- 1. after a restart, no clock runs for a player not back yet, whoever moved before --------


# -- 2. reading old finished games by id leaves the lobby's recent results alone ---------------


# -- 3. a wrong --engine stops the server at its start ---------------------------------------


def server_exit(*flags: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(tmp_path / "db"), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("engine", "flags", "why"),
    [
        ("/nonexistent/engine", (), "cannot start /nonexistent/engine"),
        ("false", (), ""),
        ("cat", ("--engine-start-timeout", "0.5"), "no uciok within 0.5 s"),
    ],
)
def test_an_engine_that_does_not_work_exits_with_2_at_the_start(
    engine: str, flags: tuple[str, ...], why: str, tmp_path: Path
) -> None:
    if not engine.startswith("/"):
        found = shutil.which(engine)
        if found is None:
            pytest.skip(f"no {engine} here")
        engine = found
    result = server_exit("--engine", engine, *flags, tmp_path=tmp_path)
    assert result.returncode == 2, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith(f"ubao-server: --engine {engine} does not work: "), result.stderr
    assert why in last and "Traceback" not in result.stderr
    assert "listening on" not in result.stderr


async def test_the_engine_checked_at_the_start_plays_the_first_bot_turn() -> None:
    config = ServerConfig(port=0, bots=BotSettings(command=fake_engine()))
    server = GameServer(config)
    await server.check_engine()
    assert len(server.bots.engines) == 1
    checked = set(server.bots.engines)
    await server.start()
    try:
        async with Client.connected(server.port, "ada") as client:
            bot = SeatSpec.bot(1)
            ok = await client.ok(
                Create(id=0, game="kalah", options={"pits": 3, "seeds": 2}, seats=(bot, bot))
            )
            assert ok.game_id is not None
            await client.ok(Watch(id=0, game_id=ok.game_id))
            await asyncio.wait_for(client.event_of(Moved), TIMEOUT)
            assert set(server.bots.engines) == checked  # no second engine was started
    finally:
        await server.stop()


# -- 4. settings of 0 that would leave a server that cannot be used ---------------------------


def numeric(setting: Any) -> bool:
    default = setting.get(Options())
    return isinstance(default, int | float) and not isinstance(default, bool)


def takes_zero(flag: str) -> bool:
    try:
        parse_args([flag, "0"], {})
    except SystemExit:
        return False
    return True


@pytest.mark.parametrize(
    "flag",
    [
        "--max-message-size",
        "--message-rate",
        "--message-burst",
        "--handshake-timeout",
        "--grace",
        "--max-plies",
        "--max-games",
        "--connections-per-ip",
        "--ping-interval",
        "--ping-timeout",
        "--close-timeout",
        "--engine-start-timeout",
        "--engine-attempts",
    ],
)
def test_a_zero_that_would_leave_the_server_unusable_exits_with_2_naming_the_flag(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args([flag, "0"], {})
    assert exit_info.value.code == 2
    assert f"argument {flag}: must be" in capsys.readouterr().err
    env = "UBAO_" + flag[2:].replace("-", "_").upper()
    with pytest.raises(SystemExit):
        parse_args([], {env: "0"})
    assert f"environment variable {env}: must be" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--grace", "0.0004"], "--grace: must be a number ≥ 0.001, not '0.0004'"),
        (["--repetitions", "1"], "--repetitions: must be a whole number ≥ 2, not '1'"),
        (["--port", "70000"], "--port: must be a whole number from 0 to 65535, not '70000'"),
        (["--message-rate", "nan"], "--message-rate: must be a number > 0, not 'nan'"),
    ],
)
def test_the_bounds_of_numbers_are_checked_as_the_flags_are_read(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv, {})
    assert exit_info.value.code == 2 and words in capsys.readouterr().err


def test_the_docs_name_exactly_the_settings_that_take_zero() -> None:
    text = (DOCS / "server.md").read_text()
    start = text.index("Numbers must not be negative")
    paragraph = text[start : text.index("\n\n", start)]
    documented = set(re.findall(r"`(--[a-z-]+) 0`", paragraph))
    zero = {s.flag for s in SETTINGS if numeric(s) and takes_zero(s.flag)}
    assert documented == zero
    assert parse_args(["--max-bot-seats", "0"], {}).server.limits.max_bot_seats == 0


# -- 5. the listening URL of an IPv6 address ---------------------------------------------------


def test_an_ipv6_address_is_written_in_brackets() -> None:
    assert address("::1", 9618) == "[::1]:9618"
    assert address("::", 9618) == "[::]:9618"
    assert address("127.0.0.1", 9618) == "127.0.0.1:9618"
    assert address("localhost", 9618) == "localhost:9618"


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
async def test_a_server_on_ipv6_logs_a_url_a_client_can_use(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="ubao.server")
    async with GameServer(ServerConfig(host="::1", port=0)) as server:
        url = f"ws://[::1]:{server.port}/"
        assert f"listening on {url}" in caplog.text  # before: ws://::1:PORT/
        async with connect(url, compression=None) as ws:
            await ws.send(encode(Ping(id=1, t=0)))
            reply = decode_server_message(await asyncio.wait_for(ws.recv(), TIMEOUT))
            assert isinstance(reply, Ok) and reply.id == 1


# -- 6. an empty UBAO_DB, a relative XDG_DATA_HOME ---------------------------------------------


def test_an_empty_database_setting_is_named_and_exits_with_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv, environ, name in (([], {"UBAO_DB": ""}, "UBAO_DB"), (["--db", ""], {}, "--db")):
        with pytest.raises(SystemExit) as exit_info:
            parse_args(argv, environ)
        assert exit_info.value.code == 2
        error = capsys.readouterr().err
        assert name in error and "is empty" in error


def test_a_relative_xdg_data_home_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    fallback = Path.home() / ".local" / "share" / "ubao" / "ubao.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")
    assert default_path() == fallback
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert default_path() == fallback


# -- 7. ply_limit: the server's limit (no score), or Bao's own max_plies (with one) -------------


def played_out(h: Harness, **create: Any) -> Result:
    """A game of two people who play the first legal move until it ends (within 10 plies)."""
    game_id, south, s_token, north, n_token = started_game(h, **create)
    room = h.core.rooms[game_id]
    for _ in range(10):
        if room.status != "playing":
            break
        who, token = (south, s_token) if room.to_move == 0 else (north, n_token)
        move(who, game_id, token, room.ply, room.legal()[0])
    assert room.result is not None
    return room.result


def test_ply_limit_comes_from_the_server_without_a_score_or_from_bao_with_one() -> None:
    server_limit = played_out(Harness(small_limits(bounds=Bounds(max_plies=2))))
    assert (server_limit.reason, server_limit.winner, server_limit.score) == (
        "ply_limit",
        None,
        None,
    )
    bao_limit = played_out(Harness(), game="bao", options={"max_plies": 2})
    assert (bao_limit.reason, bao_limit.winner) == ("ply_limit", None)
    assert bao_limit.score is not None  # each side's seeds

    row = next(
        line
        for line in (DOCS / "protocol.md").read_text().splitlines()
        if line.startswith("| `ply_limit`")
    )
    assert "`--max-plies`" in row and "`max_plies`" in row and "score" in row


# -- QA round 8g: a cluster's malformed values are bad flags -------------------------------------


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--redis", "http://127.0.0.1:1/0", "--node-id", "n1"), "--redis: "),
        (("--redis", "redis://127.0.0.1:1/0", "--node-id", "bad id!"), "--node-id: "),
    ],
)
def test_a_malformed_redis_url_or_node_name_exits_with_2_naming_the_flag(
    flags: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    pytest.importorskip("redis")
    done = server_exit(*flags, tmp_path=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"ubao-server: {said}"), done.stderr
