"""Rich rendering of a seat's :class:`~luz.engine.View` for terminal play (fits 80 columns).

Everything here reads a view only, so a seat's screen cannot show what the rules hide from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich import box
from rich.console import Group
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from luz.engine import HAND_SIZE, Bid, Card, Edition, Outcome, Phase, Trick, View

STYLES = {
    "red": "bold red",
    "green": "bold green",
    "blue": "bold blue",
    "purple": "bold magenta",
    "yellow": "bold yellow",
    "white": "bold white",
    "orange": "bold dark_orange",
    "clubs": "bold green",
    "diamonds": "bold blue",
    "spades": "bold white",
    "hearts": "bold red",
}
"""Terminal style by colour name; the symbol tells colours apart without colour too."""

CELL = 4
"""Columns per card in a hand."""


def colour_style(edition: Edition, colour: int) -> str:
    return STYLES.get(edition.colours[colour].name, "bold")


def card_text(edition: Edition, colour: int, value: int | None, dim: bool = False) -> Text:
    """A card as its colour's symbol and its rank, ``?`` when the value is hidden."""
    spec = edition.colours[colour]
    rank = "?" if value is None else rank_text(edition, colour, value)
    style = colour_style(edition, colour)
    return Text(spec.symbol + rank, style=f"dim {style}" if dim else style)


def bid_text(bid: Bid | None) -> str:
    """``2``, ``2+`` (with the safety) or ``-`` (not yet bid)."""
    return "-" if bid is None else f"{bid.tricks}{'+' if bid.safety else ''}"


def render_hand(view: View, seat: int) -> Text:
    """A hand as the viewer sees it, one card per column: hidden values as ``?``; played cards dimmed in the
    viewer's own hand (they bound its hidden values), gaps in the others'."""
    text = Text()
    for s in view.hands[seat]:
        if s.played and seat != view.seat:
            card = Text("·", style="dim")
        else:
            card = card_text(view.edition, s.colour, s.value, dim=s.played)
        text.append_text(card)
        text.append(" " * (CELL - len(card.plain)))
    return text


def slot_label(slot: int) -> str:
    """A slot as people count it, from 1 (the engine, records and JSON count from 0).

    >>> slot_label(0), slot_label(9)
    ('1', '10')
    """
    return str(slot + 1)


def render_own_hand(view: View) -> Text:
    """The viewer's own hand as card backs (colour symbol and ``?``) over its slots numbered from 1, its HIGH end
    marked."""
    assert view.seat is not None
    numbers = Text(" slot ")
    for s in view.hands[view.seat]:
        numbers.append(slot_label(s.slot).ljust(CELL), style="dim" if s.played else "")
    cards = Text(" low  ").append_text(render_hand(view, view.seat)).append("HIGH", style="bold")
    return Text("\n").join([numbers, cards])


def rank_text(edition: Edition, colour: int, value: int) -> str:
    """A value as its rank in the edition's notation (``7``, ``Q``, ``10``)."""
    name = edition.card_name(Card(colour, value))
    letter = edition.colours[colour].letter
    return name[1:] if name.startswith(letter) else name.removesuffix(letter)


def render_hints(view: View) -> Text:
    """Under the viewer's hand: for each unplayed slot the lowest possible, most likely and highest possible value."""
    assert view.seat is not None and view.hints is not None
    by_slot = {h["slot"]: h for h in view.hints["slots"]}
    rows = []
    picks: tuple[tuple[str, Callable[[dict[str, Any]], int]], ...] = (
        ("min", lambda h: h["possible"][0]),
        ("guess", lambda h: h["most_likely"][-1]),
        ("max", lambda h: h["possible"][-1]),
    )
    for label, pick in picks:
        row = Text(f" {label:<5}", style="dim")
        for s in view.hands[view.seat]:
            hint = by_slot.get(s.slot)
            cell = "" if hint is None else rank_text(view.edition, s.colour, pick(hint))
            row.append(f" {cell}".ljust(CELL), style="bold" if label == "guess" else "dim")
        rows.append(row)
    return Text("\n").join(rows)


def render_trick(edition: Edition, trick: Trick, names: Sequence[str]) -> Text:
    """The cards of a trick in playing order, with the winner once it is complete."""
    text = Text()
    for seat, _, card in trick.plays:
        text.append(f"{names[seat]} ")
        text.append_text(card_text(edition, card.colour, card.value))
        text.append("  ")
    if trick.winner is not None:
        text.append(f"→ {names[trick.winner]}", style="bold")
    return text


def render_table(view: View, names: Sequence[str]) -> Group:
    """The whole table as the viewer sees it: bids, tricks won, the others' hands, the trick, the viewer's hand."""
    assert view.seat is not None
    edition = view.edition
    trump = edition.colours[edition.trump]
    stage = "bidding" if view.phase is Phase.BID else f"trick {sum(view.tricks_won) + 1}/{HAND_SIZE}"
    lines: list[Text | Rule] = [Rule(f"Deal {view.deal_number}/{view.deal_count} · {stage}")]
    beads = "" if view.beads_left is None else f" · {view.beads_left} bead(s) left under the cap"
    lines.append(Text.assemble("trump ", (trump.symbol, colour_style(edition, edition.trump)), f" {trump.name}{beads}"))
    width = max(len(n) for n in names)
    for seat, name in enumerate(names):
        row = Text("▶ " if seat == view.current_player else "  ", style="bold")
        row.append(name.ljust(width), style="bold" if seat == view.seat else "")
        row.append(f" bid {bid_text(view.bids[seat]):<3} won {view.tricks_won[seat]:<2}  ")
        if seat != view.seat:
            row.append_text(render_hand(view, seat))
        lines.append(row)
    if view.trick is not None and view.trick.plays:
        lines.append(Text("Trick: ").append_text(render_trick(edition, view.trick, names)))
    elif view.last_trick is not None:
        lines.append(Text("Last trick: ").append_text(render_trick(edition, view.last_trick, names)))
    elif view.closing_trick is not None:
        closing = render_trick(edition, view.closing_trick, names)
        lines.append(Text("Last trick of the previous deal: ").append_text(closing))
    lines.append(Text(f"{names[view.seat]}, your hand (values hidden; each colour rises towards HIGH):"))
    lines.append(render_own_hand(view))
    if view.hints is not None:
        lines.append(render_hints(view))
    return Group(*lines)


def render_sheet(view: View, names: Sequence[str]) -> Table:
    """The score sheet: one row per deal (points, then bid/tricks), and the totals."""
    table = Table(box=box.SIMPLE_HEAD, title="Score sheet", pad_edge=False)
    table.add_column("deal", justify="right")
    for name in names:
        table.add_column(Text(name), justify="right")
    for number, result in enumerate(view.results, 1):
        cells = [
            f"{points:+d} ({bid}{'+' if safety else ''}/{tricks})"
            for points, bid, safety, tricks in zip(
                result.scores, result.bids, result.safety, result.tricks, strict=True
            )
        ]
        table.add_row(str(number), *cells)
    table.add_section()
    table.add_row("total", *(str(total) for total in view.totals), style="bold")
    return table


def render_outcome(outcome: Outcome, names: Sequence[str]) -> Group:
    """The final ranking and why the winner won."""
    lines = [Text(f"{place}. {names[seat]}  {outcome.totals[seat]}") for place, seat in enumerate(outcome.ranking, 1)]
    return Group(Rule("Game over"), *lines, Text(outcome.explain(names), style="bold"))
