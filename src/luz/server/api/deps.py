"""What every route needs of a request: who sends it, the process's tables, the table asked for, the seat its token
opens, and the app-wide guards (rates and caps per client)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from fastapi import HTTPException, Request, WebSocket
from starlette.requests import HTTPConnection

from luz.engine.record import to_record

from ..domain import build_game
from ..logs import on_table
from ..metrics import Metrics
from ..ratelimit import Counter, SharedRateLimit, client_key, deployment_scope
from ..settings import Settings
from ..tables import Registry, Table


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
    bot_tables_creating: dict[str, int] = field(default_factory=dict)
    """Tables of bots only being created, per client (not yet counted by ``Registry.bot_tables_of``)."""

    @classmethod
    def of(cls, settings: Settings) -> Guards:
        scope = deployment_scope(settings.database_url)
        per_minute, per_seat = settings.tables_per_minute, settings.seat_connections_per_minute
        exports = settings.exports_per_minute
        return cls(
            settings,
            SharedRateLimit(per_minute, settings.redis_url, scope) if per_minute else None,
            SharedRateLimit(settings.connections_per_second, settings.redis_url, scope),
            SharedRateLimit(per_seat, settings.redis_url, scope) if per_seat else None,
            Counter(settings.max_connections_per_client),
            SharedRateLimit(exports, settings.redis_url, scope) if exports else None,
        )

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


def settings_of(request: HTTPConnection) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def guards_of(request: Request | WebSocket) -> Guards:
    guards: Guards = request.app.state.guards
    return guards


def metrics_of(request: HTTPConnection) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


def tables_of(request: Request | WebSocket) -> Registry:
    tables: Registry = request.app.state.tables
    return tables


def client_of(request: Request | WebSocket) -> str:
    """The client a request comes from (its address, or the one a trusted proxy forwarded)."""
    peer = request.client.host if request.client else None
    return client_key(peer, request.headers, settings_of(request).trusted_proxies)


async def table_or_404(request: Request, table_id: str) -> Table:
    on_table(table_id)  # the request's log lines are about this table
    table = await tables_of(request).get(table_id)
    if table is None:
        raise HTTPException(404, "no such table")
    return table


async def seat_of(request: Request, table_id: str, authorization: str | None) -> int:
    """The seat that the request's ``Authorization: Bearer TOKEN`` opens at the table (401 without one)."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    seat = await asyncio.to_thread(tables_of(request).store.seat_of, table_id, token) if token else None
    if seat is None:
        raise HTTPException(401, "a seat's token is needed (Authorization: Bearer TOKEN)")
    return seat


async def finished_game(request: Request, table_id: str, game: int | None, what: str) -> tuple[Table, int]:
    """The live table and the number of its finished game ``game`` (default: the current one), whose ``what``
    ("notes are", "chat is") may be shown now: 404 for no such game, 409 while it is being played."""
    table = await tables_of(request).get(table_id)
    number = game or (table.state.game_no if table else 0)
    if table is None or not 1 <= number <= table.state.game_no:
        raise HTTPException(404, "no such game")
    if number == table.state.game_no and (table.game is None or table.game.outcome() is None):
        raise HTTPException(409, f"the game is not over: its {what} shown once it is")
    return table, number


async def finished_record(request: Request, table: Table, number: int) -> dict[str, Any]:
    """The record of the table's game ``number`` (every hand): the caller checked that it is over."""
    if number == table.state.game_no and table.game is not None:
        return to_record(table.game, table.names())
    stored = await asyncio.to_thread(tables_of(request).store.record_of, table.id, number)
    if stored is None:
        raise HTTPException(404, "no such game")
    seed, actions = stored
    game = build_game(replace(table.state, seed=seed, actions=actions))
    assert game is not None
    return to_record(game, table.names())


async def close_all(connections: set[Any], code: int = 4401) -> None:
    """Close each connection with ``code`` (those already gone are skipped)."""
    for connection in connections:
        with contextlib.suppress(Exception):
            await connection.close(code=code)
