"""Engine speed: random complete deals per second, against OpenSpiel's ``oh_hell`` driven the same way.

Both sides are driven from Python by the same loop (pick a uniformly random legal action, apply it), a deal
counting its shuffle, bids, ten tricks and scoring. The two are timed in alternating slices so that a noisy
machine slows both alike.
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


def bench_engine(seconds: float = 10.0, seed: int = 0, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Deals per second for every edition and player count, and the ratio against oh_hell on the reference table."""
    tables = [(key, p) for key, edition in EDITIONS.items() for p in edition.player_counts]
    if progress:
        progress(f"every edition and player count, {seconds / 4:.1f} s in all")
    others = {f"{k}/{p}": luz_deals(k, p, seed) for k, p in tables if (k, p) != REFERENCE}
    rates = _rate_slices(others, seconds / 4, slice_s=0.05)
    reference_name = f"{REFERENCE[0]}/{REFERENCE[1]}"
    head_to_head: dict[str, Iterator[int]] = {reference_name: luz_deals(*REFERENCE, seed)}
    oh_hell = oh_hell_deals(seed)
    if oh_hell is not None:
        head_to_head["oh_hell/4"] = oh_hell
    if progress:
        progress(f"{' against '.join(head_to_head)}, {seconds * 3 / 4:.1f} s in all")
    head = _rate_slices(head_to_head, seconds * 3 / 4)
    rates[reference_name] = head[reference_name]
    report: dict[str, Any] = {
        "benchmark": "engine",
        "unit": "random complete deals per second (one core, driven from Python)",
        "seconds": seconds,
        "luz": {name: round(rate, 1) for name, rate in sorted(rates.items())},
        "openspiel_oh_hell": None,
        "ratio": None,
        "reference": reference_name,
    }
    if "oh_hell/4" in head:
        report["openspiel_oh_hell"] = round(head["oh_hell/4"], 1)
        report["ratio"] = round(head[reference_name] / head["oh_hell/4"], 3)
    return report
