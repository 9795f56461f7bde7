"""`ubao-engine stdio`: the engine as a subprocess speaking the line protocol.

docs/engine-protocol.md is the specification; the protocol's state machine is the library's
`EngineSession` (ubao.engine.protocols.session). `serve` only moves lines between the pipes and
a session.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterable
from typing import TextIO

from ubao.engine.protocols.session import MAX_HASH_MB, EngineSession
from ubao.engine.protocols.ubao import decimal

__all__ = ["MAX_HASH_MB", "decimal", "main", "serve"]
"""`MAX_HASH_MB` and `decimal` are the library's, named here for `match` until it drives
engines through the library."""


def serve(lines: Iterable[str], out: TextIO, backend: str | None = None) -> None:
    """Run a session over `lines` until `quit` or the end of input; `backend` is the rules'
    (None: `UBAO_BACKEND`, else auto), which `setoption name Backend` may change."""

    gone = threading.Event()
    """The reader went away (`| head`): nothing more is said, and the session ends."""

    def write(line: str) -> None:
        if gone.is_set():
            return
        try:
            out.write(line + "\n")
            out.flush()
        except BrokenPipeError:  # also on the search's thread: no traceback, no second try
            gone.set()
            with contextlib.suppress(OSError):  # the exit's flush goes nowhere, quietly
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())

    session = EngineSession(write, backend)
    for line in lines:
        if not session.handle(line) or gone.is_set():
            return
    session.finish()


def main(backend: str | None = None) -> None:
    serve(sys.stdin, sys.stdout, backend)
