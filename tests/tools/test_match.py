"""`ubao-engine match`: engines against each other, colours alternating, W/D/L, margin and Elo."""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys

import pytest

from ubao.engine.games import make_game
from ubao.engine.tools.cli import main
from ubao.engine.tools.match import EngineSpec, MatchReport, parse_spec, run_match

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


def test_analyse_takes_the_table_memory_and_the_exact_mode() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["analyse", "kalah", "--depth", "5", "--hash", "1", "--exact", "--json"])
    data = json.loads(out.getvalue())
    assert data["exact"] is True and data["stats"]["depth"] == 5
