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
