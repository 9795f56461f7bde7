"""What every test shares: a scratch home for the whole run. The user's own folders (the endgame
databases cached in `~/.cache/ubao`, the seat tokens and account keys in `~/.local/share/ubao`,
the server's default database) are never read or written by a test, nor by the programs the
tests start, which inherit this environment."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Point HOME and the XDG folders at a scratch folder before any test module is imported
    (the scratch is the system's temporary folder's, left for it to clean)."""
    scratch = Path(tempfile.mkdtemp(prefix="ubao-tests-home-"))
    os.environ["HOME"] = str(scratch)
    os.environ["XDG_CACHE_HOME"] = str(scratch / ".cache")
    os.environ["XDG_DATA_HOME"] = str(scratch / ".local" / "share")
