"""The native table's large allocations (2 MB and more: huge pages where Linux has them) keep
the Python table's entries: a search whose table grows past 2 MB is the Python search, node
for node. The other tests' tables stay small.

Skips when the extension is not built.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.engine.test_native_search import summary
from ubao.engine.backend import NATIVE_BUILT, NativeKalah
from ubao.engine.mancala.game import Kalah
from ubao.engine.search import Searcher

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

GROWN = 16_384
"""More entries than this: the table has doubled to 65,536 slots (2 MB) or more, since it
doubles once half full."""


class DeepTableKalah(Kalah):
    """Kalah with the table down to two plies above the horizon (`SearchHints.table_depth`), which
    fills it faster than Kalah's own setting does."""

    search_hints = replace(Kalah.search_hints, table_depth=2)


class NativeDeepTableKalah(NativeKalah):
    search_hints = replace(Kalah.search_hints, table_depth=2)


@pytest.mark.parametrize("exact", [False, True])
def test_a_table_grown_past_two_megabytes_searches_as_python(exact: bool) -> None:
    python_game = DeepTableKalah()
    python = Searcher(python_game, "negamax", exact=exact)
    core = Searcher(NativeDeepTableKalah(), "negamax", exact=exact)
    assert core.native is not None
    start = python_game.start()
    result = core.search(start, 16)
    assert summary(result) == summary(python.search(start, 16))
    assert result.stats.table_entries > GROWN


def test_the_table_depth_is_the_games_on_both_backends() -> None:
    """Kalah's own table depth fills fewer entries than two plies above the horizon, the same
    on both backends."""
    start = Kalah().start()
    deep = Searcher(NativeDeepTableKalah(), "negamax").search(start, 12)
    own = Searcher(NativeKalah(), "negamax").search(start, 12)
    assert summary(own) == summary(Searcher(Kalah(), "negamax").search(start, 12))
    assert own.stats.table_entries < deep.stats.table_entries
