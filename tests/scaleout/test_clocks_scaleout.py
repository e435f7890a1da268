"""Clocks across two server processes (PostgreSQL + Redis): every process with the table armed its deadline, one
stores the timeout's move, every connection is told once; a process stopped mid-turn leaves the deadline to the
other."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session
from websockets.asyncio.client import ClientConnection, connect

from luz.bench.server import ServerProcess
from luz.server.db import ActionRow, TableRow, make_engine
from luz.server.domain import build_game
from luz.server.store import Store

TIMEOUTS = 3


def create_timed_table(server: ServerProcess, reserve: float, increment: float) -> tuple[str, dict[int, str]]:
    spec = {
        "players": 3,
        "grace_seconds": 600,
        "options": {"first_player": 0},
        "time_control": {"reserve_seconds": reserve, "increment_seconds": increment},
    }
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{server.url}/api/tables", json=spec)
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["id"]
        tokens = {i["seat"]: i["token"] for i in created.json()["invites"]}
        for seat, token in tokens.items():
            me = {"X-Luz-Session": http.post(f"{server.url}/api/me/guest").json()["session"]}
            joined = http.post(
                f"{server.url}/api/tables/{table_id}/seats/{seat}/join", json={"token": token}, headers=me
            )
            assert joined.status_code == 200, joined.text
    return table_id, tokens


def seats_to_move(database_url: str, table_id: str) -> list[int]:
    """The seat whose turn it was before each stored action, by the rules (a trick's winner leads the next one)."""
    engine = make_engine(database_url)
    try:
        state = Store(engine).load(table_id)
    finally:
        engine.dispose()
    assert state is not None
    games = [build_game(replace(state, actions=state.actions[:done])) for done in range(len(state.actions))]
    return [game.current_player for game in games if game is not None]


async def listen(ws: ClientConnection, inbox: list[dict[str, Any]]) -> None:
    async for raw in ws:
        inbox.append(json.loads(raw))


def stored(database_url: str, table_id: str) -> tuple[list[tuple[int, int]], dict[str, Any] | None]:
    """The table's stored actions as (seq, seat), and its clock."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            rows = session.execute(
                select(ActionRow.seq, ActionRow.seat).where(ActionRow.table_id == table_id).order_by(ActionRow.seq)
            )
            actions = [(seq, seat) for seq, seat in rows]
            clock = session.scalars(select(TableRow.clock).where(TableRow.id == table_id)).one()
        return actions, clock
    finally:
        engine.dispose()


def timeouts(inbox: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(m["version"], m["seat"]) for m in inbox if m["type"] == "timeout"]


def test_a_deadline_fires_once_across_two_processes(servers: list[ServerProcess], postgres_url: str) -> None:
    one, two = servers
    table_id, tokens = create_timed_table(one, reserve=1.5, increment=1)

    async def watch() -> list[list[dict[str, Any]]]:
        urls = [
            f"{one.ws_url}/ws/tables/{table_id}?token={tokens[0]}",
            f"{two.ws_url}/ws/tables/{table_id}?token={tokens[1]}",
            f"{one.ws_url}/ws/tables/{table_id}",
            f"{two.ws_url}/ws/tables/{table_id}",
        ]
        inboxes: list[list[dict[str, Any]]] = [[] for _ in urls]
        sockets = [await connect(url, open_timeout=30) for url in urls]
        readers = [asyncio.create_task(listen(ws, inbox)) for ws, inbox in zip(sockets, inboxes, strict=True)]
        try:
            async with asyncio.timeout(60):
                while min(len(timeouts(inbox)) for inbox in inboxes) < TIMEOUTS:
                    await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)  # a second telling would come now
        finally:
            for ws in sockets:
                await ws.close()
            for reader in readers:
                reader.cancel()
        return inboxes

    inboxes = asyncio.run(watch())
    actions, clock = stored(postgres_url, table_id)
    # Nobody moved: each turn's time ran out, and each move was stored once (never twice for one deadline). The
    # next turn's time may run out while the sockets close and the database is read (a loaded machine): the
    # connections are compared over the timeouts all of them saw, the stored moves from there on.
    seen = min(len(timeouts(inbox)) for inbox in inboxes)
    told = timeouts(inboxes[0])[:seen]
    assert seen >= TIMEOUTS and len(actions) >= seen
    assert [seat for _, seat in actions[:seen]] == [seat for _, seat in told]
    assert [seat for _, seat in actions] == seats_to_move(postgres_url, table_id), "one move a turn"
    assert [version for version, _ in told] == list(range(told[0][0], told[0][0] + len(told)))
    for inbox in inboxes:  # every connection, on both processes, was told each timeout once, in order
        assert timeouts(inbox)[:seen] == told
    assert clock is not None
    for seat in {seat for _, seat in told}:
        assert clock["reserves"][seat] == 1000  # its reserve spent, the increment earned


def test_a_deadline_fires_when_the_other_process_is_stopped(
    servers: list[ServerProcess], postgres_url: str, redis_url: str, tmp_path: Any
) -> None:
    """The table's clients were on a third process that stops mid-turn: the second process stores the timeout."""
    one, two = servers
    third = ServerProcess.start(postgres_url, redis_url, tmp_path / "server-3.log")
    third.wait_healthy(timeout=60)
    table_id, tokens = create_timed_table(third, reserve=3, increment=0)

    async def watch() -> list[dict[str, Any]]:
        seated = await connect(f"{third.ws_url}/ws/tables/{table_id}?token={tokens[0]}", open_timeout=30)
        await seated.recv()
        watcher = await connect(f"{two.ws_url}/ws/tables/{table_id}", open_timeout=30)
        inbox: list[dict[str, Any]] = []
        reader = asyncio.create_task(listen(watcher, inbox))
        third.stop()
        try:
            async with asyncio.timeout(30):
                while not timeouts(inbox):
                    await asyncio.sleep(0.1)
        finally:
            await watcher.close()
            reader.cancel()
        return inbox

    try:
        inbox = asyncio.run(watch())
    finally:
        third.stop()
    actions, _ = stored(postgres_url, table_id)
    assert timeouts(inbox)[0][1] == 0
    assert actions[0] == (1, 0)
    assert one.process.poll() is None and two.process.poll() is None
