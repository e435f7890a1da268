"""The bots package's imports: no cycle among its modules (imports inside functions included); starting the package
imports neither scipy nor the training code, and the bots that play import no training code (numba itself may
import scipy)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import luz.bots

PACKAGE = Path(luz.bots.__file__).parent
TRAINING = {"luz.bots.training", "luz.bots.value", "luz.bots.measure"}


def module_name(path: Path) -> str:
    parts = ["luz", "bots", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, anywhere in it (a package counts as its ``__init__``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            base = (f"{base}.{node.module}" if node.module else base) if node.level else str(node.module)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def test_no_import_cycle_in_the_bots_package() -> None:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: imports_of(path, set(paths)) for name, path in paths.items()}
    # a submodule needs its package's __init__ loaded first: an edge to it closes no cycle unless __init__ reaches back
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, cycles


def loaded_after(imports: str) -> set[str]:
    """The modules loaded, in a fresh interpreter, after ``imports``."""
    code = f"import sys; import {imports}; print(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


def test_starting_the_package_imports_no_scipy_nor_training_code() -> None:
    loaded = loaded_after("luz.bots")
    assert not loaded & TRAINING and not any(m == "scipy" or m.startswith("scipy.") for m in loaded)


def test_the_bots_that_play_import_no_training_code() -> None:
    loaded = loaded_after("luz.bots.strong, luz.bots.adaptive, luz.bots.learned, luz.bots.oracle")
    assert "luz.bots.value_weights" in loaded and not loaded & TRAINING
