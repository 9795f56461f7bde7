"""An agent's own words as a ubao client's: its `info:name` as a seat's name, its
`info:comment` as others read it, its `auth:token` as its account's key (docs/kgp.md)."""

from __future__ import annotations

from ubao.protocol import MAX_TOKEN, MIN_KEY
from ubao.protocol.messages import MAX_NAME

ANONYMOUS = "anonymous"
"""The seat's name of an agent that gave no `info:name`."""


def seat_name(text: str) -> str:
    """An `info:name` as a ubao player name: printable, trimmed, at most MAX_NAME characters."""
    cleaned = "".join(char if char.isprintable() else "?" for char in text)
    return cleaned.strip()[:MAX_NAME].strip() or ANONYMOUS


def spoken(text: str, limit: int) -> str:
    """Agent text others will read: printable, at most `limit` characters."""
    return "".join(char if char.isprintable() else " " for char in text)[:limit]


def account_key(token: str) -> str | None:
    """The agent's `auth:token` as the key of its `info:name`'s account (docs/kgp.md): a token
    that cannot be a key (the server's are 43 characters) is none, and the agent a guest, who
    cannot play under a claimed name."""
    fits = MIN_KEY <= len(token) <= MAX_TOKEN and token.isprintable()
    return token if fits else None
