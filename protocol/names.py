"""The canonical form of a player's name: two names that a person could take for one another
have the same canonical form, so that a guest can never pass for an account.

`canonical_name` is NFKC (compatibility forms: full-width letters, ligatures, superscripts),
then case folding, then a skeleton of the common look-alikes: accents dropped, the Cyrillic and
Greek letters that look Latin mapped to their Latin twins, the digits and signs that pass for
letters (`0` for `o`, `1` and `|` for `l`), a few letter pairs that read as one letter (`rn`,
`vv`), and runs of spaces as one. It is a superset of case- and width-insensitivity, in the
spirit of Unicode's confusable skeleton (UTS #39) for the scripts people use for names here,
kept small enough to read: when in doubt two names are the same (a name refused is only
renamed; a name shared is an impersonation). Pure and shared by server and clients.
"""

from __future__ import annotations

import unicodedata

LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic (lower case: case folding came first)
        "а": "a", "б": "b", "в": "b", "г": "r", "д": "d", "е": "e", "ё": "e", "з": "3",
        "и": "u", "к": "k", "л": "n", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "ь": "b", "ѕ": "s", "і": "i", "ї": "i",
        "ј": "j", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l", "ɡ": "g",
        # Greek
        "α": "a", "β": "b", "γ": "y", "δ": "d", "ε": "e", "ζ": "z", "η": "n", "ι": "i",
        "κ": "k", "μ": "u", "ν": "v", "ο": "o", "ρ": "p", "σ": "o", "ς": "c", "τ": "t",
        "υ": "u", "χ": "x", "ω": "w",
        # Latin letters of other alphabets and signs that pass for letters
        "ı": "i", "ȷ": "j", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ß": "ss",
        "0": "o", "1": "l", "|": "l", "!": "l", "$": "s", "@": "a",
    }
)  # fmt: skip
"""One character for another that looks like it, after NFKC and case folding."""

LOOK_ALIKE_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
"""Two letters that, set close, read as one."""


def canonical_name(name: str) -> str:
    """The form two names share when a person could take one for the other (see the module)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    skeleton = bare.translate(LOOK_ALIKES)
    for pair, single in LOOK_ALIKE_PAIRS:
        skeleton = skeleton.replace(pair, single)
    return " ".join(skeleton.split())


BLANKS = frozenset(
    "\u115f\u1160\u3164\uffa0"  # the Hangul fillers: letters that draw nothing
    "\u2800"  # the blank Braille pattern
    "\u034f\u17b4\u17b5"  # marks that draw nothing: the grapheme joiner, Khmer's inherent vowels
    "\U0001d159"  # the musical null notehead
)
"""Printable characters that render as nothing: a name of them looks empty, and one of them
at the end of a name looks like the name without it."""

MAX_MARKS = 2
"""Combining marks on one letter (after NFC): Vietnamese stacks two (ệ); more is a tower of
marks drawn over the lines around the name."""

MAX_COLUMNS = 64
"""The width of a name on a terminal, a wide character (CJK, full-width) counting two: 64
letters of the Latin alphabet, 32 of Chinese."""


def name_problem(name: str) -> str | None:
    """Why a player's name cannot be shown as others would read it, or None (the codec's own
    checks came first: printable, neither blank nor padded with spaces, at most 64 characters)."""
    composed = unicodedata.normalize("NFC", name)
    if any(c in BLANKS for c in composed):
        return "has a character that renders as nothing"
    if not any(unicodedata.category(c)[0] in "LNPS" for c in composed):
        return "renders as nothing"
    marks = 0
    for c in composed:
        marks = marks + 1 if unicodedata.combining(c) or unicodedata.category(c) == "Me" else 0
        if marks > MAX_MARKS:
            return f"stacks more than {MAX_MARKS} combining marks on one letter"
    if columns(composed) > MAX_COLUMNS:
        return f"is wider than {MAX_COLUMNS} columns (a wide character counts two)"
    return None


def columns(text: str) -> int:
    """How many terminal columns `text` takes: wide and full-width characters two, combining
    marks none."""
    width = 0
    for c in text:
        if unicodedata.combining(c):
            continue
        width += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return width
