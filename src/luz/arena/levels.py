"""Levels against the field: several bots under test, each against the same field members, on one rating scale.

Every bot under test plays the gauntlet of :mod:`luz.arena.field` against the same members (the field without any
of the bots under test), on the same duplicate deal sets, in every rotation. The games are played interleaved, by
deal set, then member, then rotation, then bot, so that no bot's games all come last, and a time limit keeps the
deal sets played in full by every bot against every member. Every bot and every member is then rated on one
OpenSkill (Plackett-Luce) scale from all the games pooled, taken in that order; each bot's margin against the
field comes from :func:`~luz.arena.field.summarise_field`, its interval clustered by deal set, and the difference
of two bots' margins is paired by deal set (the same deals against the same members).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from luz.engine import DEFAULT_EDITION

from .core import ArenaError, GameRecord
from .field import FieldConfig, Member, format_margin, member_margins, play_tables, summarise_field
from .stats import interval, ratings


@dataclass(frozen=True, slots=True)
class LevelsConfig:
    """Bots under test against the same field members: the table, how many deal sets, the seed, the field's name."""

    bots: tuple[str, ...]
    members: tuple[Member, ...]
    edition: str = DEFAULT_EDITION
    players: int = 4
    deal_sets: int = 10
    seed: int = 0
    field: str | None = None
    """The name of the field the members come from (reports only)."""

    def gauntlets(self) -> list[FieldConfig]:
        """One gauntlet per bot under test, all with the same members, deal sets and seed."""
        return [
            FieldConfig(bot, self.members, self.edition, self.players, self.deal_sets, self.seed) for bot in self.bots
        ]

    def check(self) -> None:
        """Refuse what cannot be played, saying why, before any game starts."""
        if not self.bots:
            raise ArenaError("give at least one bot under test")
        repeated = [bot for b, bot in enumerate(self.bots) if bot in self.bots[:b]]
        if repeated:
            raise ArenaError(f"the bot {repeated[0]!r} is given twice")
        if not self.members:
            raise ArenaError("no member of the field is left once the bots under test are taken out")
        for gauntlet in self.gauntlets():
            gauntlet.check()

    def tasks(self) -> list[tuple[int, int, int, int]]:
        """Every game as ``(deal set, member, rotation, bot)``, in the order played and rated."""
        return [
            (d, m, r, b)
            for d in range(self.deal_sets)
            for m in range(len(self.members))
            for r in range(self.players)
            for b in range(len(self.bots))
        ]


def run_levels(
    config: LevelsConfig,
    workers: int | None = None,
    progress: Callable[[GameRecord], None] | None = None,
    minutes: float | None = None,
) -> list[dict[int, list[GameRecord]]]:
    """Per bot under test, its games by member index (as :func:`~luz.arena.field.run_field` gives them); after
    ``minutes`` no deal set starts, and only the deal sets played in full by every bot and member are kept."""
    config.check()
    members = len(config.members)
    tables = [table for gauntlet in config.gauntlets() for table in gauntlet.tables()]
    tasks = [(b * members + m, d, r) for d, m, r, b in config.tasks()]
    games = play_tables(tables, tasks, workers, progress, minutes)
    return [{m: games[b * members + m] for m in range(members)} for b in range(len(config.bots))]


def pooled(config: LevelsConfig, games: list[dict[int, list[GameRecord]]]) -> list[GameRecord]:
    """Every game, in the order played (:meth:`LevelsConfig.tasks`), the deal sets left out by a time limit aside."""
    found = {
        (b, m, r.deal_set, r.rotation): r
        for b, by_member in enumerate(games)
        for m, rs in by_member.items()
        for r in rs
    }
    return [found[b, m, d, r] for d, m, r, b in config.tasks() if (b, m, d, r) in found]


def summarise_levels(config: LevelsConfig, games: list[dict[int, list[GameRecord]]]) -> dict[str, Any]:
    """Per bot under test its OpenSkill rating and its margins against the field (overall, over the held-out kinds,
    per member); per member its rating, on the same scale; per pair of bots (each against every bot before it in
    the order given) the difference of their margins against the field, paired by deal set."""
    gauntlets = config.gauntlets()
    fields = [summarise_field(gauntlet, games[b]) for b, gauntlet in enumerate(gauntlets)]
    deal_sets = fields[0]["config"]["deal_sets"]
    overall = [member_margins(gauntlet, games[b], deal_sets).mean(axis=0) for b, gauntlet in enumerate(gauntlets)]
    pairs = []
    for a, b in itertools.combinations(range(len(config.bots)), 2):
        difference = interval(overall[b] - overall[a], config.seed)
        low, high = difference["ci95"]
        pairs.append(
            {"bot": config.bots[b], "against": config.bots[a], **difference, "significant": low > 0 or high < 0}
        )
    records = pooled(config, games)
    rated = ratings([*config.bots, *(member.spec for member in config.members)], records)
    return {
        "config": {
            "bots": list(config.bots),
            "field": config.field,
            "members": [{"kind": m.kind, "spec": m.spec, "held_out": m.held_out} for m in config.members],
            "edition": config.edition,
            "players": config.players,
            "deal_sets": deal_sets,
            "games_per_bot": fields[0]["config"]["games"],
            "games": len(records),
            "seed": config.seed,
        },
        "bots": [
            {
                "bot": bot,
                "openskill": rated[bot],
                "overall": field["overall"],
                "held_out": field["held_out"],
                "members": field["members"],
            }
            for bot, field in zip(config.bots, fields, strict=True)
        ],
        "members": [
            {"kind": m.kind, "spec": m.spec, "held_out": m.held_out, "openskill": rated[m.spec]} for m in config.members
        ],
        "pairs": pairs,
    }


def levels_markdown(summary: dict[str, Any]) -> str:
    """The levels as Markdown: the bots under test with their ratings and margins, the margin against each member,
    and the members' ratings on the same scale."""
    config = summary["config"]
    one = config["deal_sets"] < 2
    held = any(m["held_out"] for m in config["members"])
    field = f"the {config['field']} field" if config["field"] else "the field"
    members = ", ".join(f"{m['kind']} ({m['spec']})" for m in config["members"])

    def rating(openskill: dict[str, float]) -> str:
        return f"{openskill['ordinal']:.1f} | {openskill['mu']:.1f} / {openskill['sigma']:.1f}"

    lines = [
        f"# Levels against the field: {', '.join(config['bots'])}",
        "",
        f"{config['edition']}, {config['players']} players, seed {config['seed']}: every bot under test met the same "
        f"{len(config['members'])} members of {field} (the field without the bots under test: {members}), on the "
        f"same {config['deal_sets']} duplicate deal sets, in every rotation ({config['games_per_bot']} games a bot, "
        f"{config['games']} in all).",
        "",
        "| bot | rating (ordinal) | mu / sigma | margin against the field [95% CI] |"
        + (" held-out kinds only |" if held else ""),
        "|---|---|---|---|" + ("---|" if held else ""),
    ]
    for bot in summary["bots"]:
        row = f"| {bot['bot']} | {rating(bot['openskill'])} | {format_margin(bot['overall'], one)} |"
        lines.append(row + (f" {format_margin(bot['held_out'], one)} |" if held else ""))
    if summary["pairs"]:
        lines += [
            "",
            "| bot | against | difference of their margins against the field [95% CI] | CI excludes 0 |",
            "|---|---|---|---|",
        ]
        for pair in summary["pairs"]:
            lines.append(
                f"| {pair['bot']} | {pair['against']} | {format_margin(pair, one)} "
                f"| {'yes' if pair['significant'] else 'no'} |"
            )
    lines += [
        "",
        "Margin per game against each member:",
        "",
        "| bot | " + " | ".join(m["kind"] for m in config["members"]) + " |",
        "|---|" + "---|" * len(config["members"]),
    ]
    for bot in summary["bots"]:
        lines.append(f"| {bot['bot']} | " + " | ".join(format_margin(m, one) for m in bot["members"]) + " |")
    lines += [
        "",
        "The members on the same scale:",
        "",
        "| member | spec | held out of tuning | rating (ordinal) | mu / sigma |",
        "|---|---|---|---|---|",
    ]
    for member in summary["members"]:
        lines.append(
            f"| {member['kind']} | {member['spec']} | {'yes' if member['held_out'] else 'no'} "
            f"| {rating(member['openskill'])} |"
        )
    lines += [
        "",
        "Rating: OpenSkill (Plackett-Luce) from every game's ranking, all the games pooled (by deal set, then member, "
        "then rotation, then bot), every bot and member on one scale; the ordinal is mu - 3 sigma. Margin: the bot's "
        "mean score per game minus the mean of its opponents', per deal set; against the field: the mean over the "
        "members; the difference of two bots' margins is taken deal set by deal set (the same deals, the same "
        "members). Intervals: percentile bootstrap over deal sets.",
    ]
    return "\n".join(lines) + "\n"
