"""A real redis-server for the cluster tests (no tests here): started on a free port in a
temporary folder, durable as docs/cluster.md asks (append-only file, fsync always), stopped at
the end (the `redis_server` fixture of tests/server/conftest.py). Tests that need it skip where
redis-server is not installed (`.ci/run` installs it)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server")

needs_redis = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """One redis-server process; `restart` keeps its data folder, as after a crash."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.folder),
                "--save", "",
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--protected-mode", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()
