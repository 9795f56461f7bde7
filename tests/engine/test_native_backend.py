"""The backend switch (engine/backend.py): `auto`, `python` and `native` on the API and in the
environment, and the engine without its native core."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.engine import needs_native
from ubao.engine.backend import (
    ENVIRONMENT,
    NATIVE_BUILT,
    BackendError,
    backend_of,
    resolve_backend,
    rules_for,
)
from ubao.engine.game import OptionsError
from ubao.engine.games import GAMES, game_for_position, make_game
from ubao.engine.mancala.game import Kalah
from ubao.engine.tools.cli import main


def test_python_is_always_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    game = make_game("kalah", backend="python")
    assert type(game) is Kalah and backend_of(game) == "python"
    assert resolve_backend("auto") == ("native" if NATIVE_BUILT else "python")


def test_an_unknown_backend_is_an_options_error() -> None:
    with pytest.raises(OptionsError, match="unknown backend 'fast'; known: auto, python, native"):
        make_game("kalah", backend="fast")


@needs_native
def test_auto_is_native_where_the_core_has_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    for name in GAMES:
        game = make_game(name)
        assert backend_of(game) == "native" and game.name == name
        assert isinstance(game, type(make_game(name, backend="python")))

    class Variant(Kalah):
        name = "variant"

    assert rules_for(Variant) is Variant
    with pytest.raises(BackendError, match="variant has no native rules yet"):
        rules_for(Variant, "native")


@needs_native
def test_the_environment_chooses_when_the_caller_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENVIRONMENT, "python")
    assert backend_of(make_game("othello")) == "python"
    assert backend_of(make_game("othello", backend="native")) == "native"
    game, _ = game_for_position("kalah", {}, "kalah(4,3) S 3,3,3,3/3,3,3,3 0,0")
    assert backend_of(game) == "python" and game.describe() == "kalah(4,3)"
    monkeypatch.setenv(ENVIRONMENT, "native")
    assert backend_of(make_game("kalah")) == "native"


def test_without_the_core_auto_runs_python_and_native_says_why() -> None:
    """The extension made unimportable, as on a machine without a C compiler."""
    script = """
import sys
sys.modules["ubao.engine._native"] = None
from ubao.engine.backend import BackendError, NATIVE_BUILT, backend_of
from ubao.engine.games import make_game
from ubao.engine.perft import perft
assert not NATIVE_BUILT
game = make_game("othello")
assert backend_of(game) == "python" and perft(game, game.start(), 3) == 56
try:
    make_game("kalah", backend="native")
except BackendError as error:
    print(error)
"""
    env = {key: value for key, value in os.environ.items() if key != ENVIRONMENT}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.startswith("the native core is not built")


def test_the_command_line_takes_a_backend_and_names_it(capsys: pytest.CaptureFixture[str]) -> None:
    for backend in ("python", *(("native",) if NATIVE_BUILT else ())):
        main(["perft", "othello", "--depth", "4", "--backend", backend, "--json"])
        report = json.loads(capsys.readouterr().out)
        assert (report["nodes"], report["backend"]) == (244, backend)
        main(["perft", "bao", "--depth", "3", "--backend", backend, "--json"])
        report = json.loads(capsys.readouterr().out)
        assert (report["nodes"], report["backend"]) == (38, backend)
    main(["play", "kalah", "3", "6", "--backend", "python"])
    assert capsys.readouterr().out.startswith("kalah(6,4) N 4,4,0,5,5,0/")
    with pytest.raises(SystemExit):
        main(["--version"])
    built = "native core built" if NATIVE_BUILT else "native core not built"
    assert built in capsys.readouterr().out
