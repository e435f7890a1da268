"""The facts of the LUZ rules, written down from the sources (RULES.md, the texts in ``seeds/``, docs/RECORD.md for the
notation), and the helpers several test files share.

These facts are deliberately NOT taken from the engine (``luz.engine.editions``): the tests check the engine against
the rules, never against itself.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from luz.engine import Action, Card, Game, Phase, get_edition, to_record, view

# -- the tables ---------------------------------------------------------------------------------------------------

CONFIGS = [
    ("korokorodou-2014", 3),
    ("korokorodou-2014", 4),
    ("iello-2024", 3),
    ("iello-2024", 4),
    ("iello-2024", 5),
    ("standard-deck", 3),
    ("standard-deck", 4),
]
"""Every (edition key, player count) the rules allow."""
SEATS = [(key, players, seat) for key, players in CONFIGS for seat in range(players)]

# -- the cards ----------------------------------------------------------------------------------------------------

LETTERS = {"korokorodou-2014": "BOGRW", "iello-2024": "RGBPY", "standard-deck": "CDSH"}  # hand order, trump last
COLOURS = {"korokorodou-2014": 5, "iello-2024": 5, "standard-deck": 4}
TRUMP = {"korokorodou-2014": 4, "iello-2024": 4, "standard-deck": 3}  # white, yellow, hearts (last in hand order)
VALUES = {  # lowest and highest value of each colour
    ("korokorodou-2014", 3): (1, 8),
    ("korokorodou-2014", 4): (1, 10),
    ("iello-2024", 3): (1, 8),
    ("iello-2024", 4): (1, 10),
    ("iello-2024", 5): (1, 12),
    ("standard-deck", 3): (5, 14),
    ("standard-deck", 4): (2, 14),
}
RANKS = {11: "J", 12: "Q", 13: "K", 14: "A"}  # standard deck, Ace high

# -- the game -----------------------------------------------------------------------------------------------------

DEALS = {
    ("korokorodou-2014", 3): 6,
    ("korokorodou-2014", 4): 4,
    ("iello-2024", 3): 4,
    ("iello-2024", 4): 4,
    ("iello-2024", 5): 4,
    ("standard-deck", 3): 4,
    ("standard-deck", 4): 4,
}
BID_CAP = {"iello-2024": 15}  # the bids of one deal sum to at most this; no cap in the other editions

Hands = list[list[Card]]
DealCards = tuple[Hands, list[Card]]


def ref_deck(key: str, players: int) -> list[Card]:
    """The whole deck, in sorted order."""
    low, high = VALUES[key, players]
    return [Card(c, v) for c in range(COLOURS[key]) for v in range(low, high + 1)]


def ref_name(key: str, card: Card) -> str:
    """A card's name in the record notation: colour letter then value, or rank then suit letter."""
    letter = LETTERS[key][card.colour]
    if key == "standard-deck":
        return RANKS.get(card.value, str(card.value)) + letter
    return f"{letter}{card.value}"


def ref_card(key: str, name: str) -> Card:
    """The card a name in the record notation stands for."""
    if key == "standard-deck":
        values = {rank: value for value, rank in RANKS.items()}
        return Card(LETTERS[key].index(name[-1]), values.get(name[:-1]) or int(name[:-1]))
    return Card(LETTERS[key].index(name[0]), int(name[1:]))


def ref_trick_winner(plays: Sequence[tuple[int, Card]], trump: int) -> int:
    """Highest trump if any trump was played, else highest card of the led colour."""
    trumps = [(card.value, seat) for seat, card in plays if card.colour == trump]
    if trumps:
        return max(trumps)[1]
    led = plays[0][1].colour
    return max((card.value, seat) for seat, card in plays if card.colour == led)[1]


def ref_score(key: str, bid: int, safety: bool, tricks: int, deal_number: int) -> int:
    made = tricks == bid or (safety and tricks == bid + 1)
    if key == "korokorodou-2014":
        if made:
            return 20 if safety else 40
        difference = abs(tricks - bid)
        if safety:  # the AND 1 token counts as an extra expectation token to the player's advantage
            difference = min(difference, abs(tricks - (bid + 1)))
        return -10 * difference
    if key == "iello-2024":
        if made:
            return 5 * deal_number if safety else 10 * deal_number
        return -5 * abs(tricks - bid)
    if made:  # standard deck, assumption A1: 2/4/6/8, 1/2/3/4 with a safety
        return deal_number if safety else 2 * deal_number
    return -abs(tricks - bid)


def ref_first_player(key: str, players: int, first: int, deal_index: int, totals: list[int]) -> int:
    """Who bids first and leads in deal ``deal_index`` (from 0), ``totals`` being the scores before it."""
    usual = (first + deal_index) % players
    last = deal_index == DEALS[key, players] - 1
    if last and players == 3 and key != "korokorodou-2014":
        best = max(totals)
        return next(s for s in ((usual + i) % players for i in range(players)) if totals[s] == best)
    return usual


def ref_ranking(key: str, players: int, totals: list[int], last: list[int], actual: int, usual: int) -> list[int]:
    """Seats best first: total, then points in the last deal, then seat order from the last deal's actual first
    player (its usual, rotation, first player for the standard deck)."""
    reference = usual if key == "standard-deck" else actual
    return sorted(range(players), key=lambda s: (-totals[s], -last[s], (s - reference) % players))


# -- shared test helpers ------------------------------------------------------------------------------------------


def random_steps(game: Game, rng: random.Random, steps: int | None = None) -> list[Action]:
    """Apply up to ``steps`` random legal actions (no limit with None) while a deal is live; return them."""
    done = []
    for _ in itertools.count() if steps is None else range(steps):
        if game.phase not in (Phase.BID, Phase.PLAY):
            break
        action = rng.choice(list(game.legal_actions()))
        game.apply(action)
        done.append(action)
    return done


def rebuild_game(
    key: str, players: int, first: int, deals: list[DealCards], actions: list[list[Action]], k: int, trick_history: bool
) -> Game:
    """The game after the first ``k`` actions of the last deal in ``deals`` (earlier deals played in full)."""
    options = get_edition(key).options(players, first_player=first, trick_history=trick_history)
    game = Game(key, players, options, seed=None)
    for number, (hands, aside) in enumerate(deals):
        game.deal(hands, aside)
        todo = actions[number] if number < len(deals) - 1 else actions[number][:k]
        for action in todo:
            game.apply(action)
    return game


def hidden_variant(
    hands: Sequence[Sequence[Card]],
    aside: Sequence[Card],
    seat: int,
    played: set[int],
    rng: random.Random,
    must_differ: bool = False,
) -> DealCards:
    """Redistribute the values of ``seat``'s unplayed cards and of the aside among themselves, keeping the colour
    of each of the seat's slots and the sorted order of its hand (played cards stay where they are). With
    ``must_differ``, each run of unplayed slots takes other cards than it holds wherever it can."""
    hand = hands[seat]
    pool = {hand[s] for s in range(10) if s not in played} | set(aside)
    new_hand = list(hand)
    for colour in {c.colour for c in hand}:
        slots = [s for s in range(10) if hand[s].colour == colour]
        # Maximal runs of unplayed slots of this colour, bounded by the played cards of the colour around them.
        runs: list[tuple[list[int], int, int]] = []
        run: list[int] = []
        low = -1
        for s in [*slots, None]:
            if s is None or s in played:
                high = 99 if s is None else hand[s].value
                if run:
                    runs.append((run, low, high))
                run = []
                if s is not None:
                    low = hand[s].value
            else:
                run.append(s)
        for run_slots, lo, hi in runs:
            candidates = sorted(c for c in pool if c.colour == colour and lo < c.value < hi)
            if must_differ:
                current = tuple(hand[s] for s in run_slots)
                others = [cards for cards in itertools.combinations(candidates, len(run_slots)) if cards != current]
                chosen = list(rng.choice(others) if others else current)
            else:
                chosen = sorted(rng.sample(candidates, len(run_slots)))
            for s, card in zip(run_slots, chosen, strict=True):
                new_hand[s] = card
    new_aside = sorted(pool - {new_hand[s] for s in range(10) if s not in played})
    new_hands = [list(h) for h in hands]
    new_hands[seat] = new_hand
    assert new_hand == sorted(new_hand)
    assert [c.colour for c in new_hand] == [c.colour for c in hand]
    assert all(new_hand[s] == hand[s] for s in played)
    assert sorted([c for h in new_hands for c in h] + new_aside) == sorted([c for h in hands for c in h] + [*aside])
    return new_hands, new_aside


def twin_deals(game: Game, seat: int) -> tuple[Game, Game]:
    """``game``'s table and deal, twice: as dealt, and with ``seat``'s cards exchanged for aside cards of the same
    colours, so that ``seat`` sees exactly the same thing in both (only what it cannot see differs)."""
    deal = game.deals[-1]
    hand, aside = list(deal.hands[seat]), list(deal.aside)
    for colour in sorted({card.colour for card in hand}):
        mine = [card for card in hand if card.colour == colour]
        pool = sorted(mine + [card for card in aside if card.colour == colour])
        other = pool[-len(mine) :] if pool[-len(mine) :] != mine else pool[: len(mine)]
        hand = [card for card in hand if card.colour != colour] + other
        aside = [card for card in aside if card not in other] + [card for card in mine if card not in other]
    changed = [sorted(hand) if s == seat else h for s, h in enumerate(deal.hands)]
    games = []
    for hands, rest in ((deal.hands, deal.aside), (changed, aside)):
        games.append(Game.new(game.edition, game.players, first_player=game.first_player))
        games[-1].deal(hands, rest)
    return games[0], games[1]


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything observable about a game: a refused action must leave it unchanged."""
    views = [view(game, s).to_json() for s in [None, *range(game.players)]]
    return (
        views,
        to_record(game),
        [list(a) for a in game.actions],
        list(game.deals),
        game.phase,
        game.current_player,
        game.first_player,
        game.results,
        tuple(game.legal_actions()),
    )
