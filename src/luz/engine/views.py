"""What one point of view knows: the only way information leaves a game for a seat or a spectator.

A seat sees the colour and position of each of its own cards but a value only once it is played; every other
hand face up; never the aside. A spectator sees only what every player knows: no unplayed value at all while a
deal is live. The JSON, text and tensor forms of a view all come from :func:`view`. Once a game is over, its
replay may show everything: :func:`face_up_view` is the spectator's view with every hand and the aside face up.

Each card in the JSON carries its colour's letter, its value and its value as printed (``rank``), besides its
name in the edition's notation, so a client never parses notation. Hints (a seat's odds over its own values) are
added by :func:`luz.engine.beliefs.with_hints`, outside this module: beliefs are computed from a view.

>>> from luz.engine.game import Game
>>> game = Game.new("standard-deck", players=4, seed=1)
>>> mine = view(game, 0)
>>> [s.value for s in mine.hands[0]] == [None] * 10, None in [s.value for s in mine.hands[1]]
(True, False)
>>> all(s.value is None for hand in view(game, None).hands for s in hand)
True
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from .actions import Action, Bid, action_to_json
from .cards import Card
from .editions import MAX_BID, Edition, TableOptions
from .game import Deal, Game, Phase, Trick
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
    """The first player of the deal being played (or about to be dealt; once the game is over, of the last deal)."""
    first_player_is_leader: bool
    """Whether :attr:`first_player` is the leader on score rather than the rotation's seat (3 players, last deal)."""
    next_first_player: int | None
    """The first player of the next deal (deal ``deal_number + 1``) once it is decided, else ``None``: the
    rotation's seat; the leader on score (3 players, last deal) once the deal before is scored; none after the last."""
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
    """Only when added (:func:`luz.engine.beliefs.with_hints`): the seat's exact beliefs over its unplayed values."""
    aside: tuple[Card, ...] | None = None
    """Only in a :func:`face_up_view` of a dealt game: the cards set aside."""

    def card_name(self, card: Card) -> str:
        return self.edition.card_name(card)

    def to_json(self) -> dict[str, Any]:
        """The view as JSON-serialisable data (cards in the edition's notation)."""
        edition = self.edition

        def trick_json(t: Trick | None) -> dict[str, Any] | None:
            if t is None:
                return None
            plays = [{"seat": seat, "slot": slot, **_card_json(edition, c)} for seat, slot, c in t.plays]
            return {"leader": t.leader, "plays": plays, "winner": t.winner}

        data = {
            "edition": edition.key,
            "players": self.players,
            "seat": self.seat,
            "options": self.options.to_json(),
            "deal_number": self.deal_number,
            "deal_count": self.deal_count,
            "phase": self.phase.value,
            "first_player": self.first_player,
            "first_player_is_leader": self.first_player_is_leader,
            "next_first_player": self.next_first_player,
            "current_player": self.current_player,
            "hands": [_hand_json(edition, hand) for hand in self.hands],
            "bids": [None if b is None else {"tricks": b.tricks, "safety": b.safety} for b in self.bids],
            "beads_left": self.beads_left,
            # Every bid names 0 to this many tricks, a cap aside: the bids the cap rules out can be shown, disabled.
            "max_bid": MAX_BID,
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
        if self.aside is not None:
            data["aside"] = [edition.card_name(c) for c in self.aside]
            data["aside_cards"] = [_card_json(edition, c) for c in self.aside]
        return data


def played_card_json(game: Game, seat: int) -> dict[str, Any]:
    """The card ``seat`` has just played (face up for everyone since), as a view shows it: in the trick being
    played, else the deal's last completed trick, else the last trick of the deal just scored. Nothing of a card
    still held can come out of it: a :class:`ValueError` when ``seat`` played in none of them."""
    for trick in (game.trick, *game.completed_tricks[-1:], game.closing_trick):
        for player, _, card in reversed(trick.plays if trick is not None else ()):
            if player == seat:
                return _card_json(game.edition, card)
    raise ValueError(f"seat {seat} has not just played a card")


def _card_json(edition: Edition, card: Card) -> dict[str, Any]:
    """A face-up card as JSON data: its name in the edition's notation, colour letter, value and printed value."""
    return {
        "card": edition.card_name(card),
        "colour": edition.colours[card.colour].letter,
        "value": card.value,
        "rank": edition.value_name(card.value),
    }


def _hand_json(edition: Edition, hand: tuple[SlotView, ...]) -> list[dict[str, Any]]:
    """One hand of a view as JSON data (``card`` and ``rank`` only where the value is shown)."""
    letters = [c.letter for c in edition.colours]
    return [
        {
            "slot": s.slot,
            "colour": letters[s.colour],
            "value": s.value,
            "card": None if s.value is None else edition.card_name(Card(s.colour, s.value)),
            "rank": None if s.value is None else edition.value_name(s.value),
            "played": s.played,
        }
        for s in hand
    ]


def view(game: Game, seat: int | None) -> View:
    """What ``seat`` knows now (``None``: a spectator, who knows only what every player knows).

    For a seat's hints (its odds over its own unplayed values), see :func:`luz.engine.beliefs.with_hints`.
    """
    _check_seat(game, seat)
    hands: tuple[tuple[SlotView, ...], ...] = ()
    if game.phase is not Phase.DEAL:
        hands = tuple(_hand(game, holder, _sees(seat, holder)) for holder in range(game.players))
    return _view(game, seat, hands)


def face_up_view(game: Game) -> View:
    """The spectator's view of ``game`` with every hand and the aside face up: for a finished game's replay (assumption
    A4), and for the spectators of a table whose players chose to show them every hand, never for a seat."""
    if game.phase is Phase.DEAL or not game.deals:
        return _view(game, None, ())
    hands = tuple(_hand(game, holder, True) for holder in range(game.players))
    return _view(game, None, hands, aside=game.deals[-1].aside)


def _view(
    game: Game, seat: int | None, hands: tuple[tuple[SlotView, ...], ...], aside: tuple[Card, ...] | None = None
) -> View:
    """``seat``'s view, with ``hands`` (and ``aside``) as given."""
    dealt = game.phase is not Phase.DEAL
    trick = game.trick if dealt else None
    completed = game.completed_tricks if dealt else ()
    live = game.phase in (Phase.BID, Phase.PLAY)
    sheet = game.sheet
    index = len(sheet.deals)  # the deal being played or about to be dealt, 0-based
    return View(
        edition=game.edition,
        players=game.players,
        seat=seat,
        options=game.options,
        deal_number=game.deal_number,
        deal_count=game.deal_count,
        phase=game.phase,
        first_player=game.first_player,
        first_player_is_leader=sheet.first_player_is_leader(index if game.phase is not Phase.GAME_OVER else index - 1),
        next_first_player=sheet.known_first_player(index + 1 if live else index),
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
        aside=aside,
    )


class ViewsJson:
    """Every point of view of one moment of a game as JSON data: ``of(seat)`` equals ``view(game, seat).to_json()``.
    What all viewers share is built once (the spectator's view, each hand face down and face up, the legal
    actions), and each hand is taken from ``previous`` (the same game's views at an earlier moment) when none of its
    cards was played since: a server sends every seat its view after each action, and an action changes one hand
    at most.

    The data of different seats share their parts: read them, never change them. Build it anew once the game
    has changed. :attr:`derived` keeps what other modules derive from this moment (a seat's view with its hints:
    :func:`luz.engine.beliefs.json_with_hints`), so that it too is built once."""

    def __init__(self, game: Game, previous: ViewsJson | None = None) -> None:
        self.game = game
        self._hands: list[_HandJson] = []
        if game.phase is not Phase.DEAL:
            deal, kept = game.deals[-1], previous._hands if previous is not None else []
            for holder in range(game.players):
                unplayed = game.unplayed_slots(holder)
                hand = kept[holder] if holder < len(kept) else None
                if hand is None or hand.deal is not deal or hand.unplayed != unplayed:
                    face_down, face_up = (_hand_json(game.edition, _hand(game, holder, up)) for up in (False, True))
                    hand = _HandJson(deal, unplayed, face_down, face_up)
                self._hands.append(hand)
        self._common = _view(game, None, ()).to_json()
        self._common["hands"] = [hand.face_down for hand in self._hands]  # the spectator's: only played values
        self._legal = [action_to_json(a) for a in game.legal_actions()] if game.current_player is not None else []
        self._seats: dict[int, dict[str, Any]] = {}
        self.derived: dict[Hashable, Any] = {}
        """Data other modules derive from this moment, by a key of theirs (read it, never change it)."""

    def of(self, seat: int | None) -> dict[str, Any]:
        """``seat``'s view (``None``: a spectator's) as JSON data (built once for each seat)."""
        if seat is None:
            return self._common
        _check_seat(self.game, seat)
        data = self._seats.get(seat)
        if data is None:
            data = dict(self._common)
            data["seat"] = seat
            data["hands"] = [hand.face_down if h == seat else hand.face_up for h, hand in enumerate(self._hands)]
            if seat == self.game.current_player:
                data["legal_actions"] = self._legal
            self._seats[seat] = data
        return data


@dataclass(frozen=True, slots=True)
class _HandJson:
    """One hand of one deal with its cards ``unplayed`` (a bit per slot), as its holder and as the others see it."""

    deal: Deal
    unplayed: int
    face_down: list[dict[str, Any]]
    face_up: list[dict[str, Any]]


def _check_seat(game: Game, seat: int | None) -> None:
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players):
        raise ValueError(f"seat must be 0..{game.players - 1} or None, not {seat!r}")


def _hand(game: Game, holder: int, face_up: bool) -> tuple[SlotView, ...]:
    """``holder``'s hand in the current deal: each value shown once played, or always when ``face_up``."""
    return tuple(
        SlotView(slot, card.colour, card.value if (played := game.is_played(holder, slot)) or face_up else None, played)
        for slot, card in enumerate(game.deals[-1].hands[holder])
    )


def _sees(viewer: int | None, holder: int) -> bool:
    """Whether ``viewer`` sees the face of ``holder``'s unplayed cards: everyone's but their own."""
    return viewer is not None and viewer != holder
