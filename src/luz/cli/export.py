"""``luz export``: finished games of a server's database as JSON Lines of records (docs/RECORD.md)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime, time
from pathlib import Path

import typer

from .apps import app
from .extras import require


@app.command()
def export(
    since: str = typer.Option(..., help="First day to export (YYYY-MM-DD, UTC): games finished on or after it."),
    database_url: str | None = typer.Option(
        None, help="The server's database; default: $LUZ_DATABASE_URL, else the embedded SQLite file."
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="File to write (default: standard output)."),
) -> None:
    """Write every game finished since a day as one record per line, with the names the players chose."""
    require("server", "luz export")
    from luz.server.db import make_engine, migrate
    from luz.server.history import finished_games
    from luz.server.settings import Settings

    try:
        day = date.fromisoformat(since)
    except ValueError:
        typer.echo(f"error: --since must be a day as YYYY-MM-DD, not {since!r}", err=True)
        raise typer.Exit(2) from None
    engine = make_engine(Settings.from_env(database_url).database_url)
    try:
        migrate(engine)
        out = output.open("w", encoding="utf-8") if output else sys.stdout
        count = 0
        try:
            for record in finished_games(engine, datetime.combine(day, time(), tzinfo=UTC)):
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
                count += 1
        finally:
            if output:
                out.close()
    except Exception as error:  # an unreachable database, a file that cannot be written: one line, no traceback
        typer.echo(f"error: {type(error).__name__}: {' '.join(str(error).split())[:200]}", err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    if output:
        typer.echo(f"{count} games written to {output}", err=True)
