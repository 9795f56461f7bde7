"""README as a new user reads it (issue 36, 12, 14, 16): one figure for the native core's
speed, with the benchmark that measures it; no walkthrough leaves a file in the clone; the
quick start says what it is doing while pip works quietly."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
WRITES = ("-o", "--output", "--csv", "--svg", "--out", "--key-file")
"""The options with which a command of the walkthroughs writes a file."""


def commands() -> list[list[str]]:
    """The command lines of README's shell blocks, comments and continuations taken off."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    text = "\n".join(blocks).replace("\\\n", " ")
    lines = [line.split("#")[0] for line in text.replace("&&\n", "&& ").splitlines()]
    return [shlex.split(line) for line in lines if line.strip()]


def test_the_native_speed_up_is_one_figure_and_says_what_measures_it() -> None:
    stated = set(re.findall(r"\b(\d+-\d+)x (?:faster|slower)", README))
    assert len(stated) == 1, stated
    (figure,) = stated
    assert "bench --speed" in README
    assert f"**{figure}x**" in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_no_walkthrough_writes_a_file_into_the_clone() -> None:
    written = [
        words[index + 1]
        for words in commands()
        for index, word in enumerate(words[:-1])
        if word in WRITES
    ]
    assert written, "the walkthroughs write records, charts and keys"
    assert all(path.startswith(("/tmp/", "~/")) for path in written), written


def test_the_quick_start_says_what_it_does_before_pip_works_quietly() -> None:
    for words in commands():
        if "pip" in " ".join(words) and "-q" in words:
            said = words.index("echo") if "echo" in words else len(words)
            assert said < words.index("-q"), words
