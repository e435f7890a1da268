"""The core package never needs the research frameworks; without them the adapters' benchmark says what is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

import luz.research
from luz.bench.adapters import bench_adapters
from luz.bench.vector import bench_vector

FRAMEWORKS = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium", "jax")


def test_importing_luz_imports_no_framework() -> None:
    code = (
        "import sys, luz, luz.engine, luz.bots, luz.cli, luz.research, luz.research.encoding, luz.research.vector; "
        f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_bench_adapters_without_the_frameworks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in FRAMEWORKS:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "luz.research.openspiel", raising=False)
    report = bench_adapters(seconds=1, players=3)
    assert "luz-game[research]" in report["missing"] and report["ismcts"] is None
    assert list(report["games_per_s"]) == ["engine"] and report["games_per_s"]["engine"] > 0


def test_bench_vector_without_the_frameworks(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in FRAMEWORKS:
        monkeypatch.setitem(sys.modules, name, None)
    for adapter in ("openspiel", "pettingzoo", "luz_v0", "jax_env"):  # as if never imported (other tests import them)
        monkeypatch.delitem(sys.modules, f"luz.research.{adapter}", raising=False)
        monkeypatch.delattr(luz.research, adapter, raising=False)
    report = bench_vector(seconds=2, players=3)
    assert "luz-game[research]" in report["missing"] and "luz-game[jax]" in report["missing_jax"]
    assert "pettingzoo" not in report["steps_per_s"] and report["ratio_to_pettingzoo"] == {}
    assert report["steps_per_s"]["batch_64"] > 0 and report["steps_per_s"]["engine_with_tensors"] > 0
