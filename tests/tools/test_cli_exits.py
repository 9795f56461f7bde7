"""`ubao-engine` ends quietly when its reader goes away or the user presses Ctrl-C, and its
help names the games."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ubao.engine.games import GAMES
from ubao.engine.tools.cli import main

pytestmark = pytest.mark.timeout(120)


def test_a_reader_gone_away_ends_the_output_without_a_traceback() -> None:
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as closed:
        result = subprocess.run(
            [sys.executable, "-m", "ubao.engine", "perft", "kalah", "--depth", "2"],
            stdout=closed,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


def test_ctrl_c_ends_a_long_search_without_a_traceback() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "ubao.engine", "stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As in a terminal, even where the tests run as a background job (SIGINT ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("isready\n")
    process.stdin.flush()
    process.stdout.readline()  # it is up and reading
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 130, errors
    assert "Traceback" not in errors


def test_the_help_of_a_game_command_lists_the_registered_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["moves", "--help"])
    assert f"the game: {', '.join(GAMES)}" in " ".join(capsys.readouterr().out.split())


@pytest.mark.timeout(300)
def test_a_reader_gone_away_mid_search_ends_the_session_without_a_traceback() -> None:
    script = (
        "import sys; from ubao.engine.tools import stdio; "
        "stdio.serve(iter(['position othello {\"size\": 8} startpos', 'go movetime 1000']), "
        "sys.stdout)"
    )
    engine = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert engine.stdout is not None and engine.stderr is not None
    engine.stdout.readline()  # the first info line: the search is on
    engine.stdout.close()  # as `| head -1` does
    _, err = engine.communicate(timeout=60)
    assert b"Traceback" not in err, err.decode()


def test_options_before_the_command_are_taken_or_refused_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 36, 6 and 7: `ubao-engine --backend python moves kalah` said "invalid choice",
    after the whole usage; an option before the command now works as after it, and an option
    the command lacks is named, on one line."""
    main(["--backend", "python", "moves", "kalah", "--options", '{"pits": 3, "seeds": 1}'])
    assert capsys.readouterr().out.split() == ["1", "2", "3"]
    main(["--backend=python", "play", "kalah", "3"])
    assert "kalah(6,4)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit:
        main(["--depth", "3", "moves", "kalah"])
    assert exit.value.code == 2
    error = capsys.readouterr().err
    assert error.splitlines() == [
        "ubao-engine: error: unrecognized arguments: --depth 3 (usage: ubao-engine --help)"
    ]
