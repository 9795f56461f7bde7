"""`ubao-engine review RECORD`: a recorded game reviewed, as text and as JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.support.engine import fails, run
from ubao.engine.record import Record, format_record
from ubao.engine.review import review_from_json

RECORD = Record(
    {"Game": "kalah", "Options": '{"pits":4,"seeds":3}', "South": "alice", "North": "bob"},
    ("1", "4", "4", "2", "3", "1", "4", "1", "4", "1", "2", "3", "3", "3", "4"),
)


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.txt"
    path.write_text(format_record(RECORD))
    return path


def test_the_summary_gives_each_players_accuracy_and_every_move_its_mark(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["review", str(record_file), "--time-ms", "50", "--exact-within", "99"]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("kalah review: 50 ms a position, exact within 99 plies")
    assert any(line.startswith("South (alice): accuracy ") for line in lines)
    assert any(line.startswith("North (bob): accuracy ") for line in lines)
    assert "  1. South  1??" in out  # the first move throws 16 seeds away
    assert "loses 16 seeds; best 2: 2 " in out
    assert lines[-1].startswith("15 plies, 15 exact")


def test_json_reads_back_as_the_review_and_stdin_is_a_record_too(
    record_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(record_file.read_text()))
    argv = [
        "review",
        "-",
        "--json",
        "--exact-within",
        "3",
        "--nodes",
        "5000",
        "--backend",
        "python",
    ]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    review = review_from_json(json.loads(out))
    assert review.budget == {
        "time_ms": 1000,
        "exact_within": 3,
        "nodes": 5000,
        "solve_ms": 0,
        "confirm_ms": 0,
        "endgame_seeds": 0,
    }
    assert [ply.move for ply in review.plies] == list(RECORD.moves)
    assert [ply.exact for ply in review.plies][-3:] == [True] * 3


def test_a_bad_record_or_move_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "cannot read" in fails(["review", str(tmp_path / "missing.txt")], capsys)
    broken = tmp_path / "broken.txt"
    broken.write_text('[Game "kalah"]\n\n1. 3 4\n')
    assert "must end with a result" in fails(["review", str(broken)], capsys)
    illegal = tmp_path / "illegal.txt"
    illegal.write_text(format_record(Record({"Game": "kalah"}, ("3", "9"))))
    assert "ply 2 ('9')" in fails(["review", str(illegal)], capsys)
