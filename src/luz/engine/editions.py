"""Editions as data: one :class:`Edition` value per stable key, a few overridable rule methods, a registry.

A stored game names its edition by key, so an edition's meaning under its key never changes.

>>> edition = get_edition("iello-2024")
>>> edition.deals(3), edition.deck_size(5), edition.options(4).bid_cap
(4, 60, 15)
>>> edition.score(bid=2, safety=True, tricks=4, deal_number=1, options=edition.options(3))
-10
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, Colour
from .errors import InvalidCard, InvalidOptions, UnknownEdition, UnsupportedPlayerCount, brief

HAND_SIZE = 10
"""Cards dealt to each player; also the number of tricks in a deal."""

MAX_BID = HAND_SIZE


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Options of one table, fully resolved (``Edition.options`` fills in the edition defaults).

    ``bid_cap``: the bids of one deal may sum to at most this (``None``: no cap).
    ``trick_history``: completed tricks of the deal stay visible (the rules say no).
    ``first_player``: first player of the first deal (``None``: drawn from the game's seed, assumption A2).
    ``made_points``: points of a made bet without safety, per deal (assumption A1 for the standard deck).
    """

    bid_cap: int | None
    trick_history: bool
    first_player: int | None
    made_points: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "bid_cap": self.bid_cap,
            "trick_history": self.trick_history,
            "first_player": self.first_player,
            "made_points": list(self.made_points),
        }


@dataclass(frozen=True, eq=False)
class Edition:
    """The rules of one published edition, as data.

    Subclasses override the rule methods where an edition's rule is not a matter of data.
    """

    key: str
    name: str
    colours: tuple[Colour, ...]
    """In hand order: hands are sorted by this colour order, then by value (assumption A5)."""
    values: Mapping[int, tuple[int, int]]
    """Lowest and highest card value, by player count (its keys are the supported player counts)."""
    deal_counts: Mapping[int, int]
    default_bid_cap: int | None
    made_points_step: int
    """Made bet without safety in deal d (1-based) scores ``d * made_points_step`` unless overridden."""
    miss_penalty: int
    """Points lost per trick of difference on a missed bet."""
    safety_softens_miss: bool
    """The safety may count as an extra bid token on a miss (2014's AND 1), so it can reduce the difference."""
    leader_opens_last_deal_with_3: bool
    """With 3 players, the leader on score bids first and leads in the last deal."""
    tie_break_from_usual_first: bool
    """Final tie-break counts from the last deal's usual (rotation) first player, not its actual first bidder."""
    aliases: tuple[str, ...] = ()
    assumptions: Mapping[str, str] = field(default_factory=dict)

    # -- players, deck -----------------------------------------------------------------------------------

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.values))

    def check_players(self, players: int) -> None:
        if players not in self.values:
            counts = ", ".join(map(str, self.player_counts))
            raise UnsupportedPlayerCount(f"{self.key} is played by {counts} players, not {players}")

    def deals(self, players: int) -> int:
        """Number of deals in a game."""
        self.check_players(players)
        return self.deal_counts[players]

    def deck(self, players: int) -> tuple[Card, ...]:
        """Every card in play, sorted."""
        self.check_players(players)
        return _deck(self, players)

    def deck_size(self, players: int) -> int:
        low, high = self.values[players]
        return len(self.colours) * (high - low + 1)

    def aside_size(self, players: int) -> int:
        return self.deck_size(players) - HAND_SIZE * players

    @property
    def trump(self) -> int:
        return next(i for i, c in enumerate(self.colours) if c.trump)

    # -- options -----------------------------------------------------------------------------------------

    def default_made_points(self, players: int) -> tuple[int, ...]:
        return tuple(self.made_points_step * (d + 1) for d in range(self.deals(players)))

    def options(self, players: int, **overrides: Any) -> TableOptions:
        """Resolved table options: the edition's defaults with ``overrides`` applied, validated."""
        self.check_players(players)
        if not overrides:
            return _default_options(self, players)
        unknown = set(overrides) - {f.name for f in dataclasses.fields(TableOptions)}
        if unknown:
            raise InvalidOptions(f"unknown table option(s): {', '.join(sorted(unknown))}")
        defaults = _default_options(self, players)
        points = overrides.pop("made_points", None)
        if points is not None:
            if not isinstance(points, list | tuple):
                raise InvalidOptions(f"made_points must be a list of points, one per deal, not {brief(points)}")
            overrides["made_points"] = tuple(points)
        options = dataclasses.replace(defaults, **overrides)
        self.check_options(players, options)
        return options

    def table_options(self, players: int, options: TableOptions | None = None, **overrides: Any) -> TableOptions:
        """The options of a table of ``players``: ``options`` as given (checked), or the defaults with
        ``overrides``; giving both is refused."""
        if options is None:
            return self.options(players, **overrides)
        if overrides:
            raise InvalidOptions("give either options or option overrides, not both")
        self.check_players(players)
        self.check_options(players, options)
        return options

    def check_options(self, players: int, options: TableOptions) -> None:
        cap = options.bid_cap
        if cap is not None and (not _is_int(cap) or cap < 0):
            raise InvalidOptions(f"bid_cap must be a whole number >= 0 or null, not {brief(cap)}")
        if not isinstance(options.trick_history, bool):
            raise InvalidOptions("trick_history must be true or false")
        first = options.first_player
        if first is not None and (not _is_int(first) or not 0 <= first < players):
            raise InvalidOptions(f"first_player must be a seat 0..{players - 1} or null, not {brief(first)}")
        points = options.made_points
        if len(points) != self.deals(players) or not all(_is_int(p) and 0 <= p <= MAX_MADE_POINTS for p in points):
            raise InvalidOptions(
                f"made_points must list {self.deals(players)} whole numbers 0..{MAX_MADE_POINTS} (one per deal), "
                f"not {brief(points)}"
            )

    def options_from_json(self, players: int, data: Any) -> TableOptions:
        if data is None:
            return self.options(players)
        if not isinstance(data, dict):
            raise InvalidOptions("options must be an object")
        return self.options(players, **data)

    # -- scoring -----------------------------------------------------------------------------------------

    def made(self, bid: int, safety: bool, tricks: int) -> bool:
        """Whether a bid is made: exactly ``bid`` tricks, or ``bid + 1`` with a safety."""
        return tricks == bid or (safety and tricks == bid + 1)

    def score(self, bid: int, safety: bool, tricks: int, deal_number: int, options: TableOptions) -> int:
        """Points of one player for one deal (``deal_number`` is 1-based)."""
        if self.made(bid, safety, tricks):
            points = options.made_points[deal_number - 1]
            return points // 2 if safety else points
        difference = abs(tricks - bid)
        if safety and self.safety_softens_miss:
            difference = min(difference, abs(tricks - (bid + 1)))
        return -self.miss_penalty * difference

    # -- notation ----------------------------------------------------------------------------------------

    def card_name(self, card: Card) -> str:
        """Card notation: colour letter then value (``Y12``)."""
        return f"{self.colours[card.colour].letter}{card.value}"

    def value_name(self, value: int) -> str:
        """A value as printed on its card, as in the card's notation (``12``; the standard deck's ``A`` for 14)."""
        return str(value)

    def parse_card(self, text: str, players: int) -> Card:
        """The card named by ``text`` in a game of ``players``; :class:`InvalidCard` if there is none."""
        if not isinstance(text, str) or not 2 <= len(text) <= 8:
            raise InvalidCard(f"not a card of {self.key}: {brief(text)}")
        card = self._parse_card(text.strip().upper())
        low, high = self.values[players]
        if card is None or not low <= card.value <= high:
            raise InvalidCard(f"not a card of {self.key} with {players} players: {brief(text)}")
        return card

    def _parse_card(self, text: str) -> Card | None:
        colour = self._colour_index(text[0])
        if colour is None or not _VALUE.fullmatch(text[1:]):
            return None
        return Card(colour, int(text[1:]))

    def _colour_index(self, letter: str) -> int | None:
        return next((i for i, c in enumerate(self.colours) if c.letter == letter), None)

    def describe(self) -> dict[str, Any]:
        """A JSON summary of the edition (for help screens and clients)."""
        return {
            "key": self.key,
            "name": self.name,
            "players": list(self.player_counts),
            "colours": [
                {"letter": c.letter, "name": c.name, "symbol": c.symbol, "trump": c.trump} for c in self.colours
            ],
            "values": {str(p): list(v) for p, v in self.values.items()},
            "deals": {str(p): d for p, d in self.deal_counts.items()},
            "bid_cap": self.default_bid_cap,
            "hand_size": HAND_SIZE,
            "aside": {str(p): self.aside_size(p) for p in self.player_counts},
            "value_names": {
                str(p): [self.value_name(v) for v in range(low, high + 1)] for p, (low, high) in self.values.items()
            },
        }


@functools.cache
def _default_options(edition: Edition, players: int) -> TableOptions:
    return TableOptions(
        bid_cap=edition.default_bid_cap,
        trick_history=False,
        first_player=None,
        made_points=edition.default_made_points(players),
    )


@functools.cache
def _deck(edition: Edition, players: int) -> tuple[Card, ...]:
    low, high = edition.values[players]
    return tuple(Card(c, v) for c in range(len(edition.colours)) for v in range(low, high + 1))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, eq=False)
class Korokorodou2014(Edition):
    """The original: a made bet is worth a flat 40 (20 with the AND 1 token), whatever the deal."""

    flat_made_points: int = 40

    def default_made_points(self, players: int) -> tuple[int, ...]:
        return (self.flat_made_points,) * self.deals(players)


_VALUE = re.compile(r"[1-9][0-9]*")
MAX_MADE_POINTS = 1_000_000
"""The most points a made bet may be worth (``made_points``): totals stay printable numbers."""
"""A card value in notation: ASCII digits, no leading zero."""

_RANKS = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_VALUES = {name: value for value, name in _RANKS.items()}


@dataclass(frozen=True, eq=False)
class StandardDeck(Edition):
    """A 52-card deck: cards are named rank then suit (``AH``, ``10S``, ``2C``); the Ace is high (value 14)."""

    def card_name(self, card: Card) -> str:
        return f"{self.value_name(card.value)}{self.colours[card.colour].letter}"

    def value_name(self, value: int) -> str:
        return _RANKS.get(value, str(value))

    def _parse_card(self, text: str) -> Card | None:
        colour = self._colour_index(text[-1])
        rank = text[:-1]
        value = _RANK_VALUES.get(rank) or (int(rank) if _VALUE.fullmatch(rank) and 2 <= int(rank) <= 10 else None)
        if colour is None or value is None:
            return None
        return Card(colour, value)


KOROKORODOU_2014 = Korokorodou2014(
    key="korokorodou-2014",
    name="LUZ (Korokorodou, 2014)",
    colours=(
        Colour("B", "blue", "◆"),
        Colour("O", "orange", "●"),
        Colour("G", "green", "▲"),
        Colour("R", "red", "♥"),
        Colour("W", "white", "★", trump=True),
    ),
    values={3: (1, 8), 4: (1, 10)},
    deal_counts={3: 6, 4: 4},
    default_bid_cap=None,
    made_points_step=0,
    miss_penalty=10,
    safety_softens_miss=True,
    leader_opens_last_deal_with_3=False,
    tie_break_from_usual_first=False,
    aliases=("2014", "korokorodou", "original"),
    assumptions={"A3": "colours other than white (trump) are named blue, orange, green, red"},
)

IELLO_2024 = Edition(
    key="iello-2024",
    name="LUZ (IELLO, 2024)",
    colours=(
        Colour("R", "red", "♥"),
        Colour("G", "green", "▲"),
        Colour("B", "blue", "◆"),
        Colour("P", "purple", "●"),
        Colour("Y", "yellow", "☀", trump=True),
    ),
    values={3: (1, 8), 4: (1, 10), 5: (1, 12)},
    deal_counts={3: 4, 4: 4, 5: 4},
    default_bid_cap=15,
    made_points_step=10,
    miss_penalty=5,
    safety_softens_miss=False,
    leader_opens_last_deal_with_3=True,
    tie_break_from_usual_first=False,
    aliases=("iello", "2024"),
)

STANDARD_DECK = StandardDeck(
    key="standard-deck",
    name="LUZ with a standard deck (LucyBeta)",
    colours=(
        Colour("C", "clubs", "♣"),
        Colour("D", "diamonds", "♦"),
        Colour("S", "spades", "♠"),
        Colour("H", "hearts", "♥", trump=True),
    ),
    values={3: (5, 14), 4: (2, 14)},
    deal_counts={3: 4, 4: 4},
    default_bid_cap=None,
    made_points_step=2,
    miss_penalty=1,
    safety_softens_miss=False,
    leader_opens_last_deal_with_3=True,
    tie_break_from_usual_first=True,
    aliases=("standard", "lucybeta"),
    assumptions={"A1": "a made bet scores 2/4/6/8 by deal, half with a safety (IELLO's table divided by 5)"},
)

EDITIONS: dict[str, Edition] = {e.key: e for e in (KOROKORODOU_2014, IELLO_2024, STANDARD_DECK)}
"""The registry, by stable key."""
DEFAULT_EDITION = IELLO_2024.key
"""The edition a game, a table or a command is of when none is named: the current published one."""

_BY_NAME = {name: e for e in EDITIONS.values() for name in (e.key, *e.aliases)}


def get_edition(key: str | Edition) -> Edition:
    """The edition registered under ``key`` or one of its aliases.

    >>> get_edition("2014").key
    'korokorodou-2014'
    """
    if isinstance(key, Edition):
        return key
    try:
        return _BY_NAME[str(key).strip().lower()]
    except KeyError:
        raise UnknownEdition(f"unknown edition {key!r}; editions are: {', '.join(EDITIONS)}") from None
