"""Adapter speed: random complete games per second through OpenSpiel, PettingZoo and Gymnasium, against the engine
driven directly in the same run, and ISMCTS simulations per second through OpenSpiel.

Every runner plays whole games with uniformly random legal actions: the engine directly (the reference), the
OpenSpiel state (chance sampled from ``chance_outcomes``; once bare, once also computing the player's
information-state tensor before each action, as a learner would), the PettingZoo AEC environment (each agent
observes, then acts from its action mask) and the Gymnasium environment (a random agent, random bots). The
runners are timed in alternating slices so that a noisy machine slows them alike. ISMCTS searches positions of
random games with a fixed number of simulations, with rollouts to the end of the deal and of the game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .engine import _rate_slices, luz_deals

SIMULATIONS = 50
"""Simulations per ISMCTS search."""


def engine_games(edition: str, players: int, seed: int) -> Iterator[int]:
    """The engine driven directly (``luz bench engine``'s loop), one count per game."""
    return (1 for _ in luz_deals(edition, players, seed))


def openspiel_games(edition: str, players: int, seed: int, tensors: bool) -> Iterator[int]:
    import pyspiel  # type: ignore[import-not-found]  # optional (luz-game[research]) and untyped

    import luz.research.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("luz", {"edition": edition, "players": players})
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if tensors and not state.is_chance_node():
                state.information_state_tensor()
            random_step(state, rng)
        yield 1


def random_step(state: Any, rng: random.Random) -> None:
    """Apply a uniformly random chance outcome or legal action to an OpenSpiel state."""
    if state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def pettingzoo_games(edition: str, players: int, seed: int) -> Iterator[int]:
    from luz.research import luz_v0

    env = luz_v0.env(edition=edition, players=players)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    while True:
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        env.reset()
        yield 1


def gymnasium_games(edition: str, players: int, seed: int) -> Iterator[int]:
    from luz.research.gym import LuzEnv

    env = LuzEnv(edition=edition, players=players, seat=None, opponents="random")
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    while True:
        done = False
        while not done:
            observation, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        observation, _ = env.reset()
        yield 1


def ismcts_rates(edition: str, players: int, seed: int, seconds: float) -> dict[str, float]:
    """ISMCTS simulations per second, by evaluator, on positions of random games (``seconds`` in all)."""
    import pyspiel

    from luz.research.openspiel import make_ismcts_bot

    game = pyspiel.load_game("luz", {"edition": edition, "players": players})
    rng = random.Random(seed)
    rates = {}
    for evaluator in ("deal", "game"):
        bot = make_ismcts_bot(game, simulations=SIMULATIONS, seed=seed, evaluator=evaluator)
        done, spent = 0, 0.0
        while spent < seconds / 2 or not done:
            state = _random_position(game, rng)
            start = time.perf_counter()
            bot.step(state)
            spent += time.perf_counter() - start
            done += bot.simulations
        rates[evaluator] = done / spent
    return rates


def _random_position(game: Any, rng: random.Random) -> Any:
    """A player's turn at a random point of a random game, with more than one legal action."""
    while True:
        state = game.new_initial_state()
        stop = rng.randrange(game.max_game_length())
        moves = 0
        while not state.is_terminal():
            if not state.is_chance_node():
                if moves >= stop and len(state.legal_actions()) > 1:
                    return state
                moves += 1
            random_step(state, rng)


def bench_adapters(
    seconds: float = 10.0,
    seed: int = 0,
    edition: str = "iello-2024",
    players: int = 4,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Games per second through each adapter and directly, ratios to the engine, ISMCTS simulations per second."""
    report: dict[str, Any] = {
        "benchmark": "adapters",
        "table": f"{edition}/{players}",
        "unit": "random complete games per second (one core); ISMCTS simulations per second",
        "seconds": seconds,
        "games_per_s": {},
        "ratio_to_engine": {},
        "ismcts": None,
    }
    runners: dict[str, Iterator[int]] = {"engine": engine_games(edition, players, seed)}
    try:
        runners["openspiel"] = openspiel_games(edition, players, seed, tensors=False)
        runners["openspiel_with_infostate_tensors"] = openspiel_games(edition, players, seed, tensors=True)
        runners["pettingzoo"] = pettingzoo_games(edition, players, seed)
        runners["gymnasium"] = gymnasium_games(edition, players, seed)
        for runner in runners.values():
            next(runner)  # imports the framework now, outside the timing
    except ImportError as error:
        report["missing"] = f"{error.name} (pip install 'luz-game[research]')"
        runners = {"engine": engine_games(edition, players, seed)}
    if progress:
        progress(f"{', '.join(runners)}: {seconds * 2 / 3:.1f} s in all")
    rates = _rate_slices(runners, seconds * 2 / 3)
    report["games_per_s"] = {name: round(rate, 2) for name, rate in rates.items()}
    report["ratio_to_engine"] = {name: round(rate / rates["engine"], 4) for name, rate in rates.items()}
    if "missing" not in report:
        if progress:
            progress(f"ISMCTS, {SIMULATIONS} simulations a search: {seconds / 3:.1f} s in all")
        simulations = ismcts_rates(edition, players, seed, seconds / 3)
        report["ismcts"] = {
            "simulations_per_search": SIMULATIONS,
            "simulations_per_s": {
                "deal_rollouts": round(simulations["deal"], 1),
                "game_rollouts": round(simulations["game"], 1),
            },
        }
    return report
