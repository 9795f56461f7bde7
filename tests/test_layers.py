"""The layers hold: who may import whom, read from the source of every module (docs/layout.md).

Rules import nothing of ours but rules, the rules interface nothing at all; search imports only
rules; the study of games (records, review) imports rules, search and the wire's escaping and
reaches no I/O; the engine-protocol library imports only rules, search, the study of games and
the wire vocabulary,
and its pure modules reach no I/O; the protocol knows no game; the server core and the client model
import no I/O or screen library, not even through the modules they import; the engine's tools
are imported by nobody in the library.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server", "client")

SEARCH = {
    "ubao.engine.search",
    "ubao.engine.search.alphabeta",
    "ubao.engine.search.control",
    "ubao.engine.search.driver",
    "ubao.engine.search.minimax",
    "ubao.engine.search.negamax",
    "ubao.engine.search.nodes",
    "ubao.engine.search.scores",
    "ubao.engine.search.table",
    "ubao.engine.search.trace",
    "ubao.engine.search.tree",
    "ubao.engine.solve",
    "ubao.engine.endgame",
    "ubao.engine.othello_endgame",
    "ubao.engine.othello_book",
}
SERVER_CORE = {
    "ubao.server.core",
    "ubao.server.room",
    "ubao.server.clock",
    "ubao.server.stores.protocol",
    "ubao.server.limits",
    "ubao.server.outputs",
    "ubao.server.sessions",
    "ubao.server.lobby",
    "ubao.server.shares",
    "ubao.server.deadlines",
    "ubao.server.archive",
    "ubao.server.rematch",
    "ubao.server.routing",
    "ubao.server.lifecycle",
    "ubao.server.crowd",
    "ubao.server.games",
    "ubao.server.bot_turns",
    "ubao.server.intake",
    "ubao.server.seating",
    "ubao.server.accounts",
    "ubao.server.glicko2",
    "ubao.server.ratings",
    "ubao.server.kgp_gateway",
    "ubao.server.kgp_effects",
    "ubao.server.kgp_games",
    "ubao.server.kgp_names",
    "ubao.server.kgp_phases",
    "ubao.server.kgp_settings",
    "ubao.server.kgp_verify",
    "ubao.server.door",
    "ubao.server.proxy_header",
    "ubao.server.analyses",
    "ubao.server.web_boards",
}
STUDY = {"ubao.engine.record", "ubao.engine.review"}
"""The study of games: the record format and the game review, over rules, search and the wire
vocabulary's text escaping; pure (no I/O or tooling), imported by server, client and tools."""
ENGINE_PROTOCOLS_EDGE = {
    "ubao.engine.protocols.client",
    "ubao.engine.protocols.session",
    "ubao.engine.protocols.transports",
    "ubao.engine.protocols.review_process",
}
"""The engine-protocol library's I/O edge: the asyncio client, its transports and the stdio
engine's session (its search thread); the rest of the library is pure."""
CLIENT_MODEL = {
    "ubao.client.state",
    "ubao.client.board",
    "ubao.client.entry",
    "ubao.engine.record",
    "ubao.client.export",
    "ubao.client.lag",
    "ubao.client.input_machine",
    "ubao.client.lobby",
    "ubao.client.lobby_machine",
    "ubao.client.news",
    "ubao.client.bell",
    "ubao.client.terminal_text",
    "ubao.client.standings",
    "ubao.client.tournament_text",
    "ubao.client.analysis_text",
    "ubao.client.study",
}
IO_AND_SCREEN = {
    "asyncio",
    "http",
    "prompt_toolkit",
    "redis",
    "selectors",
    "socket",
    "sqlite3",
    "subprocess",
    "threading",
    "websockets",
}
TOOLING = {"argparse", "threading", "xml"}
"""What the engine's tools use and the engine library must not carry."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("ubao", *parts))


MODULES = {
    module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
}


def is_ours(name: str) -> bool:
    return name == "ubao" or name.startswith("ubao.")


@cache
def imports(module: str) -> frozenset[str]:
    """Every module `module` names in an import statement, anywhere in its source."""
    path = MODULES[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, f"{path}: imports are absolute here"
            # `from package import module` names a module; `from module import name` does not.
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            found.update(submodules & MODULES.keys() or {node.module})
    return frozenset(found - {"__future__"})


def ours(module: str) -> set[str]:
    """The modules of ours that `module` imports directly (a package import counts as its
    `__init__`)."""
    return {name for name in imports(module) if is_ours(name) and name in MODULES}


@cache
def reachable(module: str) -> frozenset[str]:
    """Every module, ours or not, that importing `module` imports."""
    seen: set[str] = set()
    stack = [module]
    while stack:
        for name in imports(stack.pop()):
            if name not in seen:
                seen.add(name)
                if name in MODULES:
                    stack.append(name)
    return frozenset(seen)


def top_levels(names: Iterable[str]) -> set[str]:
    return {name.split(".")[0] for name in names if not is_ours(name)}


def is_tool(module: str) -> bool:
    return module.startswith("ubao.engine.tools") or module.endswith("__main__")


def is_engine_protocols(module: str) -> bool:
    return module.startswith("ubao.engine.protocols")


def is_rules(module: str) -> bool:
    return (
        module.startswith("ubao.engine")
        and not is_tool(module)
        and module not in SEARCH
        and module not in STUDY
        and not is_engine_protocols(module)
    )


def test_the_scan_sees_every_package_and_its_imports() -> None:
    assert {"ubao.engine.game", "ubao.engine.search", "ubao.engine.tools.cli"} <= MODULES.keys()
    assert "ubao.engine.game" in ours("ubao.engine.search.driver")
    assert "prompt_toolkit" in top_levels(reachable("ubao.client.app"))
    assert MODULES.keys() >= SERVER_CORE | CLIENT_MODEL | ENGINE_PROTOCOLS_EDGE | STUDY


@pytest.mark.parametrize("module", sorted(filter(is_rules, MODULES)))
def test_rules_import_nothing_of_ours_but_rules(module: str) -> None:
    assert {name for name in ours(module) if not is_rules(name)} == set()


def test_the_rules_interface_imports_nothing_of_ours() -> None:
    """`Game` is the rules alone: the search's hooks extend it in `searchable`, never inside."""
    assert ours("ubao.engine.game") == set()
    assert "ubao.engine.game" in ours("ubao.engine.searchable")


@pytest.mark.parametrize("module", sorted(SEARCH))
def test_search_imports_only_rules(module: str) -> None:
    assert {name for name in ours(module) if not (is_rules(name) or name in SEARCH)} == set()


@pytest.mark.parametrize("module", sorted(filter(is_engine_protocols, MODULES)))
def test_the_engine_protocol_library_imports_rules_search_and_the_wire_only(module: str) -> None:
    # The study of games too: `wire.py` puts a game's review in the wire's terms.
    allowed = {name for name in ours(module) if is_rules(name) or name in SEARCH | STUDY}
    wire = {name for name in ours(module) if name.startswith("ubao.protocol")}
    library = set(filter(is_engine_protocols, ours(module)))
    assert ours(module) - allowed - wire - library == set()


@pytest.mark.parametrize("module", sorted(STUDY))
def test_the_study_of_games_imports_rules_search_and_the_wire_only(module: str) -> None:
    allowed = {name for name in ours(module) if is_rules(name) or name in SEARCH | STUDY}
    wire = {name for name in ours(module) if name.startswith("ubao.protocol")}
    assert ours(module) - allowed - wire == set()
    assert top_levels(reachable(module)) & (IO_AND_SCREEN | TOOLING) == set()


@pytest.mark.parametrize(
    "module",
    sorted(m for m in MODULES if is_engine_protocols(m) and m not in ENGINE_PROTOCOLS_EDGE),
)
def test_the_engine_protocol_librarys_pure_modules_reach_no_io(module: str) -> None:
    assert top_levels(reachable(module)) & (IO_AND_SCREEN | TOOLING) == set()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("ubao.protocol")))
def test_the_protocol_imports_no_game_and_nothing_above_it(module: str) -> None:
    assert {name for name in ours(module) if not name.startswith("ubao.protocol")} == set()


@pytest.mark.parametrize("module", sorted(SERVER_CORE | CLIENT_MODEL))
def test_server_core_and_client_model_reach_no_io_or_screen(module: str) -> None:
    assert top_levels(reachable(module)) & IO_AND_SCREEN == set()


@pytest.mark.parametrize("module", sorted(SERVER_CORE - {"ubao.server.core"}))
def test_the_server_cores_parts_never_import_the_core(module: str) -> None:
    assert "ubao.server.core" not in reachable(module)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not is_tool(m)))
def test_nobody_in_the_library_imports_the_tools(module: str) -> None:
    assert {name for name in reachable(module) if is_ours(name) and is_tool(name)} == set()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if is_rules(m) or m in SEARCH))
def test_the_engine_library_carries_no_tooling(module: str) -> None:
    assert top_levels(reachable(module)) & TOOLING == set()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_server_and_client_do_not_import_each_other(module: str) -> None:
    other = {"ubao.server": "ubao.client", "ubao.client": "ubao.server"}.get(module[:11])
    assert other is None or not any(name.startswith(other) for name in reachable(module))
