"""Tables coming into memory and the door's database calls: never on the event loop's thread, one ``Table`` per
table however many ask for it at once."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from luz.engine import get_edition
from luz.server import Settings
from luz.server.db import TableRow, make_engine, migrate
from luz.server.store import Store
from luz.server.tables import Registry
from luz.server.tables.broker import MemoryBroker
from luz.server.tables.commands import Act, Join, Refresh, Start

EDITION = "iello"
PLAYERS = 3
WATCHED = ("load", "load_many", "join", "leave", "start_game", "rename_player", "expire", "set_rematch")
"""The store's calls the door and the loading make, each recorded with the thread it ran on."""


class RecordingStore(Store):
    """A store that records which thread ran each of its ``WATCHED`` calls, and for which arguments; its next
    ``failing`` reads of tables fail (the database away)."""

    calls: list[tuple[str, int, tuple[Any, ...]]]
    tokens: dict[int, str]
    failing = 0

    def __getattribute__(self, name: str) -> Any:
        found = super().__getattribute__(name)
        if name not in WATCHED:
            return found

        def recorded(*args: Any, **kwargs: Any) -> Any:
            super(RecordingStore, self).__getattribute__("calls").append((name, threading.get_ident(), args))
            if name.startswith("load") and self.failing:
                self.failing -= 1
                raise ConnectionError("the database is away")
            return found(*args, **kwargs)

        return recorded


def run(tmp_path: Path, scenario: Callable[[Registry, RecordingStore, str], Awaitable[None]]) -> RecordingStore:
    """A 3-seat table of people stored, not joined; ``scenario`` runs on a registry of it. The store."""

    async def go() -> RecordingStore:
        url = f"sqlite:///{tmp_path}/luz.sqlite3"
        engine = make_engine(url)
        migrate(engine)
        store = RecordingStore(engine)
        table_id, tokens = store.create_table(
            name="loading",
            edition=EDITION,
            players=PLAYERS,
            options=get_edition(EDITION).options(PLAYERS).to_json(),
            public=False,
            grace_seconds=3600,
            seats=[{"kind": "human"} for _ in range(PLAYERS)],
        )
        store.tokens = tokens
        store.calls = []
        registry = Registry(store, MemoryBroker(), None, Settings(database_url=url, bot_workers=0))
        try:
            await scenario(registry, store, table_id)
        finally:
            await registry.close()
            engine.dispose()
        return store

    return asyncio.run(go())


def test_the_doors_database_calls_run_off_the_event_loop(tmp_path: Path) -> None:
    loop_thread: list[int] = []

    async def scenario(registry: Registry, store: RecordingStore, table_id: str) -> None:
        loop_thread.append(threading.get_ident())
        table = await registry.get(table_id)
        assert table is not None
        for seat, token in store.tokens.items():
            await registry.submit(table, Join(seat, f"p{seat}", token))
        await registry.submit(table, Start(seed=7))
        assert table.game is not None and table.game.current_player is not None
        store.join(table_id, 0, "renamed", store.tokens[0])  # another transaction
        await registry.submit(table, Refresh())  # caught up with the database
        assert table.state.seats[0].name == "renamed"
        seat = table.game.current_player
        await registry.submit(table, Act(seat, table.game.legal_actions()[0], table.state.version))
        await registry.rename_seats("nobody", "x")
        made = len(store.calls)
        with Session(store.engine) as session:  # the read of a table coming into memory equals the ORM's
            row = session.get(TableRow, table_id)
            assert row is not None and table.state.actions
            assert store.load(table_id) == store._state(session, row) == table.state
        del store.calls[made:]  # the test's own reads

    store = run(tmp_path, scenario)
    made = {name for name, _, _ in store.calls}
    assert {"load", "join", "start_game", "rename_player"} <= made
    on_loop = [name for name, thread, _ in store.calls if thread == loop_thread[0]]
    assert on_loop == ["join"], on_loop  # the test's own join only


def test_two_loads_of_one_table_at_once_give_one_table_read_once(tmp_path: Path) -> None:
    async def scenario(registry: Registry, store: RecordingStore, table_id: str) -> None:
        first, second, many = await asyncio.gather(
            registry.get(table_id), registry.get(table_id), registry.get_many([table_id, "missing"])
        )
        assert first is not None and first is second and many == {table_id: first}
        assert [(name, args) for name, _, args in store.calls] == [
            ("load_many", ([table_id],)),
            ("load_many", (["missing"],)),
        ]
        assert await registry.get("missing") is None  # what is not stored is not held
        assert await registry.get(table_id) is first and list(registry.live) == [table_id]

    run(tmp_path, scenario)


def test_a_read_that_fails_is_told_to_every_waiter_and_the_next_load_reads_again(tmp_path: Path) -> None:
    async def scenario(registry: Registry, store: RecordingStore, table_id: str) -> None:
        store.failing = 1
        results = await asyncio.gather(registry.get(table_id), registry.get(table_id), return_exceptions=True)
        assert [type(result) for result in results] == [ConnectionError, ConnectionError]
        assert table_id not in registry.live
        table = await registry.get(table_id)
        assert table is not None and table.state.id == table_id

    run(tmp_path, scenario)


def test_a_table_just_read_is_not_idle_before_its_caller_has_it(tmp_path: Path) -> None:
    # The read is a task of its own: the idle sweep may run between its end and the caller's turn.
    async def scenario(registry: Registry, store: RecordingStore, table_id: str) -> None:
        await registry._read([table_id])
        assert registry.evict_idle() == 0
        assert await registry.get(table_id) is registry.live[table_id]

    run(tmp_path, scenario)


def test_a_read_in_flight_when_the_registry_closes_is_cancelled_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """A table being read as the server stops: its read is cancelled (no table comes into memory after, no task
    left pending, no error left unretrieved), and the request that waited for it is cancelled with it."""

    async def scenario(registry: Registry, store: RecordingStore, table_id: str) -> None:
        unhandled: list[str] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, context: unhandled.append(context["message"]))
        reading, release, read_done = threading.Event(), threading.Event(), threading.Event()
        load_many = store.load_many

        def slow_read(table_ids: list[str]) -> Any:  # the database slow to answer
            reading.set()
            release.wait(60)
            try:
                return load_many(table_ids)
            finally:
                read_done.set()

        store.load_many = slow_read  # type: ignore[method-assign]
        asking = asyncio.ensure_future(registry.get(table_id))
        assert await asyncio.to_thread(reading.wait, 60)
        [read] = set(registry._loading.values())
        await registry.close()
        assert read.cancelled() and registry._loading == {}
        with pytest.raises(asyncio.CancelledError):
            await asking
        release.set()  # the read's thread ends; its table is never held
        assert await asyncio.to_thread(read_done.wait, 60)
        await asyncio.sleep(0)  # what the read's end schedules on the loop, run
        del read, asking
        gc.collect()
        assert table_id not in registry.live and unhandled == []

    run(tmp_path, scenario)
