"""A KGP session's phases in one table: each phase and the phases it may go to. Every change of
phase the session (server/kgp_gateway.py) makes is checked against it."""

from __future__ import annotations

from enum import Enum


class Phase(Enum):
    GREETED = "greeted"  # `kgp` sent: waiting for `mode`
    HELLO = "hello"  # ubao `hello` sent
    LOOKING = "looking"  # the lobby asked for a game to join
    JOINING = "joining"  # `join` or `resume` sent
    CREATING = "creating"  # a game of its own asked for
    WAITING = "waiting"  # waiting for another agent, or for a server bot
    PLAYING = "playing"
    ENTERING = "entering"  # a tournament entered and followed
    FOLLOWING = "following"  # waiting for its next game of the tournament
    VERIFYING = "verifying"
    CLOSED = "closed"


TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.GREETED: frozenset({Phase.HELLO, Phase.VERIFYING, Phase.CLOSED}),
    Phase.HELLO: frozenset({Phase.LOOKING, Phase.JOINING, Phase.ENTERING, Phase.CLOSED}),
    Phase.LOOKING: frozenset({Phase.JOINING, Phase.WAITING, Phase.CLOSED}),
    Phase.JOINING: frozenset(
        {Phase.PLAYING, Phase.LOOKING, Phase.ENTERING, Phase.FOLLOWING, Phase.CLOSED}
    ),
    Phase.CREATING: frozenset({Phase.JOINING, Phase.LOOKING, Phase.CLOSED}),
    Phase.WAITING: frozenset({Phase.CREATING, Phase.JOINING, Phase.CLOSED}),
    Phase.PLAYING: frozenset({Phase.LOOKING, Phase.ENTERING, Phase.FOLLOWING, Phase.CLOSED}),
    Phase.ENTERING: frozenset({Phase.FOLLOWING, Phase.CLOSED}),
    Phase.FOLLOWING: frozenset({Phase.JOINING, Phase.CLOSED}),
    Phase.VERIFYING: frozenset({Phase.CLOSED}),
    Phase.CLOSED: frozenset(),
}
"""Each phase and the phases it may go to: a freeplay agent goes round from LOOKING to PLAYING
and back for as long as it stays; a tournament's from FOLLOWING to PLAYING and back until the
tournament ends."""
