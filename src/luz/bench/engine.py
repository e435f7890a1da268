"""Engine speed: random complete deals per second, against OpenSpiel's ``oh_hell`` driven the same way and in C++.

A deal counts its shuffle, bids, ten tricks and scoring. The runners, each named in the report for what it counts:

- ``luz``: the engine (``luz.engine.Game``) driven from Python, a uniformly random legal action at a time;
- ``oh_hell_python``: OpenSpiel's C++ ``oh_hell`` (4 players, 10 tricks) driven by the same Python loop;
- ``oh_hell_cpp``: ``oh_hell`` played entirely in C++ by ``pyspiel.evaluate_bots`` with OpenSpiel's uniform random
  bots, one call per deal (chance, bots and rules in C++; Python only starts each deal);
- ``fast_core``: luz's compiled rules kernel (``luz.research.vector_core.random_deals``, numba) playing random
  deals in one compiled loop, 64 deals a call, nothing observed: the like of ``oh_hell_cpp``.

All run on one core, timed in alternating slices so that a noisy machine slows them alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from luz.engine import EDITIONS, Game, Phase

REFERENCE = ("standard-deck", 4)
"""The LUZ table compared with oh_hell: 4 players, a 52-card deck, 10 tricks."""


def luz_deals(edition: str, players: int, seed: int) -> Iterator[int]:
    """Play random games forever; yield after each game the number of deals it had."""
    rng = random.Random(seed)
    game_seed = seed
    over = Phase.GAME_OVER
    while True:
        game = Game.new(edition, players, seed=game_seed)
        game_seed += 1
        while game.phase is not over:
            game.apply(rng.choice(game.legal_actions()))
        yield game.deal_count


def oh_hell_deals(seed: int) -> Iterator[int] | None:
    """Random deals of OpenSpiel's oh_hell (4 players, 10 tricks), or None when open_spiel is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]  # optional (luz-game[research]) and untyped
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 10})

    def deals() -> Iterator[int]:
        rng = random.Random(seed)
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            state.returns()
            yield 1

    return deals()


def oh_hell_cpp_deals(seed: int) -> Iterator[int] | None:
    """Random deals of ``oh_hell`` played in C++ (``pyspiel.evaluate_bots``, uniform random bots), one a call; or
    None when open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 10})
    bots = [pyspiel.make_uniform_random_bot(player, seed + player) for player in range(4)]

    def deals() -> Iterator[int]:
        deal_seed = seed
        while True:
            pyspiel.evaluate_bots(game.new_initial_state(), bots, deal_seed)
            deal_seed += 1
            yield 1

    return deals()


def fast_core_deals(edition: str, players: int, seed: int, per_call: int = 64) -> Iterator[int]:
    """Random deals in luz's compiled rules kernel (numba, one thread), ``per_call`` deals a call."""
    import numpy as np

    from luz.research import vector_core
    from luz.research.vector import LuzBatch

    batch = LuzBatch(1, edition, players, seed=seed)
    batch.reset()
    state = batch._state()[:15]  # the game's arrays and table, without the tensor's scale
    mask = np.zeros(32, dtype=np.int8)
    play: vector_core.Kernel = vector_core.random_deals
    while True:
        yield play(*state, per_call, mask)


def _rate_slices(runners: dict[str, Iterator[int]], seconds: float, slice_s: float = 0.2) -> dict[str, float]:
    """Deals per second of each runner, timed in alternating slices for ``seconds`` in all."""
    done = dict.fromkeys(runners, 0)
    spent = dict.fromkeys(runners, 0.0)
    per_runner = seconds / len(runners)
    while min(spent.values()) < per_runner:
        for name, runner in runners.items():
            start = time.perf_counter()
            while time.perf_counter() - start < slice_s:
                done[name] += next(runner)
            spent[name] += time.perf_counter() - start
    return {name: done[name] / spent[name] for name in runners}


COUNTS = {
    "luz": "luz engine driven from Python: a random legal action at a time",
    "oh_hell_python": "OpenSpiel oh_hell (C++ game) driven by the same Python loop",
    "oh_hell_cpp": "OpenSpiel oh_hell entirely in C++: pyspiel.evaluate_bots with uniform random bots, one call a deal",
    "fast_core": "luz fast core (numba rules kernel) playing random deals in one compiled loop, 64 deals a call",
}
"""What each head-to-head runner counts (random complete deals of a 4-player, 10-trick table, one core)."""


def bench_engine(seconds: float = 10.0, seed: int = 0, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Deals per second for every edition and player count, and the reference table against ``oh_hell`` driven from
    Python and run in C++, with luz's fast core beside them."""
    tables = [(key, p) for key, edition in EDITIONS.items() for p in edition.player_counts]
    if progress:
        progress(f"every edition and player count, {seconds / 4:.1f} s in all")
    others = {f"{k}/{p}": luz_deals(k, p, seed) for k, p in tables if (k, p) != REFERENCE}
    rates = _rate_slices(others, seconds / 4, slice_s=0.05)
    reference_name = f"{REFERENCE[0]}/{REFERENCE[1]}"
    head_to_head: dict[str, Iterator[int]] = {"luz": luz_deals(*REFERENCE, seed)}
    oh_hell, oh_hell_cpp = oh_hell_deals(seed), oh_hell_cpp_deals(seed)
    if oh_hell is not None and oh_hell_cpp is not None:
        head_to_head |= {"oh_hell_python": oh_hell, "oh_hell_cpp": oh_hell_cpp}
    head_to_head["fast_core"] = fast_core_deals(*REFERENCE, seed)
    next(head_to_head["fast_core"])  # compiles (or loads) the kernel outside the timing
    if progress:
        progress(f"{', '.join(head_to_head)} on {reference_name}: {seconds * 3 / 4:.1f} s in all")
    head = _rate_slices(head_to_head, seconds * 3 / 4)
    rates[reference_name] = head["luz"]
    report: dict[str, Any] = {
        "benchmark": "engine",
        "unit": "random complete deals per second (one core)",
        "seconds": seconds,
        "luz": {name: round(rate, 1) for name, rate in sorted(rates.items())},
        "head_to_head": {name: round(rate, 1) for name, rate in head.items()},
        "counts": {name: COUNTS[name] for name in head},
        "openspiel_oh_hell": None,
        "ratio": None,
        "openspiel_oh_hell_cpp": None,
        "ratio_to_oh_hell_cpp": None,
        "fast_core": round(head["fast_core"], 1),
        "fast_core_ratio_to_oh_hell_cpp": None,
        "reference": reference_name,
    }
    if "oh_hell_python" in head:
        report["openspiel_oh_hell"] = round(head["oh_hell_python"], 1)
        report["ratio"] = round(head["luz"] / head["oh_hell_python"], 3)
        report["openspiel_oh_hell_cpp"] = round(head["oh_hell_cpp"], 1)
        report["ratio_to_oh_hell_cpp"] = round(head["luz"] / head["oh_hell_cpp"], 3)
        report["fast_core_ratio_to_oh_hell_cpp"] = round(head["fast_core"] / head["oh_hell_cpp"], 3)
    return report
