"""Two server processes behind "one address": the test is the load balancer, sending clients to either process.

Both processes share one PostgreSQL database (the row lock makes each table single-writer) and pass table events
through Redis. A game played by a client on each process, with two bots, must look the same from both sides,
every action stored exactly once; one seat's action sent through both processes at the same instant must be taken
once and refused once.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect

from luz.bench.server import ServerProcess, action_text
from luz.server.db import ActionRow, make_engine
from luz.server.domain import build_game
from luz.server.store import Store

GAME_TIMEOUT = 180.0


@dataclass
class Client:
    """One seat's WebSocket client: it records every message and plays a random legal action on its turn."""

    seat: int
    ws: ClientConnection
    rng: random.Random
    play: bool = True
    states: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    """(arrival time, message) of every state message, in order."""
    replies: list[dict[str, Any]] = field(default_factory=list)
    acked: list[tuple[int, str, float]] = field(default_factory=list)
    """(version reached, action text, send time) of each acknowledged action."""
    sent: dict[str, tuple[str, float]] = field(default_factory=dict)
    acted_on: int = -1
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def latest(self) -> dict[str, Any] | None:
        return self.states[-1][1] if self.states else None

    def versions(self) -> list[int]:
        return [m["version"] for _, m in self.states]

    async def run(self) -> None:
        """Receive (and play, if ``play``) until the connection closes."""
        async for raw in self.ws:
            message = json.loads(raw)
            if message["type"] == "state":
                self.states.append((time.perf_counter(), message))
                if self.play:
                    await self.maybe_act(message)
            elif message["type"] in ("ack", "error"):
                self.replies.append(message)
                if message["type"] == "ack" and message["id"] in self.sent:
                    text, sent_at = self.sent[message["id"]]
                    self.acked.append((message["version"], text, sent_at))
            self.changed.set()

    async def maybe_act(self, message: dict[str, Any]) -> None:
        seen, version = message["view"], message["version"]
        if seen is None or message["table"]["status"] != "playing" or version <= self.acted_on:
            return
        if seen["current_player"] != self.seat or not seen["legal_actions"]:
            return
        self.acted_on = version
        action = self.rng.choice(seen["legal_actions"])
        await self.send_action(action, version)

    async def send_action(self, action: dict[str, Any], version: int | None) -> None:
        ident = f"{self.seat}:{len(self.sent)}"
        self.sent[ident] = (action_text(action), time.perf_counter())
        payload: dict[str, Any] = {"type": "action", "id": ident, "action": action}
        if version is not None:
            payload["version"] = version
        await self.ws.send(json.dumps(payload))

    async def wait_for(self, check: Any, timeout: float = 30.0) -> None:
        async def poll() -> None:
            while not check(self):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(poll(), timeout)


async def guest(http: Any, server: ServerProcess) -> dict[str, str]:
    """The header of a new guest (one seat per identity at a table: each player needs one)."""
    answer = await http.post(f"{server.url}/api/me/guest")
    assert answer.status_code == 201, answer.text
    return {"X-Luz-Session": answer.json()["session"]}


def over(client: Client) -> bool:
    latest = client.latest
    return latest is not None and latest["table"]["status"] == "over"


async def open_client(server: ServerProcess, table_id: str, token: str, seat: int, play: bool = True) -> Client:
    ws = await connect(f"{server.ws_url}/ws/tables/{table_id}?token={token}", open_timeout=30)
    return Client(seat, ws, random.Random(seat), play=play)


def stored_actions(database_url: str, table_id: str, game_no: int = 1) -> list[tuple[int, int, str]]:
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            rows = session.execute(
                select(ActionRow.seq, ActionRow.seat, ActionRow.action)
                .where(ActionRow.table_id == table_id, ActionRow.game_no == game_no)
                .order_by(ActionRow.seq)
            )
            return [(seq, seat, text) for seq, seat, text in rows]
    finally:
        engine.dispose()


def replayed_outcome(database_url: str, table_id: str) -> dict[str, Any]:
    """The outcome of the table's game as the database tells it (seed and action log, through the rules)."""
    engine = make_engine(database_url)
    try:
        state = Store(engine).load(table_id)
    finally:
        engine.dispose()
    assert state is not None
    game = build_game(state)
    assert game is not None
    outcome = game.outcome()
    assert outcome is not None, "the stored log does not end the game"
    return outcome.to_json()


# -- a whole game across the two processes -----------------------------------------------------------------


def test_game_across_two_processes(servers: list[ServerProcess], postgres_url: str) -> None:
    one, two = servers
    report = asyncio.run(asyncio.wait_for(_play_game(one, two), GAME_TIMEOUT))
    table_id, clients = report["table"], report["clients"]
    c0, c1 = clients

    # Both finished the same game: same last version, same outcome, and it is the database's outcome.
    for client in clients:
        assert over(client), f"seat {client.seat} did not see the game end"
    final0, final1 = c0.latest, c1.latest
    assert final0 is not None and final1 is not None
    assert final0["version"] == final1["version"]
    assert final0["view"]["outcome"] is not None
    assert final0["view"]["outcome"] == final1["view"]["outcome"] == replayed_outcome(postgres_url, table_id)
    assert final0["view"]["totals"] == final1["view"]["totals"]

    # Every state reached every client, in order: from the first state of the game to the last, each version
    # (a same-version repeat only says who is connected).
    for client in clients:
        versions = client.versions()
        assert versions == sorted(versions), f"seat {client.seat} saw versions go back: {versions}"
        started = next(m["version"] for _, m in client.states if m["table"]["status"] != "waiting")
        missing = set(range(started, final0["version"] + 1)) - set(versions)
        assert not missing, f"seat {client.seat} (process {client.seat + 1}) missed versions {sorted(missing)}"
        assert not [r for r in client.replies if r["type"] == "error"], client.replies

    # The log: seq 1..N without gaps or duplicates, each human action exactly once, in the order acknowledged,
    # and the bots played their part.
    log = stored_actions(postgres_url, table_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    for client in clients:
        assert [text for _, s, text in log if s == client.seat] == [text for _, text, _ in client.acked]
        assert len(client.acked) == len(client.sent), "every action sent was acknowledged"
    assert {seat for _, seat, _ in log} == {0, 1, 2, 3}, "every seat played, the bots' included"
    assert final0["version"] - started == len(log), "one version per action"

    # Events written by one process reached the client of the other: each action acknowledged through one
    # process was seen by the client of the other, at that version. (Latency is printed, not asserted.)
    lags = {}
    for sender, receiver in ((c0, c1), (c1, c0)):
        arrivals = {m["version"]: t for t, m in reversed(receiver.states)}
        delays = []
        for version, _, sent_at in sender.acked:
            assert version in arrivals, f"version {version} (seat {sender.seat}) never reached seat {receiver.seat}"
            delays.append(arrivals[version] - sent_at)
        lags[f"seat {sender.seat} -> seat {receiver.seat}"] = delays
    for name, delays in lags.items():
        print(
            f"{name}: {len(delays)} actions, action to other process's client "
            f"median {statistics.median(delays) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms"
        )


async def _play_game(one: ServerProcess, two: ServerProcess) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as http:
        spec = {
            "players": 4,
            "name": "scale-out",
            "grace_seconds": 3600,
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot"}],
        }
        created = await http.post(f"{one.url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {invite["seat"]: invite["token"] for invite in created.json()["invites"]}
        assert set(tokens) == {0, 1}

        # Connected before the game starts, so that each client sees it from its first state.
        c0 = await open_client(one, table_id, tokens[0], 0)
        c1 = await open_client(two, table_id, tokens[1], 1)
        tasks = [asyncio.create_task(c.run()) for c in (c0, c1)]
        try:
            for seat, server in ((0, one), (1, two)):  # the join that completes the table is on process 2
                joined = await http.post(
                    f"{server.url}/api/tables/{table_id}/seats/{seat}/join",
                    json={"name": f"player {seat}", "token": tokens[seat]},
                    headers=await guest(http, server),
                )
                assert joined.status_code == 200, joined.text
            for client in (c0, c1):
                await client.wait_for(over, timeout=GAME_TIMEOUT - 30)
            await asyncio.sleep(0.5)  # anything late (a duplicate, a stray message) would show now
        finally:
            for client in (c0, c1):
                await client.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)
    return {"table": table_id, "clients": [c0, c1]}


# -- one seat, one action, through both processes at once --------------------------------------------------


@pytest.mark.parametrize("with_version", [True, False], ids=["with-version", "without-version"])
def test_same_action_through_both_processes(
    servers: list[ServerProcess], postgres_url: str, with_version: bool
) -> None:
    rounds = asyncio.run(asyncio.wait_for(_race(servers, with_version, rounds=6), 120))
    table_id = rounds[0]["table"]
    refusal = "stale" if with_version else "not_your_turn"
    for number, race in enumerate(rounds, 1):
        kinds = sorted(reply["type"] for reply in race["replies"])
        assert kinds == ["ack", "error"], f"round {number}: {race['replies']}"
        error = next(reply for reply in race["replies"] if reply["type"] == "error")
        assert error["code"] == refusal, error
        assert error["message"], "a refusal says why"
    log = stored_actions(postgres_url, table_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(rounds) + 1)), "each raced action stored exactly once"
    assert [(seat, text) for _, seat, text in log] == [(race["seat"], race["action"]) for race in rounds]


async def _race(servers: list[ServerProcess], with_version: bool, rounds: int) -> list[dict[str, Any]]:
    one, two = servers
    async with httpx.AsyncClient(timeout=30) as http:
        created = await http.post(f"{one.url}/api/tables", json={"players": 4, "grace_seconds": 3600})
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {invite["seat"]: invite["token"] for invite in created.json()["invites"]}
        # Every seat twice: once on each process. Nobody plays by themselves: the test drives each move.
        pairs = {
            seat: (
                await open_client(one, table_id, token, seat, play=False),
                await open_client(two, table_id, token, seat, play=False),
            )
            for seat, token in tokens.items()
        }
        everyone = [c for pair in pairs.values() for c in pair]
        tasks = [asyncio.create_task(c.run()) for c in everyone]
        results = []
        try:
            for seat, token in tokens.items():
                server = servers[seat % 2]
                joined = await http.post(
                    f"{server.url}/api/tables/{table_id}/seats/{seat}/join",
                    json={"name": f"p{seat} {table_id[:6]}", "token": token},
                    headers=await guest(http, server),
                )
                assert joined.status_code == 200, joined.text
            for _ in range(rounds):
                # Wait until both processes show every client the same state, someone's turn in it.
                def settled(client: Client) -> bool:
                    latest = client.latest
                    return latest is not None and latest["table"]["status"] == "playing"

                for client in everyone:
                    await client.wait_for(settled)
                target = max(c.latest["version"] for c in everyone)  # type: ignore[index]
                for client in everyone:
                    await client.wait_for(lambda c, v=target: c.latest["version"] >= v)
                latest = everyone[0].latest
                assert latest is not None
                seat = latest["view"]["current_player"]
                here, there = pairs[seat]
                legal = here.latest["view"]["legal_actions"]  # type: ignore[index]
                assert legal, "the player to act has legal actions"
                action = random.Random(latest["version"]).choice(legal)
                version = latest["version"] if with_version else None
                before = (len(here.replies), len(there.replies))
                await asyncio.gather(here.send_action(action, version), there.send_action(action, version))
                await here.wait_for(lambda c, n=before[0]: len(c.replies) > n)
                await there.wait_for(lambda c, n=before[1]: len(c.replies) > n)
                replies = here.replies[before[0] :] + there.replies[before[1] :]
                results.append({"table": table_id, "seat": seat, "action": action_text(action), "replies": replies})
                # Both processes move on to the next version.
                for client in everyone:
                    await client.wait_for(lambda c, v=latest["version"]: c.latest["version"] > v)
        finally:
            for client in everyone:
                await client.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)
    return results


# -- an absent player's seat, across processes ---------------------------------------------------------------


def test_a_player_back_on_another_process_is_not_played_by_a_bot(
    servers: list[ServerProcess], postgres_url: str, redis_url: str, tmp_path: Any
) -> None:
    """The grace period and the bot that stands in are decided per process: the process a player left must not
    let a bot play for them once they are back on another one, nor must a process started later (a restart)."""
    asyncio.run(asyncio.wait_for(_come_back_elsewhere(servers, postgres_url, redis_url, tmp_path), 120))


async def _come_back_elsewhere(servers: list[ServerProcess], database_url: str, redis_url: str, folder: Any) -> None:
    one, two = servers
    grace = 1.0
    async with httpx.AsyncClient(timeout=30) as http:
        spec = {
            "players": 4,
            "grace_seconds": grace,
            "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3,
        }
        created = await http.post(f"{one.url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id, token = created.json()["table"]["id"], created.json()["invites"][0]["token"]

        # The player joins on process 1 and waits for their turn (the bots play up to it)...
        first = await open_client(one, table_id, token, 0, play=False)
        reader = asyncio.create_task(first.run())
        joined = await http.post(f"{one.url}/api/tables/{table_id}/seats/0/join", json={"name": "p", "token": token})
        assert joined.status_code == 200, joined.text

        def my_turn(client: Client) -> bool:
            latest = client.latest
            return latest is not None and latest["view"] is not None and latest["view"]["current_player"] == 0

        await first.wait_for(my_turn)
        waiting_at = first.latest["version"]  # type: ignore[index]
        # ... leaves process 1 and comes back at once on process 2.
        await first.ws.close()
        await asyncio.gather(reader, return_exceptions=True)
        second = await open_client(two, table_id, token, 0, play=False)
        reader = asyncio.create_task(second.run())
        try:
            await asyncio.sleep(grace + 2.5)  # process 1's grace period is long over
            assert not [a for a in stored_actions(database_url, table_id) if a[1] == 0], "a bot played for the player"
            assert second.latest is not None and second.latest["version"] == waiting_at

            # A process started now (as after a restart) counts down for every human seat of a live table, and
            # finds the player on process 2.
            third = ServerProcess.start(database_url, redis_url, folder / "server-3.log", bot_workers=1)
            try:
                third.wait_healthy(timeout=60)
                await asyncio.sleep(grace + 2.5)
                assert not [a for a in stored_actions(database_url, table_id) if a[1] == 0], "a bot played for them"
            finally:
                third.stop()
        finally:
            await second.ws.close()
            await asyncio.gather(reader, return_exceptions=True)

        # Gone for good: after the grace period a bot plays the seat.
        deadline = time.monotonic() + grace + 20
        while not [a for a in stored_actions(database_url, table_id) if a[1] == 0]:
            assert time.monotonic() < deadline, "no bot took the seat of a player gone for good"
            await asyncio.sleep(0.5)


def test_one_seat_per_identity_across_two_processes(servers: list[ServerProcess]) -> None:
    """A guest holding seat 0 through process 1 is refused seat 1 through process 2, by HTTP and WebSocket."""
    one, two = servers
    spec = {"players": 3, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{one.url}/api/tables", json=spec).json()
        table_id, tokens = created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}
        me = {"X-Luz-Session": http.post(f"{one.url}/api/me/guest").json()["session"]}
        seat0 = http.post(f"{one.url}/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, headers=me)
        assert seat0.status_code == 200, seat0.text
        seat1 = http.post(f"{two.url}/api/tables/{table_id}/seats/1/join", json={"token": tokens[1]}, headers=me)
        assert seat1.status_code == 409 and "one seat per player" in seat1.json()["detail"]
        other = {"X-Luz-Session": http.post(f"{two.url}/api/me/guest").json()["session"]}
        taken = http.post(f"{two.url}/api/tables/{table_id}/seats/1/join", json={"token": tokens[1]}, headers=other)
        assert taken.status_code == 200, taken.text

    async def refused() -> tuple[dict[str, Any], int | None]:
        async with connect(f"{two.ws_url}/ws/tables/{table_id}?token={tokens[1]}", additional_headers=me) as ws:
            message = json.loads(await ws.recv())
            await ws.wait_closed()
            return message, ws.close_code

    message, code = asyncio.run(refused())
    assert message["code"] == "second_seat" and code == 4409


def test_chat_crosses_processes_and_spectators_chat_stays_with_spectators(servers: list[ServerProcess]) -> None:
    """Seat 0 and a spectator on process 1, seat 1 and a spectator on process 2: the players' chat reaches all
    four, the spectators' chat both spectators and neither seat; the limit per person counts on both processes."""
    one, two = servers
    spec = {"players": 3, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{one.url}/api/tables", json=spec).json()
        table_id, tokens = created["table"]["id"], {i["seat"]: i["token"] for i in created["invites"]}
        for seat, server in ((0, one), (1, two)):
            who = {"X-Luz-Session": http.post(f"{server.url}/api/me/guest").json()["session"]}
            joined = http.post(
                f"{server.url}/api/tables/{table_id}/seats/{seat}/join", json={"token": tokens[seat]}, headers=who
            )
            assert joined.status_code == 200, joined.text
        watchers = [{"X-Luz-Session": http.post(f"{s.url}/api/me/guest").json()["session"]} for s in servers]

    async def scenario() -> dict[str, list[dict[str, Any]]]:
        heard: dict[str, list[dict[str, Any]]] = {}
        replies: dict[str, list[dict[str, Any]]] = {}
        sockets: dict[str, ClientConnection] = {}

        async def read(name: str, ws: ClientConnection) -> None:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "chat":
                    # As the web client does: a message that a connection's history and the live stream both
                    # bring (said while it was joining) counts once, and the list is in the order said.
                    known = {m["id"] for m in heard[name]}
                    heard[name] = sorted(
                        heard[name] + [m for m in message["messages"] if m["id"] not in known], key=lambda m: m["id"]
                    )
                elif message["type"] in ("ack", "error"):
                    replies[name].append(message)

        urls = {
            "seat0": (f"{one.ws_url}/ws/tables/{table_id}?token={tokens[0]}", None),
            "seat1": (f"{two.ws_url}/ws/tables/{table_id}?token={tokens[1]}", None),
            "watcher1": (f"{one.ws_url}/ws/tables/{table_id}", watchers[0]),
            "watcher2": (f"{two.ws_url}/ws/tables/{table_id}", watchers[1]),
            "seat0-again": (f"{two.ws_url}/ws/tables/{table_id}?token={tokens[0]}", None),
        }
        readers = []
        for name, (url, headers) in urls.items():
            heard[name], replies[name] = [], []
            sockets[name] = await connect(url, additional_headers=headers, open_timeout=30)
            readers.append(asyncio.create_task(read(name, sockets[name])))

        async def say(name: str, text: str) -> dict[str, Any]:
            count = len(replies[name])
            await sockets[name].send(json.dumps({"type": "chat", "id": text, "text": text}))
            while len(replies[name]) == count:
                await asyncio.sleep(0.01)
            return replies[name][-1]

        async def until(check: Any) -> None:
            deadline = time.monotonic() + 20
            while not check():
                assert time.monotonic() < deadline, heard
                await asyncio.sleep(0.02)

        assert (await say("seat0", "hello from 1"))["type"] == "ack"
        assert (await say("watcher2", "spectators only"))["type"] == "ack"
        assert (await say("seat1", "hello from 2"))["type"] == "ack"
        everyone = ["hello from 1", "hello from 2"]
        await until(lambda: all(len([m for m in heard[n] if m["channel"] == "players"]) == 2 for n in heard))
        await until(lambda: all(len(heard[n]) == 3 for n in ("watcher1", "watcher2")))
        # The same person on both processes: 5 messages in 10 seconds, wherever they are sent.
        limit = [await say("seat0" if n % 2 else "seat0-again", f"count {n}") for n in range(5)]
        assert [r["type"] for r in limit] == ["ack"] * 4 + ["error"] and limit[-1]["code"] == "rate_limited"
        for ws in sockets.values():
            await ws.close()
        for reader in readers:
            reader.cancel()
        assert all([m["text"] for m in heard[n]][:2] == everyone for n in ("seat0", "seat1", "seat0-again"))
        return heard

    heard = asyncio.run(scenario())
    for seat in ("seat0", "seat1", "seat0-again"):
        assert all(m["channel"] == "players" for m in heard[seat]), heard[seat]
    for watcher in ("watcher1", "watcher2"):
        assert [m["text"] for m in heard[watcher]][:3] == ["hello from 1", "spectators only", "hello from 2"]


# -- a rated game through both processes: rated exactly once ----------------------------------------------------
#
# Every human seat has a client on each process, both playing: the game's last action is sent through both, one is
# stored (with the results and the ratings, in one transaction) and the other refused.


async def account(http: Any, server: ServerProcess, username: str, home: str) -> tuple[dict[str, str], str]:
    """An account registered from ``home`` (the loopback is a trusted proxy) in a browser of its own (no device
    cookie of another account): players of different homes and browsers are rated together (links.py)."""
    http.cookies.clear()
    registered = await http.post(
        f"{server.url}/api/account/register",
        json={"username": username, "password": "correct horse"},
        headers={**await guest(http, server), "X-Forwarded-For": home},
    )
    assert registered.status_code == 201, registered.text
    return {"X-Luz-Session": registered.json()["session"]}, registered.json()["id"]


async def _rated_game(servers: list[ServerProcess]) -> tuple[str, list[str]]:
    one = servers[0]
    async with httpx.AsyncClient(timeout=30) as http:
        seats = [{"kind": "human"}] * 3 + [{"kind": "bot"}]
        spec = {"players": 4, "rated": True, "grace_seconds": 3600, "seats": seats}
        created = await http.post(f"{one.url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {invite["seat"]: invite["token"] for invite in created.json()["invites"]}
        clients: list[Client] = []
        for seat, token in tokens.items():
            for server in servers:
                clients.append(await open_client(server, table_id, token, seat))
        tasks = [asyncio.create_task(c.run()) for c in clients]
        players = []
        try:
            for seat, token in tokens.items():
                server = servers[seat % 2]
                home = f"203.0.113.{seat + 1}"
                headers, player = await account(http, server, f"rated{seat}{table_id[:6]}", home)
                players.append(player)
                joined = await http.post(
                    f"{server.url}/api/tables/{table_id}/seats/{seat}/join",
                    json={"name": f"p{seat} {table_id[:6]}", "token": token},
                    headers={**headers, "X-Forwarded-For": home},
                )
                assert joined.status_code == 200, joined.text
            for client in clients:
                await client.wait_for(over, timeout=GAME_TIMEOUT - 30)
            await asyncio.sleep(0.5)  # a late second write would show now
        finally:
            for client in clients:
                await client.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)
        refused = [r for c in clients for r in c.replies if r["type"] == "error"]
        assert refused, "both processes were sent actions of the same seat: some were refused"
    return table_id, players


def test_a_rated_game_through_two_processes_is_rated_once(servers: list[ServerProcess], postgres_url: str) -> None:
    table_id, players = asyncio.run(asyncio.wait_for(_rated_game(servers), 180))
    log = stored_actions(postgres_url, table_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1)), "each action stored once"
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as connection:
            changes = connection.execute(
                text("SELECT player_id, game_no FROM rating_changes WHERE table_id = :t ORDER BY player_id"),
                {"t": table_id},
            ).all()
            ratings = connection.execute(
                text("SELECT player_id, games FROM ratings WHERE player_id = ANY(:p) ORDER BY player_id"),
                {"p": players},
            ).all()
            results = connection.execute(
                text("SELECT COUNT(*) FROM results WHERE table_id = :t"), {"t": table_id}
            ).scalar_one()
    finally:
        engine.dispose()
    assert [tuple(r) for r in changes] == [(p, 1) for p in sorted(players)], "one rating change per player"
    assert [tuple(r) for r in ratings] == [(p, 1) for p in sorted(players)], "each rating updated once"
    assert results == 4


def test_a_seat_abandoned_on_one_process_is_abandoned_on_both(servers: list[ServerProcess], postgres_url: str) -> None:
    """Seat 0's player leaves process 2 in the first deal, whose bot takes the seat over: process 1 shows it too,
    the game counts seat 0 abandoned whichever process stores the last action, and (left in the first deal) it is
    rated for nobody, stored once (fair ratings)."""
    table_id, players = asyncio.run(asyncio.wait_for(_abandon_elsewhere(servers), 180))
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as connection:
            abandoned = connection.execute(
                text("SELECT seat, abandoned FROM results WHERE table_id = :t ORDER BY seat"), {"t": table_id}
            ).all()
            places = dict(
                connection.execute(
                    text("SELECT player_id, place FROM rating_changes WHERE table_id = :t"), {"t": table_id}
                ).all()
            )
            unrated = connection.execute(
                text("SELECT unrated, unrated_seat FROM games WHERE table_id = :t"), {"t": table_id}
            ).one()
    finally:
        engine.dispose()
    assert [tuple(r) for r in abandoned] == [(0, True), (1, False), (2, False)]
    assert places == {} and len(players) == 2 and tuple(unrated) == ("left", 0)


async def _abandon_elsewhere(servers: list[ServerProcess]) -> tuple[str, list[str]]:
    one, two = servers
    async with httpx.AsyncClient(timeout=30) as http:
        spec = {"players": 3, "rated": True, "grace_seconds": 1.5, "seats": [{"kind": "human"}] * 2 + [{"kind": "bot"}]}
        created = await http.post(f"{one.url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {invite["seat"]: invite["token"] for invite in created.json()["invites"]}
        leaver = await open_client(two, table_id, tokens[0], 0, play=False)
        stayer = await open_client(one, table_id, tokens[1], 1)
        tasks = [asyncio.create_task(c.run()) for c in (leaver, stayer)]
        players = []
        try:
            for seat, server in ((0, two), (1, one)):
                home = f"203.0.113.{seat + 1}"
                headers, player = await account(http, server, f"ab{seat}{table_id[:6]}", home)
                players.append(player)
                joined = await http.post(
                    f"{server.url}/api/tables/{table_id}/seats/{seat}/join",
                    json={"name": f"p{seat} {table_id[:6]}", "token": tokens[seat]},
                    headers={**headers, "X-Forwarded-For": home},
                )
                assert joined.status_code == 200, joined.text
            await stayer.wait_for(lambda c: c.latest is not None and c.latest["table"]["status"] == "playing")
            # Past the grace period (process 1's own countdown for seat 0 ends: seat 0 is connected to process 2,
            # and the game waits for it), then the player leaves process 2: only process 2 counts down now.
            await asyncio.sleep(3.0)
            assert stayer.latest is not None and not stayer.latest["table"]["seats"][0]["bot_playing"]
            await leaver.ws.close()

            def taken_over(client: Client) -> bool:
                latest = client.latest
                return latest is not None and (latest["table"]["seats"][0]["bot_playing"] or over(client))

            await stayer.wait_for(taken_over, timeout=30)  # process 1 shows process 2's bot playing seat 0
            assert stayer.latest is not None and stayer.latest["table"]["seats"][0]["bot_playing"]
            await stayer.wait_for(over, timeout=GAME_TIMEOUT - 60)
        finally:
            await stayer.ws.close()
            await asyncio.gather(*tasks, return_exceptions=True)
    return table_id, players
