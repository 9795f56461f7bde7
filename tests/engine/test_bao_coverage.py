"""Every numbered rule of the Bao rules is proved by a vector or by a named rule test.

The rule ids are read from the "Rules" part of docs/bao.md, where each rule is a list item that
opens with its id in bold (`- **[R4.2]** ...`); rule ids in docstrings refer to docs/bao.md. A
test proves a rule when its docstring names the id in brackets, e.g. `[R4.2] A lap of 17 ...`;
the vectors of tests/data/bao.jsonl carry no rule ids, so VECTOR_RULES says which vectors prove
which rule. These tests fail when a rule loses its last proof, when a docstring names a rule the
doc does not have, or when a vector named here is no longer in tests/data.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

TESTS = Path(__file__).parents[1]
RULES_DOC = TESTS.parent / "docs" / "bao.md"
RULE_LABEL = re.compile(r"^[ \t]*- \*\*\[(R\d+\.\d+[a-z]?)\]\*\*", re.MULTILINE)
"""A rule's own statement in the doc: a list item opening with its id in bold."""


def rule_ids() -> tuple[str, ...]:
    """Every rule id that docs/bao.md states, in its order."""
    return tuple(RULE_LABEL.findall(RULES_DOC.read_text(encoding="utf-8")))


RULE_IDS = rule_ids()
"""Every [Rx] of docs/bao.md (R6.4a is an item of R6.4 with no id of its own)."""

VECTOR_RULES: dict[str, tuple[str, ...]] = {
    "R3.1": ("N01",),
    "R3.3": ("N17", "M02"),
    "R3.4": ("N14", "N15a", "N19"),
    "R4.1": ("N01", "N02"),
    "R4.2": ("M03",),
    "R4.3": ("N04", "N06a"),
    "R4.4": ("N01",),
    "R4.5": ("N08a", "M01a"),
    "R5.1": ("N01", "M01a"),
    "R5.2": ("N03", "N07a"),
    "R5.3": ("M15",),
    "R5.4": ("N07a",),
    "R6.1": ("N01",),
    "R6.2": ("N03", "N08a", "N17"),
    "R6.3": ("N04", "N05a", "N05b", "N06a", "N06b", "N06c", "N06d"),
    "R6.4": ("N01", "N11", "N12", "N13a", "N16"),
    "R6.4b": ("N11", "N12"),
    "R6.4c": ("N16",),
    "R6.5": ("N01", "N02", "N19"),
    "R6.6": ("N10a", "N10b", "N19"),
    "R7.1": ("M01a", "M02"),
    "R7.2": ("M01a", "M07"),
    "R7.3": ("M07",),
    "R7.4": ("M04", "M05", "M08b", "M16a"),
    "R7.5": ("M13",),
    "R8.1": ("N04", "N05a", "N05b", "N06a", "N06b", "N06c", "N06d", "N07a", "M01a"),
    "R10.1": ("N14", "N15a"),
    "R10.2": ("N08a", "N10a", "N14", "N19", "M07"),
    "R10.3": ("N01", "N07c", "N09a", "N10a", "N13a", "N15a"),
    "R10.4": ("M16a",),
    "R10.5": ("N01", "N08a", "N19", "M07", "M16a"),
    "R11.1": ("M08a", "M12"),
    "R11.2": ("M09",),
    "R11.3": ("M08b",),
    "R11.4": ("M08b",),
    "R12.1": ("N17", "M02", "M13"),
    "R12.3": ("N17", "M02"),
}
"""The vectors that prove (a part of) each rule; tests/engine/test_bao_vectors.py checks them
all."""

RULE = re.compile(r"\[(R\d+\.\d+[a-z]?)\]")
NAMED_AFTER_A_RULE = re.compile(r"test_R(\d+)_(\d+)([a-z]?)_")


def rule_tests() -> dict[str, str]:
    """Each test function of tests/test_bao*.py (this module aside) and its docstring."""
    found = {}
    for path in sorted(TESTS.glob("engine/test_bao*.py")):
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                found[f"{path.name}::{node.name}"] = ast.get_docstring(node) or ""
    return found


def proved_by_tests() -> dict[str, list[str]]:
    """Rule id -> the tests whose docstrings name it."""
    proofs: dict[str, list[str]] = {}
    for test, doc in rule_tests().items():
        for rule in RULE.findall(doc):
            proofs.setdefault(rule, []).append(test)
    return proofs


def vector_ids() -> set[str]:
    lines = (TESTS / "data" / "bao.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["id"] for line in lines if line.strip()}


def test_the_rules_doc_has_42_distinct_rule_ids() -> None:
    assert len(RULE_IDS) == len(set(RULE_IDS)) == 42
    assert (RULE_IDS[0], RULE_IDS[-1]) == ("R3.1", "R12.4")
    assert {"R6.4", "R6.4b", "R6.4c", "R8.1", "R10.5", "R11.5"} <= set(RULE_IDS)


def test_every_rule_is_proved_by_a_vector_or_a_test_docstring() -> None:
    proofs = proved_by_tests()
    unproved = [rule for rule in RULE_IDS if rule not in proofs and rule not in VECTOR_RULES]
    assert unproved == [], "rules no vector and no test docstring proves"


def test_docstrings_name_only_rules_of_the_doc() -> None:
    assert set(proved_by_tests()) <= set(RULE_IDS)


def test_the_vectors_named_for_rules_are_in_tests_data() -> None:
    assert set(VECTOR_RULES) <= set(RULE_IDS)
    named = {vector for vectors in VECTOR_RULES.values() for vector in vectors}
    assert named - vector_ids() == set()


def test_a_test_named_after_a_rule_names_that_rule_in_its_docstring() -> None:
    wrong = []
    for test, doc in rule_tests().items():
        match = NAMED_AFTER_A_RULE.search(test)
        if match and f"[R{match[1]}.{match[2]}{match[3]}]" not in doc:
            wrong.append(test)
    assert wrong == []
