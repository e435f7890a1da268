"""The notifier: one background loop per server process that tells players it is their turn, through each channel
that wants it (``channels.py``: Web Push, the email digest).

Every ``interval`` seconds it looks for (a) tables whose ``notify_at`` has come (the turn passed to a human seat),
(b) tables whose ``remind_at`` has come (a quarter of the mover's time left), then lets each channel do its own
periodic work (the digests due). Each turn is claimed by a conditional UPDATE (``... WHERE id = :id AND notify_at =
:at``): only the process whose UPDATE changed the row tells, so each turn is told once across processes and
restarts. A seat connected to its table is told nothing; in the player's quiet hours the turn waits for their end.
Database calls run in ``asyncio.to_thread``; the time is the injected clock's.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..clock import SYSTEM_CLOCK, Clock
from ..db import PlayerRow, SeatRow, TableRow
from ..domain import SeatKind, Status
from .channel import Channel, Notice, NoticeKind, Outcome
from .preferences import Preferences, Recipient
from .texts import Kind

log = logging.getLogger("luz.server.notify")

SeatConnected = Callable[[str, int], Awaitable[bool]]
"""Whether a connection of a seat is open on its table (the registry's ``seat_connected``)."""
BATCH = 100
"""Tables taken per scan and kind."""


async def never_connected(table_id: str, seat: int) -> bool:
    return False


@dataclass(frozen=True)
class Sent:
    """One notification that went out (for the tests and the bench)."""

    kind: NoticeKind
    player_id: str
    table_id: str | None
    due_at: int
    """When it was due (``notify_at``, ``remind_at``; an invitation: when it was made)."""
    sent_at: int
    delivered: tuple[tuple[str, int], ...] = ()
    """Each channel that told, with the messages it handed on (the pushes a push service took, ...)."""

    @property
    def latency_ms(self) -> int:
        return self.sent_at - self.due_at

    def by(self, channel: str) -> int:
        return dict(self.delivered).get(channel, 0)


@dataclass(frozen=True)
class Due:
    table_id: str
    name: str
    deadline: int | None
    seat: int | None
    at: int
    playing: bool
    recipient: Recipient | None


_COLUMNS: dict[Kind, Any] = {"turn": TableRow.notify_at, "reminder": TableRow.remind_at}


class Notifier:
    """The loop of one process (:meth:`start`, :meth:`stop`); :meth:`scan` is one pass of it, :meth:`tell` tells a
    player of one notice at once (an invitation)."""

    def __init__(
        self,
        engine: Engine,
        channels: Sequence[Channel],
        *,
        seat_connected: SeatConnected = never_connected,
        interval: float = 2.0,
        clock: Clock = SYSTEM_CLOCK,
        batch: int = BATCH,
    ) -> None:
        self.engine = engine
        self.channels = tuple(channels)
        self.seat_connected = seat_connected
        self.interval = interval
        self.clock = clock
        self.batch = batch
        self.preferences = Preferences(engine)
        self.sent: collections.deque[Sent] = collections.deque(maxlen=1000)
        self.counts: collections.Counter[str] = collections.Counter()
        """``scans``, ``turn``, ``reminder``, ``invitation``, ``digest``, ``connected``, ``postponed``, ``quiet``,
        ``gone``, ``failed``..."""
        self._task: asyncio.Task[None] | None = None

    # -- the loop --------------------------------------------------------------------------------------------

    async def start(self) -> None:
        for channel in self.channels:
            await channel.start()
        self._task = asyncio.create_task(self._run(), name="luz-notifier")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for channel in self.channels:
            await channel.close()

    async def _run(self) -> None:
        while True:
            try:
                await self.scan()
            except Exception as error:  # a database away for a while: the next scan tries again
                log.warning("notifier scan failed: %s: %s", type(error).__name__, error)
            await asyncio.sleep(self.interval)

    async def scan(self) -> None:
        """One pass: the turns due, the reminders due, each channel's own work (the digests due)."""
        for kind in ("turn", "reminder"):
            due = await asyncio.to_thread(self._due, kind, self.clock.now_ms())
            if due:
                await asyncio.gather(*(self._tell_due(kind, item) for item in due))
        for channel in self.channels:
            self.counts.update(await channel.sweep(self.clock.now_ms()))
        self.counts["scans"] += 1

    @property
    def push_latencies_ms(self) -> list[int]:
        """``sent_at - notify_at`` of the turn pushes sent lately."""
        return [s.latency_ms for s in self.sent if s.kind == "turn" and s.by("push")]

    # -- telling ---------------------------------------------------------------------------------------------

    async def tell(self, player_id: str, notice: Notice) -> bool:
        """Tell ``player_id`` of ``notice`` now through every channel that wants it, unless in their quiet hours
        (then not at all: an invitation does not wait); whether any channel handed it on. Never raises."""
        try:
            recipient = await asyncio.to_thread(self.preferences.of, player_id)
            if recipient is None:
                return False
            now = self.clock.now_ms()
            if recipient.quiet_until(now) is not None:
                self.counts["quiet"] += 1
                return False
            return await self._through_channels(recipient, notice, now)
        except Exception as error:  # a channel's trouble never fails what caused the notice
            log.warning("%s not told: %s", notice.kind, type(error).__name__)
            return False

    async def _through_channels(self, recipient: Recipient, notice: Notice, due_at: int) -> bool:
        delivered: list[tuple[str, int]] = []
        for channel in self.channels:
            if not channel.wants(recipient, notice):
                continue
            outcome: Outcome = await channel.tell(recipient, notice, self.clock.now_ms())
            self.counts.update({k: v for k, v in outcome.items() if k != "delivered"})
            delivered.append((channel.name, outcome["delivered"]))
        self.counts[notice.kind] += 1
        self.sent.append(
            Sent(notice.kind, recipient.id, notice.table_id, due_at, self.clock.now_ms(), tuple(delivered))
        )
        return any(count for _, count in delivered)

    # -- turns and reminders ---------------------------------------------------------------------------------

    def _due(self, kind: Kind, now: int) -> list[Due]:
        column = _COLUMNS[kind]
        query = (
            select(TableRow.id, TableRow.name, TableRow.deadline, TableRow.to_move, column, TableRow.status)
            .add_columns(TableRow.turn_based, SeatRow.kind, PlayerRow)
            .outerjoin(SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.seat == TableRow.to_move))
            .outerjoin(PlayerRow, PlayerRow.id == SeatRow.player_id)
            .where(column.is_not(None), column <= now)
            .order_by(column)
            .limit(self.batch)
        )
        with Session(self.engine) as session:
            return [
                Due(
                    table_id,
                    name,
                    deadline,
                    to_move,
                    at,
                    status == Status.PLAYING and turn_based and seat_kind == SeatKind.HUMAN,
                    Recipient.of(player) if player is not None else None,
                )
                for table_id, name, deadline, to_move, at, status, turn_based, seat_kind, player in session.execute(
                    query
                )
            ]

    def _claim(self, kind: Kind, table_id: str, at: int, later: int | None) -> bool:
        """Move a table's ``notify_at`` (or ``remind_at``) from ``at`` to ``later``: whether this call did."""
        column = _COLUMNS[kind].key
        statement = text(f"UPDATE tables SET {column} = :later WHERE id = :id AND {column} = :at")
        with self.engine.begin() as connection:
            return connection.execute(statement, {"later": later, "id": table_id, "at": at}).rowcount == 1

    async def _tell_due(self, kind: Kind, due: Due) -> None:
        recipient = due.recipient
        if not due.playing or recipient is None or due.seat is None:
            await asyncio.to_thread(self._claim, kind, due.table_id, due.at, None)  # nobody to tell
            return
        quiet_end = recipient.quiet_until(self.clock.now_ms())
        if quiet_end is not None:
            if kind == "reminder" and due.deadline is not None and quiet_end >= due.deadline:
                quiet_end = None  # the reminder would come after the deadline: none
            if await asyncio.to_thread(self._claim, kind, due.table_id, due.at, quiet_end):
                self.counts["postponed"] += 1
            return
        if not await asyncio.to_thread(self._claim, kind, due.table_id, due.at, None):
            return  # another process tells
        try:
            connected = await self.seat_connected(due.table_id, due.seat)
        except Exception as error:
            log.warning("seat_connected failed: %s", type(error).__name__)
            connected = False
        if connected:
            self.counts["connected"] += 1
            return
        await self._through_channels(recipient, Notice(kind, due.table_id, due.name, due.deadline), due.at)
