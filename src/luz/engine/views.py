"""What one point of view knows: the only way information leaves a game for a seat or a spectator.

A seat sees the colour and position of each of its own cards but a value only once it is played; every other
hand face up; never the aside. A spectator sees only what every player knows: no unplayed value at all while a
deal is live. The JSON, text and tensor forms of a view all come from :func:`view`.

>>> from luz.engine.game import Game
>>> game = Game.new("standard-deck", players=4, seed=1)
>>> mine = view(game, 0)
>>> [s.value for s in mine.hands[0]] == [None] * 10, None in [s.value for s in mine.hands[1]]
(True, False)
>>> all(s.value is None for hand in view(game, None).hands for s in hand)
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .actions import Action, Bid, action_to_json
from .cards import Card
from .editions import Edition, TableOptions
from .game import Game, Phase, Trick
from .scoring import DealResult, Outcome


@dataclass(frozen=True, slots=True)
class SlotView:
    """One position of a hand: its colour always, its value when the viewer can see it."""

    slot: int
    colour: int
    value: int | None
    played: bool


@dataclass(frozen=True, slots=True)
class View:
    """Everything one seat (or a spectator, ``seat=None``) knows at one moment of a game."""

    edition: Edition
    players: int
    seat: int | None
    options: TableOptions
    deal_number: int
    deal_count: int
    phase: Phase
    first_player: int
    current_player: int | None
    hands: tuple[tuple[SlotView, ...], ...]
    bids: tuple[Bid | None, ...]
    beads_left: int | None
    trick: Trick | None
    last_trick: Trick | None
    """The trick just completed, shown until the next one is led (everyone saw it played), and once the game is over."""
    closing_trick: Trick | None
    """The last trick of the previous deal, shown until the first card of this deal is played."""
    trick_history: tuple[Trick, ...] | None
    """The deal's completed tricks, only when the table option allows."""
    tricks_won: tuple[int, ...]
    results: tuple[DealResult, ...]
    totals: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    outcome: Outcome | None
    hints: dict[str, Any] | None = None
    """Only when asked for: the seat's exact beliefs over its own unplayed values (see :mod:`beliefs`)."""

    def card_name(self, card: Card) -> str:
        return self.edition.card_name(card)

    def to_json(self) -> dict[str, Any]:
        """The view as JSON-serialisable data (cards in the edition's notation)."""
        letters = [c.letter for c in self.edition.colours]

        def slot_json(s: SlotView) -> dict[str, Any]:
            card = None if s.value is None else self.edition.card_name(Card(s.colour, s.value))
            return {
                "slot": s.slot,
                "colour": letters[s.colour],
                "value": s.value,
                "card": card,
                "played": s.played,
            }

        def trick_json(t: Trick | None) -> dict[str, Any] | None:
            if t is None:
                return None
            plays = [{"seat": seat, "slot": slot, "card": self.edition.card_name(c)} for seat, slot, c in t.plays]
            return {"leader": t.leader, "plays": plays, "winner": t.winner}

        return {
            "edition": self.edition.key,
            "players": self.players,
            "seat": self.seat,
            "options": self.options.to_json(),
            "deal_number": self.deal_number,
            "deal_count": self.deal_count,
            "phase": self.phase.value,
            "first_player": self.first_player,
            "current_player": self.current_player,
            "hands": [[slot_json(s) for s in hand] for hand in self.hands],
            "bids": [None if b is None else {"tricks": b.tricks, "safety": b.safety} for b in self.bids],
            "beads_left": self.beads_left,
            "trick": trick_json(self.trick),
            "last_trick": trick_json(self.last_trick),
            "closing_trick": trick_json(self.closing_trick),
            "trick_history": None if self.trick_history is None else [trick_json(t) for t in self.trick_history],
            "tricks_won": list(self.tricks_won),
            "results": [r.to_json() for r in self.results],
            "totals": list(self.totals),
            "legal_actions": [action_to_json(a) for a in self.legal_actions],
            "outcome": None if self.outcome is None else self.outcome.to_json(),
            "hints": self.hints,
        }


def view(game: Game, seat: int | None, hints: bool = False) -> View:
    """What ``seat`` knows now (``None``: a spectator, who knows only what every player knows).

    With ``hints``, a seat's view also carries, for each of its unplayed slots, the possible values and their
    probabilities, computed from the view alone (a player aid; off by default).
    """
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players):
        raise ValueError(f"seat must be 0..{game.players - 1} or None, not {seat!r}")
    dealt = game.phase is not Phase.DEAL
    hands: tuple[tuple[SlotView, ...], ...] = ()
    if dealt:
        hands = tuple(
            tuple(
                SlotView(
                    slot,
                    card.colour,
                    card.value if (played := game.is_played(holder, slot)) or _sees(seat, holder) else None,
                    played,
                )
                for slot, card in enumerate(hand)
            )
            for holder, hand in enumerate(game.deals[-1].hands)
        )
    trick = game.trick if dealt else None
    completed = game.completed_tricks if dealt else ()
    live = game.phase in (Phase.BID, Phase.PLAY)
    seen = View(
        edition=game.edition,
        players=game.players,
        seat=seat,
        options=game.options,
        deal_number=game.deal_number,
        deal_count=game.deal_count,
        phase=game.phase,
        first_player=game.first_player,
        current_player=game.current_player,
        hands=hands,
        bids=game.bids if dealt else (None,) * game.players,
        beads_left=game.beads_left if dealt else game.options.bid_cap,
        trick=trick if live else None,
        last_trick=completed[-1] if completed and (trick is None or not trick.plays) else None,
        closing_trick=game.closing_trick if live and not completed and trick is not None and not trick.plays else None,
        trick_history=completed if game.options.trick_history else None,
        tricks_won=game.tricks_won if dealt else (0,) * game.players,
        results=game.results,
        totals=game.sheet.totals,
        legal_actions=tuple(game.legal_actions()) if seat is not None and seat == game.current_player else (),
        outcome=game.outcome(),
    )
    if hints and seat is not None and live:
        from .beliefs import Beliefs  # beliefs are computed from a View: imported here to avoid a cycle

        return replace(seen, hints=Beliefs(seen).to_json())
    return seen


def _sees(viewer: int | None, holder: int) -> bool:
    """Whether ``viewer`` sees the face of ``holder``'s unplayed cards: everyone's but their own."""
    return viewer is not None and viewer != holder
