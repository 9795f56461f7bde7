"""`ubao-engine tournament`: engines built in and external, records, crosstable, resuming,
time forfeits and engines that fail."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.engine import fails
from tests.support.server import FAKE_ENGINE
from ubao.client.export import replay_of
from ubao.engine.games import make_game
from ubao.engine.protocols import Limits, UbaoDialect
from ubao.engine.protocols.client import EngineClient
from ubao.engine.protocols.transports import ScriptedTransport
from ubao.engine.record import parse_record
from ubao.engine.tools import tournament
from ubao.engine.tools.cli import main
from ubao.engine.tools.entrants import Entrant, parse_entrant
from ubao.engine.tools.schedule import openings_needed, random_openings
from ubao.engine.tools.standings import GameResult, crosstable
from ubao.engine.tools.tournament import (
    Plan,
    TournamentStopped,
    move_limits,
    play_game,
    run_tournament,
)
from ubao.engine.tools.tournament_files import FolderError, record_path

SMALL = {"pits": 3, "seeds": 3}
GAME = make_game("kalah", SMALL)
D1, D2, D3 = (parse_entrant([f"name=d{depth}", f"depth={depth}"]) for depth in (1, 2, 3))


def plan_of(
    *entrants: Entrant, rounds: int = 1, games: int = 2, format: str = "round-robin", **more: bool
) -> Plan:
    openings = random_openings(GAME, 1, 2, openings_needed(rounds, games))
    return Plan(GAME, entrants, format, rounds, games, tuple(openings), **more)


def fake(name: str, *flags: str, limit: str = "depth=1") -> Entrant:
    """The scripted engine of tests/support/fake_engine.py: the first legal move, or a fault."""
    return parse_entrant(
        [f"name={name}", f"cmd={sys.executable} {FAKE_ENGINE} {' '.join(flags)}", limit]
    )


async def test_a_round_robin_records_every_game_as_ubao_replay_reads_it(tmp_path: Path) -> None:
    plan = plan_of(D1, D2, D3, rounds=2)
    results = await run_tournament(plan, tmp_path, concurrency=2)
    assert [result.number for result in results] == list(range(1, 13))
    for result in results:
        record = parse_record(record_path(tmp_path, result.number).read_text())
        replay = replay_of(record)  # `ubao replay`'s reader: the moves play from the start
        outcome = replay.game.outcome(replay.positions[-1])
        assert outcome is not None and (outcome.winner, outcome.score) == (
            result.winner,
            result.score,
        )
        assert (record.tags["South"], record.tags["North"]) == tuple(
            plan.names[i] for i in result.seats
        )
    table = (tmp_path / "crosstable.txt").read_text()
    assert table == crosstable(plan.names, results) + "\n"
    assert json.loads((tmp_path / "results.json").read_text())["games_played"] == 12


class Interrupted(Exception):
    """Ctrl-C, as far as the tournament can tell."""


async def test_an_interrupted_tournament_resumes_to_the_same_crosstable(tmp_path: Path) -> None:
    plan = plan_of(D1, D2, D3, rounds=2)
    whole = await run_tournament(plan, tmp_path / "whole")
    heard: list[int] = []

    def interrupt_after_five(result: GameResult, results: Sequence[GameResult]) -> None:
        heard.append(result.number)
        if len(heard) == 5:
            raise Interrupted

    with pytest.raises(Interrupted):
        await run_tournament(plan, tmp_path / "cut", 2, on_game=interrupt_after_five)
    # Every game finished is kept: the other worker's too, when it ended in the same step of the
    # event loop as the fifth, before the interruption reached it.
    kept = sorted(path.name for path in (tmp_path / "cut" / "games").iterdir())
    assert kept == [f"{number:04d}.txt" for number in sorted(heard)] and len(heard) in (5, 6)
    again: list[int] = []
    rest = await run_tournament(
        plan, tmp_path / "cut", on_game=lambda result, _: again.append(result.number)
    )
    assert sorted(again + heard) == list(range(1, 13))  # the finished games are not replayed
    assert rest == whole
    assert (tmp_path / "cut" / "crosstable.txt").read_text() == (
        tmp_path / "whole" / "crosstable.txt"
    ).read_text()
    with pytest.raises(FolderError, match=r"other settings \(games, openings\)"):
        await run_tournament(plan_of(D1, D2, D3, rounds=2, games=4), tmp_path / "cut")


async def test_an_external_engine_plays_through_the_library() -> None:
    plan = plan_of(D3, fake("first-move"), format="gauntlet", rounds=2)
    results = await run_tournament(plan)
    assert len(results) == 4 and {result.reason for result in results} <= {"normal", "no_moves"}
    assert all(1 in result.seats for result in results)


@pytest.mark.timeout(120)
async def test_an_engine_past_its_clock_loses_on_time_and_the_tournament_goes_on(
    tmp_path: Path,
) -> None:
    slow = fake("slow", "--delay", "0.4", limit="tc=0.2")
    timed = parse_entrant(["name=timed", "tc=20+0.1"])
    results = await run_tournament(plan_of(timed, slow), tmp_path)
    assert [(result.reason, result.points(1)) for result in results] == [("timeout", 0.0)] * 2
    record = parse_record(record_path(tmp_path, 1).read_text())
    assert record.tags["Reason"] == "timeout" and record.tags["NorthClock"] == "0.2+0"
    assert record.tags["SouthClock"] == "20+0.1" and "Failure" not in record.tags


@pytest.mark.timeout(120)
async def test_a_hung_engine_loses_on_time_and_stops_the_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tournament, "STOP_GRACE_SECONDS", 0.3)
    with pytest.raises(TournamentStopped, match=r"nor within 0\.3 s of stop"):
        await run_tournament(plan_of(D1, fake("hung", "--mode", "hang", limit="tc=0.2")), tmp_path)
    record = parse_record(record_path(tmp_path, 1).read_text())
    assert record.tags["Reason"] == "timeout" and "nor within" in record.tags["Failure"]


@pytest.mark.timeout(120)
async def test_a_crashing_engine_stops_the_tournament_or_is_restarted(tmp_path: Path) -> None:
    crashing = fake("crashing", "--mode", "crash")
    with pytest.raises(TournamentStopped, match=r"'crashing': engine exited \(code 3\)"):
        await run_tournament(plan_of(D1, crashing), tmp_path / "stop")
    record = parse_record(record_path(tmp_path / "stop", 1).read_text())
    assert record.tags["Reason"] == "engine_failure" and record.result == "1-0"
    # Stopped there, it goes on with recover: the crashed game is kept, the others played.
    going_on = await run_tournament(plan_of(D1, crashing, recover=True), tmp_path / "stop")
    assert [result.reason for result in going_on] == ["engine_failure"] * 2
    # With recover, it loses the game it crashed in; the engine started again plays on.
    once = fake("once", "--mode", "crash", "--state", str(tmp_path / "crashed"))
    results = await run_tournament(plan_of(D1, once, rounds=2, recover=True))
    assert results[0].reason == "engine_failure"
    assert {result.reason for result in results[1:]} <= {"normal", "no_moves"}


@pytest.mark.timeout(120)
async def test_an_illegal_move_loses_the_game(tmp_path: Path) -> None:
    results = await run_tournament(plan_of(D1, fake("illegal", "--mode", "illegal"), recover=True))
    assert [(result.reason, result.points(0)) for result in results] == [
        ("engine_failure", 1.0)
    ] * 2


def tournament_command(folder: Path, *more: str) -> list[str]:
    return [
        "tournament", "kalah", "--options", json.dumps(SMALL), "--engine", "name=a", "depth=1",
        "--engine", "depth=2,eval=mobility", "--engine", "name=c", "depth=3", "--out",
        str(folder), "--json", *more,
    ]  # fmt: skip


def test_the_command_prints_the_tables_and_resumes_nothing_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(tournament_command(tmp_path, "--format", "gauntlet", "--concurrency", "2"))
    first = json.loads(capsys.readouterr().out)
    assert first["games_played"] == first["games_planned"] == 4
    assert {line["name"] for line in first["standings"]} == {"a", "negamax:mobility:d2", "c"}
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "crosstable.txt",
        "games",
        "results.json",
        "tournament.json",
    ]
    main(tournament_command(tmp_path, "--format", "gauntlet"))  # done: read back, not replayed
    assert json.loads(capsys.readouterr().out)["games"] == first["games"]
    line = fails(tournament_command(tmp_path, "--format", "round-robin"), capsys)
    assert "other settings (format)" in line, line


def test_openings_come_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# Kalah(3,3)\n1 3\n3\n")
    main(tournament_command(tmp_path / "out", "--openings", str(openings), "--games", "6"))
    data = json.loads(capsys.readouterr().out)
    assert data["games_played"] == 18  # 3 openings a pairing from 2 lines: the first again
    first = parse_record(record_path(tmp_path / "out", 1).read_text())
    second = parse_record(record_path(tmp_path / "out", 3).read_text())
    assert first.moves[:2] == ("1", "3") and second.moves[0] == "3"
    assert first.tags["Opening"] == "2" and second.tags["Opening"] == "1"
    third = parse_record(record_path(tmp_path / "out", 5).read_text())
    assert third.moves[:2] == ("1", "3")
    openings.write_text("1 9\n")
    line = fails(tournament_command(tmp_path / "bad", "--openings", str(openings)), capsys)
    assert "openings line 1, move 2 (9)" in line, line


def test_two_engines_of_one_name_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "kalah", "--engine", "depth=1", "--engine", "depth=1"]
    assert "give each a name=" in fails(argv, capsys)
    argv = [
        "tournament",
        "kalah",
        "--engine",
        "depth=1",
        "--engine",
        "cmd=x",
        "proto=uci",
        "depth=1",
    ]
    assert "proto=uci: the dialects are" in fails(argv, capsys)


def test_only_an_engine_on_a_clock_is_given_the_clocks() -> None:
    clocked = parse_entrant(["name=c", "tc=10+0.5", "depth=9"])
    assert move_limits((D3, clocked), [None, 9500.4], 1) == Limits(
        depth=9, clocks=(None, 9500), increments=(0, 500)
    )
    assert move_limits((D3, clocked), [None, 9500.4], 0) == Limits(depth=3, increments=(0, 500))
    timed = parse_entrant(["name=t", "time=49.6"])
    assert move_limits((timed, D3), [None, None], 0) == Limits(time_ms=50)


async def test_an_engine_on_a_clock_is_asked_with_its_clock_and_increment() -> None:
    """The lines a game sends, word for word, to a scripted engine of the ubao dialect: Kalah(1,1)
    ends after South's one move."""
    tiny = make_game("kalah", {"pits": 1, "seeds": 1})
    options = json.dumps(dict(tiny.options), separators=(",", ":"))
    south, north = ScriptedTransport(), ScriptedTransport()
    for transport in (south, north):
        transport.expect("uci", ["id name scripted", "uciok"])
        transport.expect("ucinewgame")
        transport.expect("isready", ["readyok"])
    south.expect(f"position kalah {options} kalah(1,1) S 1/1 0,0")
    south.expect("isready", ["readyok"])
    south.expect("go wtime 10000 winc 500 binc 0", ["info depth 1 score 0 pv 1", "bestmove 1"])
    clients = [await EngineClient.start(t, UbaoDialect(), 5) for t in (south, north)]
    clocked = parse_entrant(["name=clocked", "cmd=scripted", "tc=10+0.5"])
    plan = Plan(tiny, (clocked, D1), "round-robin", 1, 2, ((),))
    played = await play_game(plan, plan.schedule()[0], clients)
    assert played.moves == ("1",) and played.result.reason == "normal"
    assert played.result.score == (1, 1) and played.failure is None
    south.assert_done()
    north.assert_done()
