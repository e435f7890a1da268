"""Each identity's open "my games" streams (``/api/me/events``) on this process, woken when the turn changes at
one of its tables; with several processes the word goes through the broker, on the identity's channel, which this
process hears while it holds a stream of the identity: a stream on any process hears of a move stored on another,
and a process hears only of the identities it serves."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from .broker import Broker


class Watchers:
    """The streams of this process, by identity: each an event set when that identity's games may have changed."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.streams: dict[str, set[asyncio.Event]] = {}
        self.closed = False
        """The server is stopping: every stream ends (an event stream never ends by itself, and the server waits
        for its open responses before it stops)."""

    async def watch(self, player_id: str) -> asyncio.Event:
        """A new stream of ``player_id``: the event that wakes it (the identity's word heard from the other
        processes before this returns)."""
        woken = asyncio.Event()
        self.streams.setdefault(player_id, set()).add(woken)
        try:  # every stream waits for it (a second one may come while the first subscribes)
            await self.broker.watch(player_id)
        except BaseException:
            self.unwatch(player_id, woken)
            raise
        return woken

    def unwatch(self, player_id: str, woken: asyncio.Event) -> None:
        streams = self.streams.get(player_id)
        if streams is not None:
            streams.discard(woken)
            if not streams:
                del self.streams[player_id]
                self.broker.unwatch(player_id)  # its last stream here: its word no longer heard

    def close(self) -> None:
        """End every stream (woken, each sees ``closed``), as the server stops."""
        self.closed = True
        for streams in self.streams.values():
            for woken in streams:
                woken.set()

    def count(self, player_id: str) -> int:
        """The streams ``player_id`` has open on this process."""
        return len(self.streams.get(player_id, ()))

    def wake(self, players: Iterable[str]) -> None:
        """Tell this process's streams of ``players`` to look again (another process's word, or this one's)."""
        for player in players:
            for woken in self.streams.get(player, ()):
                woken.set()

    async def changed(self, players: list[str]) -> None:
        """The turn changed at a table of ``players``: wake their streams here and on the other processes."""
        self.wake(players)
        if self.broker.shared and players:
            await self.broker.players(players)
