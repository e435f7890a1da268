"""``luz eval``: a named, versioned benchmark for any agent: a bot, a policy over the Gymnasium observation, or a
saved SB3 model.

The agent plays fixed duplicate deal sets against a fixed pool of opponents, on each table of the benchmark:
deal set ``d`` of a table is the arena's game seeded from ``(seed, d)`` (:meth:`luz.arena.ArenaConfig.game_seed`),
the same cards against every member of the pool, and each is played in every rotation of the seats (the agent at
every seat once, the opponents keeping their order around the table). Each seat's generator is seeded as in the
arena (:func:`luz.arena.play_game`), so a bot agent's games are the arena's games.

The metric: in each game, the agent's total minus the mean of its opponents' totals (points); per table, member
and deal set, the mean over the rotations; the **headline** is, per deal set, the mean over the tables and the
members, then its mean over the deal sets with a 95% percentile-bootstrap interval that resamples whole deal sets
(:func:`luz.arena.stats.interval`). The result is a pure function of the agent and the benchmark: everything
but its ``compute`` part is the same on every run, with any number of workers.

>>> result = evaluate("random", BENCHMARKS["luz-bench-v1-lite"].subset(["standard-deck/3"], deal_sets=2))
>>> result["benchmark"], result["games"], result["headline"]["mean"] < 0
('luz-bench-v1-lite[standard-deck/3]@2', 6, True)
"""

from __future__ import annotations

import functools
import importlib
import itertools
import os
import platform
import random
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from luz.arena import ArenaConfig, GameRecord
from luz.arena.core import choose
from luz.arena.stats import Interval, interval
from luz.bots import make_arena_bot
from luz.engine import Game, LuzError, get_edition

from .encoding import Encoder, Table, action_id

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
"""A policy over the Gymnasium observation: the seat's tensor and its legal-action mask to an action id."""


class BenchmarkError(LuzError):
    """A benchmark that cannot be run as asked: unknown benchmark or table, an agent that cannot be loaded or that
    chose an illegal action."""


@dataclass(frozen=True, slots=True)
class Member:
    """One opponent table of the pool: its name and the bot specs of the opponents' seats, cycled around the table
    after the agent (``("heuristic", "strong:iters=64")`` at 5 players: heuristic, strong, heuristic, strong)."""

    name: str
    specs: tuple[str, ...]

    def opponents(self, players: int) -> tuple[str, ...]:
        """The opponents' specs, in seat order after the agent."""
        return tuple(itertools.islice(itertools.cycle(self.specs), players - 1))


ALL_TABLES: tuple[tuple[str, int], ...] = (
    ("iello-2024", 3),
    ("iello-2024", 4),
    ("iello-2024", 5),
    ("korokorodou-2014", 3),
    ("korokorodou-2014", 4),
    ("standard-deck", 3),
    ("standard-deck", 4),
)
"""The 7 tables: every edition at every player count it is played by."""

HEURISTIC = Member("heuristic", ("heuristic",))
STRONG = Member("strong", ("strong:iters=64",))
EXPERT = Member("expert", ("expert:iters=64:depth=4",))
MIXED = Member("mixed", ("heuristic", "strong:iters=64", "expert:iters=64:depth=4"))


@dataclass(frozen=True, slots=True)
class Benchmark:
    """What a benchmark version freezes: its tables, its opponent pool (versioned bot specs), how many deal sets
    and their seed. Changing any of them, or the play of a bot of the pool, makes a new version."""

    name: str
    tables: tuple[tuple[str, int], ...]
    pool: tuple[Member, ...]
    deal_sets: int
    seed: int
    fingerprint: str
    """The pool's :func:`pool_fingerprint` when the version was frozen: a test checks that the bots still play so."""

    def subset(self, tables: Iterable[str] | None = None, deal_sets: int | None = None) -> Benchmark:
        """The benchmark on some of its tables (``"edition/players"``) or its first ``deal_sets`` deal sets only:
        its name says which (``luz-bench-v1-lite[iello-2024/4]``, ``...@8``), since its figures are not those of
        the whole benchmark."""
        name, chosen, count = self.name, self.tables, self.deal_sets
        if tables is not None:
            asked = [table_key(parse_table(text)) for text in tables]
            known = {table_key(table): table for table in self.tables}
            unknown = [text for text in asked if text not in known]
            if unknown or not asked:
                raise BenchmarkError(
                    f"{self.name} has no table {', '.join(unknown) or '(none given)'}; its tables are: "
                    f"{', '.join(known)}"
                )
            chosen = tuple(known[text] for text in dict.fromkeys(asked))
            if chosen != self.tables:
                name += f"[{','.join(map(table_key, chosen))}]"
        if deal_sets is not None:
            if not 1 <= deal_sets <= self.deal_sets:
                raise BenchmarkError(f"{self.name} has deal sets 1..{self.deal_sets}, not {deal_sets}")
            if deal_sets != self.deal_sets:
                name += f"@{deal_sets}"
            count = deal_sets
        return replace(self, name=name, tables=chosen, deal_sets=count)

    def tasks(self) -> list[tuple[int, int, int, int]]:
        """Every game as ``(table, member, deal set, rotation)``, in report order."""
        return [
            (t, m, d, r)
            for t, (_, players) in enumerate(self.tables)
            for m in range(len(self.pool))
            for d in range(self.deal_sets)
            for r in range(players)
        ]

    def to_json(self) -> dict[str, Any]:
        """The definition, as reported with every result."""
        return {
            "tables": [table_key(table) for table in self.tables],
            "pool": {member.name: list(member.specs) for member in self.pool},
            "deal_sets": self.deal_sets,
            "seed": self.seed,
            "pool_fingerprint": self.fingerprint,
        }


BENCHMARKS: dict[str, Benchmark] = {
    "luz-bench-v1": Benchmark(
        "luz-bench-v1", ALL_TABLES, (HEURISTIC, STRONG, EXPERT, MIXED), 20, 38, "c374506e38d9721a"
    ),
    "luz-bench-v1-lite": Benchmark("luz-bench-v1-lite", ALL_TABLES, (HEURISTIC,), 20, 38, "5198f775e439575e"),
}
"""The named benchmarks. ``luz-bench-v1-lite`` is ``luz-bench-v1`` against its heuristic member only: the same
games as that member's, at a hundredth of the cost (no search at the table)."""


def table_key(table: tuple[str, int]) -> str:
    return f"{table[0]}/{table[1]}"


def parse_table(text: str) -> tuple[str, int]:
    """``"iello-2024/4"`` -> ``("iello-2024", 4)``; :class:`BenchmarkError` otherwise."""
    edition, _, players = text.strip().partition("/")
    if not players.isdigit():
        raise BenchmarkError(f"a table is EDITION/PLAYERS (iello-2024/4), not {text!r}")
    return get_edition(edition).key, int(players)


def benchmark_named(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise BenchmarkError(f"unknown benchmark {name!r}; benchmarks are: {', '.join(BENCHMARKS)}") from None


# -- agents --------------------------------------------------------------------------------------------------


class Seat(Protocol):
    """The agent at one seat of one game: its action id at its turn."""

    def act(self, table: Table, seat: int, rng: random.Random) -> int: ...


class Agent(Protocol):
    """An agent: a fresh seat for each game on a table."""

    @property
    def spec(self) -> str:
        """What loads it again (in a worker): :func:`load_agent`'s argument."""

    def seat(self, edition: str, players: int) -> Seat: ...


@dataclass(frozen=True, slots=True)
class BotAgent:
    """A :mod:`luz.bots` spec (any of the arena's): a new bot each game, deciding from its seat's view."""

    spec: str

    def seat(self, edition: str, players: int) -> Seat:
        return _BotSeat(make_arena_bot(self.spec))


@dataclass(slots=True)
class _BotSeat:
    bot: Any

    def act(self, table: Table, seat: int, rng: random.Random) -> int:
        return action_id(choose(self.bot, table.game, seat, rng))


@dataclass(frozen=True, slots=True)
class PolicyAgent:
    """A policy over the Gymnasium observation (:class:`~luz.research.gym.LuzEnv`'s ``observation`` tensor, with
    perfect recall or the view alone, and its ``action_mask``), asked once per decision; it gets no generator, so
    a policy that draws its own random numbers makes results that do not reproduce."""

    spec: str
    policy: Policy
    perfect_recall: bool

    def seat(self, edition: str, players: int) -> Seat:
        rules = get_edition(edition)
        encoder = Encoder(rules, players, rules.options(players), self.perfect_recall)
        return _PolicySeat(self.spec, self.policy, encoder)


@dataclass(slots=True)
class _PolicySeat:
    spec: str
    policy: Policy
    encoder: Encoder

    def act(self, table: Table, seat: int, rng: random.Random) -> int:
        observation = table.observation(self.encoder, seat)
        mask = observation["action_mask"]
        chosen = self.policy(observation["observation"], mask)  # type: ignore[arg-type]
        try:
            move = int(chosen)
        except (TypeError, ValueError):
            raise BenchmarkError(f"agent {self.spec} returned {chosen!r}, not an action id") from None
        if not 0 <= move < len(mask) or not mask[move]:
            legal = np.flatnonzero(mask).tolist()
            raise BenchmarkError(f"agent {self.spec} chose action id {move}, not one of the legal {legal}")
        return move


def load_agent(spec: str) -> Agent:
    """The agent a spec names: ``policy:MODULE:FUNCTION`` (the perfect-recall tensor) or
    ``policy-view:MODULE:FUNCTION`` (the view alone) for a callable ``FUNCTION(observation, action_mask) -> id``;
    ``sb3:PATH`` (or a path ending in ``.zip``) for a saved ``MaskablePPO``; anything else a bot spec."""
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    if kind in ("policy", "policy-view"):
        return PolicyAgent(spec, _import_policy(rest), perfect_recall=kind == "policy")
    if kind == "sb3" or spec.endswith(".zip"):
        return _load_sb3(spec, Path(rest if kind == "sb3" else spec))
    try:
        make_arena_bot(spec)
    except LuzError as error:
        raise BenchmarkError(f"{error} (or policy:MODULE:FUNCTION, policy-view:..., sb3:MODEL.zip)") from None
    return BotAgent(spec)


def _import_policy(path: str) -> Policy:
    module_name, _, attribute = path.rpartition(":")
    if not module_name or not attribute:
        raise BenchmarkError(f"a policy is policy:MODULE:FUNCTION, not policy:{path}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BenchmarkError(f"cannot import {module_name!r}: {error}") from None
    policy = getattr(module, attribute, None)
    if not callable(policy):
        raise BenchmarkError(f"{module_name} has no callable {attribute!r}")
    return policy  # type: ignore[no-any-return]


def _load_sb3(spec: str, path: Path) -> Agent:
    if not path.is_file():
        raise BenchmarkError(f"no model file {str(path)!r}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise BenchmarkError("an SB3 agent needs the research extra: pip install 'luz-game[research]'") from None
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as error:  # SB3 raises anything for a file that is not its model
        raise BenchmarkError(f"{path} is not a saved MaskablePPO model ({type(error).__name__})") from None
    return SB3Agent(spec, model)


@dataclass(frozen=True, slots=True)
class SB3Agent:
    """A saved ``MaskablePPO``, playing its most likely legal action; whether it sees the perfect-recall tensor
    or the view alone follows from its input size (``luz train-ppo`` trains on the view alone)."""

    spec: str
    model: Any

    def seat(self, edition: str, players: int) -> Seat:
        rules = get_edition(edition)
        options = rules.options(players)
        inputs = int(self.model.observation_space.shape[0])
        for recall in (True, False):
            encoder = Encoder(rules, players, options, recall)
            if encoder.size == inputs:
                return _PolicySeat(self.spec, self._predict, encoder)
        sizes = [Encoder(rules, players, options, recall).size for recall in (True, False)]
        raise BenchmarkError(
            f"the model takes {inputs} inputs; {edition}/{players} gives {sizes[0]} (perfect recall) or {sizes[1]} "
            "(view alone): choose its table with --tables"
        )

    def _predict(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        action, _ = self.model.predict(observation, deterministic=True, action_masks=mask.astype(bool))
        return int(action)


@functools.cache
def _cached_agent(spec: str) -> Agent:
    """One load per process (a worker loads the model or imports the policy once)."""
    return load_agent(spec)


# -- games ---------------------------------------------------------------------------------------------------


def play(benchmark: Benchmark, agent: Agent, task: tuple[int, int, int, int]) -> GameRecord:
    """Game ``(table, member, deal set, rotation)``: the agent at seat ``rotation`` (its place in the order
    agent, opponents... rotated), each seat's generator and the cards as in the arena's game of that key."""
    t, m, deal_set, rotation = task
    edition, players = benchmark.tables[t]
    order = (agent.spec, *benchmark.pool[m].opponents(players))
    config = ArenaConfig(order, edition, players, benchmark.deal_sets, benchmark.seed)
    seats = tuple(order[(seat - rotation) % players] for seat in range(players))
    mine = rotation % players
    bots = {seat: make_arena_bot(spec) for seat, spec in enumerate(seats) if seat != mine}
    player = agent.seat(edition, players)
    rngs = [random.Random(f"luz-arena:{benchmark.seed}:{deal_set}:{rotation}:{seat}") for seat in range(players)]
    seconds: list[list[float]] = [[] for _ in range(players)]
    table = Table(Game.new(edition, players, seed=config.game_seed(deal_set)))
    game = table.game
    while (seat := game.current_player) is not None:
        start = time.perf_counter()
        if seat == mine:
            move = player.act(table, seat, rngs[seat])
        else:
            move = action_id(choose(bots[seat], game, seat, rngs[seat]))
        seconds[seat].append(round(time.perf_counter() - start, 6))
        table.apply_id(move)
    outcome = game.outcome()
    assert outcome is not None
    results = tuple(result.to_json() for result in game.results)
    return GameRecord(deal_set, rotation, seats, outcome.totals, outcome.ranking, results, tuple(map(tuple, seconds)))


def _play_in_worker(benchmark: Benchmark, spec: str, task: tuple[int, int, int, int]) -> GameRecord:
    return play(benchmark, _cached_agent(spec), task)


def run(
    benchmark: Benchmark,
    agent: Agent,
    workers: int = 1,
    progress: Callable[[GameRecord], None] | None = None,
) -> list[GameRecord]:
    """Every game of the benchmark, in report order (:meth:`Benchmark.tasks`), in this process or in ``workers``
    processes (each loads the agent from its spec)."""
    if workers < 1:
        raise BenchmarkError(f"workers must be at least 1, not {workers}")
    tasks = benchmark.tasks()
    records: list[GameRecord] = []
    if workers == 1:
        for task in tasks:
            records.append(play(benchmark, agent, task))
            if progress is not None:
                progress(records[-1])
        return records
    chunk = max(1, len(tasks) // (8 * workers))
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        games = pool.map(
            _play_in_worker, itertools.repeat(benchmark), itertools.repeat(agent.spec), tasks, chunksize=chunk
        )
        for record in games:
            records.append(record)
            if progress is not None:
                progress(record)
    return records


# -- figures -------------------------------------------------------------------------------------------------


def margins(benchmark: Benchmark, records: Sequence[GameRecord]) -> npt.NDArray[np.float64]:
    """``margin[t, m, d]``: the agent's total minus its opponents' mean total, averaged over the rotations of deal
    set ``d`` against member ``m`` on table ``t``."""
    margin = np.zeros((len(benchmark.tables), len(benchmark.pool), benchmark.deal_sets))
    games = np.zeros_like(margin)
    for (t, m, d, _), record in zip(benchmark.tasks(), records, strict=True):
        players = len(record.seats)
        mine = record.rotation % players
        others = [total for seat, total in enumerate(record.totals) if seat != mine]
        margin[t, m, d] += record.totals[mine] - sum(others) / len(others)
        games[t, m, d] += 1
    return margin / games


def summarise(benchmark: Benchmark, spec: str, records: Sequence[GameRecord]) -> dict[str, Any]:
    """The result: the headline margin, per table (and per member on it), per member (over the tables); every
    interval over the deal sets."""
    margin = margins(benchmark, records)

    def figure(values: npt.NDArray[np.float64]) -> Interval:
        found = interval(values, benchmark.seed)
        return {"mean": round(found["mean"], 3), "ci95": [round(x, 3) for x in found["ci95"]]}

    tables = {
        table_key(table): {
            "margin": figure(margin[t].mean(axis=0)),
            "members": {member.name: figure(margin[t, m]) for m, member in enumerate(benchmark.pool)},
        }
        for t, table in enumerate(benchmark.tables)
    }
    return {
        "benchmark": benchmark.name,
        "agent": spec,
        "definition": benchmark.to_json(),
        "metric": "points margin per game: the agent's total minus its opponents' mean total",
        "headline": figure(margin.mean(axis=(0, 1))),
        "tables": tables,
        "members": {member.name: figure(margin[:, m].mean(axis=0)) for m, member in enumerate(benchmark.pool)},
        "games": len(records),
    }


def cpu_model() -> str:
    """The processor's name (Linux's ``/proc/cpuinfo``), else what :mod:`platform` knows."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.system()


def compute(started: float, cpu: float, load: tuple[float, float, float], workers: int) -> dict[str, Any]:
    """What a run cost: CPU seconds (this process and its workers), wall seconds, the machine and its load."""
    times = os.times()
    return {
        "cpu_seconds": round(times.user + times.system + times.children_user + times.children_system - cpu, 1),
        "wall_seconds": round(time.monotonic() - started, 1),
        "workers": workers,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {cpu_model()}",
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def evaluate(
    spec: str, benchmark: Benchmark, workers: int = 1, progress: Callable[[GameRecord], None] | None = None
) -> dict[str, Any]:
    """Load the agent ``spec``, play the benchmark, and return its result with its ``compute``."""
    agent = load_agent(spec)
    for edition, players in benchmark.tables:
        agent.seat(edition, players)  # refuses a table the agent cannot play before any game
    started, load = time.monotonic(), os.getloadavg()
    times = os.times()
    cpu = times.user + times.system + times.children_user + times.children_system
    records = run(benchmark, agent, workers, progress)
    return {**summarise(benchmark, spec, records), "compute": compute(started, cpu, load, workers)}


# -- leaderboard ---------------------------------------------------------------------------------------------


def format_figure(figure: dict[str, Any]) -> str:
    """``-12.3 [-15.0, -9.8]``: a mean and its 95% interval, to a tenth of a point (never ``-0.0``)."""
    mean, low, high = (round(x, 1) + 0.0 for x in (figure["mean"], *figure["ci95"]))
    return f"{mean:+.1f} [{low:+.1f}, {high:+.1f}]"


def leaderboard_header(result: dict[str, Any]) -> str:
    """The Markdown table header of a benchmark's leaderboard: agent, headline, one column per table."""
    tables = list(result["tables"])
    return "\n".join(
        [
            "| agent | margin [95% CI] | " + " | ".join(tables) + " | games | CPU s |",
            "|---|---|" + "---|" * len(tables) + "---|---|",
        ]
    )


def leaderboard_row(result: dict[str, Any]) -> str:
    """The result as one Markdown leaderboard row (under :func:`leaderboard_header`)."""
    cells = [f"`{result['agent']}`", f"**{format_figure(result['headline'])}**"]
    cells += [format_figure(table["margin"]) for table in result["tables"].values()]
    cells += [str(result["games"]), f"{result['compute']['cpu_seconds']:.1f}" if "compute" in result else "-"]
    return "| " + " | ".join(cells) + " |"


def markdown(result: dict[str, Any]) -> str:
    """A result for people: the leaderboard row under its header, then the margin against each member."""
    definition = result["definition"]
    members = list(result["members"])
    lines = [
        f"# {result['benchmark']}: {result['agent']}",
        "",
        f"{len(definition['tables'])} tables, {definition['deal_sets']} duplicate deal sets each in every rotation, "
        f"seed {definition['seed']}, against: "
        + "; ".join(f"{name} ({', '.join(specs)})" for name, specs in definition["pool"].items())
        + f" ({result['games']} games).",
        "",
        leaderboard_header(result),
        leaderboard_row(result),
        "",
        "| table | " + " | ".join(members) + " |",
        "|---|" + "---|" * len(members),
    ]
    for key, table in result["tables"].items():
        lines.append(f"| {key} | " + " | ".join(format_figure(table["members"][m]) for m in members) + " |")
    lines.append("| **all tables** | " + " | ".join(format_figure(result["members"][m]) for m in members) + " |")
    lines += [
        "",
        "Margin: the agent's points per game minus its opponents' mean, per deal set the mean over the rotations, "
        "tables and members. Intervals: percentile bootstrap over deal sets.",
    ]
    return "\n".join(lines) + "\n"


# -- the pool's version --------------------------------------------------------------------------------------

FINGERPRINT_TABLES = (("iello-2024", 4), ("korokorodou-2014", 3))
FINGERPRINT_DECISIONS = 8
"""The pool's fingerprint asks each bot of the pool at the first decisions of one game on each of these tables."""


def pool_fingerprint(benchmark: Benchmark) -> str:
    """A digest of the decisions of every bot spec of the pool at fixed positions: the first decisions of a
    game of heuristics on each of :data:`FINGERPRINT_TABLES`, every bot with a generator seeded from the
    position. A change to a bot's play changes it, and then the benchmark's version must change."""
    import hashlib

    specs = sorted({spec for member in benchmark.pool for spec in member.specs})
    chosen: list[str] = []
    for edition, players in FINGERPRINT_TABLES:
        game = Game.new(edition, players, seed=benchmark.seed)
        heuristic = make_arena_bot("heuristic")
        for decision in range(FINGERPRINT_DECISIONS):
            seat = game.current_player
            assert seat is not None
            for spec in specs:
                rng = random.Random(f"luz-bench-fingerprint:{edition}:{players}:{decision}:{spec}")
                chosen.append(f"{spec}:{action_id(choose(make_arena_bot(spec), game, seat, rng))}")
            game.apply(choose(heuristic, game, seat, random.Random(decision)), seat)
    return hashlib.sha256(" ".join(chosen).encode()).hexdigest()[:16]
