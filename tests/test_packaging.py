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


def compose_services(config: str) -> dict[str, str]:
    """Each service's block of `docker-compose config` output (normalised YAML), by name."""
    section = re.search(r"^services:\n((?:[ \n].*\n)*)", config, re.MULTILINE)
    assert section is not None, config
    blocks = re.split(r"^  ([\w-]+):\n", section.group(1), flags=re.MULTILINE)
    return dict(zip(blocks[1::2], blocks[2::2], strict=True))


def test_the_cluster_profile_adds_redis_nodes_workers_and_a_balancer() -> None:
    compose = shutil.which("docker-compose")
    if compose is None:
        pytest.skip("docker-compose is not installed (CI installs Debian's docker-compose)")
    result = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "--profile", "cluster", "config"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    services = compose_services(result.stdout)
    cluster = {"redis", "node-1", "node-2", "node-3", "worker-1", "worker-2", "lb"}
    for name, block in services.items():
        # Without --profile, only the single server and its bots start, as before.
        profile = "cluster" if name in cluster else "client" if name == "client" else None
        assert (f"profiles:\n    - {profile}\n" in block) if profile else "profiles:" not in block
    assert cluster <= services.keys()
    assert "- --appendfsync\n    - always" in services["redis"]
    for node in ("node-1", "node-2", "node-3"):
        assert "- --redis\n    - redis://redis:6379/0" in services[node]
    for worker in ("worker-1", "worker-2"):
        assert "- worker\n    - --redis\n    - redis://redis:6379/0" in services[worker]
    assert "deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg" in services["lb"]


def test_the_balancer_config_is_valid() -> None:
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    config = ROOT / "deploy" / "haproxy.cfg"
    result = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    text = config.read_text()
    assert "option httpchk GET /healthz" in text
    assert all(f"server node-{n} node-{n}:8765" in text for n in (1, 2, 3))


def test_dockerfile_runs_the_server_as_a_non_root_user_with_a_health_check() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.MULTILINE)
    assert "/healthz" in dockerfile and "HEALTHCHECK" in dockerfile
    assert 'ENTRYPOINT ["ubao-server"]' in dockerfile


def test_the_image_builds_the_native_core_and_refuses_to_run_without_it() -> None:
    """The image's build stage has every input of the native core's build (setup.py lists the
    extension; pyproject.toml alone builds a pure-Python wheel) in an image with a compiler,
    and the image stops building if the core is missing rather than run weak bots."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    build, run = dockerfile.split("\nFROM ", 2)[1:]
    assert not build.split()[0].endswith("-slim"), "the build stage needs a C compiler"
    copied = {
        name
        for line in build.splitlines()
        if line.startswith("COPY ")
        for name in line.split()[1:-1]
    }
    assert {"pyproject.toml", "setup.py", "engine"} <= copied
    assert "native core built" in run


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
    web = target / "ubao" / "server" / "web"  # the browser page ships as package data
    assert {"index.html", "main.js", "style.css"} <= {p.name for p in web.iterdir()}


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
