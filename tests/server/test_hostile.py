"""Hostile input: garbage frames, huge or deeply nested messages, wrong types, odd ids and tokens.

Each is answered with an error (or the connection is closed), never with a stack trace or a hidden card value, and
the server stays healthy: the same connection, or a new one, still works.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from support.server import Closed, Peer, Truth, create_table, join_all, play, seats

HOSTILE_FRAMES = {
    "empty": "",
    "spaces": "   ",
    "not json": "hello",
    "truncated": '{"type": "action", "action": {"type": "bid"',
    "null": "null",
    "number": "12345",
    "string": '"ping"',
    "list": '[{"type": "ping"}]',
    "huge": "x" * 1_000_000,
    "huge json": json.dumps({"type": "ping", "id": "x" * 100_000}),
    "deep list": "[" * 2040 + "]" * 2040,
    "deep object": '{"a":' * 800 + "1" + "}" * 800,
    "deep action": json.dumps({"type": "action", "action": {"type": "bid", "tricks": 1}})[:-2]
    + ', "x": '
    + "[" * 1000
    + "]" * 1000
    + "}}",
    "long number": "1" * 4000,
    "NaN": '{"type": "action", "action": {"type": "bid", "tricks": NaN}}',
    "infinity": '{"type": "action", "action": {"type": "play", "slot": 1e400}}',
    "huge int": json.dumps({"type": "action", "action": {"type": "play", "slot": 10**1000}}),
    "negative slot": json.dumps({"type": "action", "action": {"type": "play", "slot": -1}}),
    "bool slot": json.dumps({"type": "action", "action": {"type": "play", "slot": True}}),
    "float slot": json.dumps({"type": "action", "action": {"type": "play", "slot": 1.0}}),
    "string slot": json.dumps({"type": "action", "action": {"type": "play", "slot": "1"}}),
    "list action": json.dumps({"type": "action", "action": [1, 2]}),
    "string action": json.dumps({"type": "action", "action": "bid:2"}),
    "null action": json.dumps({"type": "action", "action": None}),
    "action type object": json.dumps({"type": "action", "action": {"type": {"bid": 1}}}),
    "string version": json.dumps({"type": "action", "action": {"type": "bid", "tricks": 1}, "version": "7"}),
    "huge version": json.dumps({"type": "action", "action": {"type": "bid", "tricks": 1}, "version": 10**300}),
    "object id": json.dumps({"type": "ping", "id": {"x": 1}}),
    "float id": json.dumps({"type": "ping", "id": 1.5}),
    "type number": json.dumps({"type": 1}),
    "type null": json.dumps({"type": None}),
    "no type": json.dumps({"action": {"type": "bid", "tricks": 1}}),
    "duplicate keys": '{"type": "ping", "type": "action"}',
    "nul": '{"type": "ping\\u0000"}',
    "lone surrogate escape": '{"type": "ping", "id": "\\ud800"}',
    "control characters": "\x00\x01\x02\x7f",
    "unicode": "☀️ 🂡 مرحبا",
}


@pytest.fixture
def table(client: Any) -> tuple[str, dict[int, str]]:
    """A table of three humans, seat 0 to bid: nothing moves unless a test acts."""
    table_id, tokens, _ = create_table(client, players=3, options={"first_player": 0})
    join_all(client, table_id, tokens)
    return table_id, tokens


def assert_healthy(client: Any, table_id: str, token: str, truth: Truth) -> None:
    assert client.get("/healthz").status_code == 200
    with Peer(client, table_id, token, None if token is None else 1, truth) as fresh:
        assert fresh.request({"type": "ping"})["type"] == "pong"


def test_hostile_frames_get_an_error(client: Any, truth: Truth, table: tuple[str, dict[int, str]]) -> None:
    table_id, tokens = table
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        version = peer.state["version"]
        for name, frame in HOSTILE_FRAMES.items():
            peer.send(frame)
            reply = peer.wait(lambda m: m["type"] in ("error", "pong", "ack"))
            if name == "lone surrogate escape":  # a valid ping: its id is echoed (escaped)
                assert reply == {"type": "pong", "id": "\ud800"}
            else:
                assert reply["type"] == "error", (name, reply)
                # (A version given as text is read as a number: the action is refused as stale.)
                assert reply["code"] in ("malformed", "too_large", "stale"), (name, reply)
            # The connection still works, and nothing was played.
            assert peer.request({"type": "ping"})["type"] == "pong", name
        assert peer.sync()["version"] == version
    assert_healthy(client, table_id, tokens[1], truth)


def test_binary_frames_get_an_error(client: Any, truth: Truth, table: tuple[str, dict[int, str]]) -> None:
    table_id, tokens = table
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        for data in (b"", b"\x00\xff", json.dumps({"type": "ping"}).encode()):
            peer.send_bytes(data)
            reply = peer.wait(lambda m: m["type"] in ("error", "pong"))
            assert reply["type"] == "error" and reply["code"] == "malformed", reply
        assert peer.request({"type": "ping"})["type"] == "pong"
    assert_healthy(client, table_id, tokens[1], truth)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # text frames never reach the database
def test_random_text_frames(client: Any, truth: Truth, table: tuple[str, dict[int, str]]) -> None:
    table_id, tokens = table
    with Peer(client, table_id, tokens[0], 0, truth) as peer:

        @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(st.text(max_size=300))
        def any_text(frame: str) -> None:
            peer.send(frame)
            reply = peer.wait(lambda m: m["type"] in ("error", "pong", "ack"))
            assert reply["type"] == "error" and reply["code"] in ("malformed", "too_large"), (frame, reply)

        any_text()
        assert peer.request({"type": "ping"})["type"] == "pong"
    assert_healthy(client, table_id, tokens[1], truth)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "sync", "ping", "next_game", "bid", "play"]) | JSON},
    optional={
        "id": JSON,
        "version": JSON,
        "action": st.fixed_dictionaries(
            {"type": st.sampled_from(["bid", "play"]) | JSON},
            optional={"tricks": JSON, "safety": JSON, "slot": JSON, "extra": JSON},
        )
        | JSON,
        "extra": JSON,
    },
)


def test_random_messages(client: Any, truth: Truth, table: tuple[str, dict[int, str]]) -> None:
    """Messages shaped like the protocol's with values of any type: each gets its one reply, whatever it is, and
    the seat's view never shows its own hidden values (checked on every message, including the errors)."""
    table_id, tokens = table
    with Peer(client, table_id, tokens[0], 0, truth) as peer:

        @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(MESSAGES)
        def any_message(message: dict[str, Any]) -> None:
            peer.pump()
            text = json.dumps(message)
            peer.send(text)
            if message.get("type") == "sync":  # answered with the state (or an error)
                reply = peer.wait(lambda m: m["type"] in ("state", "error"))
            else:
                reply = peer.wait(lambda m: m["type"] in ("error", "pong", "ack"))
            assert reply["type"] in ("error", "pong", "ack", "state"), reply

        any_message()
        assert peer.request({"type": "ping"})["type"] == "pong"
        assert peer.check.checked_hidden >= 1
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/ws/tables/{table}?token=" + "a" * 10_000,
        "/ws/tables/{table}?token=%00",
        "/ws/tables/{table}?token={token}%00",
        "/ws/tables/{table}?token=%F0%9F%82%A1",
        "/ws/tables/{table}?token={token}&token=x",
        "/ws/tables/a%00b?token={token}",
        "/ws/tables/a%00b",
        "/ws/tables/" + "f" * 5000,
        "/ws/tables/%2e%2e?token={token}",
    ],
)
def test_hostile_connections_are_closed(module_client: Any, url: str) -> None:
    client = module_client
    table_id, tokens, _ = create_table(client, players=3)
    with (
        pytest.raises((WebSocketDisconnect, Closed)) as closed,
        client.websocket_connect(url.format(table=table_id, token=tokens[0])) as ws,
    ):
        ws.receive_text()
    assert closed.value.code in (4401, 4404)
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/tables", {"name": "a\x00b"}),
        ("post", "/api/tables", {"players": 3, "seats": [{"kind": "human", "name": "\x00"}] * 3}),
        ("post", "/api/tables", {"players": 10**100}),
        ("post", "/api/tables", '{"grace_seconds": 1e400}'),
        ("post", "/api/tables", '{"grace_seconds": NaN}'),
        ("post", "/api/tables", {"options": {"first_player": True}}),
        ("post", "/api/tables", {"options": {"made_points": [[1]] * 4}}),
        ("post", "/api/tables", {"options": {"made_points": "10"}}),
        ("post", "/api/tables", {"options": {"bid_cap": 1.5}}),
        ("post", "/api/tables", {"seats": [{}] * 100_000}),
        ("post", "/api/tables", "[" * 5000 + "]" * 5000),
        ("post", "/api/tables/{table}/seats/0/join", {"name": "\x00"}),
        ("post", "/api/tables/{table}/seats/0/join", {"name": "x", "token": "\x00"}),
        ("post", "/api/tables/{table}/seats/99999999999999999999/join", {"name": "x"}),
        ("post", "/api/tables/{table}/seats/-99999999999999999999/join", {"name": "x"}),
        ("get", "/api/tables/{table}/record?game=99999999999999999999", None),
        ("get", "/api/tables/{table}/record?game=2147483647", None),
        ("get", "/api/tables/a%00b", None),
        ("get", "/api/tables/a%00b/record", None),
        ("post", "/api/tables/a%00b/leave", None),
        ("post", "/api/tables/a%00b/seats/0/join", {"name": "x"}),
        ("get", "/api/tables/" + "f" * 5000, None),
    ],
)
def test_hostile_requests_are_client_errors(module_client: Any, method: str, path: str, body: Any) -> None:
    client = module_client
    table_id, _, _ = create_table(client, players=3)
    kwargs: dict[str, Any] = {}
    if isinstance(body, str):
        kwargs = {"content": body.encode(), "headers": {"content-type": "application/json"}}
    elif body is not None:
        kwargs = {"json": body}
    response = getattr(client, method)(path.format(table=table_id), **kwargs)
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    assert "Traceback" not in response.text
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize("options", [{"bid_cap": 10**100, "made_points": [1_000_000] * 4}, {"bid_cap": 0}])
def test_extreme_options_are_taken_and_played(client: Any, truth: Truth, options: dict[str, Any]) -> None:
    """Options the rules allow, however odd, make tables that play (no server error later on: a deal scored)."""
    table_id, tokens, _ = create_table(client, players=3, options=options, seats=seats("human", "random", "random"))
    join_all(client, table_id, tokens)
    with Peer(client, table_id, tokens[0], 0, truth) as peer:
        state = play([peer], until=lambda s: s["view"]["deal_number"] == 2)
    assert state["view"]["results"] and state["table"]["options"]["bid_cap"] == options["bid_cap"]
    assert client.get(f"/api/tables/{table_id}").status_code == 200


def test_made_points_over_the_cap_are_refused(client: Any) -> None:
    """Points so large that totals could not be printed (over 4,300 digits) are refused, not stored."""
    answer = client.post("/api/tables", json={"players": 3, "options": {"made_points": [10**100] * 4}})
    assert answer.status_code == 422 and "0..1000000" in answer.json()["detail"]
