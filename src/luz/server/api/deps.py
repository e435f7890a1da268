"""What every route needs of a request: the app's typed services (one dependency each), who sends it, the table
asked for, the seat its token opens."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from fastapi import HTTPException, Request, WebSocket
from sqlalchemy.engine import Engine
from starlette.requests import HTTPConnection

from luz.engine.record import to_record

from ..clock import Clock
from ..domain import build_game
from ..friends import Friends
from ..logs import on_table
from ..metrics import Metrics
from ..reviews import Reviews
from ..settings import Settings
from ..tables import Registry, Table
from ..tables.chat import Chat
from .guards import Guards
from .identities import Identities
from .notifications import Notifications
from .services import Services


def services_of(connection: HTTPConnection) -> Services:
    """The app's services (built at its start by ``app.py``): the one place a request reads the app's state."""
    services: Services = connection.app.state.services
    return services


def settings_of(connection: HTTPConnection) -> Settings:
    return services_of(connection).settings


def clock_of(connection: HTTPConnection) -> Clock:
    return services_of(connection).clock


def guards_of(connection: HTTPConnection) -> Guards:
    return services_of(connection).guards


def metrics_of(connection: HTTPConnection) -> Metrics:
    return services_of(connection).metrics


def tables_of(connection: HTTPConnection) -> Registry:
    return services_of(connection).tables


def identities_of(connection: HTTPConnection) -> Identities:
    return services_of(connection).identities


def friends_of(connection: HTTPConnection) -> Friends:
    return services_of(connection).friends


def chat_of(connection: HTTPConnection) -> Chat:
    return services_of(connection).chat


def reviews_of(connection: HTTPConnection) -> Reviews:
    return services_of(connection).reviews


def notify_of(connection: HTTPConnection) -> Notifications:
    return services_of(connection).notifications


def engine_of(connection: HTTPConnection) -> Engine:
    return services_of(connection).engine


def client_of(request: Request | WebSocket) -> str:
    """The client a request comes from (its address, or the one a trusted proxy forwarded; an IPv6 one by its
    network): the one key of every limit per client (``Identities.client``)."""
    return identities_of(request).client(request)


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
    await check_round_over(request, table_id)
    await check_set_closed(request, table, number, what)
    return table, number


async def round_in_play(connection: HTTPConnection, table_id: str) -> tuple[str, int] | None:
    """The tournament and round of ``table_id`` while that round is being played (the same cards are dealt at
    every table of it: none of its records is shown before it ends); ``None`` otherwise."""
    found = await asyncio.to_thread(services_of(connection).tournaments.round_of_table, table_id)
    return None if found is None or found[2] else (found[0], found[1])


async def check_round_over(connection: HTTPConnection, table_id: str) -> None:
    """409 while ``table_id``'s tournament round is being played."""
    if await round_in_play(connection, table_id) is not None:
        raise HTTPException(409, "a tournament round's records open when the round ends")


async def check_set_closed(request: Request, table: Table, number: int, what: str) -> None:
    """409 when game ``number`` of ``table`` is on a deal set still open: another table of the set may still be
    playing its cards, so its ``what`` shown once the set is closed."""
    if table.state.deal_set is None:
        return
    if await asyncio.to_thread(tables_of(request).store.set_open_game, table.id, number):
        raise HTTPException(409, f"its deal set is still open: its {what} shown once the set is closed")


async def finished_record(request: Request, table: Table, number: int) -> dict[str, Any]:
    """The record of the table's game ``number`` (every hand): the caller checked that it is over."""
    await check_set_closed(request, table, number, "record is")
    if number == table.state.game_no and table.game is not None:
        return to_record(table.game, table.names())
    stored = await asyncio.to_thread(tables_of(request).store.record_of, table.id, number)
    if stored is None:
        raise HTTPException(404, "no such game")
    seed, actions = stored
    game = build_game(replace(table.state, seed=seed, actions=actions))
    assert game is not None
    return to_record(game, table.names())
