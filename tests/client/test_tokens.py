"""Seat tokens on disk: kept per server, game and player name, private, and never a reason to
crash."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ubao.client.tokens import SeatToken, TokenStore, default_path


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
