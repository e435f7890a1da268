"""The heuristic bot: guess its own values from what it sees, bid for the best expected score, play to make it.

Its unplayed cards of a colour lie, in slot order, among the values of that colour that the seat sees nowhere
(its own unplayed cards and the aside) between the values already revealed on either side; every such spread
is equally likely, which gives each card's chance to beat any visible value.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from luz.engine import Action, Bid, Card, Phase, Play, View, trick_winner
from luz.engine.beliefs import Beliefs

from .base import Bot, InvalidBotSpec

NEAR = 0.1
"""Chances of winning within this of the best (or worst) count as equal; then the card's cost decides."""
PLAIN_TOP, PLAIN_DECAY, TRUMP_DECAY, RUFF_RISK, SHORT_RUFF = 0.9, 0.5, 0.6, 0.5, 0.5
"""Trick chances: a plain card above every visible card of its colour; the factor for each visible higher plain
card or trump, and for each opponent able to ruff; a low trump's chance when the seat is short in a colour."""


@dataclass(frozen=True, slots=True)
class Guess:
    """One of the seat's unplayed cards: its possible values and, for each, the chance it is at least that."""

    slot: int
    colour: int
    pool: tuple[int, ...]
    """The values it can have, ascending."""
    at_least: tuple[float, ...]
    """``at_least[i]``: the chance that the card is ``pool[i]`` or higher (with a final 0)."""

    def p_above(self, value: int) -> float:
        """The chance that this card is higher than ``value`` (a value the seat sees elsewhere)."""
        return self.at_least[bisect_right(self.pool, value)]


def guess_own_cards(view: View) -> list[Guess]:
    """A guess for each of the seat's unplayed cards, in slot order, from the seat's exact beliefs."""
    assert view.seat is not None
    hand = view.hands[view.seat]
    guesses = []
    for slot, probabilities in sorted(Beliefs(view).table().items()):
        tail = [0.0]
        for p in reversed(probabilities.values()):
            tail.append(tail[-1] + p)
        guesses.append(Guess(slot, hand[slot].colour, tuple(probabilities), tuple(reversed(tail))))
    return guesses


def opponents_cards(view: View) -> dict[int, list[Card]]:
    """Every other seat's unplayed cards (the seat sees them all)."""
    return {
        holder: [Card(s.colour, s.value) for s in hand if not s.played and s.value is not None]
        for holder, hand in enumerate(view.hands)
        if holder != view.seat
    }


def trick_chances(view: View, guesses: list[Guess], opponents: dict[int, list[Card]]) -> dict[int, float]:
    """A rough chance, by slot, that each own card takes a trick this deal.

    A card is weakened by each visible higher card of its colour; a plain card by each opponent who will be void
    in its colour (and holds trumps) by the time it is played. A low trump is strengthened by a plain colour that
    the seat is short in and the others hold.
    """
    trump = view.edition.trump
    colours = range(len(view.edition.colours))
    visible = [[c.value for hand in opponents.values() for c in hand if c.colour == colour] for colour in colours]
    lengths = [Counter(c.colour for c in hand) for hand in opponents.values()]
    ruffing = [length for length in lengths if length[trump]]
    mine = Counter(g.colour for g in guesses)
    chances: dict[int, float] = {}
    above = [0] * len(colours)
    for g in reversed(guesses):
        higher = sum(1 - g.p_above(value) for value in visible[g.colour])
        if g.colour == trump:
            chances[g.slot] = TRUMP_DECAY**higher
        else:
            ruffers = sum(1 for length in ruffing if length[g.colour] <= above[g.colour])
            chances[g.slot] = PLAIN_TOP * PLAIN_DECAY**higher * RUFF_RISK**ruffers
        above[g.colour] += 1
    short = sum(1 for colour in colours if colour != trump and mine[colour] <= 1 < len(visible[colour]))
    low_trumps = sorted((g.slot for g in guesses if g.colour == trump), key=chances.__getitem__)
    for slot in low_trumps[:short]:
        chances[slot] = max(chances[slot], SHORT_RUFF)
    return chances


def trick_distribution(chances: list[float]) -> list[float]:
    """The chance of taking each number of tricks, cards taken as independent."""
    dist = [1.0]
    for p in chances:
        dist = [a * (1 - p) + b * p for a, b in zip([*dist, 0.0], [0.0, *dist], strict=True)]
    return dist


def choose_bid(view: View, chances: dict[int, float], bias: int = 0, safety: int = 0) -> Bid:
    """The legal bid with the best expected score over the estimated number of tricks.

    A variant: ``safety`` -1 never takes the safety, 1 always does (0: when it pays); ``bias`` tricks are then
    added to the bid (kept legal).
    """
    dist = trick_distribution(list(chances.values()))
    score, number, options = view.edition.score, view.deal_number, view.options

    def expected_score(bid: Bid) -> float:
        return sum(p * score(bid.tricks, bid.safety, tricks, number, options) for tricks, p in enumerate(dist))

    bids = [a for a in view.legal_actions if isinstance(a, Bid) and (not safety or a.safety == (safety > 0))]
    best = max(bids, key=expected_score)
    top = max(a.tricks for a in bids)
    return Bid(min(max(best.tricks + bias, 0), top), best.safety)


def win_chance(view: View, guess: Guess, opponents: dict[int, list[Card]]) -> float:
    """The chance that playing ``guess`` now wins the trick.

    A later player is taken to beat it when able and still short of their bid, or when every card they may play
    beats it.
    """
    assert view.trick is not None
    trump = view.edition.trump
    plays = view.trick.plays
    led = plays[0][2].colour if plays else guess.colour
    chance = _top_chance(guess, plays, trump)
    played = {seat for seat, _, _ in plays}
    for seat, hand in opponents.items():
        if seat in played or not chance:
            continue
        playable = [c for c in hand if c.colour == led] or hand
        beats = [_beat_chance(c, guess, trump) for c in playable]
        bid = view.bids[seat]
        needs = bid is not None and view.tricks_won[seat] < bid.tricks
        chance *= 1 - (max(beats) if needs else min(beats))
    return chance


def _top_chance(guess: Guess, plays: tuple[tuple[int, int, Card], ...], trump: int) -> float:
    """The chance that ``guess`` beats every card already in the trick."""
    if not plays:
        return 1.0
    winner = trick_winner([(seat, card) for seat, _, card in plays], trump)
    best = next(card for seat, _, card in plays if seat == winner)
    if guess.colour == best.colour:
        return guess.p_above(best.value)
    return 1.0 if guess.colour == trump else 0.0


def _beat_chance(card: Card, guess: Guess, trump: int) -> float:
    """The chance that ``card``, played after ``guess`` while ``guess`` is winning, beats it."""
    if card.colour == guess.colour:
        return 1 - guess.p_above(card.value)
    return 1.0 if card.colour == trump else 0.0


def choose_play(view: View, guesses: list[Guess], opponents: dict[int, list[Card]], greedy: bool = False) -> Play:
    """While short of its bid, the cheapest of the likeliest winners; then the costliest of the likeliest losers.

    A card's cost is its chance to take a trick later. A ``greedy`` player always plays as if short of its bid.
    """
    assert view.seat is not None
    by_slot = {g.slot: g for g in guesses}
    cost = trick_chances(view, guesses, opponents)
    plays = [a for a in view.legal_actions if isinstance(a, Play)]
    chance = {a.slot: win_chance(view, by_slot[a.slot], opponents) for a in plays}
    bid = view.bids[view.seat]
    if greedy or (bid is not None and view.tricks_won[view.seat] < bid.tricks):
        best = max(chance.values())
        return min((a for a in plays if chance[a.slot] >= best - NEAR), key=lambda a: cost[a.slot])
    worst = min(chance.values())
    return max((a for a in plays if chance[a.slot] <= worst + NEAR), key=lambda a: cost[a.slot])


class HeuristicBot(Bot):
    """Bids for the best expected score, then tries to take exactly its bid.

    Variants for the arena's field (all default to the plain heuristic): ``bias`` tricks added to its bid (an
    over- or under-bidder), ``safety`` -1 never / 1 always, ``greedy`` 1 always plays to win the trick, and
    ``noise`` the chance of a uniformly random legal action instead.
    """

    name = "heuristic"

    def __init__(self, bias: int = 0, safety: int = 0, greedy: int = 0, noise: float = 0.0) -> None:
        for key, value, allowed in (
            ("bias", bias, range(-3, 4)),
            ("safety", safety, (-1, 0, 1)),
            ("greedy", greedy, (0, 1)),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
                raise InvalidBotSpec(f"{key} must be one of {', '.join(map(str, allowed))}, not {value!r}")
        if isinstance(noise, bool) or not isinstance(noise, int | float) or not 0 <= noise <= 1:
            raise InvalidBotSpec(f"noise must be a number in [0, 1], not {noise!r}")
        self.bias, self.safety, self.greedy, self.noise = bias, safety, bool(greedy), float(noise)

    def decide(self, view: View, rng: random.Random) -> Action:
        if self.noise and rng.random() < self.noise:
            return rng.choice(view.legal_actions)
        guesses = guess_own_cards(view)
        opponents = opponents_cards(view)
        if view.phase is Phase.BID:
            return choose_bid(view, trick_chances(view, guesses, opponents), self.bias, self.safety)
        return choose_play(view, guesses, opponents, self.greedy)
