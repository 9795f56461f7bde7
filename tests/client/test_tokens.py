"""Seat tokens on disk: kept per server, game and player name, private, and never a reason to
crash."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

import pytest

from tests.support.client import game_server, kalah_create, screen, until, url_of
from ubao.client.tokens import SeatToken, TokenStore, default_path, server_key
from ubao.protocol import SeatSpec


def test_a_token_put_is_found_again_by_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    TokenStore(path).put("ws://a/", "g1", "ann", SeatToken(1, "secret"))
    assert TokenStore(path).get("ws://a/", "g1", "ann") == SeatToken(1, "secret")


def test_tokens_are_kept_per_server_and_game(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.put("ws://a/", "g1", "ann", SeatToken(0, "t-a"))
    store.put("ws://b/", "g1", "ann", SeatToken(1, "t-b"))
    assert store.get("ws://a/", "g1", "ann") == SeatToken(0, "t-a")
    assert store.get("ws://b/", "g1", "ann") == SeatToken(1, "t-b")
    assert store.get("ws://a/", "g2", "ann") is None


def test_two_names_in_one_file_keep_their_own_seats_in_one_game(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.put("ws://a/", "g1", "alice", SeatToken(0, "t-alice"))
    store.put("ws://a/", "g1", "bob", SeatToken(1, "t-bob"))
    assert store.get("ws://a/", "g1", "alice") == SeatToken(0, "t-alice")
    assert store.get("ws://a/", "g1", "bob") == SeatToken(1, "t-bob")
    assert store.get("ws://a/", "g1", "carol") is None
    store.remove("ws://a/", "g1", "alice")
    assert store.get("ws://a/", "g1", "alice") is None
    assert store.get("ws://a/", "g1", "bob") == SeatToken(1, "t-bob")


def test_removing_a_token_forgets_only_that_game(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.put("ws://a/", "g1", "ann", SeatToken(0, "t1"))
    store.put("ws://a/", "g2", "ann", SeatToken(0, "t2"))
    store.remove("ws://a/", "g1", "ann")
    store.remove("ws://a/", "missing", "ann")
    assert store.get("ws://a/", "g1", "ann") is None
    assert store.get("ws://a/", "g2", "ann") == SeatToken(0, "t2")
    assert '"g1"' not in (tmp_path / "tokens.json").read_text()


def test_the_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "tokens.json"
    TokenStore(path).put("ws://a/", "g1", "ann", SeatToken(0, "t"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[1, 2]",
        '{"ws://a/": {"g1": {"ann": {"seat": 5}}}}',
        '{"ws://a/": {"g1": {"seat": 0, "token": "older file, no name"}}}',
        '{"ws://a/": []}',
    ],
)
def test_a_damaged_file_reads_as_no_token(tmp_path: Path, content: str) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content)
    store = TokenStore(path)
    assert store.get("ws://a/", "g1", "ann") is None
    store.put("ws://a/", "g1", "ann", SeatToken(0, "t"))
    assert store.get("ws://a/", "g1", "ann") == SeatToken(0, "t")


def test_the_default_path_follows_xdg_data_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "ubao" / "tokens.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_path() == tmp_path / ".local" / "share" / "ubao" / "tokens.json"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")  # the XDG specification: ignored
    assert default_path() == tmp_path / ".local" / "share" / "ubao" / "tokens.json"


def test_a_seat_is_found_whatever_the_spelling_of_its_server_url(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    # As an older client wrote it: under the URL exactly as given.
    path.write_text('{"ws://127.0.0.1:9700/": {"g1": {"ann": {"seat": 1, "token": "t"}}}}')
    store = TokenStore(path)
    for spelling in ("ws://127.0.0.1:9700", "WS://127.0.0.1:9700/", "ws://127.0.0.1:9700/"):
        assert store.get(spelling, "g1", "ann") == SeatToken(1, "t"), spelling
    store.put("ws://Example.org:80", "g2", "ann", SeatToken(0, "u"))
    assert store.get("ws://example.org/", "g2", "ann") == SeatToken(0, "u")
    assert server_key("ws://a:8765,wss://B:443/x") == "ws://a:8765/,wss://b/x"
    store.remove("ws://127.0.0.1:9700", "g1", "ann")
    assert store.get("ws://127.0.0.1:9700/", "g1", "ann") is None


async def test_the_token_of_a_game_that_ended_while_away_is_deleted(tmp_path: Path) -> None:
    here, away = tmp_path / "here.json", tmp_path / "away.json"
    async with game_server() as server:
        url = url_of(server)
        create = kalah_create(SeatSpec.open(), SeatSpec.bot(depth=1))
        async with screen(url, "alice", here, create=create) as first:
            await until(lambda: first.live.state.started and first.live.held is not None)
            game_id = first.live.game_id
            assert game_id is not None and first.live.held is not None
            # The same seat's token, as a terminal that was closed before the end holds it.
            TokenStore(away).put(url, game_id, "alice", first.live.held)
            first.live.app.enter("resign")
            first.live.app.enter("y")
            await until(lambda: first.live.state.over, "the resignation")
        assert TokenStore(here).get(url, game_id, "alice") is None
        async with screen(url, "alice", away, game_id=game_id) as second:
            await until(lambda: second.live.state.over, "the finished game shown")
        assert TokenStore(away).get(url, game_id, "alice") is None


def test_clients_of_one_home_storing_tokens_at_once_keep_every_token(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    writers, each = 12, 5
    start = threading.Barrier(writers)

    def write(index: int) -> None:
        store = TokenStore(path)  # a client of its own: its own object, its own descriptors
        start.wait()
        for game in range(each):
            store.put("ws://a/", f"g{index}-{game}", f"racer{index}", SeatToken(0, f"t{index}"))
        store.remove("ws://a/", f"g{index}-0", f"racer{index}")

    threads = [threading.Thread(target=write, args=(index,)) for index in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    store = TokenStore(path)
    for index in range(writers):
        held = store.games("ws://a/", f"racer{index}")
        assert sorted(held) == [f"g{index}-{game}" for game in range(1, each)], (index, held)
