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
"""


def start_numba() -> None:
    """Numba's own start-up in this process, compiling nothing: its typing and target registries (about 0.7 s of
    CPU, numpy's and scipy's linear algebra imported). The processes forked from this one inherit it: their first
    call of a compiled function then only loads it from the cache on disk (0.13 s of CPU for a strong decision,
    against 0.87 s), which a bot process at the idle CPU priority gets quickly even on a busy machine."""
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
