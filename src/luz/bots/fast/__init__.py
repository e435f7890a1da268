"""The fast core: deals of LUZ as numpy arrays, compiled with numba, for the bots' rollouts and search.

- :mod:`.rules`: the rules kernel (the arrays' layout, legal plays, bids, tricks, scores, each deal's first
  player), also stepped by the batched environment (:mod:`luz.research.vector_core`);
- :mod:`.beliefs`: what each seat believes of its own hand in a world, from its own side only;
- :mod:`.heuristic`: the heuristic bot's policy (:mod:`luz.bots.heuristic`) on a seat's own information;
- :mod:`.policy`: a learned play policy; :mod:`.value`: a learned value that scores the rest of a deal;
- :mod:`.variants`: the heuristic's variants (the plain heuristic is variant 0);
- :mod:`.rollouts`: deals played out in sampled worlds; :mod:`.opponents`: the opponent model's likelihoods;
- :mod:`.sim`: a deal stepped from Python.

The playout policy is the heuristic's decided from each simulated player's OWN information in the simulated
world: its exact beliefs over its own unplayed values (``gt[seat, slot, v]``, the chance that the card is above
``v``), never the world's truth of its own hand.

Compiled kernels are cached on disk in :func:`cache_dir`, where numba looks for them through
:class:`KernelCacheLocator` (registered here, before any kernel is decorated: numba binds a kernel's cache when it
is decorated): every install, checkout or virtual environment of the same sources shares them, so that a machine
compiles them once, not once per install.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

import numba
from numba.core.caching import (
    InTreeCacheLocator,
    IPythonCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
    ZipCacheLocator,
)

PACKAGE = Path(__file__).resolve().parents[2]
"""The ``luz`` package's folder: the kernels under it are cached in :func:`cache_dir`."""


@functools.cache
def _digest(*sources: Path) -> str:
    """A digest of ``sources``' names and contents (read once a process: every kernel decorated asks)."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where luz's compiled kernels are cached: ``<root>/<digest>``, the root ``$NUMBA_CACHE_DIR`` when set, else
    the user's ``$XDG_CACHE_HOME/luz/numba`` (``~/.cache`` when unset), which survives reinstalls; the digest is of
    this package's sources. Numba checks only a kernel's own file when it loads it, not the files of the kernels it
    calls (compiled into it: numba issue 1833): a folder per digest keeps a kernel of the batched environment or
    of the bots from running an older rules kernel after an upgrade."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if not root:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(home, "luz", "numba")
    return Path(root) / _digest(*sorted(Path(__file__).parent.glob("*.py")))


class KernelCacheLocator(UserProvidedCacheLocator):
    """Numba's cache locator for luz's kernels: in :func:`cache_dir`, a folder per source file named by the file's
    contents, where numba names it by the file's folder's path (each install its own cache). Numba still checks the
    file's contents against the cache's index before it loads a kernel. Other files: numba's own locators."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[no-untyped-call]  # numba is untyped
        source = Path(py_file)
        self._cache_path = str(cache_dir() / f"{source.parent.name}.{source.stem}-{_digest(source)}")

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KernelCacheLocator | None:
        if not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        # The folder made and checked writable, else None: numba's own locators then.
        locator: KernelCacheLocator | None = super(UserProvidedCacheLocator, cls).from_function(  # type: ignore[no-untyped-call]
            py_func, py_file
        )
        return locator


_NUMBA_DEFAULTS = (
    UserProvidedCacheLocator,
    InTreeCacheLocator,
    UserWideCacheLocator,
    IPythonCacheLocator,
    ZipCacheLocator,
)
_NUMBA_LOCATORS = ",".join(f"{locator.__module__}.{locator.__qualname__}" for locator in _NUMBA_DEFAULTS)
_config: Any = numba.config  # numba's settings, read from its environment variables
_config.CACHE_LOCATOR_CLASSES = f"{__name__}.KernelCacheLocator,{_config.CACHE_LOCATOR_CLASSES or _NUMBA_LOCATORS}"


def start_numba() -> None:
    """Numba's own start-up in this process, compiling nothing: its typing and target registries (about 0.7 s of
    CPU, numpy's and scipy's linear algebra imported). The processes forked from this one inherit it: their first
    call of a compiled function then only loads it from the cache on disk (0.13 s of CPU for a strong decision,
    against 0.87 s), which a bot process at the idle CPU priority gets quickly even on a busy machine."""
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
