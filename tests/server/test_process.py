"""The real server process (``luz serve``) over real WebSockets: kill -9 and restart, and what it logs.

Slow (each server start takes seconds): marked ``slow``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from luz.engine import replay
from support.server import (
    Message,
    ServerProcess,
    Truth,
    WirePeer,
    action_log,
    assert_log_has_no_gap,
    assert_stored,
    backend_urls,
    create_joined,
    is_over,
    open_store,
    play_wire,
    seats,
)

pytestmark = pytest.mark.slow


def create_and_join(server: ServerProcess, **spec: Any) -> tuple[str, dict[int, str]]:
    """A table created and its human seats joined (each by a guest); its id and the seats' tokens."""
    with httpx.Client(base_url=server.http, timeout=10) as http:
        return create_joined(http, **spec)


def mid_deal(state: Message) -> bool:
    seen = state["view"]
    return seen["phase"] == "play" and sum(seen["tricks_won"]) >= 3 and seen["current_player"] in (0, 1)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_mid_deal_then_everything_resumes(backend: str, tmp_path: Path) -> None:
    with backend_urls(backend, tmp_path) as url:
        asyncio.run(kill_and_resume(url, tmp_path))


async def kill_and_resume(url: str, tmp_path: Path) -> None:
    server = ServerProcess(url, tmp_path / "server.log").start()
    store = open_store(url)
    truth = Truth(store)
    try:
        table_id, tokens = create_and_join(server, players=3, seats=seats("human", "human", "random"))
        peers = [WirePeer(server.ws, table_id, tokens[s], s, truth) for s in (0, 1)]
        for peer in peers:
            await peer.__aenter__()
        acked: list[tuple[int, str]] = []
        try:
            snapshot = await play_wire(peers, until=mid_deal)
            await asyncio.sleep(0.2)  # nothing moves: a human is to play
            for peer in peers:
                peer.pump()
                assert peer.state["version"] == snapshot["version"]
            before = {peer.seat: peer.state for peer in peers}
            acked = [a for peer in peers for a in peer.acks]
        finally:
            server.kill9()
            for peer in peers:
                await peer.close()
        # Every acknowledged action is in the database, where its version says.
        for version, action in acked:
            assert_stored(store, table_id, version, action)
        assert store.load(table_id).version == snapshot["version"]

        server.start()
        peers = [WirePeer(server.ws, table_id, tokens[s], s, truth) for s in (0, 1)]
        for peer in peers:
            await peer.__aenter__()
        try:
            for peer in peers:
                # Exactly where it was: same version, same view.
                assert peer.state["version"] == before[peer.seat]["version"]
                assert peer.view == before[peer.seat]["view"]
            final = await play_wire(peers)
            assert is_over(final)
        finally:
            for peer in peers:
                await peer.close()
        async with httpx.AsyncClient(base_url=server.http) as http:
            record = (await http.get(f"/api/tables/{table_id}/record")).json()
        game = replay(record)
        assert game.outcome().to_json() == final["view"]["outcome"]
        log = action_log(store, table_id)
        assert [row[3] for row in log] == [a for deal in record["deals"] for a in deal["actions"]]
        assert_log_has_no_gap(log)
        for version, action in acked + [a for peer in peers for a in peer.acks]:
            assert_stored(store, table_id, version, action)
    finally:
        server.stop()
        store.engine.dispose()


def test_an_action_acknowledged_then_killed_is_kept_and_bots_play_on(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/luz.sqlite3"
    asyncio.run(ack_then_kill(url, tmp_path))


async def ack_then_kill(url: str, tmp_path: Path) -> None:
    """kill -9 right after an acknowledgement: the action is stored. The next seat is a bot's: if the kill came
    before its move, the restarted server makes it by itself, no client connected."""
    server = ServerProcess(url, tmp_path / "server.log", bot_workers=1).start()
    store = open_store(url)
    truth = Truth(store)
    try:
        table_id, tokens = create_and_join(
            server, players=3, seats=seats("human", "human", "heuristic"), options={"first_player": 0}
        )
        peers = [WirePeer(server.ws, table_id, tokens[s], s, truth) for s in (0, 1)]
        for peer in peers:
            await peer.__aenter__()

        async def kill_after_seat_1(peer: WirePeer, reply: Message) -> bool:
            if peer.seat == 1:  # seat 2, the bot, is to bid
                server.kill9()  # at once: the acknowledgement is the last thing the server did for us
                return True
            return False

        try:
            await play_wire(peers, after_ack=kill_after_seat_1)
        finally:
            for peer in peers:
                await peer.close()
        acks = sorted(a for peer in peers for a in peer.acks)
        assert len(acks) == 2
        last_version = acks[-1][0]
        for version, action in acks:
            assert_stored(store, table_id, version, action)
        bot_moved_before_kill = store.load(table_id).version == last_version + 1
        assert store.load(table_id).version in (last_version, last_version + 1)
        server.start()
        async with httpx.AsyncClient(base_url=server.http) as http:
            deadline = time.monotonic() + 30
            while (info := (await http.get(f"/api/tables/{table_id}")).json())["version"] <= last_version:
                assert time.monotonic() < deadline, "the bot did not play after the restart"
                await asyncio.sleep(0.05)
        # The bot's bid is made (before the kill, or by the restarted server), and the game waits for seat 0.
        assert info["version"] == last_version + 1, bot_moved_before_kill
        stored = store.load(table_id)
        assert len(stored.actions) == 3 and stored.actions[:2] == [a for _, a in acks]
    finally:
        server.stop()
        store.engine.dispose()


# -- logs ----------------------------------------------------------------------------------------------------------


def test_the_log_holds_no_token_and_no_stack_trace(tmp_path: Path) -> None:
    """A whole game over real WebSockets and then hostile input: the server's output never shows a seat token, a
    card or a stack trace. The close codes of bad tokens and unknown tables reach the client over the wire."""
    url = f"sqlite:///{tmp_path}/luz.sqlite3"
    server = ServerProcess(url, tmp_path / "server.log", bot_workers=1).start()
    try:
        tokens = asyncio.run(game_and_hostile_input(server, url))
    finally:
        server.stop()
    log = server.log()
    assert "luz server on http" in log and "Application startup complete" in log
    assert "WebSocket /ws/tables/" in log  # connections are logged ...
    for token in tokens:
        assert token not in log  # ... without their tokens
    assert re.findall(r"token=([^&\s\"']+)", log) and set(re.findall(r"token=([^&\s\"']+)", log)) == {"REDACTED"}
    assert "Traceback" not in log, log[-3000:]
    assert not re.search(r"\b[RGBPY](?:1[0-2]|[1-9])\b", log), "a card in the log"
    assert "Exception" not in log, log[-3000:]


async def game_and_hostile_input(server: ServerProcess, url: str) -> list[str]:
    store = open_store(url)
    truth = Truth(store)
    table_id, tokens = create_and_join(server, players=3, seats=seats("human", "human", "heuristic"))
    secrets = list(tokens.values())
    async with httpx.AsyncClient(base_url=server.http) as http:
        joined = await http.post("/api/tables", json={"players": 3})
        other_table = joined.json()["table"]["id"]
        open_seat = (await http.post(f"/api/tables/{other_table}/seats/1/join", json={"name": "x"})).json()
        secrets += [open_seat["token"], *(i["token"] for i in joined.json()["invites"])]
        for method, path, body in [
            ("post", "/api/tables", '{"grace_seconds": NaN}'),
            ("post", "/api/tables", "[" * 5000),
            ("post", "/api/tables", '{"name": "a\\u0000b"}'),
            ("post", f"/api/tables/{table_id}/seats/99999999999999999999/join", '{"name": "x"}'),
            ("get", f"/api/tables/{table_id}/record?game=99999999999999999999", None),
            ("get", "/api/tables/a%00b", None),
            ("post", f"/api/tables/{table_id}/leave", None),
        ]:
            response = await http.request(
                method.upper(), path, content=body, headers={"content-type": "application/json"}
            )
            assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
    peers = [WirePeer(server.ws, table_id, tokens[s], s, truth) for s in (0, 1)]
    for peer in peers:
        await peer.__aenter__()
    try:
        final = await play_wire(peers)
        assert is_over(final)
        # Hostile frames on a live connection: an error each, the connection stays usable. (First let the rate
        # limit's bucket refill: a fast game spends most of its burst of 40 messages.)
        await asyncio.sleep(2.5)
        for frame in ["nope", "[" * 2000 + "]" * 2000, json.dumps({"type": "action"}), b"\x00\x01", "{" * 4000]:
            await peers[0].ws.send(frame)
            reply = await peers[0].wait(lambda m: m["type"] == "error")
            assert reply["code"] == "malformed", reply
        pong = await peers[0].request({"type": "ping"})
        assert pong["type"] == "pong", pong
    finally:
        for peer in peers:
            await peer.close()
    # Over the size limit: the server closes the connection (1009: message too big).
    async with connect(f"{server.ws}/ws/tables/{table_id}?token={tokens[0]}") as ws:
        await ws.recv()
        await ws.send("x" * 100_000)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    # Bad tokens and unknown tables: closed with 4401 and 4404, over the wire.
    for path, code in [
        (f"/ws/tables/{table_id}?token=not-a-token-{secrets[0][:5]}", 4401),
        (f"/ws/tables/{other_table}?token={tokens[0]}", 4401),
        (f"/ws/tables/0123456789abcdef?token={tokens[0]}", 4404),
    ]:
        try:
            async with connect(f"{server.ws}{path}") as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == code, path
        except InvalidStatus as refused:
            status = refused.response.status_code
            raise AssertionError(f"{path}: refused with HTTP {status}, not closed with {code}") from None
    async with httpx.AsyncClient(base_url=server.http) as http:
        assert (await http.get("/healthz")).status_code == 200
    store.engine.dispose()
    return secrets
