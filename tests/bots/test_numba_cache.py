"""Numba's cache of the compiled kernels: in the user's cache folder (or ``NUMBA_CACHE_DIR``), one entry per kernel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from numba.core.dispatcher import Dispatcher

import luz.bots.fast as fast
from luz.bots.fast import beliefs, heuristic, opponents, policy, rollouts, rules, value, variants
from luz.research import vector_core

SOURCE = Path(fast.__file__).resolve().parents[3]
"""The folder holding the ``luz`` package under test."""

PROBE = """
import json
import numpy as np
import luz.bots.fast
from luz.bots.fast import rules
from luz.research import vector_core
allowed = rules.max_bid_after(np.full(9, -1, dtype=np.int64), 3)
print(json.dumps({
    "folder": str(luz.bots.fast.cache_dir()),
    "rules": rules.max_bid_after.stats.cache_path,
    "research": vector_core.step_parallel.stats.cache_path,
    "hits": sum(rules.max_bid_after.stats.cache_hits.values()),
    "misses": sum(rules.max_bid_after.stats.cache_misses.values()),
}))
"""


def probe(source: Path = SOURCE, **env: str) -> dict[str, Any]:
    """Where a fresh process importing luz from ``source`` caches the kernels, and whether it loaded one from
    there, under ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, "PYTHONPATH": str(source), **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_the_kernels_are_cached_in_the_users_cache_folder_and_loaded_from_it(tmp_path: Path) -> None:
    first = probe(XDG_CACHE_HOME=str(tmp_path))
    folder = Path(first["folder"])
    assert folder.parent == tmp_path / "luz" / "numba"
    assert len(folder.name) == 16 and int(folder.name, 16) >= 0  # the kernels' sources' digest
    assert Path(first["rules"]).parent == folder and Path(first["research"]).parent == folder
    assert list(Path(first["rules"]).glob("rules.max_bid_after-*.nbi"))
    assert (first["hits"], first["misses"]) == (0, 1)
    again = probe(XDG_CACHE_HOME=str(tmp_path))  # a new process: loaded, not compiled
    assert again["rules"] == first["rules"]
    assert (again["hits"], again["misses"]) == (1, 0)


def test_every_install_of_the_same_sources_shares_the_cache(tmp_path: Path) -> None:
    """Numba names a kernel's cache folder by its file's path: each install, virtual environment or checkout then
    compiled everything again. Here a second copy of luz elsewhere loads what the first compiled."""
    installs = [tmp_path / "first", tmp_path / "second"]
    for install in installs:
        shutil.copytree(SOURCE / "luz", install / "luz", ignore=shutil.ignore_patterns("__pycache__", "web"))
    first, second = (probe(install, XDG_CACHE_HOME=str(tmp_path / "cache")) for install in installs)
    assert first["rules"] == second["rules"]
    assert (first["hits"], first["misses"], second["hits"], second["misses"]) == (0, 1, 1, 0)
    (installs[1] / "luz" / "bots" / "fast" / "rules.py").write_text(
        (installs[1] / "luz" / "bots" / "fast" / "rules.py").read_text() + "\n# changed\n"
    )
    changed = probe(installs[1], XDG_CACHE_HOME=str(tmp_path / "cache"))  # other sources: compiled afresh
    assert changed["folder"] != first["folder"]
    assert (changed["hits"], changed["misses"]) == (0, 1)


def test_without_xdg_cache_home_the_folder_is_under_home(tmp_path: Path) -> None:
    where = probe(HOME=str(tmp_path))
    assert Path(where["folder"]).parent == tmp_path / ".cache" / "luz" / "numba"


def test_an_explicit_numba_cache_dir_is_honoured(tmp_path: Path) -> None:
    chosen = tmp_path / "chosen"
    where = probe(NUMBA_CACHE_DIR=str(chosen), XDG_CACHE_HOME=str(tmp_path / "not-this"))
    assert Path(where["folder"]).parent == chosen
    assert Path(where["rules"]).parent == Path(where["folder"])
    assert not (tmp_path / "not-this").exists()


def test_every_kernel_has_a_cache_entry_of_its_own() -> None:
    """Numba tells cached kernels apart by name and line only: two kernels of one function (serial and parallel)
    sharing an entry loaded one another's code."""
    modules = (beliefs, heuristic, opponents, policy, rollouts, rules, value, variants, vector_core)
    kernels = {
        (module.__name__, name): kernel
        for module in modules
        for name, kernel in vars(module).items()
        if isinstance(kernel, Dispatcher) and kernel.__module__ == module.__name__
    }
    entries = [kernel._cache._cache_file._index_path for kernel in kernels.values()]
    assert len(kernels) > 50
    assert len(set(entries)) == len(entries)
    assert vector_core.step_parallel.targetoptions.get("parallel") is True
    assert not vector_core.step_serial.targetoptions.get("parallel")
    assert all(Path(entry).parent.parent == fast.cache_dir() for entry in entries)
