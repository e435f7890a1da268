"""Seat tokens: only a seat's current token gives its view and its actions; tokens are never sent nor stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text

from luz.server import app_services
from support.server import Closed, Peer, Truth, create_table, join_all, play, seats


def test_tokens_are_stored_hashed_and_never_sent(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    join_all(client, table_id, tokens)
    with Peer(client, table_id, tokens[0], 0, truth) as zero, Peer(client, table_id, tokens[1], 1, truth) as one:
        play([zero, one], until=lambda s: s["view"]["phase"] == "play")
        for peer in (zero, one):
            for raw in peer.check.raw:
                assert not any(token in raw for token in tokens.values())
    with app_services(client.app).tables.store.engine.connect() as connection:
        dump = json.dumps([list(map(str, row)) for row in connection.execute(text("SELECT * FROM seats"))])
        dump += json.dumps([list(map(str, row)) for row in connection.execute(text("SELECT * FROM tables"))])
    assert not any(token in dump for token in tokens.values())
    for info in (client.get(f"/api/tables/{table_id}").text, client.get("/api/tables").text):
        assert not any(token in info for token in tokens.values())


@pytest.mark.parametrize("when", ["before the start", "after the start"])
def test_a_seat_given_up_and_taken_by_someone_else_is_no_longer_the_old_connections(
    client: Any, truth: Truth, when: str
) -> None:
    """Alice is connected as seat 0 and gives it up; Bob takes the open seat (a new token). Alice's connection,
    opened with a token that no longer opens the seat, must not go on receiving seat 0's view, nor act for it."""
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"), grace_seconds=600)
    join_all(client, table_id, {1: tokens[1]} if when == "before the start" else tokens)
    client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "Alice", "token": tokens[0]})
    alice = Peer(client, table_id, tokens[0], 0, truth).__enter__()
    try:
        left = client.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert left.status_code == 200 and not left.json()["seats"][0]["joined"]
        bob = client.post(f"/api/tables/{table_id}/seats/0/join", json={"name": "Bob"})
        assert bob.status_code == 200
        bob_token = bob.json()["token"]
        assert client.get(f"/api/tables/{table_id}").json()["status"] == "playing"
        with (
            Peer(client, table_id, bob_token, 0, truth) as bob_peer,
            Peer(client, table_id, tokens[1], 1, truth) as one,
        ):
            play([bob_peer, one], until=lambda s: s["view"]["phase"] == "play")
            try:
                alice.pump()
                shown = [m for m in alice.check.states if m["view"] and m["table"]["seats"][0]["name"] == "Bob"]
                assert not shown, "a connection whose token was revoked is still sent the seat's view"
                seen = alice.view
                if seen is not None and seen["current_player"] == 0:
                    reply = alice.act(seen["legal_actions"][0], version=alice.state["version"])
                    assert reply["type"] == "error", "a connection whose token was revoked acted for the seat"
            except Closed as closed:
                assert closed.code == 4401
    finally:
        alice.close()
