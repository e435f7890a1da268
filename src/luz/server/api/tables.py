"""The tables' HTTP routes: editions and bot levels offered, creating a table, the lobby, a table's summary, taking
and leaving a seat, a finished game's record (docs/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, HTTPException, Path, Query, Request, Response

from luz.bots import BOTS, make_bot
from luz.bots.levels import levels as bot_levels
from luz.engine import EDITIONS, LuzError, get_edition

from ..domain import (
    AccountRequired,
    AccountTooNew,
    OneSeatPerAddress,
    SeatKind,
    SeatPolicy,
    SecondSeat,
    Status,
    TooManyGames,
)
from ..friends import Blocked
from ..tables import QUICK_BOT
from ..tables.botpool import check_caps
from ..tables.commands import Join, Leave, Start
from ..timecontrol import stored_time_control
from .deps import (
    client_of,
    finished_record,
    guards_of,
    identities_of,
    seat_of,
    settings_of,
    table_or_404,
    tables_of,
)
from .friends import invitations_changed
from .identity import set_name
from .schemas import DB_INT, Invite, Joined, JoinRequest, SeatSpec, TableCreate, TableCreated

router = APIRouter()

PLAYING_LISTED = 50
"""The most tables "Playing now" lists."""


@router.get("/api/editions")
async def editions() -> list[dict[str, Any]]:
    """The editions, with their player counts, colours and defaults."""
    return [e.describe() for e in EDITIONS.values()]


@router.get("/api/bots")
async def bots(levels: bool = False) -> list[str] | list[dict[str, Any]]:
    """The bot levels a seat can be given: their names, or with ``?levels=true`` each as ``{"name", "label",
    "rating"}`` (weakest first; the rating is measured, on one OpenSkill scale: see ``luz.bots.levels``)."""
    if levels:
        return bot_levels()
    return list(BOTS)


@router.post("/api/tables", status_code=201)
async def create_table(request: Request, spec: TableCreate) -> TableCreated:
    """Create a table; the answer holds each human seat's secret invite (keep them: they are shown once).
    A client creates at most ``tables_per_minute`` (429 with ``Retry-After`` beyond)."""
    client, guards, settings = client_of(request), guards_of(request), settings_of(request)
    await guards.check_creation_rate(client)
    try:
        edition = get_edition(spec.edition)
        options = edition.options(spec.players, **spec.options).to_json()
    except LuzError as error:
        raise HTTPException(422, str(error)) from None
    except TypeError:
        raise HTTPException(422, "options must be an object of table options") from None
    if spec.show_hands and (spec.public or spec.rated):
        raise HTTPException(
            422, "spectators may see every hand only at an unlisted, unrated table: set public and rated to false"
        )
    seats = spec.seats or [SeatSpec(bot=None, name=None) for _ in range(spec.players)]
    if len(seats) != spec.players:
        raise HTTPException(422, f"give one seat per player ({spec.players}), not {len(seats)}")
    for seat in seats:
        if seat.kind == SeatKind.BOT:
            try:
                make_bot(seat.bot or QUICK_BOT)  # a level, with parameters if any: "strong:iters=200"
                check_caps(seat.bot or QUICK_BOT, settings)
            except LuzError as error:
                raise HTTPException(422, str(error)) from None
    tables = tables_of(request)
    with guards.bot_table_place(tables, client, all(seat.kind == SeatKind.BOT for seat in seats)):
        table_id, tokens = await asyncio.to_thread(
            tables.store.create_table,
            name=spec.name or f"{edition.name} table",
            edition=edition.key,
            players=spec.players,
            options=options,
            public=spec.public,
            grace_seconds=spec.grace_seconds,
            hints=spec.hints,
            rated=spec.rated,
            show_hands=spec.show_hands,
            time_control=stored_time_control(spec.time_control, spec.timeouts_before_bot),
            seats=[{**s.model_dump(), "bot": (s.bot or QUICK_BOT) if s.kind == SeatKind.BOT else None} for s in seats],
        )
        table = await table_or_404(request, table_id)
        table.creator = client  # its bots share the bot processes with the client's other tables
    await tables.submit(table, Start())
    invites = [
        Invite(seat=n, token=t, url=f"{settings.public_url}/t/{table_id}?seat={n}&token={t}") for n, t in tokens.items()
    ]
    return TableCreated(table=table.summary(), invites=invites)


@router.get("/api/tables")
async def lobby(
    request: Request, status: Literal[Status.WAITING, Status.PLAYING] = Status.WAITING
) -> list[dict[str, Any]]:
    """The lobby: public tables waiting for players; with ``?status=playing``, "Playing now": the public tables
    playing a game (at most ``PLAYING_LISTED``, the newest game first), each with its ``spectators`` (connections
    watching it, on every server process)."""
    tables = tables_of(request)
    if Status(status) is Status.WAITING:
        return [t.summary() for t in await asyncio.to_thread(tables.store.lobby)]
    playing = await asyncio.to_thread(tables.store.playing, PLAYING_LISTED)
    counts = await tables.broker.spectator_counts([t.id for t in playing])
    return [{**t.summary(), "spectators": counts.get(t.id, 0)} for t in playing]


@router.get("/api/tables/{table_id}")
async def table(request: Request, table_id: str) -> dict[str, Any]:
    """A table as anyone may see it (no hands: use the WebSocket for views)."""
    return (await table_or_404(request, table_id)).summary()


@router.post("/api/tables/{table_id}/seats/{seat}/join")
async def join(
    request: Request,
    response: Response,
    table_id: str,
    seat: Annotated[int, Path(ge=0, lt=DB_INT)],
    body: JoinRequest,
) -> Joined:
    """Take a seat: with its invite token, or an open seat of a public table (a token is issued). The seat
    becomes your identity's (a new guest's when the request has none): one seat per identity at a table. A
    ``name`` renames your identity first (as ``POST /api/me/name``): a seat shows its player's one name."""
    table = await table_or_404(request, table_id)
    tables = tables_of(request)
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    if body.name is not None:  # your name, everywhere (the same rules as POST /api/me/name)
        identity = await set_name(request, identity, body.name)
    settings = settings_of(request)
    policy = SeatPolicy(settings.seats_per_address, settings.rated_min_account_hours, settings.rated_min_games)
    address = identities_of(request).address_hash(request)
    command = Join(seat, identity.name, body.token, identity.player_id, settings.max_turn_based_games, address, policy)
    try:
        joined = await tables.submit(table, command)
    except SecondSeat as error:
        raise HTTPException(409, str(error)) from None
    except (AccountRequired, AccountTooNew, OneSeatPerAddress, TooManyGames, Blocked):
        raise  # typed (account_required, account_too_new, too_many_games, blocked: 403; one_seat_per_address: 409)
    except PermissionError as error:
        raise HTTPException(403, str(error)) from None
    await tables.submit(table, Start())
    await invitations_changed(request, table_id)
    token = joined.token
    assert token is not None
    return Joined(seat=seat, token=token, table=table.summary())


@router.post("/api/tables/{table_id}/leave")
async def leave(
    request: Request, table_id: str, authorization: Annotated[str | None, Header()] = None
) -> dict[str, Any]:
    """Give up your seat (before the first game it opens again; later a bot plays it)."""
    table = await table_or_404(request, table_id)
    seat = await seat_of(request, table_id, authorization)
    await tables_of(request).submit(table, Leave(seat))
    await invitations_changed(request, table_id)
    return table.summary()


@router.get("/api/tables/{table_id}/record")
async def record(request: Request, table_id: str, game: int | None = Query(None, ge=1, lt=DB_INT)) -> dict[str, Any]:
    """The record of a finished game (every hand), for the replay; a game in progress is not shown."""
    table = await table_or_404(request, table_id)
    number = game or table.state.game_no
    if not 1 <= number <= table.state.game_no:
        raise HTTPException(404, "no such game")
    if number == table.state.game_no and (table.game is None or table.game.outcome() is None):
        raise HTTPException(409, "the game is not over: its record is shown once it is")
    return await finished_record(request, table, number)
