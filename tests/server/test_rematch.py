"""Rematch offers (tables/rematch.py), over the WebSocket protocol on SQLite and PostgreSQL: one human offers, the
others accept or decline, the offer runs out; the next game starts with its first player one seat to the left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.domain import SeatKind, SeatState, Status, TableState
from luz.server.tables.model import Refused
from luz.server.tables.rematch import decide, lifetime_ms
from luz.server.tables.rematch import status as rematch_status
from luz.server.timecontrol import stored_time_control
from support.server import Message, Peer, Truth, create_table, join_all, play, seats


def start(client: Any, *kinds: str) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(client, players=len(kinds), seats=seats(*kinds))
    join_all(client, table_id, tokens)
    return table_id, tokens


def first_of_game(peer: Peer, game_no: int) -> int:
    """The first player of the game's first deal, as the peer was shown it."""
    state = peer.wait_state(lambda s: s["table"]["game_no"] == game_no and s["view"]["deal_number"] == 1)
    first: int = state["view"]["first_player"]
    return first


def offer_of(state: Message) -> dict[str, Any] | None:
    offer: dict[str, Any] | None = state["table"]["rematch"]
    return offer


def refused(peer: Peer, message: dict[str, Any], code: str) -> None:
    reply = peer.request(message)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["message"], "a refusal says why"


def test_offer_accept_and_rotation(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "random", "human")
    with (
        Peer(client, table_id, tokens[0], 0, truth) as ann,
        Peer(client, table_id, tokens[2], 2, truth) as bob,
        Peer(client, table_id, None, None, truth) as watcher,
    ):
        first = first_of_game(ann, 1)
        refused(ann, {"type": "rematch", "accept": True}, "no_game")  # the game is on
        over = play([ann, bob])
        assert offer_of(over) is None
        refused(watcher, {"type": "rematch", "accept": True}, "spectator")
        refused(bob, {"type": "rematch", "accept": False}, "no_offer")
        refused(bob, {"type": "rematch", "accept": "yes"}, "malformed")

        assert ann.request({"type": "rematch", "accept": True})["type"] == "ack"
        for peer in (ann, bob, watcher):
            offered = peer.wait_state(lambda s: offer_of(s) is not None)
            offer = offer_of(offered)
            assert offer is not None
            assert offer["by"] == 0 and offer["accepted"] == [0] and offer["declined"] is None
            assert offered["table"]["status"] == "over" and offered["table"]["game_no"] == 1
        refused(ann, {"type": "rematch", "accept": True}, "answered")  # answering twice
        assert client.get(f"/api/tables/{table_id}").json()["rematch"]["accepted"] == [0]

        # The old message is the same answer: bob accepts, and the next game starts.
        assert bob.request({"type": "next_game"})["type"] == "ack"
        second = first_of_game(ann, 2)
        assert second == (first + 1) % 3, "the seats rotated: the next seat to the left opens"
        assert offer_of(ann.state) is None
        refused(bob, {"type": "rematch", "accept": True}, "no_game")


def test_a_decline_ends_the_offer(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "human", "random")
    with Peer(client, table_id, tokens[0], 0, truth) as ann, Peer(client, table_id, tokens[1], 1, truth) as bob:
        play([ann, bob])
        assert ann.request({"type": "rematch", "accept": True})["type"] == "ack"
        bob.wait_state(lambda s: offer_of(s) is not None)
        assert bob.request({"type": "rematch", "accept": False})["type"] == "ack"
        for peer in (ann, bob):
            declined = peer.wait_state(lambda s: (offer_of(s) or {}).get("declined") == 1)
            assert declined["table"]["status"] == "over" and declined["table"]["game_no"] == 1
        refused(ann, {"type": "rematch", "accept": False}, "no_offer")  # nothing left to answer
        # Anyone may offer again afterwards: a new offer, by its sender.
        assert bob.request({"type": "rematch", "accept": True})["type"] == "ack"
        again = ann.wait_state(lambda s: (offer_of(s) or {}).get("by") == 1)
        assert offer_of(again) == {**offer_of(again), "accepted": [1], "declined": None}  # type: ignore[dict-item]


def test_one_human_plays_again_at_once(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, "human", "random", "random")
    with Peer(client, table_id, tokens[0], 0, truth) as ann:
        first = first_of_game(ann, 1)
        play([ann])
        assert ann.request({"type": "rematch", "accept": True})["type"] == "ack"
        assert first_of_game(ann, 2) == (first + 1) % 3


def test_the_offer_stands_for_those_seated(client: Any, truth: Truth) -> None:
    """A player who leaves the table during the offer does not hold it up (a bot sits there now)."""
    table_id, tokens = start(client, "human", "human", "human")
    with (
        Peer(client, table_id, tokens[0], 0, truth) as ann,
        Peer(client, table_id, tokens[1], 1, truth) as bob,
        Peer(client, table_id, tokens[2], 2, truth) as cid,
    ):
        play([ann, bob, cid])
        assert ann.request({"type": "rematch", "accept": True})["type"] == "ack"
        assert bob.request({"type": "rematch", "accept": True})["type"] == "ack"
        left = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[2]}"})
        assert left.status_code == 200, left.text
        started = ann.wait_state(lambda s: s["table"]["game_no"] == 2)
        assert started["table"]["status"] == "playing"


@pytest.fixture
def quick_client(database_url: str) -> Iterator[Any]:
    """An app whose rematch offers run out in a moment."""
    settings = Settings(database_url=database_url, bot_workers=0, messages_per_second=10_000, rematch_seconds=0.5)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_an_offer_expires(quick_client: Any) -> None:
    client = quick_client
    truth = Truth(app_services(client.app).tables.store)
    table_id, tokens = start(client, "human", "human", "random")
    with Peer(client, table_id, tokens[0], 0, truth) as ann, Peer(client, table_id, tokens[1], 1, truth) as bob:
        play([ann, bob])
        assert ann.request({"type": "rematch", "accept": True})["type"] == "ack"
        for peer in (ann, bob):
            expired = peer.wait_state(lambda s: bool((offer_of(s) or {}).get("expired")))
            assert expired["table"]["game_no"] == 1 and expired["table"]["status"] == "over"
        refused(bob, {"type": "rematch", "accept": False}, "no_offer")  # an expired offer takes no answer
        # Accepting after the end is a new offer (which needs the other's answer again).
        assert bob.request({"type": "rematch", "accept": True})["type"] == "ack"
        renewed = ann.wait_state(lambda s: (offer_of(s) or {}).get("by") == 1)
        assert offer_of(renewed)["accepted"] == [1] and not offer_of(renewed)["expired"]  # type: ignore[index]


def over_state(rematch: dict[str, Any] | None, time_control: dict[str, int] | None = None) -> TableState:
    """A table of two seated humans (seats 0 and 2) and a bot, its game over."""
    kinds = [SeatKind.HUMAN, SeatKind.BOT, SeatKind.HUMAN]
    table_seats = [SeatState(n, kind, None, f"p{n}", True) for n, kind in enumerate(kinds)]
    return TableState(
        "t", "t", "iello-2024", 3, {}, False, 30.0, Status.OVER, 1, 9, table_seats, rematch=rematch,
        time_control=time_control,
    )  # fmt: skip


def test_an_offer_read_past_its_time_is_expired() -> None:
    """No process's timer wrote it (the table was out of memory): its time alone ends it."""
    stale = {"by": 0, "accepted": [0], "declined": None, "expired": False, "expires_at": 1_000}
    assert rematch_status(stale, 999) == "open" and rematch_status(stale, 1_000) == "expired"
    with pytest.raises(Refused) as refusal:
        decide(over_state(stale), 2, False, 5_000, 60_000)
    assert refusal.value.code == "no_offer"
    renewed = decide(over_state(stale), 2, True, 5_000, 60_000)
    assert renewed == {"by": 2, "accepted": [2], "declined": None, "expired": False, "expires_at": 65_000}


def test_a_turn_based_offer_waits_as_long_as_a_move() -> None:
    settings = Settings(database_url="sqlite://", rematch_seconds=120)
    assert lifetime_ms(over_state(None), settings) == 120_000
    assert lifetime_ms(over_state(None, time_control={"reserve_ms": 600_000, "increment_ms": 0}), settings) == 120_000
    days = stored_time_control("2d")
    assert lifetime_ms(over_state(None, time_control=days), settings) == 2 * 86_400_000


def test_a_tournament_table_offers_no_rematch() -> None:
    """Its one game is the round's: the next round seats its players again."""
    state = over_state(None)
    state.tournament = "sunday"
    with pytest.raises(Refused) as refusal:
        decide(state, 0, True, 5_000, 60_000)
    assert refusal.value.code == "tournament"
    assert decide(over_state(None), 0, True, 5_000, 60_000) is not None  # elsewhere, the same answer offers one
