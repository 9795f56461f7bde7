"""Bao's native core against the Python rules, its oracle, for every profile and flag: legal
moves, children, outcomes and the search order along seeded random games, perft counts, every
rule vector, never-ending moves, random reachable positions under random rule sets, and the
native search (value, best move, line and every node count) at fixed depths in both modes, with
every algorithm and evaluation.

The whole module skips when the extension is not built (test_native.py has the helpers).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.engine.test_native_search import (
    algorithms_and_evaluations,
    along_a_game,
    assert_searches_alike,
    summary,
)
from tests.support.engine import BACKENDS
from tests.support.native import assert_same_refusal, assert_same_rules, pair, random_game
from ubao.engine.backend import NATIVE_BUILT, NativeRules
from ubao.engine.bao.game import FLAGS, PROFILES
from ubao.engine.bao.rules import BaoMove
from ubao.engine.game import OptionsError
from ubao.engine.games import make_game
from ubao.engine.perft import perft, walk
from ubao.engine.search import Searcher
from ubao.engine.searchable import Searchable

if not NATIVE_BUILT:
    pytest.skip("the native core is not built", allow_module_level=True)

OPTION_SETS: list[dict[str, Any]] = [
    *({"profile": name} for name in PROFILES),
    *({name: value} for name, values in FLAGS.items() for value in values[1:]),
    {"ownership_lost_first_mtaji_capture": "off", "mtaji_capture_nyumba_choice": True},
    {"profile": "nierse", "never_ending": "draw", "front_empty_check": "end_of_move"},
    {"profile": "kujifunza", "takasia": "de_voogt", "takasia_attacker_must_capture": True},
    {"max_plies": 40},
    {"setup": "kujifunza", "max_plies": 0, "sixteen_rule": False},
]
"""Each profile, each flag's every other value on CORE, and combinations where flags meet."""

SEARCHED = [OPTION_SETS[i] for i in (0, 1, 2)] + [
    {"never_ending": "loss"},
    {"takasia_attacker_must_capture": True},
    {"namua_takasa_nyumba_stop": "optional", "mtaji_capture_nyumba_choice": True},
    {"max_plies": 40},
]
"""The option sets the search is compared on (the rules are compared on all)."""

ENDLESS = (
    "30181030/4(11)1(15)1721/11010000/00101001 N 0-0 - ply=61",
    "32121214/2(11)13(18)162/00010000/00010011 N 0-0 - ply=95",
)
"""tests/engine/test_bao_rules.py's never-ending moves (a2R, a8L) and its 230-lap move (a8L)."""

VECTORS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "bao.jsonl").read_text().splitlines()
    if line.strip()
]


def name_of(options: dict[str, Any]) -> str:
    return ",".join(f"{key}={value}" for key, value in options.items())


def assert_same_order(
    reference: Searchable[Any, Any], native: Searchable[Any, Any], position: Any
) -> None:
    """The search order too: Bao's native `search_moves` sorts in C."""
    assert native.search_moves(position) == reference.search_moves(position)


@pytest.mark.parametrize("options", OPTION_SETS, ids=name_of)
def test_random_games_and_perft_match_python(options: dict[str, Any]) -> None:
    reference, native = pair("bao", options)
    rng = random.Random(f"bao{sorted(options.items())}")
    lengths = [random_game(reference, native, rng) for _ in range(40)]
    assert max(lengths) > 20
    start = reference.start()
    for depth in range(5):
        assert perft(native, start, depth) == walk(reference, start, depth)
    for position in along_a_game(reference, rng, 6):
        assert_same_order(reference, native, position)
        assert perft(native, position, 3) == walk(reference, position, 3)


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["id"] for vector in VECTORS])
def test_every_rule_vector_on_both_backends(vector: dict[str, Any]) -> None:
    """tests/engine/test_bao_vectors.py's checks, on either backend, and the same answers."""
    kind, _, flag = vector["rules"].partition(":")
    options = {flag: True} if kind == "variant" else {}
    reference, native = pair("bao", options)
    position = reference.parse_position_json(vector["position"])
    assert_same_rules(reference, native, position)
    for game in (reference, native):
        legal = [game.format_move(position, move) for move in game.legal_moves(position)]
        assert legal == vector["legal"]
        result = game.position_json(game.play_text(position, vector["move"]))
        assert result.pop("ply") == 1 and result == vector["result"]


@pytest.mark.parametrize("never_ending", FLAGS["never_ending"])
def test_never_ending_and_long_moves(never_ending: str) -> None:
    """Cycles are found at the same lap as the Python rules' (the board kept at that moment
    is part of the child), and a 230-lap move is an ordinary move."""
    reference, native = pair("bao", {"never_ending": never_ending})
    for text in ENDLESS:
        position = reference.parse_position(text)
        assert_same_rules(reference, native, position)
        for _, child in reference.children(position):
            assert_same_rules(reference, native, child)
        assert perft(native, position, 3) == walk(reference, position, 3)


def random_options(rng: random.Random) -> dict[str, Any]:
    """A random profile with random values for about a third of the flags."""
    options: dict[str, Any] = {"profile": rng.choice(list(PROFILES))}
    for name, values in FLAGS.items():
        if rng.random() < 0.3:
            options[name] = rng.choice(values)
    return options


def test_fuzz_reachable_positions_under_random_rules() -> None:
    """Positions of random games under random rule sets: every rules answer, the order,
    perft 2, and the refusal of moves that are not legal, message for message."""
    rng = random.Random("bao fuzz")
    every = [BaoMove(hole, direction, safari) for hole in range(16) for direction in (1, -1)
             for safari in (False, True)]  # fmt: skip
    for _ in range(60):
        reference, native = pair("bao", random_options(rng))
        for position in along_a_game(reference, rng, 8):
            assert_same_rules(reference, native, position)
            assert_same_order(reference, native, position)
            assert perft(native, position, 2) == walk(reference, position, 2)
            legal = reference.legal_moves(position)
            for move in rng.sample([move for move in every if move not in legal], 2):
                assert_same_refusal(reference, native, position, move)


@pytest.mark.parametrize("options", SEARCHED, ids=name_of)
def test_the_search_matches_python(options: dict[str, Any]) -> None:
    reference, native = pair("bao", options)
    rng = random.Random(f"bao search{sorted(options.items())}")
    positions = along_a_game(reference, rng, 6) + along_a_game(reference, rng, 3)
    assert_searches_alike(reference, native, positions, rng, 5)


@pytest.mark.parametrize("exact", [True, False])
def test_a_game_of_kept_searchers_with_a_small_table(exact: bool) -> None:
    """Searchers kept over a game, their table filling and replacing: the same every move."""
    reference, native = pair("bao", {})
    python = Searcher(reference, exact=exact, hash_mb=0.02)
    core = Searcher(native, exact=exact, hash_mb=0.02)
    position = reference.start()
    for ply in range(40):
        expected = python.search(position, 5 if ply % 2 else 6)
        assert summary(core.search(position, 5 if ply % 2 else 6)) == summary(expected), ply
        if expected.move is None:
            break
        position = reference.play(position, expected.move)


@pytest.mark.parametrize(("algorithm", "evaluation"), algorithms_and_evaluations("bao"))
@pytest.mark.parametrize("options", [{}, {"profile": "nierse", "sixteen_rule": False}], ids=name_of)
def test_every_algorithm_and_evaluation_searches_as_python(
    options: dict[str, Any], algorithm: str, evaluation: str
) -> None:
    """Namua and mtaji threats alike: along random games from the start."""
    reference, native = pair("bao", options)
    rng = random.Random(f"bao search {algorithm} {evaluation} {sorted(options.items())}")
    positions = along_a_game(reference, rng, 6) + along_a_game(reference, rng, 3)
    deepest = 3 if algorithm == "minimax" else 4
    assert_searches_alike(reference, native, positions, rng, deepest, evaluation, algorithm)


def test_the_native_search_runs_for_every_evaluation() -> None:
    game = make_game("bao", {"profile": "nierse"}, backend="native")
    assert isinstance(game, NativeRules) and game.name == "bao"
    assert Searcher(game).native is not None
    assert Searcher(game, evaluation="material").native is not None
    moves = Searcher(game).search(game.start(), 3).pv
    assert all(type(move) is BaoMove for move in moves) and len(moves) == 3


@pytest.mark.parametrize(
    "position",
    [(0,) * 41, [2] * 42, (2,) * 32 + (0, 0, 0, 0, 2, -1, -1, 0, 0, 0), (10**7,) * 42],
)
def test_what_is_not_a_position_is_refused(position: Any) -> None:
    with pytest.raises(ValueError, match="Bao position"):
        make_game("bao", backend="native").children(position)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("backend", BACKENDS)
def test_bao_max_plies_has_the_same_bound_on_both_backends(backend: str) -> None:
    """Beyond the ply counter's bound (the position notation's), refused on both backends."""
    assert make_game("bao", {"max_plies": 1_000_000_000}, backend).name == "bao"
    with pytest.raises(OptionsError, match="max_plies"):
        make_game("bao", {"max_plies": 1_000_000_001}, backend)
