"""The app-wide guards: a request refused by a limit (``OverLimit``, 429), and the rates and caps per client."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from fastapi import HTTPException

from ..clock import SYSTEM_CLOCK, Clock
from ..ratelimit import Counter, SharedRateLimit, deployment_scope
from ..settings import Settings
from ..tables import Registry

INVITATIONS_RATE = "10/minute"
"""Invitations one player may send, over a moving window."""


class OverLimit(HTTPException):
    """A request refused by a limit (429), counted in the metrics under the limit's name (``app.py``)."""

    def __init__(self, limit: str, detail: str, retry_after: int | str | None = None) -> None:
        super().__init__(429, detail, headers=None if retry_after is None else {"Retry-After": str(retry_after)})
        self.limit = limit


@dataclass
class Guards:
    """Rates per client, counted by every process together when they share Redis; open sockets per process; the
    places for tables of bots only."""

    settings: Settings
    table_creation: SharedRateLimit | None
    connection_rate: SharedRateLimit
    seat_connection_rate: SharedRateLimit | None
    client_connections: Counter
    export_rate: SharedRateLimit | None
    """Pages of ``/api/export`` per client (``Settings.exports_per_minute``)."""
    puzzle_answer_rate: SharedRateLimit | None
    """Puzzle answers per client (``Settings.puzzle_answers_per_minute``)."""
    invitation_rate: SharedRateLimit
    """Invitations per player (:data:`INVITATIONS_RATE`)."""
    invitee_rates: list[SharedRateLimit]
    """Invitations from one player to one other (``Settings.invitations_per_invitee``)."""
    bot_tables_creating: dict[str, int] = field(default_factory=dict)
    """Tables of bots only being created, per client (not yet counted by ``Registry.bot_tables_of``)."""

    @classmethod
    def of(cls, settings: Settings, clock: Clock = SYSTEM_CLOCK) -> Guards:
        """The guards of ``settings``, their windows in memory on ``clock`` (without Redis)."""
        scope = deployment_scope(settings.database_url)
        per_minute, per_seat = settings.tables_per_minute, settings.seat_connections_per_minute
        exports, answers = settings.exports_per_minute, settings.puzzle_answers_per_minute
        return cls(
            settings,
            SharedRateLimit(per_minute, settings.redis_url, scope, clock) if per_minute else None,
            SharedRateLimit(settings.connections_per_second, settings.redis_url, scope, clock),
            SharedRateLimit(per_seat, settings.redis_url, scope, clock) if per_seat else None,
            Counter(settings.max_connections_per_client),
            SharedRateLimit(exports, settings.redis_url, scope, clock) if exports else None,
            SharedRateLimit(answers, settings.redis_url, scope, clock) if answers else None,
            SharedRateLimit(INVITATIONS_RATE, settings.redis_url, scope, clock),
            [
                SharedRateLimit(rate, settings.redis_url, scope, clock)
                for rate in settings.invitations_per_invitee.split(";")
                if rate.strip()
            ],
        )

    async def invitation_wait(self, inviter: str, invitee: str) -> int | None:
        """Count one invitation ``inviter`` asks for; ``None`` if it may be sent to ``invitee``, else the seconds
        to wait: past the inviter's rate in all, or past a rate of its invitations to ``invitee`` (which count
        only those sent: :meth:`invitation_sent`)."""
        wait = await self.invitation_rate.hit("invite:" + inviter)
        for rate in self.invitee_rates:
            if wait is not None:
                break
            wait = await rate.wait(f"invite-to:{inviter}:{invitee}")
        return wait

    async def invitation_sent(self, inviter: str, invitee: str) -> None:
        for rate in self.invitee_rates:
            await rate.hit(f"invite-to:{inviter}:{invitee}")

    async def check_creation_rate(self, client: str) -> None:
        """Count one table created by ``client`` (every way of creating one: a table, the tutorial's); 429 with
        ``Retry-After`` past ``tables_per_minute``."""
        wait = await self.table_creation.hit("create:" + client) if self.table_creation else None
        if wait is not None:
            raise OverLimit("tables_per_minute", "too many tables created: try again later", wait)

    async def connection_refused_by(self, client: str, seat_key: str | None) -> str | None:
        """The rate that a new WebSocket connection of ``client`` (asking for the seat of ``seat_key``, if any) is
        over, if any: of new connections per client, then per seat (each allowed one is counted)."""
        if await self.connection_rate.hit("connect:" + client) is not None:
            return "connections_per_second"
        if seat_key is None or self.seat_connection_rate is None:
            return None
        refused = await self.seat_connection_rate.hit("seat-connect:" + seat_key) is not None
        return "seat_connections_per_minute" if refused else None

    @contextlib.contextmanager
    def bot_table_place(self, tables: Registry, client: str, bots_only: bool) -> Iterator[None]:
        """Hold one of ``client``'s places for a table of bots only while it is created (429 when it has none
        left: ``bot_tables_per_client`` playing or being created)."""
        if not bots_only:
            yield
            return
        most = self.settings.bot_tables_per_client
        if tables.bot_tables_of(client) + self.bot_tables_creating.get(client, 0) >= most:
            raise OverLimit(
                "bot_tables_per_client", f"you have {most} tables of bots playing: wait for one to finish", 60
            )
        self.bot_tables_creating[client] = self.bot_tables_creating.get(client, 0) + 1
        try:
            yield
        finally:
            left = self.bot_tables_creating.pop(client) - 1
            if left:
                self.bot_tables_creating[client] = left
