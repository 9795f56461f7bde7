"""`ubao account` and the keys file: a claimed name's key is kept per server and name in a
0600 file, said in every hello of play, watch and bot (or taken from `--key-file`), replaced by
`rotate`; a bot client with an account's key plays under the account's name, as a bot."""

from __future__ import annotations

import asyncio
import json
import stat
import sys
from pathlib import Path

import pytest

from tests.support.client import game_server, kalah_create, url_of
from tests.support.wire import ROOT
from ubao.client.bot import BotGame, EngineSettings
from ubao.client.connection import ServerError, fetch_snapshot, hello_once
from ubao.client.keys import AccountKey, KeyStore, read_key_file
from ubao.client.state import shown_name
from ubao.client.tokens import TokenStore
from ubao.protocol import ErrorCode, SeatInfo, SeatSpec

pytestmark = pytest.mark.timeout(120)


async def ubao(data: Path, *argv: str) -> tuple[int, str]:
    """`ubao ARGV` in a process of its own with its files under `data`: status, output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ubao.client",
        *argv,
        cwd=ROOT,
        env={"XDG_DATA_HOME": str(data), "PATH": "/usr/bin:/bin", "HOME": str(data)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


def private(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_create_keeps_the_key_per_server_and_name_in_a_private_file(tmp_path: Path) -> None:
    async with game_server() as first, game_server() as second:
        one, two = url_of(first), url_of(second)
        assert (await ubao(tmp_path, "account", "create", "alice", "--server", one))[0] == 0
        key_file = tmp_path / "bob.key"
        created = await ubao(
            tmp_path,
            "account",
            "create",
            "--bot",
            "Bob",
            "--server",
            two,
            "--key-file",
            str(key_file),
        )
        assert created[0] == 0, created
        keys = tmp_path / "ubao" / "keys.json"
        assert f"kept in {keys} and in {key_file}" in created[1]  # says where both copies are
        assert private(keys) and private(key_file)
        store = KeyStore(keys)
        alice = store.get(one, "ALICE")  # found by the name's canonical form
        assert alice is not None and alice.name == "alice" and not alice.bot
        assert store.get(two, "alice") is None and store.get(one, "bob") is None
        bob = store.get(two, "bob")
        assert bob == AccountKey("Bob", read_key_file(key_file), True)
        assert json.loads(keys.read_text())  # one JSON file for every server
        assert (await hello_once(one, "Alice", "human", alice.key)).account
        # Taken already: on the same server a look-alike cannot be claimed.
        status, out = await ubao(tmp_path, "account", "create", "аlice", "--server", one)
        assert status == 1 and "name_claimed" in out
        status, out = await ubao(tmp_path, "account", "show", "--json", "--server", one)
        assert status == 0 and json.loads(out)[0] | {"taken": True} == json.loads(out)[0]


async def test_rotate_replaces_the_key_kept_and_the_old_one_opens_nothing(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        key_file = tmp_path / "alice.key"
        await ubao(tmp_path, "account", "create", "alice", "--server", url)
        store = KeyStore(tmp_path / "ubao" / "keys.json")
        old = store.get(url, "alice")
        assert old is not None
        rotated = await ubao(
            tmp_path, "account", "rotate", "alice", "--server", url, "--key-file", str(key_file)
        )
        assert rotated[0] == 0, rotated
        new = store.get(url, "alice")
        assert new is not None and new.key != old.key and read_key_file(key_file) == new.key
        assert private(key_file)
        with pytest.raises(ServerError) as refused:
            await hello_once(url, "alice", "human", old.key)
        assert refused.value.code == ErrorCode.BAD_KEY
        assert (await hello_once(url, "alice", "human", new.key)).account
        # `ubao games` says the kept key: as the guest it would be it is refused.
        assert (await ubao(tmp_path, "games", "--name", "Alice", "--server", url))[0] == 0
        status, out = await ubao(tmp_path, "games", "--name", "alice", "--server", url,
                                 "--key-file", str(tmp_path / "missing"))  # fmt: skip
        assert status == 2 and "--key-file" in out


async def test_a_bot_client_with_an_accounts_key_plays_under_its_name_as_a_bot(
    tmp_path: Path,
) -> None:
    async with game_server() as server:
        url = url_of(server)
        await ubao(tmp_path, "account", "create", "--bot", "robo", "--server", url)
        kept = KeyStore(tmp_path / "ubao" / "keys.json").get(url, "robo")
        assert kept is not None
        bot = BotGame(
            url,
            "robo",
            EngineSettings(depth=2),
            create=kalah_create(SeatSpec.open(), SeatSpec.bot(1)),
            seat=0,
            tokens=TokenStore(tmp_path / "t.json"),
            key=kept.key,
        )
        assert await asyncio.wait_for(bot.run(), 60) is not None and bot.error is None
        assert bot.game_id is not None
        seat = (await fetch_snapshot(url, "check", bot.game_id)).seats[0]
        assert (seat.name, seat.account, seat.client) == ("robo", True, "bot")


def test_guests_are_shown_as_guests() -> None:
    guest = SeatInfo("open", "alice", True)
    assert shown_name(guest) == "alice (guest)"
    assert shown_name(SeatInfo("open", "alice", True, account=True)) == "alice"
    assert shown_name(SeatInfo("bot", "ubao-engine (depth 3)", True, depth=3)) == (
        "ubao-engine (depth 3)"
    )
    assert shown_name(SeatInfo("open", None, False)) is None
