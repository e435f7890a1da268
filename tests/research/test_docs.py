"""docs/RESEARCH.md: its Python examples run as written (in order, sharing one namespace)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'luz-game[research]')")
pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'luz-game[research]')")

DOC = Path(__file__).parents[2] / "docs" / "RESEARCH.md"


def test_the_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "ISMCTS at seat 0" in printed and "mean points: trained" in printed
