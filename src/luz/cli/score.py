"""``luz score``: the tabletop score-keeper, interactive at the keyboard or fed a JSON document."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from luz.engine import (
    EDITIONS,
    HAND_SIZE,
    MAX_BID,
    DealResult,
    Edition,
    LuzError,
    ScoreSheet,
    get_edition,
    sheet_from_json,
)

from .apps import app

T = TypeVar("T")


class BadInput(Exception):
    """Input of the command's own that cannot be used (a file, an answer at the keyboard); the message says what
    is wrong. A JSON document that is not a score sheet is the engine's :class:`~luz.engine.InvalidScoreDocument`."""


@app.command()
def score(
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE|-", help="JSON document to score ('-': standard input).", show_default=False),
    ] = None,
) -> None:
    """Keep the score of a game played with the real box.

    With no FILE it is interactive: choose the edition, the number of players and their names (seat order, going left).
    Then enter each deal's bids, safeties and tricks taken, in bidding order; the score sheet is shown after each deal.
    End of input (Ctrl-D) stops with exit status 1.

    With FILE (or - for standard input) holding a JSON document, print the score report as JSON and nothing else.
    Document: "edition" (key or alias), "players", "deals", and optionally "first_player" and "options".
    Each deal: {"bids": \\[...], "safety": \\[...], "tricks": \\[...]}, one entry per seat 0..n-1, seats going left.
    A missing "first_player" is options.first_player, else seat 0; a missing "safety" list means no safeties.
    "options" are the table options, e.g. {"bid_cap": null}. Unknown keys are refused.
    Report: each deal's first player and scores, totals, ranking, then "next_first_player" or, once over, "winner".
    Invalid input: a one-line message on standard error, exit status 2, nothing on standard output.
    """
    if file is None:
        _interactive()
        return
    try:
        report = sheet_from_json(_load(file)).to_json()
    except (BadInput, LuzError) as error:
        typer.echo(f"error: {' '.join(str(error).split())}", err=True)
        raise typer.Exit(2) from None
    typer.echo(json.dumps(report))


# -- JSON ------------------------------------------------------------------------------------------------


def _load(source: str) -> Any:
    """The JSON document in file ``source`` (``-``: standard input)."""
    name = "standard input" if source == "-" else source
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as error:
        raise BadInput(f"cannot read {name}: {error.strerror or error}") from None
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise BadInput(f"malformed JSON in {name}: {error}") from None


# -- interactive -----------------------------------------------------------------------------------------


def _interactive() -> None:
    """Ask for the game's set-up, then deal after deal, showing the sheet; exit status 1 at end of input."""
    out = Console(highlight=False)
    try:
        sheet, names = _set_up(out)
        while not sheet.is_over:
            out.print(_whose_turn(sheet, names), markup=False)
            sheet = _enter_deal(out, sheet, names)
            out.print(_sheet_table(sheet, names))
    except (EOFError, KeyboardInterrupt):
        typer.echo("\nStopped before the end of the game; the score sheet is not kept.", err=True)
        raise typer.Exit(1) from None
    out.print(f"Game over. {sheet.standings().explain(names)}", markup=False, style="bold")


def _ask(out: Console, question: str, parse: Callable[..., T], *args: Any) -> T:
    """Ask until ``parse(answer, *args)`` accepts the answer; its :class:`BadInput` message is shown meanwhile."""
    while True:
        answer = out.input(f"{question}: ", markup=False).strip()
        try:
            return parse(answer, *args)
        except BadInput as error:
            out.print(str(error), markup=False, style="red")


def _number(answer: str, low: int, high: int) -> int:
    try:
        value = int(answer)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise BadInput(f"Please enter a whole number from {low} to {high}.")
    return value


def _yes_no(answer: str, default: bool) -> bool:
    if not answer:
        return default
    if answer.lower() not in ("y", "yes", "n", "no"):
        raise BadInput("Please answer y or n.")
    return answer.lower().startswith("y")


def _edition(answer: str, editions: list[Edition]) -> Edition:
    if answer.isdigit():
        return editions[_number(answer, 1, len(editions)) - 1]
    try:
        return get_edition(answer)
    except LuzError:
        raise BadInput(f"Please enter a number from 1 to {len(editions)}, or an edition name.") from None


def _players(answer: str, edition: Edition) -> int:
    counts = [str(count) for count in edition.player_counts]
    if answer not in counts:
        raise BadInput(f"{edition.key} is played by {', '.join(counts)} players.")
    return int(answer)


def _name(answer: str, default: str, taken: list[str]) -> str:
    name = answer or default
    if name.casefold() in (other.casefold() for other in taken):
        raise BadInput(f"{name} is already taken; please choose another name.")
    return name


def _set_up(out: Console) -> tuple[ScoreSheet, list[str]]:
    """The empty score sheet and the players' names, asked for."""
    editions = list(EDITIONS.values())
    out.print("Editions:")
    for number, edition in enumerate(editions, 1):
        out.print(f"  {number}. {edition.key}: {edition.name}", markup=False)
    edition = _ask(out, f"Edition (1-{len(editions)})", _edition, editions)
    counts = ", ".join(map(str, edition.player_counts))
    players = _ask(out, f"Number of players ({counts})", _players, edition)
    out.print("Player names, in seat order going left (clockwise); Enter keeps the default.")
    names: list[str] = []
    for seat in range(players):
        names.append(_ask(out, f"Name of player {seat + 1} [P{seat + 1}]", _name, f"P{seat + 1}", names))
    for seat, name in enumerate(names):
        out.print(f"  {seat + 1}. {name}", markup=False)
    first = _ask(out, f"First player of the first deal (1-{players}) [1]", _first, players)
    return ScoreSheet.new(edition, players, first), names


def _first(answer: str, players: int) -> int:
    return _number(answer or "1", 1, players) - 1


def _whose_turn(sheet: ScoreSheet, names: list[str]) -> str:
    """Which deal comes next and who bids first in it (noting the 3-player last-deal rule)."""
    index = len(sheet.deals)
    first = sheet.first_player_of(index)
    note = "" if first == sheet.usual_first_player(index) else ", as the leader on score"
    return f"Deal {index + 1} of {sheet.deal_count}: {names[first]} bids first{note}."


def _enter_deal(out: Console, sheet: ScoreSheet, names: list[str]) -> ScoreSheet:
    """``sheet`` with the next deal added, as entered and confirmed."""
    first = sheet.first_player_of(len(sheet.deals))
    order = [(first + i) % sheet.players for i in range(sheet.players)]
    while True:
        bids, safety = _enter_bids(out, sheet, names, order)
        tricks = _enter_tricks(out, names, order)
        candidate = sheet.add(bids, safety, tricks)
        for seat in order:
            out.print(_deal_line(candidate.deals[-1], seat, names[seat]), markup=False)
        if _ask(out, "Correct? [Y/n]", _yes_no, True):
            return candidate
        out.print("Enter this deal again.")


def _enter_bids(out: Console, sheet: ScoreSheet, names: list[str], order: list[int]) -> tuple[list[int], list[bool]]:
    bids, safety = [0] * sheet.players, [False] * sheet.players
    cap = sheet.options.bid_cap
    for seat in order:
        left = None if cap is None else cap - sum(bids)
        room = f"0-{MAX_BID}" if left is None else f"0-{min(left, MAX_BID)}; {left} left under the bid cap of {cap}"
        bids[seat] = _ask(out, f"{names[seat]}'s bid ({room})", _bid, left, cap)
        safety[seat] = _ask(out, f"{names[seat]} adds a safety? [y/N]", _yes_no, False)
    return bids, safety


def _bid(answer: str, left: int | None, cap: int | None) -> int:
    bid = _number(answer, 0, MAX_BID)
    if left is not None and bid > left:
        raise BadInput(f"Over the bid cap: the bids of a deal sum to at most {cap}; only {left} left.")
    return bid


def _enter_tricks(out: Console, names: list[str], order: list[int]) -> list[int]:
    tricks = [0] * len(names)
    while True:
        for seat in order:
            tricks[seat] = _ask(out, f"{names[seat]}'s tricks taken (0-{HAND_SIZE})", _number, 0, HAND_SIZE)
        if sum(tricks) == HAND_SIZE:
            return tricks
        out.print(f"The tricks sum to {sum(tricks)}, not {HAND_SIZE}: enter this deal's tricks again.", style="red")


def _deal_line(deal: DealResult, seat: int, name: str) -> str:
    safety = " + safety" if deal.safety[seat] else ""
    return f"  {name}: bid {deal.bids[seat]}{safety}, took {deal.tricks[seat]}: {deal.scores[seat]:+d} points"


def _sheet_table(sheet: ScoreSheet, names: list[str]) -> Table:
    """The score sheet: a row per deal (who bid first, points by player), then the totals."""
    table = Table(title=f"{sheet.edition.name}, {sheet.players} players")
    table.add_column("Deal", justify="right")
    table.add_column("First")
    for name in names:
        table.add_column(Text(name), justify="right")
    for number, deal in enumerate(sheet.deals, 1):
        table.add_row(str(number), Text(names[deal.first_player]), *map(str, deal.scores))
    table.add_section()
    table.add_row("Total", "", *map(str, sheet.totals), style="bold")
    return table
