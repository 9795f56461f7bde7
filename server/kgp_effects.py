"""What a KGP session asks of its edge, as data (`Effect`s), and the `Outbox` that makes them:
KGP lines for the agent under fresh ids, and ubao commands for the core, paced within the
core's message budget."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any

from ubao.engine.protocols.kgp import Command, format_line
from ubao.protocol import Command as UbaoCommand
from ubao.server.clock import MessageBudget

COMMAND_SHARE = 0.8
"""Of the core's message rate, what the session spends: the core's bucket and this one do not
count at the same instants."""


@dataclass(frozen=True, slots=True)
class SendLine:
    """A KGP line for the agent."""

    line: str


@dataclass(frozen=True, slots=True)
class SendCommand:
    """A ubao command for the core, on the session's connection."""

    command: UbaoCommand


@dataclass(frozen=True, slots=True)
class CloseAgent:
    """End the connection (after `goodbye`)."""


@dataclass(frozen=True, slots=True)
class SeatHeld:
    """The agent's `auth:token` now holds this seat (None: none): the edge remembers it for a
    reconnection with the same token."""

    auth: str
    seat: HeldSeat | None


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A seat an `auth:token` holds: the game, the seat's number and its ubao token."""

    game_id: str
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Wait:
    """The agent waits for another to play (`waiting` True), or no longer does: the edge pairs
    two waiting agents by `host` and `invited`."""

    waiting: bool


@dataclass(frozen=True, slots=True)
class Invite:
    """The game this agent hosts has `seat` open for the agent it was paired with."""

    game_id: str
    seat: int


Effect = SendLine | SendCommand | CloseAgent | SeatHeld | Wait | Invite


class Outbox:
    """A session's effects in the order it made them; its ubao commands wait in a queue until
    the budget lets them go (`release`), so that an agent that plays faster than the core's
    message budget is paced, not cut off."""

    def __init__(self, now: int, command_budget: tuple[int, float]) -> None:
        self.effects: list[Effect] = []
        self.next_id = 0
        self.next_ubao_id = 0
        burst, per_second = command_budget
        self.commands = MessageBudget.new(max(1, burst // 2), per_second * COMMAND_SHARE, now)
        """Within the core's own message budget (`--message-burst`, `--message-rate`)."""
        self.queued: deque[UbaoCommand] = deque()

    def take(self) -> list[Effect]:
        """The effects made since the last call, in order."""
        effects, self.effects = self.effects, []
        return effects

    def add(self, effect: Effect) -> None:
        self.effects.append(effect)

    def send(self, name: str, *args: Any, ref: int | None = None) -> int:
        """Send a command under a fresh even id (the agents' are odd by custom); the id."""
        self.next_id += 2
        command = Command(name, args, self.next_id, ref)
        self.effects.append(SendLine(format_line(command)))
        return self.next_id

    def error(self, ref: int | None, message: str) -> None:
        self.send("error", message, ref=ref)

    def ubao_id(self) -> int:
        """A fresh id for a ubao command."""
        self.next_ubao_id += 1
        return self.next_ubao_id

    def queue(self, command: UbaoCommand) -> None:
        self.queued.append(command)

    def release(self, now: int) -> None:
        """The queued commands the budget allows now, in order; the rest when `due`."""
        while self.queued and self.commands.take(now):
            self.effects.append(SendCommand(self.queued.popleft()))

    def due(self) -> int | None:
        """When the budget lets the next queued command go (ms), or None when none waits."""
        if not self.queued:
            return None
        budget = self.commands
        return budget.last + math.ceil((1 - budget.tokens) / budget.per_second * 1000)

    def drop(self) -> None:
        """The connection is gone: the commands still queued never go."""
        self.queued.clear()
