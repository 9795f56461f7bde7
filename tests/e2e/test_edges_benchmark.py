"""The edges benchmark runs: its many-address scenario, small, against a server process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EDGES = Path(__file__).resolve().parents[2] / "benchmarks" / "edges.py"


def test_the_many_address_scenario_counts_what_each_got() -> None:
    command = [sys.executable, str(EDGES), "addresses", "--addresses", "3", "--newcomers", "2"]
    command += ["--v6", "40"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 addresses × 4 connections × 4 games: 48 created" in result.stdout
    assert "then 2 newcomers, one game each: 2 created" in result.stdout
    assert "40 clients of one IPv6 /64, each from its own address: 32 connected" in result.stdout
