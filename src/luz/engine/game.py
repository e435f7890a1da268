"""The game state machine: deal, bid, play ten tricks, score; repeat until the last deal.

A :class:`Game` holds no random generator: each deal is a chance step, either explicit (:meth:`Game.deal`) or
derived from the game's seed (the same seed always gives the same deals).

>>> game = Game.new("iello-2024", players=3, seed=7)
>>> game.phase, game.deal_number, len(game.legal_actions())
(<Phase.BID: 'bid'>, 1, 22)
>>> while game.phase is not Phase.GAME_OVER:
...     game.apply(game.legal_actions()[0])
>>> game.outcome().winner in range(3)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, NoReturn

from .actions import ALL_BIDS, PLAYS, Action, Bid, Play, check_action
from .cards import Card
from .editions import HAND_SIZE, Edition, TableOptions, get_edition
from .errors import IllegalAction, InvalidAction, InvalidDeal, InvalidOptions
from .scoring import DealResult, Outcome, ScoreSheet

ALL_SLOTS = (1 << HAND_SIZE) - 1
"""A hand's slots as a bit mask: slot ``s`` is bit ``s``."""
_PLAYS_OF: tuple[tuple[Play, ...], ...] = tuple(
    tuple(PLAYS[slot] for slot in range(HAND_SIZE) if mask >> slot & 1) for mask in range(1 << HAND_SIZE)
)
"""The plays of the slots in each bit mask, ascending: legal plays without building them at each turn."""
_BIDS_UP_TO: tuple[tuple[Bid, ...], ...] = tuple(ALL_BIDS[: 2 * (tricks + 1)] for tricks in range(HAND_SIZE + 1))
"""The bids of at most ``tricks`` tricks, by ``tricks``."""


class Phase(Enum):
    DEAL = "deal"
    """Waiting for the cards of the next deal (a game without a seed is dealt explicitly)."""
    BID = "bid"
    PLAY = "play"
    GAME_OVER = "game_over"


# Enum member lookups are slow in Python 3.11; the hot paths compare against these module constants.
_DEAL, _BID, _PLAY, _GAME_OVER = Phase.DEAL, Phase.BID, Phase.PLAY, Phase.GAME_OVER


@dataclass(frozen=True, slots=True)
class Deal:
    """The chance outcome of a deal: each seat's hand as held (sorted, slot order) and the aside."""

    hands: tuple[tuple[Card, ...], ...]
    aside: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards played in order as ``(seat, slot, card)``, and its winner once complete."""

    leader: int
    plays: tuple[tuple[int, int, Card], ...]
    winner: int | None = None


def trick_winner(plays: Sequence[tuple[int, Card]], trump: int) -> int:
    """The seat that wins a complete trick of ``(seat, card)``: highest trump, else highest of the led colour."""
    led = plays[0][1].colour
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if card.colour == best.colour:
            if card.value > best.value:
                best_seat, best = seat, card
        elif card.colour == trump or (card.colour == led and best.colour != trump):
            best_seat, best = seat, card
    return best_seat


def shuffle_deal(edition: Edition, players: int, rng: random.Random) -> Deal:
    """Shuffle the deck with ``rng``, deal 10 cards to each seat (sorted), set the rest aside."""
    deck = edition.deck(players)
    keys = [rng.random() for _ in deck]
    order = sorted(range(len(deck)), key=keys.__getitem__)
    card = deck.__getitem__
    hands = tuple(tuple(map(card, sorted(order[i : i + HAND_SIZE]))) for i in range(0, players * HAND_SIZE, HAND_SIZE))
    return Deal(hands, tuple(map(card, sorted(order[players * HAND_SIZE :]))))


def seeded_rng(seed: int, purpose: str) -> random.Random:
    """An independent generator for one purpose (``"first"``, ``"deal-3"``...) of a seeded game."""
    return random.Random(f"luz:{seed}:{purpose}")


def drawn_first_player(seed: int, players: int) -> int:
    """The first player a seeded game draws when its table's options do not set one."""
    return seeded_rng(seed, "first").randrange(players)


def check_deal(edition: Edition, players: int, hands: Sequence[Sequence[Card]], aside: Sequence[Card]) -> Deal:
    """``hands`` and ``aside`` as a :class:`Deal` (hands sorted), or :class:`InvalidDeal` saying what is wrong."""
    if len(hands) != players:
        raise InvalidDeal(f"a deal needs {players} hands, not {len(hands)}")
    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise InvalidDeal(f"seat {seat}'s hand has {len(hand)} cards, not {HAND_SIZE}")
    dealt = [card for hand in hands for card in hand] + list(aside)
    deck = edition.deck(players)
    if sorted(dealt) != list(deck):
        missing = set(deck) - set(dealt)
        extra = [c for c in dealt if c not in set(deck)]
        doubled = {c for c in dealt if dealt.count(c) > 1}
        problems = [
            f"missing {', '.join(edition.card_name(c) for c in sorted(missing))}" if missing else "",
            f"not in the deck: {', '.join(map(edition.card_name, extra))}" if extra else "",
            f"dealt twice: {', '.join(edition.card_name(c) for c in sorted(doubled))}" if doubled else "",
        ]
        raise InvalidDeal("the hands and aside are not the deck: " + "; ".join(p for p in problems if p))
    return Deal(tuple(tuple(sorted(hand)) for hand in hands), tuple(sorted(aside)))


class Game:
    """A whole game of LUZ at one table. Mutable: :meth:`apply` advances it; everything else only reads."""

    def __init__(
        self,
        edition: Edition | str,
        players: int,
        options: TableOptions | None = None,
        seed: int | None = None,
    ) -> None:
        self.edition = get_edition(edition)
        self.edition.check_players(players)
        self.players = players
        self.options = options or self.edition.options(players)
        self.edition.check_options(players, self.options)
        self.seed = seed
        first = self.options.first_player
        if first is None:
            if seed is None:
                raise InvalidOptions("without a seed, the first player must be set in the table options")
            first = drawn_first_player(seed, players)
        self._trump = self.edition.trump
        self._colour_range = range(len(self.edition.colours))
        self._sheet = ScoreSheet(self.edition, players, self.options, first)
        self.deals: list[Deal] = []
        """The deals so far, in order."""
        self.actions: list[list[Action]] = []
        """The actions of each deal so far, in order: with :attr:`deals`, the game's whole history."""
        self._log: list[Action] = []
        self.history_complete = True
        """False for a game built :meth:`from_position`: it has no action history, so no record."""
        self.closing_trick: Trick | None = None
        """The last trick of the previous deal (every card of it was seen played), ``None`` before one ended."""
        self.phase = _DEAL
        self._prepare_deal()

    @classmethod
    def new(
        cls,
        edition: Edition | str,
        players: int,
        seed: int | None = None,
        options: TableOptions | None = None,
        **option_overrides: Any,
    ) -> Game:
        """A new game; ``option_overrides`` (``bid_cap=None``, ``trick_history=True``...) adjust the defaults."""
        edition = get_edition(edition)
        if options is None:
            options = edition.options(players, **option_overrides)
        elif option_overrides:
            raise InvalidOptions("give either options or option overrides, not both")
        return cls(edition, players, options, seed)

    @classmethod
    def from_position(
        cls,
        sheet: ScoreSheet,
        deal: Deal,
        played: Sequence[Iterable[int]],
        bids: Sequence[Bid | None],
        tricks_won: Sequence[int],
        trick: Trick,
        completed: Sequence[Trick] = (),
        closing_trick: Trick | None = None,
    ) -> Game:
        """A game in the middle of a deal, built from what is on the table rather than from its history.

        For simulation and analysis (e.g. a world sampled by :mod:`luz.engine.beliefs`): ``sheet`` holds the
        deals before this one, ``played`` each seat's played slots (including those in ``trick``, the trick
        being played), ``completed`` the deal's completed tricks when they are known, ``closing_trick`` the
        previous deal's last trick. The game has no action
        history (:attr:`history_complete` is false), so it has no record.
        """
        game = cls(sheet.edition, sheet.players, replace(sheet.options, first_player=sheet.first_player))
        game.options = sheet.options
        game._sheet = sheet
        game._prepare_deal()
        game.deal(deal.hands, deal.aside)
        game.history_complete = False
        game.closing_trick = closing_trick
        game.deals = [game.deals[-1]]
        game.actions = [game._log]
        for seat, slots in enumerate(played):
            for slot in slots:
                game._unplayed[seat] &= ~(1 << slot)
        game._bids = list(bids)
        game._bid_total = sum(b.tricks for b in bids if b is not None)
        game._tricks_won = list(tricks_won)
        game._tricks_played = sum(tricks_won)
        game._completed = [
            (t.leader, [(seat, slot) for seat, slot, _ in t.plays], t.leader if t.winner is None else t.winner)
            for t in completed
        ]
        game._trick = [(seat, slot) for seat, slot, _ in trick.plays]
        game._leader = trick.leader
        if trick.plays:
            first_seat, first_slot, _ = trick.plays[0]
            game._led = game._colours[first_seat][first_slot]
        if None in game._bids:
            order = [(game.first_player + i) % game.players for i in range(game.players)]
            game.current_player = next(seat for seat in order if game._bids[seat] is None)
            game.phase = _BID
        else:
            game.current_player = (trick.leader + len(trick.plays)) % game.players
            game.phase = _PLAY
        return game

    # -- dealing ---------------------------------------------------------------------------------------------

    def _prepare_deal(self) -> None:
        self.phase = _DEAL
        self.current_player: int | None = None
        self.first_player = self._sheet.first_player_of(len(self._sheet.deals))
        if self.seed is not None:
            rng = seeded_rng(self.seed, f"deal-{len(self._sheet.deals) + 1}")
            self._start_deal(shuffle_deal(self.edition, self.players, rng))

    def deal(self, hands: Sequence[Sequence[Card]], aside: Sequence[Card]) -> None:
        """Deal explicit cards (each hand as held; it is sorted here). Only when the game waits for a deal."""
        if self.phase is not _DEAL:
            raise IllegalAction("the game is not waiting for a deal")
        self._start_deal(check_deal(self.edition, self.players, hands, aside))

    def _colour_masks(self, colours: list[int]) -> list[int]:
        """Bit ``slot`` set in entry ``colour`` for each slot of that colour."""
        masks = [0 for _ in self._colour_range]
        for slot, colour in enumerate(colours):
            masks[colour] |= 1 << slot
        return masks

    def _start_deal(self, deal: Deal) -> None:
        n = self.players
        self.deals.append(deal)
        self._log = []
        self.actions.append(self._log)
        self._led = -1
        self._colours = [[card.colour for card in hand] for hand in deal.hands]
        self._by_colour = [self._colour_masks(colours) for colours in self._colours]
        """The slots of each colour in each seat's hand, as bit masks (fixed for the deal)."""
        self._unplayed = [ALL_SLOTS] * n
        """Each seat's unplayed slots, as a bit mask."""
        self._bids: list[Bid | None] = [None] * n
        self._bid_total = 0
        self._tricks_won = [0] * n
        self._trick: list[tuple[int, int]] = []
        self._completed: list[tuple[int, list[tuple[int, int]], int]] = []
        """Completed tricks as (leader, [(seat, slot)...], winner): made into Tricks only when asked for."""
        self._tricks_played = 0
        self._leader = self.first_player
        self.current_player = self.first_player
        self.phase = _BID

    # -- reading -----------------------------------------------------------------------------------------

    @property
    def deal_number(self) -> int:
        """The current deal, 1-based (the last one once the game is over, 0 before the first)."""
        live = self.phase is _BID or self.phase is _PLAY
        return len(self._sheet.deals) + (1 if live else 0)

    @property
    def deal_count(self) -> int:
        return self._sheet.deal_count

    @property
    def sheet(self) -> ScoreSheet:
        return self._sheet

    @property
    def bids(self) -> tuple[Bid | None, ...]:
        return tuple(self._bids)

    @property
    def beads_left(self) -> int | None:
        """Bid tokens left under the table's cap this deal (``None``: no cap)."""
        cap = self.options.bid_cap
        return None if cap is None else cap - self._bid_total

    @property
    def tricks_won(self) -> tuple[int, ...]:
        return tuple(self._tricks_won)

    @property
    def trick(self) -> Trick:
        """The trick being played (possibly empty)."""
        return Trick(self._leader, tuple((s, slot, self.card(s, slot)) for s, slot in self._trick))

    @property
    def completed_tricks(self) -> tuple[Trick, ...]:
        """The deal's completed tricks (what a view shows of them depends on the table options)."""
        return tuple(map(self._as_trick, self._completed))

    def _as_trick(self, completed: tuple[int, list[tuple[int, int]], int]) -> Trick:
        """A completed trick of this deal, from its ``(leader, plays, winner)``."""
        leader, plays, winner = completed
        hands = self.deals[-1].hands
        return Trick(leader, tuple([(s, slot, hands[s][slot]) for s, slot in plays]), winner)

    def card(self, seat: int, slot: int) -> Card:
        return self.deals[-1].hands[seat][slot]

    def is_played(self, seat: int, slot: int) -> bool:
        return not self._unplayed[seat] >> slot & 1

    def unplayed_slots(self, seat: int) -> int:
        """The slots of ``seat``'s hand not yet played in this deal, a bit each (bit ``slot``)."""
        return self._unplayed[seat]

    def outcome(self) -> Outcome | None:
        return self._sheet.outcome()

    def legal_actions(self) -> Sequence[Action]:
        """The current player's legal actions, decided from what that player knows (colours, positions)."""
        seat = self.current_player
        if self.phase is _PLAY and seat is not None:
            unplayed = self._unplayed[seat]
            if self._trick:
                following = unplayed & self._by_colour[seat][self._led]
                if following:
                    return _PLAYS_OF[following]
            return _PLAYS_OF[unplayed]
        if self.phase is _BID:
            left = self.beads_left
            return ALL_BIDS if left is None or left >= HAND_SIZE else _BIDS_UP_TO[left]
        return ()

    # -- acting ------------------------------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply the current player's ``action`` (checked as that ``seat``'s when given).

        :class:`~luz.engine.errors.InvalidAction` for a malformed action, :class:`IllegalAction` for one that
        the rules forbid now; the game is unchanged after either.
        """
        player = self.current_player
        if player is None or (seat is not None and (seat != player or type(seat) is not int)):
            check_action(action)
            self._refuse(seat)
        log = self._log  # the deal's log: a deal's last play starts the next deal
        if type(action) is not Play or type(action.slot) is not int or not 0 <= action.slot < HAND_SIZE:
            action = check_action(action)
            if isinstance(action, Bid):
                self._bid(player, action)
                log.append(action)
                return
        # A play: the hot path of every simulation, kept inline.
        slot = action.slot
        if self.phase is not _PLAY:
            raise IllegalAction("bidding is not over: bid first")
        colour = self._colours[player][slot]
        unplayed = self._unplayed[player]
        if not unplayed >> slot & 1:
            raise IllegalAction(f"slot {slot} was already played")
        trick = self._trick
        if not trick:
            self._led = colour
        elif colour != self._led and unplayed & self._by_colour[player][self._led]:
            name = self.edition.colours[self._led].name
            raise IllegalAction(f"you must follow {name}: you hold {name} cards")
        self._unplayed[player] = unplayed ^ (1 << slot)
        trick.append((player, slot))
        if len(trick) < self.players:
            self.current_player = player + 1 if player + 1 < self.players else 0
        else:
            self._finish_trick()
        log.append(action)

    def _refuse(self, seat: int | None) -> NoReturn:
        """Refuse an action that comes at the wrong time or from the wrong seat."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.players):
            raise InvalidAction(f"seat must be 0..{self.players - 1}, not {seat!r}")
        if self.current_player is None:
            over = self.phase is _GAME_OVER
            raise IllegalAction("the game is over" if over else "the game is waiting for the next deal")
        raise IllegalAction(f"it is not seat {seat}'s turn: seat {self.current_player} is to {self.phase.value}")

    def _bid(self, player: int, bid: Bid) -> None:
        if self.phase is not _BID:
            raise IllegalAction("bidding is over: play a card")
        left = self.beads_left
        if left is not None and bid.tricks > left:
            raise IllegalAction(
                f"only {left} bid token(s) left under the table's cap of {self.options.bid_cap}: bid at most {left}"
            )
        self._bids[player] = bid
        self._bid_total += bid.tricks
        nxt = (player + 1) % self.players
        if nxt == self.first_player:
            self.phase = _PLAY
        self.current_player = nxt

    def _finish_trick(self) -> None:
        hands = self.deals[-1].hands
        plays = self._trick
        winner = trick_winner([(seat, hands[seat][slot]) for seat, slot in plays], self._trump)
        self._completed.append((self._leader, plays, winner))
        self._tricks_won[winner] += 1
        self._tricks_played += 1
        self._trick = []
        self._leader = self.current_player = winner
        if self._tricks_played == HAND_SIZE:
            self._score_deal()

    def _score_deal(self) -> None:
        self.closing_trick = self._as_trick(self._completed[-1])
        bids = [b for b in self._bids if b is not None]
        tricks, safety = [b.tricks for b in bids], [b.safety for b in bids]
        self._sheet = self._sheet.add(tricks, safety, self._tricks_won, check=False)
        if self._sheet.is_over:
            self.phase = _GAME_OVER
            self.current_player = None
        else:
            self._prepare_deal()

    @property
    def results(self) -> tuple[DealResult, ...]:
        """The scored deals so far."""
        return self._sheet.deals

    def clone(self) -> Game:
        """An independent copy (for search and simulation)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.deals = list(self.deals)
        other.actions = [list(a) for a in self.actions]
        other._log = other.actions[-1] if other.actions else []
        if self.deals:
            other._colours = self._colours
            other._unplayed = list(self._unplayed)
            other._bids = list(self._bids)
            other._tricks_won = list(self._tricks_won)
            other._trick = list(self._trick)
            other._completed = list(self._completed)
        return other
