"""The canonical form of names: a name and every name a person could take for it share one
(case, width, accents, look-alike letters of other scripts, digits for letters), while names
that read differently keep theirs."""

from __future__ import annotations

import pytest

from ubao.protocol import canonical_name


@pytest.mark.parametrize(
    "look_alike",
    [
        "alice",
        "Alice",
        "ALICE",
        "AlIcE",
        "аlice",  # Cyrillic а
        "alicе",  # Cyrillic е
        "ΑLICE",  # Greek capital alpha
        "Ａｌｉｃｅ",  # full width
        "alíce",  # an accent
        "alı́ce",  # dotless i with a combining accent
        "a1ice",  # the digit one
        "a|ice",
        "  alice",
        "ali\u0301ce",  # decomposed accent
    ],
)
def test_look_alikes_share_the_canonical_form(look_alike: str) -> None:
    assert canonical_name(look_alike) == canonical_name("alice") == "alice"


def test_pairs_that_read_as_one_letter_and_inner_spaces() -> None:
    assert canonical_name("rnodern") == canonical_name("modern")
    assert canonical_name("vvin") == canonical_name("win")
    assert canonical_name("ada  lovelace") == canonical_name("Ada Lovelace")
    assert canonical_name("straße") == canonical_name("STRASSE")
    assert canonical_name("b0b") == canonical_name("bob")


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("bob", "rob"), ("ana", "anna")])
def test_different_names_stay_different(one: str, other: str) -> None:
    assert canonical_name(one) != canonical_name(other)


def test_the_form_is_a_fixed_point() -> None:
    for name in ("Ｍodern", "ΑLICE", "straße", "rnr"):
        assert canonical_name(canonical_name(name)) == canonical_name(name)
