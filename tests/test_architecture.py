"""The layout's promises (docs/ARCHITECTURE.md): no import cycle among luz's modules, and starting the server
imports no command line, arena, bench or training code. The package lines themselves are import-linter contracts
(pyproject.toml, run by ``make lint``)."""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

SERVER_NEVER_IMPORTS = ("typer", "rich", "luz.cli", "luz.arena", "luz.bench", "luz.bots.training", "luz.bots.value")


def import_cycles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module in ``package``'s import graph (every import counts,
    those inside functions and under ``TYPE_CHECKING`` too)."""
    graph = grimp.build_graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_of_luz_imports_itself_back() -> None:
    assert import_cycles("luz") == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "looped"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from . import a\n")
    (package / "c.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("looped") == [["looped.a", "looped.b"]]


def test_starting_the_server_imports_no_cli_arena_bench_or_training_code() -> None:
    probe = (
        "import json, sys\n"
        "from luz.server import Settings, create_app\n"
        "create_app(Settings(database_url='sqlite://'))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True).stdout)
    assert "luz.server.api.app" in loaded  # the probe did load the server
    assert [m for m in loaded if m.split(".")[0] in SERVER_NEVER_IMPORTS or m.startswith(SERVER_NEVER_IMPORTS)] == []


def table_lock_sites(root: Path) -> list[str]:
    """Where a table's lock is taken under ``root``: each ``async with X.lock`` (or ``with``) and each
    ``X.lock.acquire()``, as ``path:line``."""
    sites = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            held = []
            if isinstance(node, ast.With | ast.AsyncWith):
                held = [item.context_expr for item in node.items]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "acquire":
                held = [node.func.value]
            if any(isinstance(expr, ast.Attribute) and expr.attr == "lock" for expr in held):
                sites.append(f"{path.relative_to(root)}:{node.lineno}")
    return sites


def test_only_the_writer_takes_a_tables_lock() -> None:
    """One door (docs/ARCHITECTURE.md): ``Writer.process`` is the only code that takes a table's lock; routes,
    sockets, bots, clocks, presence and rematch submit commands to it."""
    server = Path(__file__).resolve().parents[1] / "src" / "luz" / "server"
    sites = table_lock_sites(server)
    assert [site.split(":")[0] for site in sites] == ["tables/writer.py"], sites


def test_the_lock_finder_finds_a_lock(tmp_path: Path) -> None:
    (tmp_path / "route.py").write_text(
        "async def join(table):\n    async with table.lock:\n        pass\n\ndef leave(t):\n    t.lock.acquire()\n"
    )
    assert table_lock_sites(tmp_path) == ["route.py:2", "route.py:6"]


MUTATORS = frozenset(
    {"add", "append", "clear", "difference_update", "discard", "extend", "insert", "pop", "popitem", "remove"}
    | {"setdefault", "update"}
)
"""Methods that change the set, dict or list they are called on."""
WRITER = "tables/writer.py"
PUBLISH = {"tables/registry.py": {"publish", "_tell_players"}}
"""The publish of a change, which may write a table's bookkeeping of what it told (``told``)."""


def table_writes(root: Path) -> list[tuple[str, str, str]]:
    """Each place under ``root`` that writes a field of a ``Table`` held in a variable named ``table``: assigns or
    deletes it (or an item or attribute of it), or calls a mutating method on it; as (file, function, field)."""
    from luz.server.tables.table import Table

    fields = {field.name for field in dataclasses.fields(Table)}

    def field_of(node: ast.expr) -> str | None:
        chain = []
        while isinstance(node, ast.Attribute | ast.Subscript):
            if isinstance(node, ast.Attribute):
                chain.append(node.attr)
            node = node.value
        named = isinstance(node, ast.Name) and node.id == "table"
        return chain[-1] if named and chain and chain[-1] in fields else None

    sites = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        function_of: dict[int, str] = {}
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                for node in ast.walk(function):
                    function_of[id(node)] = function.name  # the innermost: walked last
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                targets = [node.func.value]
            for target in [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]:
                field = field_of(target)
                if field is not None:
                    sites.append((path.relative_to(root).as_posix(), function_of.get(id(node), ""), field))
    return sites


def test_only_the_writer_and_its_publish_write_a_table() -> None:
    """One door: a ``Table`` is written by ``Writer.process`` (and what its publish keeps of what it told); the
    registry, bots, routes, fan-out and presence keep their own bookkeeping or hand in a command (``Created``,
    ``Attach``, ``Detach``)."""
    server = Path(__file__).resolve().parents[1] / "src" / "luz" / "server"
    outside = [site for site in table_writes(server) if site[0] != WRITER and site[1] not in PUBLISH.get(site[0], ())]
    assert outside == [], outside


def test_the_table_write_finder_finds_writes(tmp_path: Path) -> None:
    (tmp_path / "route.py").write_text(
        "def create(table, client):\n"
        "    table.creator = client\n"
        "    table.seats[0] = set()\n"
        "    table.taken_over.add(1)\n"
        "    del table.left_at[2]\n"
        "    table.state.version += 1\n"
        "    other.creator = client\n"
        "    seen = table.taken_over.copy()\n"
    )
    found = table_writes(tmp_path)
    assert sorted(found) == sorted(
        ("route.py", "create", field) for field in ("creator", "seats", "taken_over", "left_at", "state")
    )
