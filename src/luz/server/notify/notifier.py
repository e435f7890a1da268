"""The notifier: one background loop per server process that tells players it is their turn.

Every ``interval`` seconds it looks for (a) tables whose ``notify_at`` has come (the turn passed to a human seat),
(b) tables whose ``remind_at`` has come (a quarter of the mover's time left), (c) players with a digest due.
Each is claimed by a conditional UPDATE (``... WHERE id = :id AND notify_at = :at``): only the process whose
UPDATE changed the row tells, so each turn is told once across processes and restarts. A seat connected to its
table is told nothing; in the player's quiet hours the turn waits for their end. Database calls run in
``asyncio.to_thread``; pushes go out a few at a time, each within its timeout.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import and_, or_, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ..db import PlayerRow, SeatRow, TableRow
from ..domain import SeatKind, Status
from .mail import Mailer, Tokens, TurnGame, digest_email
from .preferences import Recipient
from .push import GONE, Pusher, Subscriptions
from .texts import Kind, push_payload

log = logging.getLogger("luz.server.notify")

SeatConnected = Callable[[str, int], Awaitable[bool]]
"""Whether a connection of a seat is open on its table (the registry's ``seat_connected``)."""
HOUR_MS = 3600 * 1000
DIGEST_EVERY_MS = HOUR_MS
"""At most one digest an hour per player."""
BATCH = 100
"""Tables (or players) taken per scan and kind."""


async def never_connected(table_id: str, seat: int) -> bool:
    return False


def epoch_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Sent:
    """One notification that went out (for the tests and the bench)."""

    kind: Literal["turn", "reminder", "digest"]
    player_id: str
    table_id: str | None
    due_at: int
    """When it was due (``notify_at``, ``remind_at``; a digest: when it was claimed)."""
    sent_at: int
    pushes: int = 0
    """Subscriptions that took it (push service answered 2xx)."""

    @property
    def latency_ms(self) -> int:
        return self.sent_at - self.due_at


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
    """The loop of one process (:meth:`start`, :meth:`stop`); :meth:`scan` is one pass of it."""

    def __init__(
        self,
        engine: Engine,
        pusher: Pusher | None,
        mailer: Mailer,
        tokens: Tokens,
        *,
        base_url: str = "",
        seat_connected: SeatConnected = never_connected,
        interval: float = 2.0,
        clock: Callable[[], int] = epoch_ms,
        batch: int = BATCH,
    ) -> None:
        self.engine = engine
        self.pusher = pusher
        self.mailer = mailer
        self.tokens = tokens
        self.base_url = base_url
        """Prefix of the links in emails (``LUZ_PUBLIC_URL``)."""
        self.seat_connected = seat_connected
        self.interval = interval
        self.clock = clock
        self.batch = batch
        self.subscriptions = Subscriptions(engine)
        self.sent: collections.deque[Sent] = collections.deque(maxlen=1000)
        self.counts: collections.Counter[str] = collections.Counter()
        """``scans``, ``turn``, ``reminder``, ``digest``, ``connected``, ``postponed``, ``gone``, ``failed``..."""
        self._task: asyncio.Task[None] | None = None

    # -- the loop --------------------------------------------------------------------------------------------

    async def start(self) -> None:
        if self.pusher is not None:
            await self.pusher.start()
        self._task = asyncio.create_task(self._run(), name="luz-notifier")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.pusher is not None:
            await self.pusher.close()

    async def _run(self) -> None:
        while True:
            try:
                await self.scan()
            except Exception as error:  # a database away for a while: the next scan tries again
                log.warning("notifier scan failed: %s: %s", type(error).__name__, error)
            await asyncio.sleep(self.interval)

    async def scan(self) -> None:
        """One pass: the turns due, the reminders due, the digests due."""
        for kind in ("turn", "reminder"):
            due = await asyncio.to_thread(self._due, kind, self.clock())
            if due:
                await asyncio.gather(*(self._tell(kind, item) for item in due))
        if self.mailer.configured:
            await self._digests()
        self.counts["scans"] += 1

    @property
    def push_latencies_ms(self) -> list[int]:
        """``sent_at - notify_at`` of the turn pushes sent lately."""
        return [s.latency_ms for s in self.sent if s.kind == "turn" and s.pushes]

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

    async def _tell(self, kind: Kind, due: Due) -> None:
        recipient = due.recipient
        if not due.playing or recipient is None or due.seat is None:
            await asyncio.to_thread(self._claim, kind, due.table_id, due.at, None)  # nobody to tell
            return
        quiet_end = recipient.quiet_until(self.clock())
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
        pushes = 0
        if recipient.push_on and self.pusher is not None:
            pushes = await self._push(kind, due, recipient)
        if kind == "turn" and recipient.mailable and self.mailer.configured:
            await asyncio.to_thread(self._mark_pending, recipient.id)
        self.counts[kind] += 1
        self.sent.append(Sent(kind, recipient.id, due.table_id, due.at, self.clock(), pushes))

    async def _push(self, kind: Kind, due: Due, recipient: Recipient) -> int:
        assert self.pusher is not None
        payload = push_payload(kind, due.table_id, due.name, due.deadline, recipient.language)
        now = self.clock()
        ttl = (due.deadline - now) // 1000 if due.deadline is not None and due.deadline > now else 86400
        subscriptions = await asyncio.to_thread(self.subscriptions.of, recipient.id)
        answers = await asyncio.gather(*(self.pusher.send(s, payload, ttl=max(60, ttl)) for s in subscriptions))
        for subscription, status in zip(subscriptions, answers, strict=True):
            if status in GONE:
                await asyncio.to_thread(self.subscriptions.remove, subscription.endpoint)
                self.counts["gone"] += 1
            elif status is None or not 200 <= status < 300:
                self.counts["failed"] += 1
        return sum(1 for status in answers if status is not None and 200 <= status < 300)

    def _mark_pending(self, player_id: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(email_pending=True))

    # -- the digest ------------------------------------------------------------------------------------------

    def _digests_due(self, now: int) -> list[Recipient]:
        query = (
            select(PlayerRow)
            .where(
                PlayerRow.email_pending,
                PlayerRow.email_verified,
                PlayerRow.email_on,
                PlayerRow.email.is_not(None),
                PlayerRow.username.is_not(None),
                or_(PlayerRow.emailed_at.is_(None), PlayerRow.emailed_at <= now - DIGEST_EVERY_MS),
            )
            .order_by(PlayerRow.emailed_at)
            .limit(self.batch)
        )
        with Session(self.engine) as session:
            return [Recipient.of(row) for row in session.scalars(query)]

    def _turn_games(self, player_id: str) -> list[TurnGame]:
        query = (
            select(TableRow.id, TableRow.name, TableRow.deadline)
            .join(SeatRow, and_(SeatRow.table_id == TableRow.id, SeatRow.seat == TableRow.to_move))
            .where(
                SeatRow.player_id == player_id,
                SeatRow.kind == SeatKind.HUMAN,
                TableRow.status == Status.PLAYING,
                TableRow.turn_based,
            )
            .order_by(TableRow.deadline, TableRow.id)
            .limit(50)
        )
        with Session(self.engine) as session:
            return [TurnGame(*row) for row in session.execute(query)]

    def _claim_digest(self, player_id: str, now: int, games: bool) -> bool:
        """Take a player's pending digest (and, when there are games to list, stamp it sent now)."""
        values: dict[str, Any] = {"email_pending": False} | ({"emailed_at": now} if games else {})
        statement = (
            update(PlayerRow)
            .where(
                PlayerRow.id == player_id,
                PlayerRow.email_pending,
                or_(PlayerRow.emailed_at.is_(None), PlayerRow.emailed_at <= now - DIGEST_EVERY_MS),
            )
            .values(**values)
        )
        with Session(self.engine) as session, session.begin():
            return bool(session.execute(statement).rowcount)  # type: ignore[attr-defined]

    async def _digests(self) -> None:
        now = self.clock()
        for recipient in await asyncio.to_thread(self._digests_due, now):
            if recipient.quiet_until(now) is not None:
                continue
            games = await asyncio.to_thread(self._turn_games, recipient.id)
            if not await asyncio.to_thread(self._claim_digest, recipient.id, now, bool(games)) or not games:
                continue
            assert recipient.email is not None
            message = digest_email(
                self.mailer, self.tokens, self.base_url, recipient.id, recipient.email, recipient.language, games, now
            )
            if await self.mailer.send(message):
                self.counts["digest"] += 1
                self.sent.append(Sent("digest", recipient.id, None, now, self.clock()))
            else:
                self.counts["failed"] += 1
                await asyncio.to_thread(self._mark_pending, recipient.id)  # again after the hour
