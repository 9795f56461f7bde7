"""A tournament's output folder: its settings claimed once, records written whole and read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from ubao.client.export import replay_of, result_of, seat_of
from ubao.engine.games import make_game
from ubao.engine.record import parse_record
from ubao.engine.tools.entrants import parse_entrant
from ubao.engine.tools.schedule import schedule
from ubao.engine.tools.standings import GameResult
from ubao.engine.tools.tournament_files import (
    FolderError,
    claim,
    finished_games,
    record_of,
    record_path,
    save_game,
)

SMALL = {"pits": 3, "seeds": 3}
ENTRANTS = (
    parse_entrant(["name=deep", "depth=4,eval=mobility"]),
    parse_entrant(["name=edax", "cmd=./edax -q", "proto=nboard", "tc=10+0.1"]),
)


def test_a_folder_keeps_its_settings_and_refuses_a_changed_command(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    claim(folder, {"rounds": 1, "games": 2})
    claim(folder, {"rounds": 1, "games": 2})  # the same command: resumed
    with pytest.raises(FolderError, match=r"other settings \(games\)"):
        claim(folder, {"rounds": 1, "games": 4})
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(FolderError, match="not empty"):
        claim(tmp_path / "busy", {"rounds": 1})


def test_a_game_record_reads_back_and_replays(tmp_path: Path) -> None:
    game = make_game("kalah", SMALL)
    planned = schedule(2, "round-robin", 1, 2)
    position, moves = game.start(), ["1", "3"]
    for text in moves:
        position = game.play_text(position, text)
    while (outcome := game.outcome(position)) is None:
        move = game.legal_moves(position)[0]
        moves.append(game.format_move(position, move))
        position = game.play(position, move)
    result = GameResult(
        2, planned[1].seats, outcome.winner, outcome.reason, outcome.score, len(moves)
    )
    claim(tmp_path, {"x": 1})
    save_game(tmp_path, record_of("kalah", SMALL, planned[1], ENTRANTS, moves, result, 2, None), 2)
    assert finished_games(tmp_path, "kalah", planned, ENTRANTS) == {2: result}
    # `ubao replay`'s reader: the record parses, its moves replay, its tags say who played.
    record = parse_record(record_path(tmp_path, 2).read_text())
    replay = replay_of(record)
    assert replay.game.outcome(replay.positions[-1]) == outcome
    assert seat_of(record, "South").name == "edax" and seat_of(record, "North").depth == 4
    assert record.tags["SouthClock"] == "10+0.1" and record.tags["NorthEval"] == "mobility"
    read = result_of(record)
    assert read is not None and (read.winner, read.score) == (outcome.winner, outcome.score)


def test_a_record_of_another_game_is_refused_naming_the_file(tmp_path: Path) -> None:
    game = make_game("kalah", SMALL)
    planned = schedule(2, "round-robin", 1, 2)
    result = GameResult(1, (1, 0), None, "timeout", None, 0)
    claim(tmp_path, {"x": 1})
    swapped = ENTRANTS[::-1]
    save_game(tmp_path, record_of("kalah", SMALL, planned[0], swapped, [], result, 0, "late"), 1)
    with pytest.raises(
        FolderError,
        match=r"0001\.txt: it is edax against deep at kalah, not deep against edax; delete",
    ):
        finished_games(tmp_path, "kalah", planned, ENTRANTS)
    record_path(tmp_path, 1).write_text("not a record")
    with pytest.raises(FolderError, match=r"0001\.txt"):
        finished_games(tmp_path, game.name, planned, ENTRANTS)
