"""The mancala endgame database: exact values, compact ranks, a disk cache that is never trusted
blindly, and a solver that uses it (docs/engine.md, Solver)."""

from __future__ import annotations

import contextlib
import io
import random
from itertools import product
from pathlib import Path

import pytest

from ubao.engine.endgame import (
    Endgame,
    build,
    cache_directory,
    cache_path,
    load,
    open_endgame,
)
from ubao.engine.games import make_game
from ubao.engine.mancala.game import Mancala, Position
from ubao.engine.solve import Solver
from ubao.engine.tools.cli import main


def kalah(pits: int, seeds: int = 4, options: dict[str, object] | None = None) -> Mancala:
    game = make_game("kalah", {"pits": pits, "seeds": seeds, **(options or {})})
    assert isinstance(game, Mancala)
    return game


def random_position(game: Mancala, seeds: int, rng: random.Random) -> Position:
    """A position with `seeds` seeds scattered over the pits, random stores and mover."""
    m = game.pits
    pits = [0] * (2 * m)
    for _ in range(seeds):
        pits[rng.randrange(2 * m)] += 1
    stores = rng.randrange(10), rng.randrange(10)
    return (*pits[:m], stores[0], *pits[m:], stores[1], rng.randrange(2))


def test_ranks_number_every_vector_once() -> None:
    database = Endgame(kalah(2), 4, build(kalah(2), 0).values)
    ranks = sorted(database.rank(pits) for pits in product(range(5), repeat=4) if sum(pits) <= 4)
    assert ranks == list(range(Endgame.size(2, 4)))


@pytest.mark.parametrize(
    "options",
    [{}, {"empty_capture": False}, {"end_check": "mover", "remaining": "mover"}],
)
def test_database_values_are_the_solvers_values(options: dict[str, object]) -> None:
    game = kalah(4, 4, options)
    database = build(game, 8)
    rng = random.Random(14)
    for _ in range(60):
        position = random_position(game, rng.randint(1, 8), rng)
        m = game.pits
        banked = position[m] - position[2 * m + 1]
        value = database.value(position)
        expected = Solver(game).solve(position).value
        assert (banked - value if position[-1] else banked + value) == expected


def test_the_egyptian_database_agrees_with_the_solver() -> None:
    game = make_game("egyptian", {"pits": 3})
    assert isinstance(game, Mancala)
    database = build(game, 7)
    rng = random.Random(3)
    for _ in range(30):
        position = random_position(game, rng.randint(1, 7), rng)
        value = database.value(position)
        final = Solver(game).solve(position).value
        assert final == position[3] - position[7] + (-value if position[-1] else value)


def test_games_whose_positions_repeat_have_no_database() -> None:
    game = make_game("ethiopian", {"pits": 3})
    assert isinstance(game, Mancala)
    with pytest.raises(ValueError, match="repeats positions"):
        build(game, 4)


def test_positions_beyond_the_database_are_not_answered() -> None:
    game = kalah(4)
    database = build(game, 4)
    assert not database.holds(game.start())
    assert database.holds(game.parse_position("kalah(4,4) S 1,0,0,1/0,2,0,0 12,16"))


def test_the_cache_round_trips(tmp_path: Path) -> None:
    game = kalah(3)
    built = open_endgame(game, 6, tmp_path)
    path = cache_path(game, 6, tmp_path)
    assert path.exists()
    loaded = load(game, 6, path)
    assert loaded is not None
    assert loaded.values == built.values


def test_a_corrupt_or_wrong_cache_file_is_rebuilt(tmp_path: Path) -> None:
    game = kalah(3)
    good = open_endgame(game, 6, tmp_path)
    path = cache_path(game, 6, tmp_path)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert load(game, 6, path) is None
    assert open_endgame(game, 6, tmp_path).values == good.values
    assert load(game, 6, path) is not None  # rewritten
    # a file of other rules under this name is not trusted either
    other = kalah(3, 4, {"empty_capture": False})
    open_endgame(other, 6, tmp_path)
    cache_path(other, 6, tmp_path).replace(path)
    assert load(game, 6, path) is None
    path.write_bytes(b"garbage")
    assert load(game, 6, path) is None


def test_an_opened_database_answers_the_positions_it_holds(tmp_path: Path) -> None:
    game = kalah(3, 2)
    position = game.parse_position("kalah(3,2) N 1,0,2/0,1,1 3,4")
    database = open_endgame(game, 6, tmp_path)
    banked = position[3] - position[7]  # North moves: the value is North's margin beyond it
    assert database.holds(position)
    assert banked - database.value(position) == Solver(game).solve(position).value
    assert not database.holds(game.start())  # 12 seeds on the board


@pytest.mark.parametrize(("pits", "seeds", "value"), [(3, 4, 2), (4, 3, 8), (3, 6, -10)])
def test_the_solver_with_a_database_finds_the_same_values_faster(
    pits: int, seeds: int, value: int
) -> None:
    game = kalah(pits, seeds)
    plain = Solver(game).solve()
    helped = Solver(game, endgame=build(game, 8)).solve()
    assert plain.value == helped.value == value
    assert helped.expanded < plain.expanded
    position = game.start()
    for move in helped.pv:
        position = game.play(position, move)
    outcome = game.outcome(position)
    assert outcome is not None
    assert outcome.score[0] - outcome.score[1] == value


def test_solve_on_the_command_line_builds_caches_and_uses_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    argv = ["solve", "kalah", "--options", '{"pits":3,"seeds":4}', "--db", "6", "--hash", "1"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    assert out.getvalue().startswith("value: +2 ")
    assert "endgame database: 6 seeds, 924 positions" in out.getvalue()
    assert list((tmp_path / "ubao").glob("endgame-kalah-3-*-6.bin"))


def test_solve_says_it_builds_a_database_before_the_minutes_a_large_one_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    argv = ["solve", "kalah", "--options", '{"pits":3,"seeds":4}', "--db", "6"]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        main([*argv, "--progress", "always"])
    (path,) = (tmp_path / "ubao").glob("endgame-kalah-3-*-6.bin")
    assert err.getvalue().splitlines()[0] == (
        f"building the 6-seed endgame database (924 positions, a byte each), once: it is "
        f"cached in {path}"
    )
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        main([*argv, "--progress", "always"])
    assert "building" not in err.getvalue()  # cached


def test_the_database_is_for_mancala_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "othello", "--options", '{"size":4}', "--db", "4"])
    assert exit_info.value.code == 2
    assert "mancala games only" in capsys.readouterr().err


def test_the_cache_follows_an_absolute_xdg_cache_home_and_ignores_a_relative_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cache_directory() == tmp_path / "cache" / "ubao"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG specification: ignored
    assert cache_directory() == tmp_path / "home" / ".cache" / "ubao"
