"""The ``luz`` command line: score-keeper, replay, views and reviews of records, terminal play, benchmarks."""

from __future__ import annotations

import typer

# Each module registers its commands on ``app`` / ``bench_app`` (apps.py).
from . import arena, backup, bench, evaluate, export, play, records, review, score, serve, train  # noqa: F401
from .apps import app

__all__ = ["app", "main"]


def main() -> None:
    """Run the command line; a usage error is one line on stderr and exit status 2 (no box, no traceback)."""
    import sys

    try:
        from typer._click import exceptions as errors  # typer's own copy of click (typer >= 0.24)
    except ImportError:
        from click import exceptions as errors  # type: ignore[no-redef]  # the same module, from older typer

    try:
        code = app(standalone_mode=False)
    except errors.NoArgsIsHelpError as error:
        typer.echo(error.ctx.get_help() if error.ctx else error.format_message(), err=True)
        sys.exit(2)
    except errors.UsageError as error:
        command = error.ctx.command_path if error.ctx else "luz"
        typer.echo(f"{command}: {error.format_message()} (see {command} --help)", err=True)
        sys.exit(2)
    except errors.ClickException as error:
        typer.echo(f"luz: {error.format_message()}", err=True)
        sys.exit(error.exit_code)
    except typer.Abort:
        typer.echo("luz: aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
