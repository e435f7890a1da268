"""A gauntlet: the bot under test against a field of opponent kinds, on the same duplicate deal sets.

For each member of the field the table is the bot under test at one seat and that member at every other seat;
every table is played on the same deal sets (the game of deal set ``d`` is seeded from ``(seed, d)`` whatever the
member), in every rotation. Against a member, a deal set's margin is the bot's mean score minus the mean score of
the member's seats; the overall margin of a deal set is the mean of its margins over the members. Means and 95%
intervals come from a percentile bootstrap over deal sets, so each interval is clustered by deal set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from luz.engine import DEFAULT_EDITION

from .core import ArenaConfig, ArenaError, GameRecord, play_game
from .stats import interval


@dataclass(frozen=True, slots=True)
class Member:
    """One kind of opponent: its label, its bot spec (``"self"``: a copy of the bot under test), and whether it
    is held out of everything the bots were tuned on."""

    kind: str
    spec: str
    held_out: bool


FIELDS: dict[str, tuple[Member, ...]] = {
    "quick": (
        Member("heuristic", "heuristic", False),
        Member("over-bidder", "heuristic:bias=1", False),
        Member("under-bidder", "heuristic:bias=-1", False),
        Member("never safety", "heuristic:safety=-1", False),
        Member("always safety", "heuristic:safety=1", False),
        Member("greedy", "heuristic:greedy=1", False),
        Member("noisy", "heuristic:noise=0.2", True),
        Member("random", "random", False),
        Member("strong (today's)", "strong", True),
    ),
}
"""The named fields. ``quick`` has every kind but the search anchor; ``full`` adds OpenSpiel's ISMCTS with the
heuristic's rollouts (300 simulations a decision: about 2 s on a loaded core). Held out of tuning: ``noisy`` (the
adaptive model's family has no noisy heuristic), today's ``strong`` and the ISMCTS anchor; the other kinds are
the adaptive bot's policy family, whose result table (:data:`luz.bots.adaptive.RESULTS`) was measured on them."""
FIELDS["full"] = (*FIELDS["quick"], Member("ismcts (heuristic rollouts)", "openspiel-ismcts-h", True))
FIELDS["fast"] = tuple(member for member in FIELDS["quick"] if member.spec != "strong")
"""``fast``: the ``quick`` field without today's strong (no search at the table), for many deal sets of a fast
bot, such as the learned policy's learning curve."""
FIELDS["outside"] = (
    Member("pimc (no opponent model)", "pimc", True),
    Member("counter (rule-based)", "counter", True),
)
"""``outside``: the outside-style players of :mod:`luz.bots.outside`, written apart from luz's bots and never
tuned on: a table of opponents that no bot of ours models (issue 35's "tables it never saw")."""


@dataclass(frozen=True, slots=True)
class FieldConfig:
    """A gauntlet: the bot under test, the field's members, the table, how many deal sets, the seed."""

    bot: str
    members: tuple[Member, ...]
    edition: str = DEFAULT_EDITION
    players: int = 4
    deal_sets: int = 10
    seed: int = 0

    def tables(self) -> list[ArenaConfig]:
        """One arena per member: the bot under test at the first seat, the member at the others."""
        configs = []
        for member in self.members:
            if member.spec == self.bot:
                raise ArenaError(f"the field's {member.kind!r} is the bot under test itself ({self.bot})")
            bots = (self.bot, *[member.spec] * (self.players - 1))
            configs.append(ArenaConfig(bots, self.edition, self.players, self.deal_sets, self.seed))
        return configs

    def check(self) -> None:
        for config in self.tables():
            config.check()


def field_members(name: str, *bots: str) -> tuple[Member, ...]:
    """The members of the named field but any of ``bots`` (the bots under test); :class:`ArenaError` naming the
    fields otherwise."""
    try:
        return tuple(member for member in FIELDS[name] if member.spec not in bots)
    except KeyError:
        raise ArenaError(f"unknown field {name!r}; fields are: {', '.join(FIELDS)}") from None


def _play(configs: Sequence[ArenaConfig], task: tuple[int, int, int]) -> tuple[int, GameRecord]:
    table, deal_set, rotation = task
    return table, play_game(configs[table], deal_set, rotation)


def play_tables(
    configs: Sequence[ArenaConfig],
    tasks: Sequence[tuple[int, int, int]],
    workers: int | None = None,
    progress: Callable[[GameRecord], None] | None = None,
    minutes: float | None = None,
) -> dict[int, list[GameRecord]]:
    """Play ``tasks``, each ``(table, deal set, rotation)`` of ``configs[table]``, ordered by deal set: every
    table's games (by table index), sorted by deal set and rotation. After ``minutes`` no deal set starts, and only
    the first deal sets played in full at every table are kept."""
    workers = (os.cpu_count() or 1) if workers is None else workers
    deadline = None if minutes is None else time.monotonic() + 60 * minutes

    def scheduled() -> Iterator[tuple[int, int, int]]:
        previous = 0
        for task in tasks:
            if task[1] != previous and deadline is not None and time.monotonic() > deadline:
                return
            previous = task[1]
            yield task

    games: dict[int, list[GameRecord]] = {t: [] for t in range(len(configs))}
    results = (
        (_play(configs, task) for task in scheduled()) if workers == 1 else _in_processes(configs, scheduled(), workers)
    )
    for table, record in results:
        games[table].append(record)
        if progress is not None:
            progress(record)
    complete = min(
        next(
            (
                d
                for d in range(configs[t].deal_sets)
                if sum(r.deal_set == d for r in records) < configs[t].games_per_set()
            ),
            configs[t].deal_sets,
        )
        for t, records in games.items()
    )
    return {
        t: sorted((r for r in rs if r.deal_set < complete), key=lambda r: (r.deal_set, r.rotation))
        for t, rs in games.items()
    }


def run_field(
    field: FieldConfig,
    workers: int | None = None,
    progress: Callable[[GameRecord], None] | None = None,
    minutes: float | None = None,
) -> dict[int, list[GameRecord]]:
    """Every member's games (by member index), deal set by deal set; after ``minutes`` no deal set starts, and
    only the deal sets played in full by every member are kept."""
    field.check()
    configs = field.tables()
    tasks = [(m, d, r) for d in range(field.deal_sets) for m in range(len(configs)) for r in range(field.players)]
    return play_tables(configs, tasks, workers, progress, minutes)


def _in_processes(
    configs: Sequence[ArenaConfig], tasks: Iterator[tuple[int, int, int]], workers: int
) -> Iterator[tuple[int, GameRecord]]:
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        running: set[Future[tuple[int, GameRecord]]] = set()
        while True:
            while len(running) < 2 * workers and (task := next(tasks, None)) is not None:
                running.add(pool.submit(_play, configs, task))
            if not running:
                return
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


def margins(field: FieldConfig, records: list[GameRecord], deal_sets: int) -> np.ndarray:
    """``margin[d]``: the bot under test's mean score minus its opponents' mean score in deal set ``d``."""
    mine, theirs = np.zeros(deal_sets), np.zeros(deal_sets)
    for record in records:
        for seat, spec in enumerate(record.seats):
            if spec == field.bot:
                mine[record.deal_set] += record.totals[seat] / field.players
            else:
                theirs[record.deal_set] += record.totals[seat] / (field.players * (field.players - 1))
    return mine - theirs


def member_margins(field: FieldConfig, games: dict[int, list[GameRecord]], deal_sets: int) -> np.ndarray:
    """``margin[m, d]``: the bot under test's margin against member ``m`` in deal set ``d`` (the mean over the
    members is the deal set's overall margin)."""
    return np.array([margins(field, games[m], deal_sets) for m in range(len(field.members))])


def summarise_field(field: FieldConfig, games: dict[int, list[GameRecord]]) -> dict[str, Any]:
    """Per member, overall, and over the members held out of tuning only (``held_out``; ``None`` when there are
    none): the mean margin per game with its 95% interval clustered by deal set."""
    deal_sets = len({r.deal_set for r in games[0]}) if games[0] else 0
    if not deal_sets:
        raise ArenaError("no deal set was played in full")
    by_member = member_margins(field, games, deal_sets)
    members = []
    for m, member in enumerate(field.members):
        figure = interval(by_member[m], field.seed)
        made = _made_rate(games[m], field.bot, field.edition)
        members.append({"kind": member.kind, "spec": member.spec, "held_out": member.held_out, **figure, **made})
    overall = interval(by_member.mean(axis=0), field.seed)
    held = [m for m, member in enumerate(field.members) if member.held_out]
    held_out = interval(by_member[held].mean(axis=0), field.seed) if held else None
    return {
        "config": {
            "bot": field.bot,
            "edition": field.edition,
            "players": field.players,
            "deal_sets": deal_sets,
            "games": sum(len(g) for g in games.values()),
            "seed": field.seed,
        },
        "members": members,
        "overall": overall,
        "held_out": held_out,
    }


def _made_rate(records: list[GameRecord], bot: str, edition: str) -> dict[str, float]:
    from luz.engine import get_edition

    rules = get_edition(edition)
    made = exact = deals = 0
    for record in records:
        seat = record.seats.index(bot)
        for deal in record.deals:
            bid, safe, tricks = deal["bids"][seat], deal["safety"][seat], deal["tricks"][seat]
            deals += 1
            made += rules.made(bid, safe, tricks)
            exact += tricks == bid
    return {"made_rate": made / deals, "exact_rate": exact / deals}


def format_margin(figure: dict[str, Any], one_deal_set: bool) -> str:
    """A margin and its 95% interval as ``+1.2 [-0.3, +2.8]`` (one deal set: no interval)."""
    low, high = figure["ci95"]
    return f"{figure['mean']:+.1f} " + ("(one deal set: no interval)" if one_deal_set else f"[{low:+.1f}, {high:+.1f}]")


def field_markdown(summary: dict[str, Any]) -> str:
    """The gauntlet as Markdown: one row per member, then the overall margin, then over the held-out kinds."""
    config = summary["config"]
    lines = [
        f"# Field: {config['bot']}",
        "",
        f"{config['edition']}, {config['players']} players, {config['deal_sets']} duplicate deal sets against each "
        f"member ({config['games']} games), seed {config['seed']}.",
        "",
        "| opponent kind | spec | held out of tuning | margin per game [95% CI] | made rate | exact rate |",
        "|---|---|---|---|---|---|",
    ]
    one = config["deal_sets"] < 2

    def margin(figure: dict[str, Any]) -> str:
        return format_margin(figure, one)

    for m in summary["members"]:
        lines.append(
            f"| {m['kind']} | {m['spec']} | {'yes' if m['held_out'] else 'no'} | {margin(m)} "
            f"| {100 * m['made_rate']:.1f}% | {100 * m['exact_rate']:.1f}% |"
        )
    lines.append(f"| **overall** | | | **{margin(summary['overall'])}** | | |")
    if summary.get("held_out") is not None:
        lines.append(f"| **overall, held-out kinds only** | | yes | **{margin(summary['held_out'])}** | | |")
    lines += [
        "",
        "Margin: the bot's mean score per game minus the mean of its opponents' (all seats but its own), per deal "
        "set; overall: the mean over the members of each deal set's margins (held-out kinds only: over the members "
        "held out of tuning). Intervals: percentile bootstrap over deal sets.",
    ]
    return "\n".join(lines) + "\n"
