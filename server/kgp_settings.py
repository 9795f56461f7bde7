"""The KGP endpoint's settings, as the command line gives them (`ubao-server --kgp-*`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KgpSettings:
    """The endpoint's settings (`ubao-server --kgp-*`, docs/kgp.md)."""

    port: int = -1
    """TCP port for agents; 0 picks a free one, -1 none (the WebSocket path `/kgp` is always
    there)."""
    pits: int = 6
    seeds: int = 4
    wait_ms: int = 5_000
    """How long a freeplay agent waits for another agent before it gets a server bot."""
    move_ms: int = 5_000
    """How long a `state` lasts at most (go-kgp's practice server: 5 s)."""
    bot_depth: int = 6
    """The depth of the server bot an agent plays when nobody else comes."""
