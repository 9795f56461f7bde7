"""Fixtures of the server tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_server import REDIS_SERVER, RedisServer


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path / "redis")
    server.folder.mkdir()
    server.start()
    try:
        yield server
    finally:
        server.stop()
