"""Helpers of the research adapter tests: random OpenSpiel histories and their hidden-value twins."""

from __future__ import annotations

import random
from typing import Any

from luz.engine import Action, Game, Phase, get_edition
from luz.research.encoding import Table, action_id
from support.reference import hidden_variant, rebuild_game

LIVE = (Phase.BID, Phase.PLAY)


def random_history(game: Any, rng: random.Random, length: int | None = None) -> list[int]:
    """The history of a random OpenSpiel game of LUZ, to its end or to ``length`` actions."""
    state = game.new_initial_state()
    while not state.is_terminal() and (length is None or len(state.history()) < length):
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.history()


def state_after(game: Any, history: list[int]) -> Any:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def engine_game(state: Any) -> Game:
    table = state.table
    assert table is not None
    return table.game  # type: ignore[no-any-return]


def twin_history(game: Any, history: list[int], seat: int, rng: random.Random) -> tuple[list[int], bool]:
    """``history`` with the deal in progress dealt differently where only ``seat`` cannot tell: its unplayed values
    and the aside redistributed (colours and sorted order kept). Also whether the seat's hand really changed."""
    state = state_after(game, history)
    engine = engine_game(state)
    assert engine.phase in LIVE
    deal = engine.deals[-1]
    played = {slot for slot in range(10) if engine.is_played(seat, slot)}
    hands, _ = hidden_variant(deal.hands, deal.aside, seat, played, rng)
    players = engine.players
    start = len(history) - len(engine.actions[-1]) - 10 * players
    deck = list(engine.edition.deck(players))
    twin = list(history)
    twin[start + 10 * seat : start + 10 * seat + 10] = [deck.index(card) for card in hands[seat]]
    return twin, list(hands[seat]) != list(deal.hands[seat])


def live_cut_points(game: Any, history: list[int], rng: random.Random, count: int) -> list[int]:
    """``count`` prefixes of ``history`` (lengths) that end at a player's turn inside a deal."""
    state = game.new_initial_state()
    points = []
    for index, action in enumerate(history):
        if not state.is_chance_node():
            points.append(index)
        state.apply_action(action)
    return sorted(rng.sample(points, min(count, len(points))))


def twin_tables(key: str, players: int, seat: int, rng: random.Random) -> tuple[Table, Table, bool]:
    """Two tables at the same point of a random deal (random legal actions, plays remembered) that differ only in
    ``seat``'s unplayed values and the aside; and whether the seat's hand really differs."""
    edition = get_edition(key)
    first = rng.randrange(players)
    table = Table(Game(edition, players, edition.options(players, first_player=first, trick_history=seat % 2 == 1)))
    deck = list(edition.deck(players))
    rng.shuffle(deck)
    hands = [sorted(deck[i * 10 : i * 10 + 10]) for i in range(players)]
    aside = sorted(deck[players * 10 :])
    table.game.deal(hands, aside)
    actions: list[Action] = []
    for _ in range(rng.randrange(players + 10 * players)):
        actions.append(rng.choice(list(table.game.legal_actions())))
        table.apply_id(action_id(actions[-1]))
    played = {slot for slot in range(10) if table.game.is_played(seat, slot)}
    twin_hands, twin_aside = hidden_variant(hands, aside, seat, played, rng)
    twin = rebuild_game(key, players, first, [(twin_hands, twin_aside)], [actions], len(actions), seat % 2 == 1)
    return table, Table(twin, table.plays), twin_hands[seat] != hands[seat]
