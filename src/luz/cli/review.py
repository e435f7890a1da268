"""``luz review``: each decision of a seat in a finished game, valued from what it knew then (docs/REVIEW.md)."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from luz.engine import Phase

from .apps import app
from .records import RECORD_ARG, fail, load
from .render import slot_label


@app.command("review")
def review_command(
    record: str = RECORD_ARG,
    seat: int | None = typer.Option(
        None, "--seat", help="The seat reviewed (0-based, as in the record and the JSON); default: every seat."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print the review as JSON: one object with --seat, else a list of them in seat order. Its seats, "
        "indices and card slots (play:SLOT) count from 0, as its 'indexing' says; the text counts cards from 1.",
    ),
    worlds: int | None = typer.Option(
        None, "--worlds", min=2, max=100_000, help="Hidden worlds played out per decision (default 400)."
    ),
) -> None:
    """Review a finished game: for each decision of a seat, the expected points of every legal action from what the
    seat knew then, the points lost against the best, and a label for the losses beyond the noise."""
    from luz.bots.review import ReviewSettings, review_game  # compiles the fast core: only for this command

    game, data = load(record)
    if game.phase is not Phase.GAME_OVER:
        fail(f"{record}: the game is not finished (deal {game.deal_number}); only a finished game is reviewed")
    if seat is not None and not 0 <= seat < game.players:
        fail(f"--seat must be 0..{game.players - 1}, not {seat}")
    settings = ReviewSettings() if worlds is None else ReviewSettings(worlds=worlds)
    seats = range(game.players) if seat is None else [seat]
    reviews = []
    for s in seats:
        if not as_json:
            Console(stderr=True).print(f"[dim]reviewing seat {s} ({settings.worlds} worlds a decision)...[/dim]")
        reviews.append(review_game(data, s, settings))
    if as_json:
        typer.echo(json.dumps(reviews[0] if seat is not None else reviews))
        return
    names = data.get("names") or [f"seat {s}" for s in range(game.players)]
    console = Console()
    for review in reviews:
        print_review(console, review, str(names[review["seat"]]))


def print_review(console: Console, review: dict[str, Any], name: str) -> None:
    """One seat's review: a table of its deals, its labelled decisions, and the game's figures."""
    least = review["thresholds"]
    settings = review["settings"]
    console.print(
        f"[bold]{name}[/bold] (seat {review['seat']}), {review['edition']}, {review['players']} players; "
        f"{settings['worlds']} worlds a decision; labels beyond {settings['z']:g} standard errors: "
        + ", ".join(f"{label} >= {points:g}" for label, points in least.items())
        + " expected points"
    )
    deals = Table()
    for column in (
        "deal",
        "bid",
        "could bid",
        "tricks",
        "points",
        "start",
        "lost",
        "luck",
        "info",
        "accuracy",
        "i/m/b",
    ):
        deals.add_column(column, justify="left" if column in ("bid", "could bid") else "right")
    for deal in review["deals"]:
        deals.add_row(
            str(deal["deal"]),
            _bid(deal["bid"]),
            _bid(deal["could_bid"]) if deal["could_bid"] != deal["bid"] else "(same)",
            str(deal["tricks"]),
            f"{deal['points']:+d}",
            f"{deal['start_value']:+.1f}",
            f"{deal['decision_loss']:.1f}",
            f"{deal['luck']:+.1f}",
            "-" if deal["information_value"] is None else f"{deal['information_value']:.1f}",
            _percent(deal["accuracy"]),
            "/".join(str(deal["labels"][label]) for label in ("inaccuracy", "mistake", "blunder")),
        )
    console.print(deals)
    console.print(
        "  could bid: the best bid then; points = start - lost + luck (start: the deal's worth at your first "
        "decision; lost: expected points your decisions lost, at most the deal's range); info: what seeing your own "
        "cards would have been worth at your bid; i/m/b: inaccuracies/mistakes/blunders; cards numbered from 1"
    )
    labelled = [d for d in review["decisions"] if d["label"]]
    for decision in labelled:
        console.print(
            f"  deal {decision['deal']}, action {decision['index'] + 1} (replay step {decision['step'] + 1}): "
            f"{decision['label']}: {_action(decision['action'])} lost {decision['loss']:.1f} ± {decision['se']:.1f}, "
            f"best {_action(decision['best'])}"
        )
    if not labelled:
        console.print("  no decision labelled")
    totals = review["game"]
    console.print(
        f"  game: {totals['points']} points = {totals['start_value']:.1f} start - {totals['decision_loss']:.1f} lost "
        f"{totals['luck']:+.1f} luck; accuracy {_percent(totals['accuracy'])} over {totals['decisions']} decisions "
        f"(forced left out), {_share(totals['best_share'])} best within the noise; {_labels(totals['labels'])}"
    )


def _action(action: str | None) -> str:
    """``bid:2+`` as ``bid 2+``, ``play:3`` as ``card 4`` (people count cards from 1; the record from 0)."""
    if action is None:
        return "-"
    kind, _, rest = action.partition(":")
    return f"bid {rest}" if kind == "bid" else f"card {slot_label(int(rest))}"


def _bid(action: str | None) -> str:
    """``bid:2+`` as ``2+``."""
    return "-" if action is None else action.partition(":")[2]


def _share(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0f}%"


def _labels(counts: dict[str, int]) -> str:
    shown = [f"{count} {label}" for label, count in counts.items() if count]
    return ", ".join(shown) or "none"
