"""The browser client's module graph: which script imports which (static ``import``/``export ... from`` and
dynamic ``import()``), and its cycles. ``make lint`` runs it on src/luz/web/static/js and fails on any cycle:

    python tests/js_imports.py [FOLDER]     # prints the graph; exit 1 with the cycle if there is one
"""

from __future__ import annotations

import re
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

SCRIPTS = Path(__file__).parents[1] / "src" / "luz" / "web" / "static" / "js"

# A relative module specifier after `from`, after `import` (a bare side-effect import) or inside `import(`.
SPECIFIER = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""")


def imports_of(source: str) -> set[str]:
    """The relative modules ``source`` imports, as written (``./board.js``).

    >>> sorted(imports_of('import { a } from "./a.js";\\nexport { b } from "./b.js";\\nimport("./c.js").then(f);'))
    ['./a.js', './b.js', './c.js']
    >>> sorted(imports_of('import {\\n  x,\\n} from "./x.js";\\nimport "./y.js";\\nimport z from "https://cdn/z.js";'))
    ['./x.js', './y.js']
    """
    return set(SPECIFIER.findall(source))


def module_graph(folder: Path = SCRIPTS) -> dict[str, set[str]]:
    """Each script of ``folder`` (by file name) and the scripts of ``folder`` it imports."""
    graph: dict[str, set[str]] = {}
    for script in sorted(folder.glob("*.js")):
        targets = {(script.parent / spec).resolve() for spec in imports_of(script.read_text(encoding="utf-8"))}
        graph[script.name] = {target.name for target in targets if target.parent == folder.resolve()}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules, the first repeated at the end), or ``None`` when it has none."""
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        cycle: list[str] = error.args[1]
        return list(reversed(cycle))  # graphlib lists it against the arrows: "a imports b" reads left to right
    return None


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else SCRIPTS
    graph = module_graph(folder)
    for module, imported in graph.items():
        print(f"{module} -> {', '.join(sorted(imported)) or '(nothing)'}")
    cycle = find_cycle(graph)
    if cycle:
        print(f"import cycle among the scripts: {' -> '.join(cycle)}", file=sys.stderr)
        return 1
    print(f"{len(graph)} scripts, no import cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
