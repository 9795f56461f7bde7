"""Every vector of tests/data/bao.jsonl, the Bao test vectors described in docs/bao.md §16.

Each vector gives a position, its complete legal move list, one move and the position after it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ubao.engine.bao.game import Bao

VECTORS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "bao.jsonl").read_text().splitlines()
    if line.strip()
]


def game_for(vector: dict[str, Any]) -> Bao:
    """CORE, or CORE with the one flag a `variant:<flag>` vector names switched on."""
    rules = vector["rules"]
    if rules == "core":
        return Bao()
    kind, _, flag = rules.partition(":")
    assert kind == "variant"
    return Bao({flag: True})


def test_all_39_vectors_are_loaded() -> None:
    assert len(VECTORS) == 39
    assert len({vector["id"] for vector in VECTORS}) == 39


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["id"] for vector in VECTORS])
def test_vector_legal_moves_are_exactly_the_listed_ones(vector: dict[str, Any]) -> None:
    game = game_for(vector)
    position = game.parse_position_json(vector["position"])
    legal = [game.format_move(position, move) for move in game.legal_moves(position)]
    assert legal == vector["legal"], "the same moves, in the same (notation) order"


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["id"] for vector in VECTORS])
def test_vector_move_gives_exactly_the_listed_position(vector: dict[str, Any]) -> None:
    game = game_for(vector)
    position = game.parse_position_json(vector["position"])
    result = game.play_text(position, vector["move"])
    data = game.position_json(result)
    assert data.pop("ply") == 1  # the engine counts plies; the vectors do not
    assert data == vector["result"]
    assert game.key(game.parse_position_json(vector["result"])) == game.key(result)
