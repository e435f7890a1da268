"""Non-interference over the wire: what a seat cannot see never changes a byte of what it is sent.

For every seat of a 4-player table, two servers (two databases) play tables whose deals differ only in values
that seat cannot see: one of its own cards is swapped with a card set aside (same colour, same place in the sorted
hand, so every action means the same and is as legal). The same actions are driven at both tables; every message
the seat receives must be byte-identical at both, until the seat itself plays the swapped card (its value is then
revealed, and the messages must start to differ). The spectators' messages are identical too, while the other
seats, who see the seat's hand, are sent different messages from the first deal on.

The deals come from the game's seed: ``seeded_rng`` and ``shuffle_deal`` are wrapped so that the two tables'
seeds give the two deals, and the table ids are fixed (they are in the messages).
"""

from __future__ import annotations

import random
import re
import secrets
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import luz.engine.game as engine_game
import luz.server.store as server_store
import luz.server.tables.table as server_table
from luz.engine import Deal, Game, action_from_json, action_to_json, get_edition
from luz.server import Settings, app_services, create_app
from support.server import Peer, Truth, create_table, join_all

EDITION, PLAYERS = "iello-2024", 4
BASE_SEED, VARIANT_SEED = 7_000_001, 7_000_002
pytestmark = pytest.mark.integration  # two whole apps in process, each on its SQLite file

TABLE_ID = "5eed5eed5eed5eed"
ORIGINAL_RNG, ORIGINAL_SHUFFLE = engine_game.seeded_rng, engine_game.shuffle_deal


def swap_variant(deal: Deal, seat: int) -> tuple[Deal, int]:
    """``deal`` with one of ``seat``'s cards swapped for an aside card of the same colour that keeps the hand in
    order; the slot changed."""
    hand = list(deal.hands[seat])
    # Prefer the seat's longest colour: the card is then kept the longest (it need not follow with it early).
    order = sorted(range(len(hand)), key=lambda s: -sum(c.colour == hand[s].colour for c in hand))
    for slot in order:
        card = hand[slot]
        low = max((c.value for c in hand[:slot] if c.colour == card.colour), default=0)
        high = min((c.value for c in hand[slot + 1 :] if c.colour == card.colour), default=99)
        for other in deal.aside:
            if other.colour == card.colour and low < other.value < high:
                hand[slot] = other
                aside = tuple(sorted([*(c for c in deal.aside if c != other), card]))
                hands = tuple(tuple(hand) if s == seat else h for s, h in enumerate(deal.hands))
                return Deal(hands, aside), slot
    raise LookupError


def choose(seat: int, swapped: int, mover: int, legal: list[Any], unplayed: int) -> Any:
    """The action driven at both tables: the first legal one, except that ``seat`` keeps the swapped card as
    long as it may and plays it before the deal's last trick (the last card of a deal is never shown: the next
    deal's view follows it at once)."""
    if mover != seat:
        return legal[0]
    reveal = action_from_json({"type": "play", "slot": swapped})
    keep = [a for a in legal if a != reveal]
    return reveal if reveal in legal and (unplayed <= 2 or not keep) else keep[0]


def reveals_mid_deal(deal: Deal, seat: int, swapped: int) -> bool:
    """Whether driving ``choose`` on this deal has the seat play the swapped card before the last trick."""
    edition = get_edition(EDITION)
    game = Game(edition, PLAYERS, edition.options(PLAYERS, first_player=0))
    game.deal(deal.hands, deal.aside)
    while game.deal_number == 1 and game.current_player is not None:
        mover = game.current_player
        unplayed = sum(not game.is_played(seat, s) for s in range(10))
        action = choose(seat, swapped, mover, list(game.legal_actions()), unplayed)
        if mover == seat and action == action_from_json({"type": "play", "slot": swapped}):
            return unplayed > 1
        game.apply(action)
    return False


def find_deals(seat: int) -> tuple[Deal, Deal, int]:
    edition = get_edition(EDITION)
    for attempt in range(100):
        base = ORIGINAL_SHUFFLE(edition, PLAYERS, random.Random(f"wire-{seat}-{attempt}"))
        try:
            variant, slot = swap_variant(base, seat)
        except LookupError:
            continue
        if reveals_mid_deal(base, seat, slot):
            return base, variant, slot
    raise AssertionError("no deal with a swappable card")


class TaggedRandom(random.Random):
    """The game's per-purpose generator, remembering which seed and purpose it is for."""

    def __init__(self, seed: int, purpose: str) -> None:
        super().__init__(f"luz:{seed}:{purpose}")
        self.tag = (seed, purpose)


@pytest.fixture
def rigged(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[int, Deal]]:
    """Deal 1 of a game seeded BASE_SEED / VARIANT_SEED is taken from the returned dict; later deals are the
    base seed's at both tables. Tables are created with TABLE_ID; games start with BASE_SEED, then VARIANT_SEED."""
    first_deals: dict[int, Deal] = {}

    def shuffle(edition: Any, players: int, rng: random.Random) -> Deal:
        seed, purpose = getattr(rng, "tag", (None, None))
        if seed in (BASE_SEED, VARIANT_SEED):
            if purpose == "deal-1":
                return first_deals[seed]
            return ORIGINAL_SHUFFLE(edition, players, ORIGINAL_RNG(BASE_SEED, purpose))
        return ORIGINAL_SHUFFLE(edition, players, rng)

    seeds = iter([BASE_SEED, VARIANT_SEED])
    monkeypatch.setattr(engine_game, "seeded_rng", TaggedRandom)
    monkeypatch.setattr(engine_game, "shuffle_deal", shuffle)
    monkeypatch.setattr(server_table, "secrets", types.SimpleNamespace(randbits=lambda n: next(seeds)))
    monkeypatch.setattr(
        server_store,
        "secrets",
        types.SimpleNamespace(token_hex=lambda n: TABLE_ID, token_urlsafe=secrets.token_urlsafe),
    )
    yield first_deals


def open_table(client: Any) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(
        client, edition=EDITION, players=PLAYERS, name="twin", options={"first_player": 0}, grace_seconds=3600
    )
    assert table_id == TABLE_ID
    join_all(client, table_id, tokens)
    return table_id, tokens


@pytest.mark.parametrize("seat", range(PLAYERS))
def test_a_seat_is_sent_the_same_bytes_whatever_it_cannot_see(
    seat: int, rigged: dict[int, Deal], tmp_path: Path
) -> None:
    base, variant, swapped = find_deals(seat)
    rigged[BASE_SEED], rigged[VARIANT_SEED] = base, variant
    assert base.hands[seat][swapped] != variant.hands[seat][swapped]
    assert [c.colour for c in base.hands[seat]] == [c.colour for c in variant.hands[seat]]

    tables: list[dict[str, Any]] = []
    with (
        TestClient(create_app(Settings(f"sqlite:///{tmp_path}/a.db", bot_workers=0, messages_per_second=1e4))) as a,
        TestClient(create_app(Settings(f"sqlite:///{tmp_path}/b.db", bot_workers=0, messages_per_second=1e4))) as b,
    ):
        for client in (a, b):
            _, tokens = open_table(client)
            truth = Truth(app_services(client.app).tables.store)
            tables.append({"client": client, "tokens": tokens, "truth": truth, "peers": {}})
        assert app_services(a.app).tables.store.load(TABLE_ID).seed == BASE_SEED
        assert app_services(b.app).tables.store.load(TABLE_ID).seed == VARIANT_SEED
        # Connect in the same order at both tables (connections are in the messages).
        for who in [None, *range(PLAYERS)]:
            for table in tables:
                token = None if who is None else table["tokens"][who]
                peer = Peer(table["client"], TABLE_ID, token, who, table["truth"]).__enter__()
                table["peers"][who] = peer
        try:
            drive(seat, swapped, tables)
        finally:
            for table in tables:
                for peer in table["peers"].values():
                    peer.close()


def pump_all(tables: list[dict[str, Any]]) -> None:
    for table in tables:
        for peer in table["peers"].values():
            peer.pump()


def raw(table: dict[str, Any], who: int | None) -> list[str]:
    """What ``who`` was sent, with the seats' player ids (random per database, the same for any deal) masked."""
    return [re.sub(r'"player": ?"[0-9a-f]+"', '"player":"?"', text) for text in table["peers"][who].check.raw]


def drive(seat: int, swapped: int, tables: list[dict[str, Any]]) -> None:
    first, second = tables
    actions = 0
    while True:
        pump_all(tables)
        # Byte for byte, everything the seat and the spectators were sent so far is the same at both tables.
        assert raw(first, seat) == raw(second, seat)
        assert raw(first, None) == raw(second, None)
        state = first["peers"][seat].state
        seen = state["view"]
        assert seen["deal_number"] == 1 and seen["phase"] in ("bid", "play"), "the swapped card was never played"
        mover = seen["current_player"]
        view = first["peers"][mover].view
        legal = view["legal_actions"]
        unplayed = sum(not s["played"] for s in seen["hands"][seat])
        action = action_to_json(choose(seat, swapped, mover, [action_from_json(a) for a in legal], unplayed))
        for table in tables:
            peer = table["peers"][mover]
            reply = peer.act(action, version=peer.state["version"])
            assert reply["type"] == "ack", reply
        actions += 1
        if action == {"type": "play", "slot": swapped} and mover == seat:
            break
    pump_all(tables)
    assert actions > PLAYERS, "the comparison covered too little of the deal"
    # The check can fail: the other seats see the seat's hand, so their messages differed from the deal on...
    for other in range(PLAYERS):
        if other != seat:
            assert raw(first, other)[0] != raw(second, other)[0]
    # ... and once the seat plays the swapped card, its value is shown, to the seat too.
    assert first["peers"][seat].view["deal_number"] == 1
    assert raw(first, seat) != raw(second, seat)
