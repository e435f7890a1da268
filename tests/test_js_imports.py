"""No import cycle among the browser client's scripts (the check ``make lint`` runs, tests/js_imports.py)."""

from __future__ import annotations

from pathlib import Path

from js_imports import find_cycle, main, module_graph


def test_no_script_of_the_client_imports_itself_back() -> None:
    graph = module_graph()
    assert "table.js" in graph and "common.js" in graph["table.js"]
    assert find_cycle(graph) is None
    assert main([]) == 0


def test_the_check_finds_a_cycle_through_a_dynamic_import(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\n')
    (tmp_path / "b.js").write_text('export const b = () => import("./c.js");\n')
    (tmp_path / "c.js").write_text('import {\n  a,\n} from "./a.js";\n')
    (tmp_path / "d.js").write_text('import "./a.js";\n')
    assert module_graph(tmp_path) == {"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}, "d.js": {"a.js"}}
    cycle = find_cycle(module_graph(tmp_path))
    loop = ["a.js", "b.js", "c.js"]
    rotations = [loop[i:] + loop[:i] for i in range(3)]
    assert cycle is not None and cycle[-1] == cycle[0] and cycle[:-1] in rotations  # in the arrows' direction
    assert main([str(tmp_path)]) == 1
    (tmp_path / "c.js").write_text("export const a = 1;\n")
    assert find_cycle(module_graph(tmp_path)) is None
