"""Text measured and cut in terminal columns (no screen library: the lobby table and the
board's side lines both use it)."""

from __future__ import annotations

import unicodedata

ELLIPSIS = "\u2026"
"""What marks a cut."""


def columns(text: str) -> int:
    """How many terminal columns `text` takes: East Asian wide characters two, combining
    marks none."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def cut(text: str, width: int) -> str:
    """`text` in at most `width` columns: whole if it fits, else its start and an ellipsis."""
    if columns(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        used += columns(char)
        if used > width - 1:
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS
