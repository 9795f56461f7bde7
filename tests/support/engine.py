"""What the engine's tests share: the backends a test runs on where the native core is built."""

from __future__ import annotations

from typing import Any

import pytest

from ubao.engine.backend import NATIVE_BUILT
from ubao.engine.tools.cli import main

needs_native = pytest.mark.skipif(not NATIVE_BUILT, reason="the native core is not built")
"""A test of the native core itself, skipped where it is not built."""

BACKENDS: list[Any] = ["python", pytest.param("native", marks=needs_native)]
"""`pytest.mark.parametrize` values: the Python rules, and the native ones where built."""


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of a command that must end with exit status 2."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    errors = capsys.readouterr().err
    assert "Traceback" not in errors
    return errors.strip().splitlines()[-1]
