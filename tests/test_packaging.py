"""Packaging: the container files, the console scripts, and README's promises to a new user."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_docker_compose_file_is_valid() -> None:
    compose = shutil.which("docker-compose")
    if compose is None:
        pytest.skip("docker-compose is not installed (CI installs Debian's docker-compose)")
    result = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for service in ("server", "bot-shallow", "bot-deep", "match", "client"):
        assert re.search(rf"^  {service}:$", result.stdout, re.MULTILINE), service


def test_dockerfile_runs_the_server_as_a_non_root_user_with_a_health_check() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)
    assert "/healthz" in dockerfile and "HEALTHCHECK" in dockerfile
    assert 'ENTRYPOINT ["ubao-server"]' in dockerfile


def test_readme_test_command_is_the_one_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    commands = re.findall(r"^python3 -m venv \.venv && .*$", readme, re.MULTILINE)
    assert len(commands) == 2, "README's quick start has exactly two commands"
    assert "ubao-server" in commands[0]
    assert "pytest" in commands[1] and commands[1] in ci


@pytest.mark.parametrize("script", ["ubao-server", "ubao", "ubao-engine"])
def test_console_scripts_answer_help(script: str) -> None:
    path = Path(sys.executable).parent / script
    result = subprocess.run([str(path), "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout


def test_a_normal_install_puts_one_namespace_in_site_packages(tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), "."],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    assert sorted(p.name for p in target.iterdir() if not p.name.endswith(".dist-info")) == [
        "bin",
        "ubao",
    ]
    assert sorted(p.name for p in (target / "ubao").iterdir()) == [
        "client",
        "engine",
        "protocol",
        "server",
    ]
    assert (target / "ubao" / "engine" / "tools" / "cli.py").is_file()


@pytest.mark.parametrize(
    ("statement", "works"),
    [
        ("import ubao.engine.games, ubao.protocol, ubao.server.core, ubao.client.state", True),
        ("import engine", False),
        ("import protocol", False),
        ("import server", False),
        ("import client", False),
    ],
)
def test_the_installed_packages_import_only_under_ubao(
    statement: str, works: bool, tmp_path: Path
) -> None:
    """From outside the repository, as a user's script runs: no generic top-level names."""
    result = subprocess.run(
        [sys.executable, "-c", statement], cwd=tmp_path, capture_output=True, text=True
    )
    assert (result.returncode == 0) == works, result.stderr
