"""``luz backup`` and ``luz restore``: the server's embedded SQLite database copied while it runs, and put back."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .apps import app
from .extras import require

if TYPE_CHECKING:
    from luz.server.backup import Summary

DATABASE_URL = typer.Option(
    None, help="The server's database; default: $LUZ_DATABASE_URL, else the embedded SQLite file (as luz serve)."
)


def _fail(error: Exception) -> typer.Exit:
    typer.echo(f"error: {' '.join(str(error).split())}", err=True)
    return typer.Exit(2)


def _describe(summary: Summary) -> str:
    return (
        f"{summary.path}: {summary.tables} tables, {summary.games} games, {summary.actions} actions,"
        f" {summary.size_bytes / 1e6:.1f} MB, schema {summary.revision}, integrity ok"
    )


@app.command()
def backup(
    out: Path = typer.Argument(..., help="The backup file to write (replaced if it exists)."),
    database_url: str | None = DATABASE_URL,
) -> None:
    """Copy the server's SQLite database to OUT with SQLite's online backup API (safe while the server runs)."""
    require("server", "luz backup")
    from luz.server.backup import BackupError
    from luz.server.backup import backup as make_backup
    from luz.server.settings import Settings

    try:
        summary = make_backup(Settings.from_env(database_url).database_url, out)
    except BackupError as error:
        raise _fail(error) from None
    typer.echo(f"backup written to {_describe(summary)}")


@app.command()
def restore(
    backup_file: Path = typer.Argument(..., metavar="BACKUP", help="A file written by luz backup."),
    database_url: str | None = DATABASE_URL,
    force: bool = typer.Option(False, "--force", help="Replace an existing database (never one a server has open)."),
) -> None:
    """Put a backup back as the server's SQLite database (checked, migrated up as luz serve would); the server
    must be stopped."""
    require("server", "luz restore")
    from luz.server.backup import BackupError
    from luz.server.backup import restore as restore_backup
    from luz.server.settings import Settings

    try:
        summary = restore_backup(backup_file, Settings.from_env(database_url).database_url, force=force)
    except BackupError as error:
        raise _fail(error) from None
    typer.echo(f"restored {_describe(summary)}")
