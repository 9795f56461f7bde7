"""`ubao-engine match`: engines against each other, colours alternating, W/D/L, margin and Elo."""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from pathlib import Path

import pytest

from tests.support.engine import fails
from tests.support.server import FAKE_ENGINE
from ubao.engine.games import make_game
from ubao.engine.protocols.session import MAX_HASH_MB
from ubao.engine.tools import entrants, tournament
from ubao.engine.tools.cli import main
from ubao.engine.tools.entrants import EngineSpec, parse_spec
from ubao.engine.tools.match import MatchReport, run_match
from ubao.engine.tools.schedule import OpeningError

SMALL = {"pits": 3, "seeds": 3}


def test_settings_are_parsed_and_anything_else_is_a_command() -> None:
    assert parse_spec("depth=6,eval=mobility,hash=4,exact") == EngineSpec(
        evaluation="mobility", depth=6, hash_mb=4, exact=True
    )
    assert parse_spec("time=250,algorithm=alphabeta") == EngineSpec("alphabeta", time_ms=250)
    assert parse_spec("python -m ubao.engine stdio") is None
    with pytest.raises(ValueError, match="depth=N or time=MS"):
        parse_spec("eval=mobility")
    with pytest.raises(ValueError, match="algorithm"):
        parse_spec("depth=3,algorithm=mcts")


def test_the_elo_follows_the_score_with_an_error_bar() -> None:
    report = MatchReport("a", "b", games=40, wins=25, draws=10, losses=5, margins=[1] * 40)
    elo, error = report.elo()
    assert elo is not None and math.isclose(elo, -400 * math.log10(1 / 0.75 - 1))
    assert error is not None and 50 < error < 200
    assert report.mean_margin == 1.0
    assert MatchReport("a", "b", games=2, wins=2, margins=[1, 1]).elo() == (None, None)
    assert MatchReport("a", "b", games=2, draws=2, margins=[0, 0]).elo() == (0, 0)


def test_a_match_alternates_sides_over_shared_openings() -> None:
    game = make_game("kalah", SMALL)
    report = run_match(game, EngineSpec(depth=6), EngineSpec(depth=1), games=6, seed=2)
    assert report.games == 6 == report.wins + report.draws + report.losses
    assert report.openings[0] == report.openings[1] and report.openings[2] == report.openings[3]
    # The same engine on both sides of one opening mirrors its results.
    mirror = run_match(game, EngineSpec(depth=3), EngineSpec(depth=3), games=4, seed=2)
    assert mirror.margins[0] == -mirror.margins[1] and mirror.margins[2] == -mirror.margins[3]


def test_the_match_command_prints_json_and_plays_an_external_engine() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(
            [
                "match",
                "kalah",
                "--options",
                json.dumps(SMALL),
                "--engine1",
                "depth=3",
                "--engine2",
                f"{sys.executable} -m ubao.engine stdio",
                "--games",
                "2",
                "--json",
            ]
        )
    data = json.loads(out.getvalue())
    assert data["games"] == 2 and data["engine1"] == "negamax:default:d3"
    assert data["margins"][0] == -data["margins"][1]  # the same engine, both sides
    assert {"wins", "draws", "losses", "mean_margin", "elo", "elo_error"} <= data.keys()


@pytest.mark.parametrize("protocol", ["nboard", "gtp"])
def test_the_second_engine_of_a_match_may_speak_nboard_or_gtp(protocol: str) -> None:
    out = io.StringIO()
    command = f"{sys.executable} -m ubao.engine {protocol}"
    with contextlib.redirect_stdout(out):
        main(
            [
                *("match", "othello", "--options", '{"size":6}', "--engine1", "depth=2"),
                *("--engine2", command, "--protocol2", protocol, "--games", "2", "--json"),
            ]
        )
    data = json.loads(out.getvalue())
    assert data["games"] == 2 and data["engine2"] == command
    assert data["wins"] + data["draws"] + data["losses"] == 2


def test_a_protocol_without_an_external_second_engine_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = ["match", "kalah", "--engine1", "depth=2", "--engine2", "depth=3"]
    line = fails([*words, "--protocol2", "gtp"], capsys)
    assert "--protocol2 is the protocol of an external --engine2 command" in line


def test_analyse_takes_the_table_memory_and_the_exact_mode() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["analyse", "kalah", "--depth", "5", "--hash", "1", "--exact", "--json"])
    data = json.loads(out.getvalue())
    assert data["exact"] is True and data["stats"]["depth"] == 5


MATCH = ["match", "kalah", "--engine1", "depth=1"]
"""A match command, its second engine to come."""


@pytest.mark.timeout(120)
def test_an_engine_silent_after_uci_ends_the_match_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An engine that never answers `uci` (a wrong program, a hung one) is given up on."""
    monkeypatch.setattr(tournament, "HANDSHAKE_SECONDS", 0.5)
    monkeypatch.setattr(tournament, "QUIT_SECONDS", 0.5)
    silent = f"{sys.executable} -c 'import time; time.sleep(60)'"
    line = fails([*MATCH, "--engine2", silent], capsys)
    assert "did not start: no answer to the handshake within 0.5 s" in line, line


@pytest.mark.timeout(120)
def test_a_match_hash_is_at_least_0_and_at_most_the_cap() -> None:
    spec = entrants.parse_spec("depth=2,hash=0")
    assert spec is not None and spec.hash_mb == 0
    for text in ("depth=2,hash=-1", f"depth=2,hash={MAX_HASH_MB + 1}"):
        with pytest.raises(ValueError, match=f"at least 0 .* at most {MAX_HASH_MB}"):
            entrants.parse_spec(text)


@pytest.mark.timeout(120)
def test_a_spec_with_an_unknown_setting_names_it() -> None:
    with pytest.raises(ValueError, match="unknown setting 'bogus'"):
        entrants.parse_spec("depth=3,bogus=1")
    spec = entrants.parse_spec("depth=3, eval=mobility, exact")
    assert spec is not None and (spec.depth, spec.evaluation, spec.exact) == (3, "mobility", True)
    assert entrants.parse_spec("python -m ubao.engine stdio") is None  # a command


SMALL_JSON = '{"pits":3,"seeds":2}'


TIMED_MATCH = ["match", "kalah", "--options", SMALL_JSON, "--games", "2", "--engine1", "time=50"]


ANSWERS_AT_STOP = """\
import json, sys
from ubao.engine.games import make_game
game = position = None
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print("uciok", flush=True)
    elif words[:1] == ["isready"]:
        print("readyok", flush=True)
    elif words[:1] == ["position"]:
        game = make_game(words[1], json.loads(words[2]))
        position = game.parse_position(" ".join(words[3:words.index("moves")])
                                       if "moves" in words else " ".join(words[3:]))
        if "moves" in words:
            for text in words[words.index("moves") + 1:]:
                position = game.play_text(position, text)
    elif words[:1] == ["go"]:
        print("info depth 1", flush=True)  # and then nothing until stop
    elif words[:1] == ["stop"]:
        move = game.legal_moves(position)[0]
        print("bestmove", game.format_move(position, move), flush=True)
    elif words[:1] == ["quit"]:
        break
"""
"""An engine that overruns every `movetime` but answers `stop` at once, as UCI asks."""


def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Margins short enough for a fast test; a silent engine stays silent however long."""
    monkeypatch.setattr(tournament, "MOVE_MARGIN_SECONDS", 0.5)
    monkeypatch.setattr(tournament, "STOP_GRACE_SECONDS", 0.5)
    monkeypatch.setattr(tournament, "QUIT_SECONDS", 5.0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", ["hang", "hang-info"])
def test_an_engine_silent_after_go_ends_a_timed_match_in_one_line(
    mode: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    short_waits(monkeypatch)
    engine = f"{sys.executable} {FAKE_ENGINE} --mode {mode}"
    line = fails([*TIMED_MATCH, "--engine2", engine], capsys)
    assert line.startswith("ubao-engine match: the engine "), line
    assert "did not answer within 0.55 s of its search (50 ms a move)" in line, line
    assert "nor within 0.5 s of stop" in line, line


@pytest.mark.timeout(120)
def test_an_engine_that_answers_only_stop_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    short_waits(monkeypatch)
    script = tmp_path / "late_engine.py"
    script.write_text(ANSWERS_AT_STOP)
    main([*TIMED_MATCH, "--engine2", f"{sys.executable} {script}", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2


@pytest.mark.timeout(120)
def test_an_even_score_is_elo_0_not_minus_0() -> None:
    report = MatchReport("a", "b", games=2, wins=1, losses=1, margins=[3, -3])
    elo = report.to_dict()["elo"]
    assert elo == 0.0 and math.copysign(1.0, elo) == 1.0
    assert '"elo": 0.0' in json.dumps(report.to_dict())
    tied = MatchReport("a", "b", games=4, wins=1, draws=2, losses=1)
    assert math.copysign(1.0, tied.elo()[0] or 0.0) == 1.0


@pytest.mark.timeout(120)
def test_a_match_whose_openings_all_end_the_game_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = make_game("kalah", {"pits": 3, "seeds": 2})
    with pytest.raises(OpeningError, match="ask for fewer plies"):
        run_match(game, EngineSpec(depth=1), EngineSpec(depth=1), games=2, random_plies=500)
    argv = ["match", "kalah", "--engine1", "depth=1", "--engine2", "depth=1", "--games", "2"]
    line = fails([*argv, "--random-plies", "500"], capsys)
    assert line.startswith("ubao-engine match: --random-plies 500: 100 random openings"), line


def test_a_match_spec_in_superscript_digits_is_refused_in_plain_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["match", "kalah", "--engine1", "depth=\u00b2", "--engine2", "depth=1"]
    message = fails(argv, capsys)
    assert "depth must be a whole number" in message and "invalid literal" not in message


@pytest.mark.timeout(120)
@pytest.mark.parametrize("limit", ["depth=2", "time=50"])
def test_an_engine_line_that_is_not_utf8_is_read_and_the_match_plays_on(
    limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = f"{sys.executable} {FAKE_ENGINE} --mode bad-bytes"
    main(["match", "kalah", "--options", SMALL_JSON, "--games", "2", "--engine1", limit,
          "--engine2", engine, "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert '"games": 2' in captured.out and "Traceback" not in captured.err


@pytest.mark.timeout(120)
@pytest.mark.parametrize("limit", ["depth=2", "time=50"])
def test_a_refused_position_ends_the_match_quoting_the_engine(
    limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = f"{sys.executable} {FAKE_ENGINE} --mode refuse-position"
    line = fails(
        ["match", "kalah", "--options", SMALL_JSON, "--games", "2", "--engine1", limit,
         "--engine2", engine],
        capsys,
    )  # fmt: skip
    assert "refused a command: 'error move 1 (1): that pit is empty'" in line, line


@pytest.mark.timeout(120)
def test_a_match_with_an_output_folder_keeps_its_games_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["match", "kalah", "--options", SMALL_JSON, "--engine1", "depth=3", "--engine2",
            "depth=1", "--games", "4", "--out", str(tmp_path), "--json"]  # fmt: skip
    main(argv)
    first = json.loads(capsys.readouterr().out)
    assert sorted(path.name for path in (tmp_path / "games").iterdir()) == [
        f"000{number}.txt" for number in range(1, 5)
    ]
    (tmp_path / "games" / "0004.txt").unlink()  # as if stopped before its last game
    main([*argv, "--concurrency", "2"])
    assert json.loads(capsys.readouterr().out) == first
