"""The ``luz`` command and its ``bench`` group, on which each module of the package registers its commands."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="luz",
    help="LUZ, the trick-taking game in which you never see the values of your own cards.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks (speed figures as ratios against a reference in the same run).")
app.add_typer(bench_app, name="bench")
