"""The server's modules: one router per resource, no module importing its importer."""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi.routing import APIRoute, APIWebSocketRoute

from croupier.server import app as application
from croupier.server.app import ROUTERS

SERVER = Path(application.__file__).resolve().parent


def _imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that a module imports, at its top or in a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & known


def _module(path: Path) -> str:
    parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_of_the_server_imports_one_that_imports_it_back() -> None:
    paths = {_module(path): path for path in SERVER.rglob("*.py")}
    graph = {name: _imports(path, set(paths)) - {name} for name, path in paths.items()}
    cycles = []
    for start in graph:
        stack = [(start, [start])]
        seen = {start}
        while stack:
            node, trail = stack.pop()
            for imported in graph[node]:
                if imported == start:
                    cycles.append(" -> ".join([*trail, start]))
                elif imported not in seen:
                    seen.add(imported)
                    stack.append((imported, [*trail, imported]))
    assert cycles == []


def test_every_route_is_a_routers_and_each_path_and_method_is_served_once() -> None:
    served: list[tuple[str, str]] = []
    for router in ROUTERS:
        for route in router.routes:
            assert isinstance(route, APIRoute | APIWebSocketRoute)
            methods = (route.methods or set()) if isinstance(route, APIRoute) else {"WEBSOCKET"}
            served += [(route.path, method) for method in methods]
    assert len(served) == len(set(served))
    assert ("/ws/tables/{table}", "WEBSOCKET") in served
    assert ("/api/me", "GET") in served
