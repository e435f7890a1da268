"""The Redis broker's channels: a process hears an identity's "my games" word only while it holds a stream of that
identity (``watch``/``unwatch``), so the messages it receives grow with what it serves, not with the site."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable

from luz.server.tables.broker import RedisBroker
from luz.server.tables.model import Change


async def until(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(20):
        while not check():
            await asyncio.sleep(0.01)


async def scenario(url: str) -> None:
    here, there = RedisBroker(url), RedisBroker(url)
    alice, bob, table = (f"{name}-{secrets.token_hex(6)}" for name in ("alice", "bob", "table"))
    woken: list[str] = []
    versions: list[int] = []

    async def on_event(table_id: str, version: int, change: Change | None) -> None:
        versions.append(version)

    async def ignore(table_id: str, version: int, change: Change | None) -> None:
        return None

    await here.start(on_event, players=woken.extend)  # nothing heard yet: its listener waits for a channel
    await there.start(ignore)
    try:
        await here.watch(alice)
        await there.players([alice, bob])  # bob has no stream here: his word is not received
        await there.players([alice])
        await until(lambda: woken == [alice, alice])
        assert here.received == 2

        here.unwatch(alice)
        await here.hold(table)  # a table's channel after the identity's left (one change at a time)
        await until(lambda: here._subscribed == {RedisBroker.TABLE.format(table)})
        await there.players([alice])
        await there.publish(table, 7)  # sent after alice's word: heard after it, had it been heard
        await until(lambda: versions == [7])
        assert woken == [alice, alice] and here.received == 3
    finally:
        await here.close()
        await there.close()


def test_an_identitys_word_is_heard_only_where_it_is_watched(redis_url: str) -> None:
    asyncio.run(scenario(redis_url))
