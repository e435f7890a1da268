"""Non-interference: what a seat cannot see never changes what it is shown.

For every edition, player count and seat, at several points of random games, the values of the seat's own
unplayed cards and of the aside are redistributed among themselves (each of the seat's slots keeps its colour,
its hand stays in sorted order, so the same actions stay legal and mean the same), the game is rebuilt from the
explicit hands with the same action prefix, and the seat's view must be byte-identical. The spectator must never
be shown an unplayed value or the aside while a deal is live.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from luz.engine import Action, Game, Phase, get_edition, view
from support.reference import CONFIGS, SEATS, DealCards, hidden_variant, random_steps, rebuild_game, ref_deck


def random_deal(key: str, players: int, rng: random.Random) -> DealCards:
    deck = ref_deck(key, players)
    rng.shuffle(deck)
    hands = [sorted(deck[i * 10 : (i + 1) * 10]) for i in range(players)]
    return hands, sorted(deck[players * 10 :])


def random_history(
    key: str, players: int, seed: int, trick_history: bool = False
) -> tuple[int, list[DealCards], list[list[Action]]]:
    """A whole game with explicit deals and random legal actions: (first player, deals, actions per deal)."""
    rng = random.Random(seed)
    first = rng.randrange(players)
    game = Game(key, players, get_edition(key).options(players, first_player=first, trick_history=trick_history))
    deals: list[DealCards] = []
    actions: list[list[Action]] = []
    while game.phase is not Phase.GAME_OVER:
        assert game.phase is Phase.DEAL
        deals.append(random_deal(key, players, rng))
        game.deal(*deals[-1])
        actions.append(random_steps(game, rng))
    return first, deals, actions


def points_of(actions: list[list[Action]], players: int, rng: random.Random) -> list[tuple[int, int, str]]:
    """(deal index, actions into the deal, label): bidding, mid-trick and between tricks in the first and last
    deals, and the end of the game."""
    points = []
    for d in sorted({0, len(actions) - 1}):
        points.append((d, rng.randrange(players), "bidding"))
        trick = rng.randrange(10)
        points.append((d, players + trick * players + rng.randrange(1, players), "mid-trick"))
        points.append((d, players + rng.randrange(1, 10) * players, "between tricks"))
        points.append((d, players, "first lead"))
    points.append((len(actions) - 1, len(actions[-1]), "game over"))
    return points


def strings_in(data: Any) -> set[str]:
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings_in(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(strings_in(v) for v in data)) if data else set()
    return set()


def this_deal(data: dict[str, Any]) -> dict[str, Any]:
    """A view's JSON without the previous deal's last trick (its card names are those of another deal)."""
    return {key: value for key, value in data.items() if key != "closing_trick"}


def check_spectator(game: Game, hidden_names: set[str]) -> None:
    spectator = this_deal(view(game, None).to_json())
    if game.phase in (Phase.BID, Phase.PLAY):
        for hand in spectator["hands"]:
            for slot in hand:
                if not slot["played"]:
                    assert slot["value"] is None and slot["card"] is None
        assert not strings_in(spectator) & hidden_names
    assert spectator["legal_actions"] == []


@pytest.mark.parametrize(("key", "players", "seat"), SEATS)
def test_hidden_values_do_not_change_the_view(key: str, players: int, seat: int) -> None:
    edition = get_edition(key)
    rng = random.Random(f"{key}-{players}-{seat}")
    changed = 0
    checked = 0
    for history_seed, trick_history in ((seat, False), (100 + seat, True)):
        first, deals, actions = random_history(key, players, history_seed, trick_history)
        for d, k, label in points_of(actions, players, rng):
            base = rebuild_game(key, players, first, deals[: d + 1], actions, k, trick_history)
            if label == "game over":
                assert base.phase is Phase.GAME_OVER
            else:
                assert base.phase in (Phase.BID, Phase.PLAY)
                assert base.deal_number == d + 1
            hands, aside = deals[d]
            played = {s for s in range(10) if base.is_played(seat, s)}
            expected = json.dumps(view(base, seat).to_json(), sort_keys=True)
            # Never shown: the aside; the seat's own unplayed cards (to the seat); all unplayed cards (to a spectator).
            aside_names = {edition.card_name(c) for c in aside}
            own_unplayed = {edition.card_name(hands[seat][s]) for s in range(10) if s not in played}
            all_unplayed = {
                edition.card_name(hands[h][s]) for h in range(players) for s in range(10) if not base.is_played(h, s)
            }
            if base.phase is not Phase.GAME_OVER:
                assert not strings_in(this_deal(view(base, seat).to_json())) & (aside_names | own_unplayed)
            check_spectator(base, aside_names | all_unplayed)
            for _ in range(3):
                alt_hands, alt_aside = hidden_variant(hands, aside, seat, played, rng)
                alt_deals = [*deals[:d], (alt_hands, alt_aside)]
                alt = rebuild_game(key, players, first, alt_deals, actions, k, trick_history)
                assert json.dumps(view(alt, seat).to_json(), sort_keys=True) == expected, (label, d, k)
                # A spectator knows less than any seat: its view cannot change either.
                assert view(alt, None).to_json() == view(base, None).to_json()
                checked += 1
                changed += alt_hands[seat] != hands[seat]
    assert checked > 0
    # The check is not vacuous: some of the variants really changed the seat's hidden values.
    assert changed > 0


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_spectator_sees_no_unplayed_value(key: str, players: int) -> None:
    edition = get_edition(key)
    rng = random.Random(7)
    first, deals, actions = random_history(key, players, 11)
    game = Game(key, players, edition.options(players, first_player=first))
    for (hands, aside), deal_actions in zip(deals, actions, strict=True):
        game.deal(hands, aside)
        for action in deal_actions:
            if rng.random() < 0.3:
                unplayed = {
                    edition.card_name(hands[h][s])
                    for h in range(players)
                    for s in range(10)
                    if not game.is_played(h, s)
                }
                check_spectator(game, unplayed | {edition.card_name(c) for c in aside})
            game.apply(action)
        # Between deals (explicit deals): nothing of the next deal exists yet; never the aside of this one.
        between = view(game, None).to_json()
        assert not strings_in(between) & {edition.card_name(c) for c in aside}


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_check_can_fail(key: str, players: int) -> None:
    """Changing what a seat CAN see (another seat's hidden values) does change its view."""
    rng = random.Random(3)
    first, deals, actions = random_history(key, players, 5)
    differs = 0
    for owner in range(players):
        viewer = (owner + 1) % players
        for k in (0, players + 1):
            base = rebuild_game(key, players, first, deals[:1], actions, k, False)
            hands, aside = deals[0]
            played = {s for s in range(10) if base.is_played(owner, s)}
            for _ in range(5):
                alt_hands, alt_aside = hidden_variant(hands, aside, owner, played, rng)
                if alt_hands[owner] == hands[owner]:
                    continue
                alt = rebuild_game(key, players, first, [(alt_hands, alt_aside)], actions, k, False)
                # Invisible to the owner, visible to the viewer.
                assert view(alt, owner).to_json() == view(base, owner).to_json()
                assert view(alt, viewer).to_json() != view(base, viewer).to_json()
                differs += 1
                break
    assert differs >= players


@pytest.mark.parametrize(("key", "players"), CONFIGS)
def test_the_last_card_of_a_deal_is_shown(key: str, players: int) -> None:
    """The trick that ends a deal stays on the table (``closing_trick``) until the next deal's first card, and the
    last trick of the game stays shown once it is over: every seat sees the last card played."""
    game = Game.new(key, players=players, seed=11)
    rng = random.Random(11)
    seen_closing = 0
    while game.phase is not Phase.GAME_OVER:
        deal = game.deal_number
        game.apply(rng.choice(list(game.legal_actions())))
        if game.phase is Phase.GAME_OVER:
            break
        if game.deal_number != deal:  # that action ended a deal: the next one is being bid
            last = game.closing_trick
            assert last is not None and len(last.plays) == players and last.winner is not None
            for seat in [*range(players), None]:
                shown = view(game, seat)
                assert shown.closing_trick == last and shown.last_trick is None
            seen_closing += 1
            while not game.trick.plays:
                game.apply(rng.choice(list(game.legal_actions())))
            assert all(view(game, seat).closing_trick is None for seat in range(players))
    assert seen_closing == game.deal_count - 1
    final = view(game, 0).last_trick
    assert final is not None and len(final.plays) == players
    assert view(game, None).last_trick == final
