"""The native core's sources: its constants are the Python engine's, and its files form layers.

engine/native/constants.h is written by ubao.engine.tools.native_constants from the Python
engine (the truth: it runs without a compiler); a stale header fails here. Every C file's
`#include "..."` lines make a graph of C files (a header's file is the .c of the same name); it
has no cycle, so no game's rules depend on the search that depends on them. Neither needs the
extension built.
"""

from __future__ import annotations

import re
from pathlib import Path

from ubao.engine.tools.native_constants import COMMAND, CONSTANTS_HEADER, render

ROOT = next(path for path in Path(__file__).resolve().parents if (path / "setup.py").exists())
NATIVE = ROOT / "engine" / "native"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
DRIVER = ("search.h", "search.c", "search_impl.h", "table.h", "table.c", "interrupted.h")
"""The search's shared parts: they know no game."""
RULES = ("mancala", "othello", "othello_impl", "othello_words", "bao", "endgame", "solve")
"""The games' rules (and the solver's over them): they know no search."""


def _includes(name: str) -> set[str]:
    """The files that `name` includes, directly or through the headers it includes."""
    found: set[str] = set()
    todo = [name]
    while todo:
        for included in INCLUDE.findall((NATIVE / todo.pop()).read_text()):
            if included not in found:
                found.add(included)
                todo.append(included)
    return found


def _depends() -> dict[str, set[str]]:
    """Each C file and the other C files whose headers it includes."""
    sources = {path.name for path in NATIVE.glob("*.c")}
    return {
        source: {
            header.removesuffix(".h") + ".c"
            for header in _includes(source)
            if header.removesuffix(".h") + ".c" in sources - {source}
        }
        for source in sources
    }


def test_the_constants_header_is_the_python_engines() -> None:
    assert CONSTANTS_HEADER == NATIVE / "constants.h"
    assert CONSTANTS_HEADER.read_text() == render(), f"stale: run {COMMAND}"


def _cycle(depends: dict[str, set[str]]) -> tuple[str, ...]:
    """A cycle of `depends` (its files in order, the first again at the end), or ()."""
    done: set[str] = set()

    def visit(source: str, path: tuple[str, ...]) -> tuple[str, ...]:
        if source in path:
            return (*path[path.index(source) :], source)
        if source in done:
            return ()
        for other in sorted(depends[source]):
            if cycle := visit(other, (*path, source)):
                return cycle
        done.add(source)
        return ()

    for source in sorted(depends):
        if cycle := visit(source, ()):
            return cycle
    return ()


def test_the_c_files_form_no_cycle() -> None:
    assert _cycle(_depends()) == ()


def test_the_graph_is_read_from_the_sources_and_a_cycle_is_seen() -> None:
    depends = _depends()
    assert {"othello.c", "search.c"} <= depends["othello_search.c"]
    assert depends["search.c"] == {"table.c"}
    # othello.c and search.c before the split: each included the other's header
    assert _cycle({"othello.c": {"search.c"}, "search.c": {"othello.c"}}) == (
        "othello.c",
        "search.c",
        "othello.c",
    )


def test_the_search_driver_knows_no_game_and_the_rules_no_search() -> None:
    games = {f"{stem}.h" for stem in RULES}
    searches = {"search.h", "search_impl.h"} | {path.name for path in NATIVE.glob("*_search*.h")}
    for name in DRIVER:
        assert not _includes(name) & games, name
    for stem in RULES:
        for name in (f"{stem}.c", f"{stem}.h"):
            if (NATIVE / name).exists():
                assert not _includes(name) & searches, name
