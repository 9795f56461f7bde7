"""Fixtures of the client tests: running screens on pipe input."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.support.client import until
from tests.support.screen import Recorder, Shown, SizedOutput, legal_snapshot
from ubao.client.app import MAX_STEP, GameApp
from ubao.client.state import GameState


@pytest.fixture
async def player(request: pytest.FixtureRequest) -> AsyncIterator[Shown]:
    """Seat 0's screen at (game, columns, rows) = request.param, with its legal moves."""
    name, columns, rows = request.param
    actions = Recorder()
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"),
            seat=0,
            actions=actions,
            input=keys,
            output=SizedOutput(columns, rows),
        )
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        app.on_event(legal_snapshot(name))
        yield Shown(app, keys, columns, rows)
        app.quit()
        await asyncio.wait_for(task, 30)


@pytest.fixture
async def shown(request: pytest.FixtureRequest) -> AsyncIterator[Shown]:
    """A running screen: (seat, columns, rows) = request.param, the animation at its slowest
    so that a move is surely being shown when looked at."""
    seat, columns, rows = getattr(request, "param", (None, 80, 24))
    with create_pipe_input() as keys:
        app = GameApp(
            GameState("AbCd1234"),
            seat=seat,
            step_seconds=MAX_STEP,
            input=keys,
            output=SizedOutput(columns, rows),
        )
        app.set_connection("connected", True)
        task = asyncio.create_task(app.run())
        await until(lambda: app.application.is_running, "the screen")
        yield Shown(app, keys, columns, rows)
        app.quit()
        await asyncio.wait_for(task, 30)
