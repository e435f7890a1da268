"""Batched environment speed: steps per second with observations, against PettingZoo, OpenSpiel and the engine.

A step is one decision of the seat to act, with that seat's observation tensor and legal mask ready for it, and a
uniformly random legal action applied. Every runner counts steps the same way. The references are all luz's own
code (:data:`REFERENCES`): no independent LUZ environment exists to compare with.

- ``engine``: the engine driven directly, no observation (the floor of the single-game paths' cost);
- ``engine_with_tensors``: the engine plus the encoder's tensor and mask of the seat to act (``Table.observation``);
- ``openspiel_with_infostate_tensors``: luz's OpenSpiel adapter (a Python game over the engine), the
  information-state tensor before each decision;
- ``pettingzoo``: luz's own PettingZoo wrapper (``luz_v0`` over the engine), each agent observing then acting from
  its mask;
- ``batch_N``: :class:`luz.research.vector.LuzBatch` with ``N`` games on one core, the random actions drawn for
  all games at once with numpy (what a batched learner's policy would hand it);
- ``batch_4096_all_cores``: the same on every core numba may use;
- ``jax_4096_jit_vmap_cpu`` (or ``_gpu``): :mod:`luz.research.jax_env` (``luz-game[jax]``), 4,096 games stepped by one
  jitted call (``LuzJax.step_batch``, the tensors vmapped) on JAX's default device, the random legal actions
  drawn inside it, the tensors and masks left on the device; its compile time is measured apart
  (``jax.compile_s``), never in the rate; XLA's CPU runtime may use more than one thread, so
  ``jax.steps_per_cpu_s`` also gives its steps per second of CPU time;
- ``agent_steps_jax_vector_env_4096_random_opponents_in_jax_cpu`` (or ``_gpu``): another unit, a learning seat's
  steps of :class:`luz.research.jax_vector_env.LuzJaxVectorEnv` (its action, random opponents in JAX up to its
  next turn, one jitted call, numpy back), beside ``agent_steps_numba_vector_env_4096_random_opponents``, the same
  through :class:`luz.research.vector_env.LuzVectorEnv` on one core; no ratios for these.

One-core runners are timed in alternating slices so that a noisy machine slows them alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from luz.engine import Game, Phase

from .engine import _rate_slices

BATCH_SIZES = (1, 64, 1024, 4096)
REFERENCES = {
    "engine": "luz's own engine driven from Python, no observation (not an environment)",
    "engine_with_tensors": "luz's own engine plus luz's encoder, from Python",
    "openspiel_with_infostate_tensors": "luz's own OpenSpiel adapter (a Python game over luz's engine), not C++",
    "pettingzoo": "luz's own PettingZoo wrapper (luz_v0 over luz's engine), not an independent environment",
}
"""What each reference runner is: every one is luz's own code, over luz's engine."""


def engine_steps(edition: str, players: int, seed: int, tensors: bool) -> Iterator[int]:
    """Random games through the engine (with the acting seat's tensor and mask when ``tensors``), 1 per step."""
    from luz.research.encoding import Encoder, Table

    rng = random.Random(seed)
    game_seed = seed
    while True:
        table = Table(Game.new(edition, players, seed=game_seed))
        game = table.game
        encoder = Encoder(game.edition, players, game.options, perfect_recall=True)
        game_seed += 1
        while game.phase is not Phase.GAME_OVER:
            seat = game.current_player
            assert seat is not None
            if tensors:
                table.observation(encoder, seat)
            table.apply_id(rng.choice(table.legal_ids()))
            yield 1


def openspiel_steps(edition: str, players: int, seed: int) -> Iterator[int]:
    import pyspiel  # type: ignore[import-not-found]  # optional (luz-game[research]) and untyped

    import luz.research.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("luz", {"edition": edition, "players": players})
    rng = random.Random(seed)
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.information_state_tensor()
                state.apply_action(rng.choice(state.legal_actions()))
                yield 1


def pettingzoo_steps(edition: str, players: int, seed: int) -> Iterator[int]:
    from luz.research import luz_v0

    env = luz_v0.env(edition=edition, players=players)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    while True:
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
                yield 1
        env.reset()


def batch_steps(edition: str, players: int, seed: int, games: int, parallel: bool) -> Iterator[int]:
    """``games`` steps per call of :meth:`LuzBatch.step`, random legal actions drawn with numpy."""
    from luz.research.vector import LuzBatch

    batch = LuzBatch(games, edition, players, seed=seed, parallel=parallel)
    rng = np.random.default_rng(seed)
    _, _, masks = batch.reset()
    while True:
        actions = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1)
        _, _, masks, _, _ = batch.step(actions)
        yield games


JAX_GAMES = 4096
AGENT_STEPS = "agent_steps"
"""The ``agent_steps_*`` rows count a learning seat's steps of a Gymnasium ``VectorEnv`` (its action, then the
opponents' up to its next turn, its tensor and mask back as numpy): one per game and ``step`` call."""


def agent_steps(edition: str, players: int, seed: int, games: int, jax: bool) -> tuple[Iterator[int], dict[str, Any]]:
    """``games`` agent steps per ``step`` of :class:`LuzJaxVectorEnv` (``jax``, random opponents in JAX) or of
    :class:`LuzVectorEnv` (random opponents in numba, one thread), random legal actions drawn with numpy; the
    device and the first reset and step's time (the compile) apart. Compiles before it returns."""
    start = time.perf_counter()
    if jax:
        import jax as jax_module

        from luz.research.jax_vector_env import LuzJaxVectorEnv

        env: Any = LuzJaxVectorEnv(games, edition, players, seed=seed)
        device = jax_module.devices()[0]
        info: dict[str, Any] = {"platform": device.platform, "device": device.device_kind}
    else:
        from luz.research.vector_env import LuzVectorEnv

        env, info = LuzVectorEnv(games, edition, players, seed=seed, parallel=False), {}
    rng = np.random.default_rng(seed)
    observations, _ = env.reset()

    def act() -> None:
        nonlocal observations
        masks = observations["action_mask"]
        observations, *_ = env.step((rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1))

    act()
    info |= {"games": games, "first_reset_and_step_s": round(time.perf_counter() - start, 2)}

    def run() -> Iterator[int]:
        while True:
            act()
            yield games

    return run(), info


def jax_steps(edition: str, players: int, seed: int, games: int) -> tuple[Iterator[int], dict[str, Any]]:
    """``games`` steps per call of one jitted function (random legal actions drawn in it), and what was
    measured apart: the device, the compile time. Compiles before it returns."""
    import jax
    import jax.numpy as jnp

    from luz.research.jax_env import LuzJax

    env = LuzJax(edition, players)

    def random_step(states: Any, masks: jax.Array, key: jax.Array) -> tuple[Any, ...]:
        actions = jnp.argmax(jax.random.uniform(key, masks.shape) * masks, axis=1)
        states, rewards, done = env.step_batch(states, actions)
        tensors, masks = jax.vmap(env.observe_and_mask)(states, states.current)
        return states, masks, tensors, rewards, done

    key = jax.random.key(seed)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, games))
    masks = jax.jit(jax.vmap(env.legal_mask))(states)
    start = time.perf_counter()
    step = jax.jit(random_step, donate_argnums=(0, 1)).lower(states, masks, key).compile()
    device = jax.devices()[0]
    info = {
        "compile_s": round(time.perf_counter() - start, 2),
        "platform": device.platform,
        "device": device.device_kind,
        "games": games,
        "cpu_s": 0.0,
        "steps": 0,
    }

    def run() -> Iterator[int]:
        """Also adds up the process's CPU time in its calls (every thread of XLA's), for ``steps_per_cpu_s``."""
        nonlocal states, masks, key
        while True:
            start = time.process_time()
            key, draw = jax.random.split(key)
            states, masks, tensors, _, _ = step(states, masks, draw)
            tensors.block_until_ready()
            info["cpu_s"] += time.process_time() - start
            info["steps"] += games
            yield games

    return run(), info


def bench_vector(
    seconds: float = 20.0,
    seed: int = 0,
    edition: str = "iello-2024",
    players: int = 4,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Steps per second of each runner, and the batched runs' ratios to PettingZoo and to the engine."""
    import numba

    report: dict[str, Any] = {
        "benchmark": "vector",
        "table": f"{edition}/{players}",
        "unit": "steps per second: a decision of the seat to act, with its observation tensor and legal mask",
        "seconds": seconds,
        "steps_per_s": {},
        "ratio_to_pettingzoo": {},
        "ratio_to_engine": {},
        "references": REFERENCES,
        "agent_steps": "rows agent_steps_*: a learning seat's steps of a VectorEnv, the opponents' moves between",
        # numba.config sets NUMBA_NUM_THREADS at import time through globals(): invisible to mypy
        "threads": numba.config.NUMBA_NUM_THREADS,  # type: ignore[attr-defined]
    }
    runners: dict[str, Iterator[int]] = {
        "engine": engine_steps(edition, players, seed, tensors=False),
        "engine_with_tensors": engine_steps(edition, players, seed, tensors=True),
    }
    runners["openspiel_with_infostate_tensors"] = openspiel_steps(edition, players, seed)
    runners["pettingzoo"] = pettingzoo_steps(edition, players, seed)
    for size in BATCH_SIZES:
        runners[f"batch_{size}"] = batch_steps(edition, players, seed, size, parallel=False)
    if progress:
        progress("compiling the JAX environment")
    try:
        jax_runner, report["jax"] = jax_steps(edition, players, seed, JAX_GAMES)
    except ImportError as error:  # luz-game[jax] is missing: measure the rest
        report["missing_jax"] = f"{error.name} (pip install 'luz-game[jax]')"
    else:
        runners[f"jax_{JAX_GAMES}_jit_vmap_{report['jax']['platform']}"] = jax_runner
        if progress:
            progress("compiling the JAX VectorEnv")
        try:
            env_runner, report["jax_vector_env"] = agent_steps(edition, players, seed, JAX_GAMES, jax=True)
        except ImportError as error:
            report["missing"] = f"{error.name} (pip install 'luz-game[research]')"
        else:
            platform = report["jax_vector_env"]["platform"]
            runners[f"{AGENT_STEPS}_jax_vector_env_{JAX_GAMES}_random_opponents_in_jax_{platform}"] = env_runner
            numba_runner, report["numba_vector_env"] = agent_steps(edition, players, seed, JAX_GAMES, jax=False)
            runners[f"{AGENT_STEPS}_numba_vector_env_{JAX_GAMES}_random_opponents"] = numba_runner
    if progress:
        progress("compiling the batched core and importing the frameworks")
    for name, runner in list(runners.items()):
        try:
            next(runner)  # imports and compiles now, outside the timing
        except ImportError as error:  # a framework of the research extra is missing: measure the rest
            report["missing"] = f"{error.name} (pip install 'luz-game[research]')"
            del runners[name]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        if progress:
            progress(f"{', '.join(runners)} on one core: {seconds * 3 / 4:.1f} s in all")
        rates = _rate_slices(runners, seconds * 3 / 4)
    finally:
        numba.set_num_threads(threads)
    everywhere = batch_steps(edition, players, seed, BATCH_SIZES[-1], parallel=True)
    next(everywhere)
    if progress:
        progress(f"batch_{BATCH_SIZES[-1]} on {threads} threads: {seconds / 4:.1f} s")
    name = f"batch_{BATCH_SIZES[-1]}_all_cores"
    rates[name] = _timed(everywhere, seconds / 4)
    report["steps_per_s"] = {name: round(rate, 1) for name, rate in rates.items()}
    if "jax" in report:  # steps per second of CPU time, which a busy machine changes less than its wall clock
        jax_info = report["jax"]
        jax_info["steps_per_cpu_s"] = round(jax_info.pop("steps") / max(jax_info.pop("cpu_s"), 1e-9), 1)
    for name, rate in rates.items():
        if name.startswith(AGENT_STEPS):
            continue  # another unit: no ratio to decisions
        if "pettingzoo" in rates:
            report["ratio_to_pettingzoo"][name] = round(rate / rates["pettingzoo"], 2)
        report["ratio_to_engine"][name] = round(rate / rates["engine"], 2)
    return report


def _timed(runner: Iterator[int], seconds: float) -> float:
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += next(runner)
    return done / (time.perf_counter() - start)
