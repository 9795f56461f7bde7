"""Entrants on the command line: built-in settings or an external engine, with their limits."""

from __future__ import annotations

import pytest

from ubao.engine.tools.entrants import Clock, EngineSpec, parse_entrant, parse_spec


def test_built_in_settings_name_themselves_and_take_a_clock() -> None:
    entrant = parse_entrant(["depth=6,eval=mobility"])
    assert entrant.name == "negamax:mobility:d6" and not entrant.external
    assert entrant.spec == EngineSpec(evaluation="mobility", depth=6)
    timed = parse_entrant(["name=fast", "tc=10+0.1", "hash=8"])
    assert (timed.name, timed.clock, timed.spec.hash_mb) == ("fast", Clock(10000, 100), 8)
    assert parse_entrant(["name=x", "tc=2"]).clock == Clock(2000, 0)


def test_an_external_engine_keeps_its_command_whole() -> None:
    entrant = parse_entrant(
        ["name=edax", "cmd=./edax -q -nboard", "proto=nboard", "option.Hash=32,depth=8"]
    )
    assert entrant.command == ("./edax", "-q", "-nboard") and entrant.protocol == "nboard"
    assert entrant.options == (("Hash", "32"),) and entrant.spec.depth == 8
    assert parse_entrant(["cmd=python -m ubao.engine stdio", "time=50"]).name == (
        "python -m ubao.engine stdio"
    )


def test_each_fills_in_what_an_engine_does_not_say() -> None:
    each = ["tc=5+0.05", "eval=mobility"]
    assert parse_entrant(["depth=3"], each).clock == Clock(5000, 50)
    own = parse_entrant(["tc=1", "eval=stores"], each)
    assert own.clock == Clock(1000, 0) and own.spec.evaluation == "stores"
    # What is for one kind of engine only passes the other by.
    mixed = ["depth=5", "eval=mobility", "option.Hash=8"]
    external = parse_entrant(["cmd=./edax"], mixed)
    assert (external.spec.evaluation, external.options) == (None, (("Hash", "8"),))
    builtin = parse_entrant(["name=b"], mixed)
    assert (builtin.spec.evaluation, builtin.options, builtin.spec.depth) == ("mobility", (), 5)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["eval=mobility"], "give depth=N, time=MS or tc"),
        (["depth=3", "bogus=1"], "unknown setting 'bogus'"),
        (["depth=3", "depth=4"], "depth given twice"),
        (["time=50", "tc=10"], "not both"),
        (["cmd=./edax", "depth=3", "eval=x"], "eval is a setting of the built-in search"),
        (["depth=3", "proto=nboard"], "for an external engine"),
        (["cmd=", "depth=3"], "empty"),
        (["tc=0+1", "depth=3"], "more than 0 s"),
    ],
)
def test_a_bad_entrant_is_refused_saying_why(words: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_entrant(words)


def test_match_specs_read_as_before() -> None:
    assert parse_spec("depth=6,eval=mobility,hash=4,exact") == EngineSpec(
        evaluation="mobility", depth=6, hash_mb=4, exact=True
    )
    assert parse_spec("python -m ubao.engine stdio") is None


def test_probcut_off_is_a_setting_of_the_built_in_search() -> None:
    spec = parse_spec("time=100,probcut=off")
    assert spec is not None and not spec.selective and spec.describe().endswith(":noprobcut")
    assert parse_spec("time=100,probcut=on") == EngineSpec(time_ms=100)
    with pytest.raises(ValueError, match="probcut must be on or off"):
        parse_spec("time=100,probcut=no")
    with pytest.raises(ValueError, match="probcut is a setting of the built-in search"):
        parse_entrant(["cmd=./edax", "probcut=off", "depth=4"])
