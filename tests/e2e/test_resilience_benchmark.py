"""The resilience benchmark runs: a few hundred hostile frames against a server process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RESILIENCE = Path(__file__).resolve().parents[2] / "benchmarks" / "resilience.py"


def test_the_hostile_frames_scenario_counts_every_answer() -> None:
    command = [sys.executable, str(RESILIENCE), "hostile", "--frames", "400", "--connections", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "400 hostile frames from 2 connections" in result.stdout
    assert "0 unanswered, 0 answered twice" in result.stdout
    assert "crashes: 0 (/healthz 200, a new client answered)" in result.stdout
