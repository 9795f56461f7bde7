"""`ubao-server`'s settings: one flag and one environment variable for every limit, a flag beats
its variable, a bad value is a clear error, and docs/server.md explains each."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
import socket
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.support.server import TIMEOUT
from tests.support.wire import server_exit
from ubao.protocol import Ok, Ping, decode_server_message, encode
from ubao.server.__main__ import SERVER_SETTINGS, Options, parse_args
from ubao.server.app import GameServer, ServerConfig, address
from ubao.server.stores.sqlite import Store, default_db_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def leaves(kind: type[Any], prefix: str = "") -> set[str]:
    """The dotted paths of every field of a dataclass that is not itself a dataclass."""
    paths = set()
    for field in dataclasses.fields(kind):
        path = prefix + field.name
        default = field.default_factory() if callable(field.default_factory) else field.default
        if dataclasses.is_dataclass(default):
            paths |= leaves(type(default), path + ".")
        else:
            paths.add(path)
    return paths


DERIVED = {"server.limits.engine_bots"}
"""Fields no flag sets: the server fills them in from others (the names of `--engine-bot`'s
engines, which the core checks seat specs against)."""


def test_every_limit_has_a_flag_and_an_environment_variable() -> None:
    # Fails when a field is added to ServerConfig, Limits, Bounds or BotSettings without a flag.
    assert {setting.path for setting in SERVER_SETTINGS} == leaves(Options) - DERIVED
    assert len({setting.flag for setting in SERVER_SETTINGS}) == len(SERVER_SETTINGS)
    for setting in SERVER_SETTINGS:
        assert setting.env == "UBAO_" + setting.flag[2:].replace("-", "_").upper()


def test_without_flags_or_variables_every_default_is_the_dataclasses() -> None:
    assert parse_args([], {}) == Options()
    assert parse_args([], {}).server.db == default_db_path()


def test_a_flag_beats_its_variable_which_beats_the_default() -> None:
    environ = {"UBAO_MAX_GAMES": "5", "UBAO_GRACE": "1.5", "UBAO_ENGINE": "nice -n 5 my-engine"}
    options = parse_args([], environ)
    assert options.server.limits.max_games == 5
    assert options.server.limits.grace_ms == 1500
    assert options.server.bots.command == ("nice", "-n", "5", "my-engine")
    assert options.server.limits.connections_per_ip == 32  # untouched
    options = parse_args(["--max-games", "7", "--max-plies", "80"], environ)
    assert options.server.limits.max_games == 7
    assert options.server.limits.bounds.max_plies == 80
    assert options.server.limits.grace_ms == 1500


def test_the_original_flags_keep_working() -> None:
    argv = ["--host", "0.0.0.0", "--port", "0", "--db", ":memory:", "--log-level", "debug"]
    options = parse_args([*argv, "--grace", "0.25", "--max-plies", "40"], {})
    assert (options.server.host, options.server.port, options.server.db) == (
        "0.0.0.0",
        0,
        ":memory:",
    )
    assert options.log_level == "debug"
    assert options.server.limits.grace_ms == 250
    assert options.server.limits.bounds.max_plies == 40


@pytest.mark.parametrize(
    ("argv", "environ", "words"),
    [
        ([], {"UBAO_MAX_GAMES": "lots"}, "UBAO_MAX_GAMES: must be a whole number, not 'lots'"),
        ([], {"UBAO_MESSAGE_RATE": "-1"}, "UBAO_MESSAGE_RATE: must be a number > 0, not '-1'"),
        ([], {"UBAO_LOG_LEVEL": "loud"}, "UBAO_LOG_LEVEL: must be one of debug, info"),
        ([], {"UBAO_ENGINE": " "}, "UBAO_ENGINE: must name a command"),
        (["--max-games", "1.5"], {}, "--max-games: must be a whole number, not '1.5'"),
        (["--grace", "nan"], {}, "--grace: must be a number ≥ 0.001, not 'nan'"),
        (["--engines", "0"], {}, "--engines: must be a whole number ≥ 1, not '0'"),
    ],
)
def test_a_bad_value_exits_with_2_and_names_the_flag_or_variable(
    argv: list[str], environ: dict[str, str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_args(argv, environ)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("usage: ubao-server") and words in error


def test_a_flag_overrides_a_bad_variable() -> None:
    assert parse_args(["--max-games", "3"], {"UBAO_MAX_GAMES": "lots"}).server.limits.max_games == 3


def test_the_docs_explain_every_setting() -> None:
    rows = [line for line in DOCS.read_text().splitlines() if line.startswith("| `--")]
    documented = {row.split("`")[1]: row for row in rows}
    assert set(documented) == {setting.flag for setting in SERVER_SETTINGS}
    for setting in SERVER_SETTINGS:
        assert f"`{setting.env}`" in documented[setting.flag]


def test_a_cluster_without_the_redis_client_exits_with_2_and_says_what_to_install() -> None:
    # The server must run without the optional `cluster` extra; only --redis needs it.
    code = (
        "import sys; sys.modules['redis'] = None\n"
        "from ubao.server.__main__ import main\n"
        "main(['--redis', 'redis://127.0.0.1:1/0'])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2
    assert "pip install 'ubao[cluster]'" in result.stderr


def test_the_cluster_settings_come_from_flags_or_the_environment() -> None:
    options = parse_args(["--node-id", "a"], {"UBAO_REDIS": "redis://r:6379/0"})
    assert (options.server.redis, options.server.node_id) == ("redis://r:6379/0", "a")
    assert parse_args([], {}).server.redis == ""  # one node, SQLite, unless asked


def test_the_server_process_hands_the_interpreter_lock_over_often() -> None:
    """`ubao-server` shortens the switch interval, so that the store's writer, whose commit
    every reply waits for, does not wait 5 ms for the lock after each statement."""
    check = (
        "import sys; from ubao.server.__main__ import SWITCH_INTERVAL_S, prepare; "
        "before = sys.getswitchinterval(); prepare(['--db', ':memory:']); "
        "print(before, sys.getswitchinterval(), SWITCH_INTERVAL_S)"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, timeout=60
    )
    before, after, wanted = map(float, result.stdout.split())
    assert after == wanted < before


def unusable_databases(tmp_path: Path) -> list[Path]:
    """A folder, a path under a file, a file that is not SQLite, and a database of a newer
    server's schema."""
    not_sqlite = tmp_path / "notes.sqlite3"
    not_sqlite.write_text("not a database")
    newer = tmp_path / "newer.sqlite3"
    with contextlib.closing(sqlite3.connect(newer)) as database:
        database.execute("PRAGMA user_version = 99")
    return [tmp_path, not_sqlite / "x.sqlite3", not_sqlite, newer]


def test_a_database_that_cannot_be_used_exits_with_2_in_one_line(tmp_path: Path) -> None:
    for path in unusable_databases(tmp_path):
        result = subprocess.run(
            [sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"ubao-server: cannot use --db {path}: "), result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_every_folder_made_for_the_database_is_the_users_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only the last: `mkdir(parents=True)` gives the others the umask's mode. Only the
    default database's folders are all made (issue 36, 9)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a" / "b"))
    old = os.umask(0)
    try:
        Store(default_db_path()).close()
    finally:
        os.umask(old)
    for folder in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "ubao"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_mistyped_db_makes_no_folder_tree_and_the_log_names_the_database(
    tmp_path: Path,
) -> None:
    """Issue 36, 9: `--db /tmp/typo/x/games.db` made the whole tree and served an empty
    database, and the log never said which file it used."""
    typo = tmp_path / "typo" / "x" / "games.sqlite3"
    result = subprocess.run(
        [sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(typo)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert f"no folder {tmp_path / 'typo'}" in result.stderr
    assert not (tmp_path / "typo").exists()
    own = tmp_path / "own" / "games.sqlite3"  # its own folder is made
    server = subprocess.Popen(
        [sys.executable, "-m", "ubao.server", "--port", "0", "--db", str(own)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    try:
        first = server.stderr.readline()
    finally:
        server.terminate()
        server.communicate(timeout=60)
    assert first.endswith(f"INFO ubao.server: database: {own}\n"), first


ROOT = Path(__file__).resolve().parents[2]


DOCS_FOLDER = ROOT / "docs"


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
    text = (DOCS_FOLDER / "server.md").read_text()
    start = text.index("Numbers must not be negative")
    paragraph = text[start : text.index("\n\n", start)]
    documented = set(re.findall(r"`(--[a-z-]+) 0`", paragraph))
    zero = {s.flag for s in SERVER_SETTINGS if numeric(s) and takes_zero(s.flag)}
    assert documented == zero
    assert parse_args(["--max-bot-seats", "0"], {}).server.limits.max_bot_seats == 0


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
    assert default_db_path() == fallback
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert default_db_path() == fallback


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
