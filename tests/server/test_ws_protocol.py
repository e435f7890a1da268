"""Live play over the WebSocket protocol, through the ASGI app (on SQLite and PostgreSQL).

Every message every peer receives is checked by ``support.server.Checker``: its own seat's view only, none of the
seat's own unplayed values nor the aside (compared with the real deal replayed from the database), versions that
never go back (and the same version always with the same game state), well-formed errors.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from luz.engine import replay
from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from support.server import (
    Peer,
    Truth,
    action_text,
    assert_stored,
    create_table,
    is_over,
    join_all,
    play,
    seats,
    wait_for,
)


def start(client: Any, **spec: Any) -> tuple[str, dict[int, str]]:
    table_id, tokens, _ = create_table(client, **spec)
    join_all(client, table_id, tokens)
    return table_id, tokens


def test_a_whole_game_of_two_humans_and_two_bots(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=4, seats=seats("human", "random", "human", "heuristic"))
    store = app_services(client.app).tables.store

    def stored(peer: Peer, reply: dict[str, Any], action: dict[str, Any]) -> None:
        # Acknowledged means stored: the action is in the database when the client learns it was accepted.
        assert_stored(store, table_id, reply["version"], action_text(action))

    with (
        Peer(client, table_id, tokens[0], 0, truth) as alice,
        Peer(client, table_id, tokens[2], 2, truth) as bob,
        Peer(client, table_id, None, None, truth) as spectator,
    ):
        final = play([alice, bob], after_ack=stored)
        spectator.wait_state(is_over)
        replayed = spectator.wait(lambda m: m["type"] == "replay")
        for peer in (alice, bob):
            peer.wait_state(lambda s: s["version"] == final["version"])

    assert final["table"]["status"] == "over"
    outcome = final["view"]["outcome"]
    assert outcome is not None and len(final["view"]["results"]) == 4
    # Each human acted in every deal, with versions going up one action at a time.
    for peer in (alice, bob):
        versions = [v for v, _ in peer.acks]
        assert versions == sorted(set(versions)) and len(versions) >= 4 * 11
        assert peer.check.checked_hidden > 40
        states = [s["version"] for s in peer.check.states]
        assert states == sorted(states)
    # Every version of the game reached the seats: nothing was skipped.
    seen = {s["version"] for s in alice.check.states}
    assert set(range(min(seen), final["version"] + 1)) <= seen
    # The spectator saw only the spectator view, and the replay once over: the same as the record.
    assert spectator.check.checked_hidden > 40
    assert replayed["record"] == client.get(f"/api/tables/{table_id}/record").json()
    game = replay(replayed["record"])
    assert game.outcome().to_json() == outcome
    assert replayed["record"]["names"] == ["player 0", "random", "player 2", "heuristic"]


def three_humans(client: Any, truth: Truth, **spec: Any) -> tuple[str, dict[int, str], list[Peer]]:
    table_id, tokens = start(client, players=3, options={"first_player": 0}, **spec)
    peers = [Peer(client, table_id, tokens[s], s, truth) for s in range(3)]
    for peer in peers:
        peer.__enter__()
    for peer in peers:
        peer.pump()
    return table_id, tokens, peers


def close_all(peers: list[Peer]) -> None:
    for peer in peers:
        peer.close()


def test_refusals_say_why(client: Any, truth: Truth) -> None:
    _, _, peers = three_humans(client, truth)
    try:
        zero, one, two = peers
        version = zero.state["version"]
        assert zero.view["current_player"] == 0 and zero.view["phase"] == "bid"
        assert one.view["legal_actions"] == [] and len(zero.view["legal_actions"]) == 22

        def refused(peer: Peer, message: Any, code: str, text: str) -> None:
            if isinstance(message, dict):
                reply = peer.request(message)  # the reply echoes the message's id
            else:
                peer.send(message)
                reply = peer.wait(lambda m: m["type"] == "error")
                assert reply["id"] is None  # not a message: no id to echo
            assert reply["type"] == "error" and reply["code"] == code, reply
            assert text in reply["message"], reply

        refused(one, {"type": "action", "action": {"type": "bid", "tricks": 1}}, "not_your_turn", "not your turn")
        refused(zero, {"type": "action", "action": {"type": "play", "slot": 0}}, "illegal", "bidding is not over")
        refused(zero, {"type": "action", "action": {"type": "bid", "tricks": 11}}, "malformed", "0..10")
        refused(zero, {"type": "action", "action": {"type": "bid", "tricks": "2"}}, "malformed", "whole number")
        refused(zero, {"type": "action", "action": {"type": "bid", "tricks": 1, "x": 1}}, "malformed", "exactly")
        refused(zero, {"type": "action", "action": {"type": "fold"}}, "malformed", "unknown action type")
        refused(zero, {"type": "action"}, "malformed", "needs 'action'")
        refused(zero, "{not json", "malformed", "not a message")
        refused(zero, "[]", "malformed", "not a message")
        refused(zero, json.dumps({"type": "dance"}), "malformed", "not a message")
        refused(zero, json.dumps({"type": "ping", "extra": True}), "malformed", "not a message")
        refused(zero, {"type": "next_game"}, "no_game", "once this one is over")
        refused(zero, "x" * 5000, "too_large", "4096 bytes")
        stale = {"type": "action", "action": {"type": "bid", "tricks": 1}, "version": version - 1}
        refused(zero, stale, "stale", f"the table is at version {version}, not {version - 1}")
        assert zero.request({"type": "ping"})["type"] == "pong"
        # Nothing changed.
        assert zero.sync()["version"] == version

        # Over the bid cap (IELLO: the bids of a deal sum to at most 15).
        assert zero.act({"type": "bid", "tricks": 10})["type"] == "ack"
        refused(
            one,
            {"type": "action", "action": {"type": "bid", "tricks": 6}},
            "illegal",
            "only 5 bid token(s) left under the table's cap of 15: bid at most 5",
        )
        assert one.act({"type": "bid", "tricks": 5, "safety": True})["type"] == "ack"
        two.wait_state(lambda s: s["view"]["current_player"] == 2)
        assert two.view["legal_actions"] == [
            {"type": "bid", "tricks": 0, "safety": False},
            {"type": "bid", "tricks": 0, "safety": True},
        ]
        refused(two, {"type": "action", "action": {"type": "bid", "tricks": 1}}, "illegal", "only 0 bid token(s)")
        assert two.act({"type": "bid", "tricks": 0})["type"] == "ack"

        # Must follow: seat 0 leads a colour that seat 1 holds, seat 1 tries another colour.
        zero.wait_state(lambda s: s["view"]["phase"] == "play")
        one.wait_state(lambda s: s["view"]["phase"] == "play")
        own_zero = zero.view["hands"][0]
        own_one = one.view["hands"][1]
        lead, other = next(
            (slot["slot"], mine["slot"])
            for slot in own_zero
            for mine in own_one
            if mine["colour"] != slot["colour"] and any(s["colour"] == slot["colour"] for s in own_one)
        )
        led_colour = own_zero[lead]["colour"]
        assert zero.act({"type": "play", "slot": lead})["type"] == "ack"
        one.wait_state(lambda s: s["view"]["current_player"] == 1)
        refused(one, {"type": "action", "action": {"type": "play", "slot": other}}, "illegal", "you must follow")
        follow = next(s["slot"] for s in own_one if s["colour"] == led_colour)
        assert one.act({"type": "play", "slot": follow})["type"] == "ack"
        # A slot already played.
        two.wait_state(lambda s: s["view"]["current_player"] == 2)
        played = two.act(two.view["legal_actions"][0])
        assert played["type"] == "ack"
        wait_for(lambda: zero.pump() or (zero.view["current_player"] is not None and not zero.view["trick"]["plays"]))
        leader = zero.view["current_player"]
        again = {"type": "action", "action": {"type": "play", "slot": lead if leader == 0 else follow}}
        if leader in (0, 1):
            refused(peers[leader], again, "illegal", "already played")
        # Each connection's own view never showed its own unplayed values (checked on every message).
        assert all(p.check.checked_hidden >= 5 for p in peers)
    finally:
        close_all(peers)


def test_rate_limit(settings: Settings) -> None:
    limited_settings = replace(settings, messages_per_second=20)
    clock = FakeClock()
    with TestClient(create_app(limited_settings, clock)) as client:
        rate_limited(client, Truth(app_services(client.app).tables.store), clock)


def rate_limited(client: Any, truth: Truth, clock: FakeClock) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "random", "random"))
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        for _ in range(80):
            peer.send({"type": "ping"})
        replies = [peer.wait(lambda m: m["type"] in ("pong", "error")) for _ in range(80)]
        limited = [r for r in replies if r["type"] == "error"]
        assert limited and all(r["code"] == "rate_limited" for r in limited)
        assert 80 - len(limited) == 40  # a burst of twice the rate (20 a second), then refused: the clock stood still
        assert peer.request({"type": "ping"})["code"] == "rate_limited"
        client.portal.call(clock.advance, 0.05)  # one message's worth of time
        assert peer.request({"type": "ping"})["type"] == "pong"


def test_a_client_acting_on_an_old_version_is_refused(client: Any, truth: Truth) -> None:
    _, _, peers = three_humans(client, truth)
    try:
        zero, one, _ = peers
        old = one.state["version"]
        assert zero.act({"type": "bid", "tricks": 1})["type"] == "ack"
        one.wait_state(lambda s: s["version"] > old)
        reply = one.act({"type": "bid", "tricks": 1}, version=old)
        assert reply["type"] == "error" and reply["code"] == "stale"
        assert one.act({"type": "bid", "tricks": 1}, version=one.state["version"])["type"] == "ack"
    finally:
        close_all(peers)


def test_spectators_cannot_act_and_get_the_replay_once_over(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "random", "random"))
    with Peer(client, table_id, None, None, truth) as spectator, Peer(client, table_id, tokens[0], 0, truth) as human:
        for message in (
            {"type": "action", "action": {"type": "bid", "tricks": 1}},
            {"type": "action", "action": {"type": "play", "slot": 0}},
            {"type": "next_game"},
        ):
            reply = spectator.request(message)
            assert reply["type"] == "error" and reply["code"] == "spectator"
            assert reply["message"] == "spectators cannot act"
        assert spectator.request({"type": "ping"})["type"] == "pong"
        assert spectator.sync()["seat"] is None
        final = play([human])
        spectator.wait_state(lambda s: s["version"] == final["version"])
        replayed = spectator.wait(lambda m: m["type"] == "replay")
        assert replay(replayed["record"]).outcome().to_json() == final["view"]["outcome"]
        assert not [m for m in human.check.messages if m["type"] == "replay"]
        kinds = [m["type"] for m in spectator.check.messages]
        assert kinds.index("replay") == len(kinds) - 1 - kinds[::-1].index("replay")  # sent once, at the end
    # A spectator who arrives after the game gets the state, then the replay.
    with Peer(client, table_id, None, None, truth) as late:
        assert late.wait(lambda m: m["type"] == "replay")["record"] == replayed["record"]


def test_a_token_opens_its_own_seat_only(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "human", "random"))
    for seat, token in tokens.items():
        # Asking for another seat in the URL changes nothing: the token decides.
        with Peer(client, table_id, token, seat, truth, query=f"seat={1 - seat}") as peer:
            assert peer.state["seat"] == seat and peer.view["seat"] == seat


@pytest.mark.parametrize("problem", ["bad token", "token of another table", "unknown table"])
def test_bad_tokens_and_unknown_tables_are_closed_with_a_code(client: Any, problem: str) -> None:
    table_id, tokens, _ = create_table(client, players=3)
    _, other_tokens, _ = create_table(client, players=3)
    url, code = {
        "bad token": (f"/ws/tables/{table_id}?token=not-a-token", 4401),
        "token of another table": (f"/ws/tables/{table_id}?token={other_tokens[0]}", 4401),
        "unknown table": (f"/ws/tables/0123456789abcdef?token={tokens[0]}", 4404),
    }[problem]
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url) as ws:
        ws.receive_text()
    assert closed.value.code == code
    assert client.get("/healthz").status_code == 200


def test_next_game_starts_game_two(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "random", "random"))
    with Peer(client, table_id, tokens[0], 0, truth) as human:
        first = play([human])
        assert first["table"]["game_no"] == 1 and first["table"]["status"] == "over"
        reply = human.request({"type": "next_game"})
        assert reply["type"] == "ack" and reply["version"] > first["version"]
        second = human.wait_state(lambda s: s["table"]["game_no"] == 2)
        assert second["table"]["status"] == "playing" and second["view"]["phase"] == "bid"
        assert second["view"]["totals"] == [0, 0, 0] and second["view"]["deal_number"] == 1
        # Asking again while game 2 is on is refused.
        again = human.request({"type": "next_game"})
        assert again["type"] == "error" and again["code"] == "no_game"
        record_one = client.get(f"/api/tables/{table_id}/record", params={"game": 1})
        assert record_one.status_code == 200
        assert replay(record_one.json()).outcome().to_json() == first["view"]["outcome"]
        assert client.get(f"/api/tables/{table_id}/record").status_code == 409
        final = play([human])
        assert final["table"]["game_no"] == 2
    first_seed, second_seed = (app_services(client.app).tables.store.record_of(table_id, n)[0] for n in (1, 2))
    assert first_seed != second_seed


def test_a_seat_with_several_connections_gets_its_view_on_each(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "random", "random"))
    with Peer(client, table_id, tokens[0], 0, truth) as phone, Peer(client, table_id, tokens[0], 0, truth) as laptop:
        phone.pump()
        assert phone.state["table"]["seats"][0]["connected"] is True
        play([phone], until=lambda s: s["view"]["phase"] == "play")
        laptop.wait_state(lambda s: s["version"] == phone.state["version"])
        assert laptop.view == phone.view


def test_a_dropped_connection_does_not_disturb_the_table(client: Any, truth: Truth) -> None:
    table_id, tokens = start(client, players=3, seats=seats("human", "human", "random"))
    one = Peer(client, table_id, tokens[1], 1, truth).__enter__()
    with Peer(client, table_id, tokens[0], 0, truth) as zero:
        one.close()
        zero.wait_state(lambda s: not s["table"]["seats"][1]["connected"])
        with Peer(client, table_id, tokens[1], 1, truth) as back:
            assert back.state["table"]["seats"][1]["connected"] is True
            final = play([zero, back])
    assert final["table"]["status"] == "over"


def test_a_hints_table_sends_each_seat_the_odds_of_its_own_values(client: Any, truth: Truth) -> None:
    """With ``hints``, a seat's view carries its exact beliefs (from its own view: the Checker still finds none of
    its unplayed values in what it receives); without, no hints."""
    for hints in (True, False):
        table_id, tokens = start(client, players=3, seats=seats("human", "random", "random"), hints=hints)
        assert client.get(f"/api/tables/{table_id}").json()["hints"] is hints
        with Peer(client, table_id, tokens[0], 0, truth) as alice:
            seen = alice.wait_state(lambda s: s["view"] is not None and s["view"]["phase"] in ("bid", "play"))
            if hints:
                slots = seen["view"]["hints"]["slots"]
                unplayed = [s["slot"] for s in seen["view"]["hands"][0] if not s["played"]]
                assert [s["slot"] for s in slots] == unplayed
                assert all(abs(sum(s["probabilities"]) - 1) < 1e-3 and s["most_likely"] for s in slots)
            else:
                assert seen["view"]["hints"] is None
