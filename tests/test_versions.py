"""`--version` on all three programs names the one version of the installed package."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import metadata

import pytest

from ubao.client.__main__ import main as client_main
from ubao.engine.tools.cli import main as engine_main
from ubao.server.__main__ import parse_args as server_args


@pytest.mark.parametrize(
    ("program", "entry"),
    [("ubao", client_main), ("ubao-engine", engine_main), ("ubao-server", server_args)],
)
def test_every_program_says_the_package_version(
    program: str, entry: Callable[[Sequence[str]], object], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        entry(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.startswith(f"{program} {metadata.version('ubao')}")
