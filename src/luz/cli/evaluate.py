"""``luz eval``: an agent on a named benchmark, reported as JSON and as a Markdown leaderboard row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from luz.engine import LuzError

from .apps import app
from .arena import games_progress


@app.command("eval")
def evaluate(
    agent: Annotated[
        str,
        typer.Argument(
            help="A bot spec (heuristic, strong:iters=64...), policy:MODULE:FUNCTION (a callable of the perfect-"
            "recall observation and the action mask; policy-view: for the view alone), or sb3:MODEL.zip."
        ),
    ],
    benchmark: Annotated[str, typer.Option(help="luz-bench-v1 or luz-bench-v1-lite.")] = "luz-bench-v1",
    tables: Annotated[
        str | None,
        typer.Option(help="Only these of its tables, EDITION/PLAYERS comma-separated (named in the result)."),
    ] = None,
    deal_sets: Annotated[
        int | None, typer.Option(help="Only the first N deal sets (named in the result: BENCHMARK@N).")
    ] = None,
    workers: Annotated[int, typer.Option(help="Processes playing the games.")] = 1,
    out: Annotated[Path | None, typer.Option(help="Also write the JSON result to this file.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON instead of Markdown.")] = False,
) -> None:
    """Play AGENT on a named benchmark: fixed duplicate deal sets, every rotation, a fixed opponent pool.

    Reports the mean points margin over the table (the agent's total minus its opponents' mean) with its 95%
    interval over deal sets, and per table and member; everything but the compute figures is the same on every
    run. The benchmarks are defined in docs/LEADERBOARD.md.
    """
    from luz.research.benchmark import benchmark_named, evaluate, markdown

    try:
        if workers < 1:
            raise typer.BadParameter(f"at least 1, not {workers}", param_hint="'--workers'")
        chosen = benchmark_named(benchmark).subset(tables.split(",") if tables is not None else None, deal_sets)
        console = Console(stderr=True)
        total = len(chosen.tasks())
        with games_progress(console, total, as_json) as advance:
            result = evaluate(agent, chosen, workers, advance)
    except LuzError as error:
        raise typer.BadParameter(str(error).splitlines()[0] if str(error) else type(error).__name__) from None
    text = json.dumps(result, indent=1)
    if out is not None:
        out.write_text(text + "\n")
    if as_json:
        typer.echo(text)
        return
    typer.echo(markdown(result))
