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

Compiled kernels are cached on disk in :func:`cache_dir` (set here, before any kernel is decorated: numba binds
a function's cache directory when it is decorated), so that a command compiles them once per machine, not once
per install.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _sources_digest() -> str:
    """A digest of this package's kernel sources. Numba checks only a kernel's own file when it loads it from the
    cache, not the files of the kernels it calls (compiled into it): a cache directory per digest keeps a kernel
    of the batched environment or of the bots from running an older rules kernel after an upgrade."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where numba caches luz's compiled kernels: ``$NUMBA_CACHE_DIR`` when set (numba's own setting, as is),
    else ``$XDG_CACHE_HOME/luz/numba/<digest>`` (``~/.cache`` when unset), a user's folder that survives
    reinstalls of luz, one subfolder per version of the kernels' sources."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "luz" / "numba" / _sources_digest()


numba.config.CACHE_DIR = str(cache_dir())  # type: ignore[attr-defined]  # set from the environment by numba


def start_numba() -> None:
    """Numba's own start-up in this process, compiling nothing: its typing and target registries (about 0.7 s of
    CPU, numpy's and scipy's linear algebra imported). The processes forked from this one inherit it: their first
    call of a compiled function then only loads it from the cache on disk (0.13 s of CPU for a strong decision,
    against 0.87 s), which a bot process at the idle CPU priority gets quickly even on a busy machine."""
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
