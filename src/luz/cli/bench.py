"""``luz bench ...``: speed figures; ``--json`` prints them as one JSON object."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from luz.bench.beliefs import bench_beliefs
from luz.bench.engine import bench_engine

from . import bench_app


@bench_app.command("engine")
def engine(
    seconds: float = typer.Option(10.0, min=1.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random games."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Random complete deals per second, and the ratio against OpenSpiel's oh_hell when open_spiel is installed."""
    console = Console(stderr=True)
    report = bench_engine(seconds, seed, progress=None if as_json else lambda m: console.print(f"[dim]{m}[/dim]"))
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=report["unit"])
    table.add_column("table")
    table.add_column("deals/s", justify="right")
    for name, rate in report["luz"].items():
        table.add_row(f"luz {name}", f"{rate:,.0f}")
    if report["openspiel_oh_hell"] is None:
        table.add_row("OpenSpiel oh_hell/4", "not installed (pip install 'luz[openspiel]')")
    else:
        table.add_row("OpenSpiel oh_hell/4", f"{report['openspiel_oh_hell']:,.0f}")
    Console().print(table)
    if report["ratio"] is not None:
        Console().print(f"ratio luz {report['reference']} / oh_hell 4p: [bold]{report['ratio']:.2f}[/bold]")


@bench_app.command("beliefs")
def beliefs(
    seconds: float = typer.Option(8.0, min=1.0, help="Measuring time in all."),
    seed: int = typer.Option(0, help="Seed of the random positions."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object."),
) -> None:
    """Hidden worlds sampled per second and per-slot probability tables per second, on positions of random games."""
    report = bench_beliefs(seconds, seed)
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"beliefs over {report['positions']} positions of random games (one core)")
    table.add_column("figure")
    table.add_column("per second", justify="right")
    labels = {
        "worlds_per_s_batch": "worlds sampled (vectorised, 1,000 a call)",
        "worlds_per_s_single": "worlds sampled (one at a time)",
        "tables_per_s": "probability tables (floats)",
        "exact_tables_per_s": "probability tables (exact fractions)",
        "reference_shuffles_per_s": "reference: shuffles of the unseen values",
    }
    for key, label in labels.items():
        table.add_row(label, f"{report[key]:,.0f}")
    Console().print(table)
