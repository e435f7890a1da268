"""docs/RESEARCH.md: every Python example runs alone, as written (each in a fresh Python process)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'luz-game[research]')")
pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'luz-game[research]')")

DOC = Path(__file__).parents[2] / "docs" / "RESEARCH.md"


def examples() -> list[tuple[str, int, str]]:
    """Each ```python block: the section it is in, the line it starts on, its code."""
    text = DOC.read_text()
    found = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE):
        line = text.count("\n", 0, match.start(1)) + 1
        heading = re.findall(r"^## (.+)$", text[: match.start()], flags=re.MULTILINE)[-1]
        found.append((heading, line, match.group(1)))
    return found


EXAMPLES = examples()


def test_the_examples_are_found() -> None:
    sections = {heading for heading, _, _ in EXAMPLES}
    assert len(EXAMPLES) >= 8 and {"OpenSpiel", "PettingZoo (`luz_v0`)"} <= sections


@pytest.mark.parametrize(
    ("line", "code"), [pytest.param(line, code, id=f"{heading}, line {line}") for heading, line, code in EXAMPLES]
)
def test_each_example_runs_alone(line: int, code: str) -> None:
    """Nothing imported or registered by another example or test; a failure's traceback names the doc's line."""
    if re.search(r"^import jax$", code, flags=re.MULTILINE) and importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed (pip install 'luz-game[jax]')")
    program = f"exec(compile({chr(10) * (line - 1) + code!r}, {str(DOC)!r}, 'exec'), {{'__name__': '__main__'}})"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    if "print(" in code:
        assert result.stdout.strip()
