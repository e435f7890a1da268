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
    Expired,
    OneSeatPerAddress,
    SeatKind,
    SeatPolicy,
    SecondSeat,
    Status,
    TooManyGames,
    is_turn_based,
)
from ..friends import Blocked
from ..history import same_deal
from ..store import DealSource, Store
from ..tables import QUICK_BOT, Refused
from ..tables.botpool import check_caps
from ..tables.commands import Created, Join, Leave, ShowHand, Start
from ..timecontrol import stored_time_control
from .deps import (
    check_round_over,
    client_of,
    engine_of,
    finished_record,
    guards_of,
    identities_of,
    seat_of,
    services_of,
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
    A client creates at most ``tables_per_minute`` (429 with ``Retry-After`` beyond), and has at most
    ``waiting_tables_per_client`` public tables waiting for players (429, ``waiting_tables_per_client``); a public
    table nobody came to expires (``Expire``)."""
    client, guards, settings = client_of(request), guards_of(request), settings_of(request)
    await guards.check_creation_rate(client)
    tables = tables_of(request)
    deal = await deal_source(tables.store, spec) if spec.deal is not None or spec.deal_set is not None else None
    players = deal.players if deal is not None else spec.players
    try:
        edition = get_edition(deal.edition if deal is not None else spec.edition)
        options = deal.options if deal is not None else edition.options(spec.players, **spec.options).to_json()
    except LuzError as error:
        raise HTTPException(422, str(error)) from None
    except TypeError:
        raise HTTPException(422, "options must be an object of table options") from None
    if spec.show_hands and (spec.public or spec.rated):
        raise HTTPException(
            422, "spectators may see every hand only at an unlisted, unrated table: set public and rated to false"
        )
    seats = spec.seats or [SeatSpec(bot=None, name=None) for _ in range(players)]
    if len(seats) != players:
        raise HTTPException(422, f"give one seat per player ({players}), not {len(seats)}")
    for seat in seats:
        if seat.kind == SeatKind.BOT:
            try:
                make_bot(seat.bot or QUICK_BOT)  # a level, with parameters if any: "strong:iters=200"
                check_caps(seat.bot or QUICK_BOT, settings)
            except LuzError as error:
                raise HTTPException(422, str(error)) from None
    time_control = stored_time_control(spec.time_control, spec.timeouts_before_bot, spec.time_bank_hours)
    with guards.bot_table_place(tables, client, all(seat.kind == SeatKind.BOT for seat in seats)):
        table_id, tokens = await asyncio.to_thread(
            tables.store.create_table,
            name=spec.name or f"{edition.name} table",
            edition=edition.key,
            players=players,
            options=options,
            public=spec.public and (deal is None or deal.deal_set is None),  # a deal set's tables: unlisted
            grace_seconds=spec.grace_seconds,
            hints=spec.hints,
            rated=spec.rated,
            show_hands=spec.show_hands,
            time_control=time_control,
            seats=[{**s.model_dump(), "bot": (s.bot or QUICK_BOT) if s.kind == SeatKind.BOT else None} for s in seats],
            creator=identities_of(request).address_hash(request),
            expires_at=expiry(request, spec.public, time_control),
            most_waiting=settings.waiting_tables_per_client,
            deal=deal,
        )
        table = await table_or_404(request, table_id)
        await tables.submit(table, Created(client))  # its bots share the bot processes with the client's other tables
    await tables.submit(table, Start())
    invites = [
        Invite(seat=n, token=t, url=f"{settings.public_url}/t/{table_id}?seat={n}&token={t}") for n, t in tokens.items()
    ]
    return TableCreated(table=table.summary(), invites=invites)


def expiry(request: Request, public: bool, time_control: dict[str, int] | None) -> int | None:
    """When a new table expires if nobody came (epoch ms on the server's clock): a public one only, after
    ``waiting_live_seconds`` (real time) or ``waiting_turn_based_seconds``; ``None``: never."""
    settings = settings_of(request)
    wait = settings.waiting_turn_based_seconds if is_turn_based(time_control) else settings.waiting_live_seconds
    if not public or wait <= 0:
        return None
    return services_of(request).clock.now_ms() + int(wait * 1000)


async def deal_source(store: Store, spec: TableCreate) -> DealSource:
    """The finished game whose deal ``spec`` plays again, or the open deal set whose deal it plays. Only a finished
    game's: its cards are already in its replay, while a game being played (or a deal set's game while the set is
    open) keeps its deal secret (409). The seed is the server's, never the client's."""
    if spec.deal is not None and spec.deal_set is not None:
        raise HTTPException(422, "give a deal or a deal set, not both")
    if spec.rated:
        raise HTTPException(422, "a shared deal's cards are in its replay: a table playing it again is unrated")
    given = {"edition", "players", "options"} & spec.model_fields_set
    if given:
        raise HTTPException(422, f"a shared deal's {', '.join(sorted(given))} are its game's: leave them out")
    if spec.deal_set is not None:
        named = await asyncio.to_thread(store.deal_set, spec.deal_set)
        if named is None:
            raise HTTPException(404, "no such deal set")
        if not named.finished:
            raise HTTPException(409, "the deal set is closed: play one of its games' deals again from its replay")
        return named
    assert spec.deal is not None
    found = await asyncio.to_thread(store.deal_source, spec.deal.table, spec.deal.game)
    if found is None:
        raise HTTPException(404, "no such game")
    if not found.finished:
        raise HTTPException(409, "the game is not over: only a finished game's deal may be played again")
    if found.set_open:
        raise HTTPException(409, "its deal set is still open: its deal is secret until the set is closed")
    return found


@router.get("/api/tables")
async def lobby(
    request: Request, status: Literal[Status.WAITING, Status.PLAYING] = Status.WAITING
) -> list[dict[str, Any]]:
    """The lobby: public tables waiting for players, their creators interleaved (``Store.lobby``); with
    ``?status=playing``, "Playing now": the public tables playing a game (at most ``PLAYING_LISTED``, the newest
    game first), each with its ``spectators`` (connections watching it, on every server process)."""
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
    except (AccountRequired, AccountTooNew, OneSeatPerAddress, TooManyGames, Blocked, Expired):
        raise  # typed (account_required, account_too_new, too_many_games, blocked: 403; one_seat_per_address,
        # expired: 409)
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


@router.post("/api/tables/{table_id}/show-hand")
async def show_hand(
    request: Request, table_id: str, authorization: Annotated[str | None, Header()] = None
) -> dict[str, Any]:
    """Agree, as the seat of ``Authorization: Bearer TOKEN``, that anyone watching this ``show_hands`` table sees
    your cards: its game starts once every seated human has (409 ``no_show_hands`` at another table)."""
    table = await table_or_404(request, table_id)
    seat = await seat_of(request, table_id, authorization)
    try:
        await tables_of(request).submit(table, ShowHand(seat))
    except Refused as refused:
        raise HTTPException(409, str(refused)) from None
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
    await check_round_over(request, table_id)
    return await finished_record(request, table, number)


@router.get("/api/tables/{table_id}/deal")
async def same_deal_games(
    request: Request, table_id: str, game: int | None = Query(None, ge=1, lt=DB_INT)
) -> dict[str, Any]:
    """The other finished games on the deal of a finished game ("other scores"), each with its results and
    replay; an unlisted table's game only as ``history.same_deal`` says. 409 while the game is being played."""
    table = await table_or_404(request, table_id)
    number = game or table.state.game_no
    identity, _ = await identities_of(request).current(request)
    viewer = identity.player_id if identity is not None else None
    if table.state.deal_set is not None and await asyncio.to_thread(
        tables_of(request).store.set_open_game, table.id, number
    ):
        raise HTTPException(409, "its deal set is still open: compare its tables on the deal set's page")
    found = await asyncio.to_thread(same_deal, engine_of(request), table.id, number, viewer)
    if found is None:
        raise HTTPException(409, "no finished game of that number: its deal's other games are shown once it is over")
    return {"table": table.id, "game": number, "others": found}
