"""`ubao tournament` against a real server: `new` with server bots and `--start` prints the
id, `show` the standings and crosstable as text and (`--json`) as the protocol's view,
`watch --json` one document a change until the end; `join` of a guest is refused; `ubao bot
--tournament` enters under its account and plays to the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.client.test_accounts import ubao
from tests.support.client import game_server, url_of
from ubao.client.tournament_text import tournament_text
from ubao.protocol import PairingLine, StandingLine, TournamentView

pytestmark = pytest.mark.timeout(180)


async def test_new_show_and_watch_a_round_robin_of_server_bots(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        status, out = await ubao(
            tmp_path, "tournament", "new", "depths", "--options", '{"pits": 3, "seeds": 3}',
            "--bot", "1", "--bot", "2", "--bot", "3", "--pace", "0.1", "--start", "--server", url,
        )  # fmt: skip
        assert status == 0, out
        tid = out.strip()
        status, out = await ubao(tmp_path, "tournament", "watch", tid, "--json", "--server", url)
        assert status == 0, out
        views = [json.loads(line) for line in out.splitlines()]
        assert views[-1]["status"] == "finished"  # then watch ends
        assert all(view["status"] == "running" for view in views[:-1])
        status, out = await ubao(tmp_path, "tournament", "show", tid, "--json", "--server", url)
        shown = json.loads(out)
        assert shown == views[-1]
        assert [len(row) for row in shown["crosstable"]] == [3, 3, 3]
        assert sum(float(line["points"]) for line in shown["standings"]) == 3
        status, out = await ubao(tmp_path, "tournament", "show", tid, "--server", url)
        assert "round-robin of kalah, finished, round 3 of 3" in out
        assert "crosstable" in out and "SB" in out.splitlines()[2]
        status, out = await ubao(tmp_path, "tournament", "list", "--server", url)
        assert out.split()[:8] == [
            "id",
            "name",
            "game",
            "format",
            "status",
            "round",
            "entrants",
            "leader",
        ]
        assert out.splitlines()[1].split()[:7] == [
            tid,
            "depths",
            "kalah",
            "round-robin",
            "finished",
            "3/3",
            "3",
        ]
        status, out = await ubao(tmp_path, "tournament", "join", tid, "--bot", "4", "--server", url)
        assert status != 0 and "no longer open" in out


async def test_a_bot_client_needs_an_account_to_enter(tmp_path: Path) -> None:
    async with game_server() as server:
        url = url_of(server)
        status, out = await ubao(tmp_path, "tournament", "new", "t", "--server", url)
        tid = out.strip()
        status, out = await ubao(tmp_path, "tournament", "join", tid, "--server", url)
        assert status != 0 and "account" in out
        status, out = await ubao(
            tmp_path, "bot", "--depth", "1", "--tournament", tid, "--server", url
        )
        assert status != 0 and "account" in out


def test_the_text_shows_the_tiebreak_of_the_format_first() -> None:
    line = StandingLine(1, 0, "1.5", 2, 1, 1, 0, 0, "0.75", "2", 1700)
    view = TournamentView(
        "t1", "cup", "kalah", "swiss", "running", "standard", False, 1, 3, ("ann", "bob"),
        ("account", "bot depth 2"), (line,), (PairingLine(1, 0, 1, "g1", "1-0"),),
        (("", "1"), ("0", "")),
    )  # fmt: skip
    text = tournament_text(view)
    header = text.splitlines()[2].split()
    assert header[6:8] == ["Buchholz", "SB"]
    assert "cup (t1): Swiss of kalah, running, round 1 of 3" in text
    assert "round 1: ann - bob  1-0  g1" in text


def test_the_crosstable_numbers_the_entrants_by_rank_as_the_standings_do() -> None:
    bob = StandingLine(1, 1, "1", 1, 1, 0, 0, 0, "0", "0", 1900)
    ann = StandingLine(2, 0, "0", 1, 0, 0, 1, 0, "0", "1", 1100)
    view = TournamentView(
        "t1", "cup", "kalah", "round_robin", "finished", "standard", False, 1, 1, ("ann", "bob"),
        ("account", "account"), (bob, ann), (PairingLine(1, 0, 1, "g1", "0-1"),),
        (("", "0"), ("1", "")),
    )  # fmt: skip
    lines = tournament_text(view).splitlines()
    assert [line.split()[:2] for line in lines[2:5]] == [
        ["#", "entrant"],
        ["1", "bob"],
        ["2", "ann"],
    ]
    cross = lines[lines.index(next(line for line in lines if "crosstable" in line)) :][1:3]
    assert [line.split() for line in cross] == [["1", "bob", "x", "1"], ["2", "ann", "0", "x"]]
