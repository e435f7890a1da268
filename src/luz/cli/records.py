"""``luz replay`` and ``luz view``: check a game record and look at it from one seat."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from luz.engine import Game, LuzError, Phase, replay, view

from .apps import app

RECORD_ARG = typer.Argument(..., help="A game record (JSON, see docs/RECORD.md), or - for standard input.")


def fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 2."""
    typer.echo(f"luz: {message}", err=True)
    raise typer.Exit(2)


def read_text(path: str) -> str:
    """The text of ``path`` (``-``: standard input); a clear error for a missing or unreadable file."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        fail(f"cannot read {path}: {error.strerror if isinstance(error, OSError) else error}")


def load(path: str, upto: int | None = None) -> tuple[Game, dict[str, Any]]:
    """The game a record describes (replayed through the rules), and the record's data."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        fail(f"{path} is not JSON: {error}")
    except RecursionError:
        fail(f"{path} is not a record: its JSON is nested too deeply")
    except ValueError as error:  # e.g. an integer over Python's 4,300-digit limit
        fail(f"{path} is not a record: {error}")
    try:
        return replay(data, upto=upto), data
    except LuzError as error:
        fail(f"{path}: {error}")
    except RecursionError:
        fail(f"{path} is not a record: it is nested too deeply")


def summary(game: Game) -> dict[str, Any]:
    """The JSON summary printed by ``luz replay --json``."""
    standings = game.sheet.standings()
    report: dict[str, Any] = {
        "valid": True,
        "edition": game.edition.key,
        "players": game.players,
        "finished": game.phase is Phase.GAME_OVER,
        "actions": sum(len(a) for a in game.actions),
        "deals": [r.to_json() for r in game.results],
        "totals": list(standings.totals),
        "ranking": list(standings.ranking),
    }
    outcome = game.outcome()
    if outcome is not None:
        report["winner"] = outcome.winner
        report["tie_break"] = outcome.to_json()["tie_break"]
    return report


@app.command("replay")
def replay_command(
    record: str = RECORD_ARG,
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as one JSON object."),
) -> None:
    """Validate a game record by replaying every action through the rules, and print its outcome."""
    game, data = load(record)
    if as_json:
        typer.echo(json.dumps(summary(game)))
        return
    names = data.get("names") or [f"seat {s}" for s in range(game.players)]
    console = Console()
    table = Table(title=f"{game.edition.name}, {game.players} players")
    table.add_column("deal")
    table.add_column("first")
    for name in names:
        table.add_column(str(name), justify="right")
    for number, result in enumerate(game.results, 1):
        cells = [
            f"{b}{'+' if s else ''}/{t}: {p:+d}"
            for b, s, t, p in zip(result.bids, result.safety, result.tricks, result.scores, strict=True)
        ]
        table.add_row(str(number), str(names[result.first_player]), *cells)
    table.add_row("total", "", *(str(t) for t in game.sheet.totals), style="bold")
    console.print(table)
    console.print("cells: bid(+ safety)/tricks: points")
    outcome = game.outcome()
    if outcome is None:
        played = sum(len(a) for a in game.actions)
        console.print(f"Valid record of an unfinished game: deal {game.deal_number}, {played} actions so far.")
    else:
        console.print(f"Winner: {names[outcome.winner]}. {outcome.explain([str(n) for n in names])}")
    if game.seed is not None and record != "-":
        console.print(f"Play this deal: luz play --deal {record}", soft_wrap=True)


@app.command("view")
def view_command(
    record: str = RECORD_ARG,
    seat: int | None = typer.Option(None, "--seat", help="The seat whose view to print (0-based)."),
    spectator: bool = typer.Option(False, "--spectator", help="Print the spectator view instead."),
    after: int | None = typer.Option(None, "--after", min=0, help="After the first K actions (default: all)."),
) -> None:
    """Print, as JSON, what one seat knows after the first K actions of a recorded game (seats and slots count
    from 0 in it, as in the record; luz play shows slots from 1)."""
    if (seat is None) == (not spectator):
        fail("give either --seat N or --spectator")
    game, _ = load(record, upto=after)
    if seat is not None and not 0 <= seat < game.players:
        fail(f"--seat must be 0..{game.players - 1}, not {seat}")
    typer.echo(json.dumps(view(game, seat).to_json(), ensure_ascii=False))
