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
