"""Arena reports: JSON (figures and every game), a Markdown summary and a PNG chart."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .core import GameRecord


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _ci(figure: dict[str, Any]) -> str:
    low, high = figure["ci95"]
    return f"{figure['mean']:+.1f} [{low:+.1f}, {high:+.1f}]"


def _orders(config: dict[str, Any]) -> str:
    orders = config.get("orders", [config["bots"]])
    if len(orders) == 1:
        return f" of the order {', '.join(orders[0])}"
    return f" of each of the {len(orders)} orders of the bots around the table"


def markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown: one table of bots, one of pairwise differences."""
    config = summary["config"]
    lines = [
        f"# Arena: {', '.join(config['bots'])}",
        "",
        f"{config['edition']}, {config['players']} players, {config['deal_sets']} duplicate deal sets "
        f"({config['distinct_deals']} distinct deals, each played in {config['players']} rotations"
        f"{_orders(config)}: {config['games']} games), seed {config['seed']}.",
        "",
        "| bot | mean score per game [95% CI] | win rate | made rate | exact rate | safety use | safety success "
        "| decision ms (mean / median / p95) | openskill ordinal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for spec, bot in summary["bots"].items():
        ms = bot["decision_ms"]
        lines.append(
            f"| {spec} | {_ci(bot['score'])} | {_pct(bot['win_rate'])} "
            f"| {_pct(bot['made_rate'])} | {_pct(bot['exact_rate'])} "
            f"| {_pct(bot['safety_rate'])} | {_pct(bot['safety_success'])} "
            f"| {ms['mean']:.1f} / {ms['median']:.1f} / {ms['p95']:.1f} | {summary['openskill'][spec]['ordinal']:.2f} |"
        )
    lines += ["", "| bot | against | mean difference per game [95% CI] | CI excludes 0 |", "|---|---|---|---|"]
    for pair in summary["pairs"]:
        lines.append(f"| {pair['bot']} | {pair['against']} | {_ci(pair)} | {'yes' if pair['significant'] else 'no'} |")
    lines += [
        "",
        "Intervals: percentile bootstrap over deal sets (each set's games resampled together). "
        "Made rate: deals where the bid was made (the tricks bid, or one more with the safety). "
        "Exact rate: deals where the tricks taken equal the bid, safety or not.",
    ]
    return "\n".join(lines) + "\n"


def chart(summary: dict[str, Any], path: Path) -> None:
    """A PNG: each bot's mean score per game with its 95% interval, its made rate and its exact rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = list(summary["bots"])
    bots = [summary["bots"][s] for s in specs]
    means = [b["score"]["mean"] for b in bots]
    errors = [[m - b["score"]["ci95"][0] for m, b in zip(means, bots, strict=True)]]
    errors.append([b["score"]["ci95"][1] - m for m, b in zip(means, bots, strict=True)])
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    left.bar(specs, means, yerr=errors, capsize=6, color="tab:blue")
    left.axhline(0, color="black", linewidth=0.8)
    left.set_title("mean score per game (95% CI)")
    positions = np.arange(len(specs))
    right.bar(positions - 0.2, [100 * b["made_rate"] for b in bots], width=0.4, color="tab:green", label="made")
    right.bar(positions + 0.2, [100 * b["exact_rate"] for b in bots], width=0.4, color="tab:olive", label="exact")
    right.set_xticks(positions, specs)
    right.set_ylim(0, 100)
    right.legend()
    right.set_title("bids made / tricks exactly the bid (%)")
    for axis in (left, right):
        axis.tick_params(axis="x", labelrotation=20)
    config = summary["config"]
    figure.suptitle(f"{config['edition']}, {config['players']} players, {config['deal_sets']} deal sets")
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_reports(summary: dict[str, Any], records: Sequence[GameRecord], out: Path) -> dict[str, Path]:
    """Write ``report.json`` (figures and games), ``report.md`` and ``report.png`` into ``out``; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "markdown": out / "report.md", "chart": out / "report.png"}
    data = {**summary, "games": [r.to_json() for r in records]}
    paths["json"].write_text(json.dumps(data, indent=1) + "\n")
    paths["markdown"].write_text(markdown(summary))
    chart(summary, paths["chart"])
    return paths
