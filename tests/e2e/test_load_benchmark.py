"""The load benchmark runs: a server process, two paced games (one against a server bot) with a
spectator and a browser-like spectator each, figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LOAD = Path(__file__).resolve().parents[2] / "benchmarks" / "load.py"


def test_the_load_benchmark_measures_a_small_load() -> None:
    command = [sys.executable, str(LOAD), "--games", "2", "--spectators", "1"]
    command += ["--browser-spectators", "1", "--bot-games", "1", "--bot-depth", "2"]
    command += ["--pace", "0.05", "--seconds", "1.5"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    figures = ("moves/s", "move → opponent", "move → bot's move", "move → spectator", "server CPU")
    for figure in (*figures, "move → browser", "server RSS"):
        assert figure in result.stdout
    assert "errors             0" in result.stdout
