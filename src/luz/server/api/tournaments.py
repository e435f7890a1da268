"""Duplicate Swiss tournaments' routes (docs/TOURNAMENTS.md): create one (accounts), the list, a tournament's page
(players, rounds and their tables, standings), join and leave before the start."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from luz.engine import DEFAULT_EDITION, EDITIONS, LuzError, get_edition

from ..timecontrol import TimeControlSpec, stored_time_control
from ..tournament import standings
from ..tournaments import TournamentRefused, Tournaments
from .deps import identities_of, services_of, settings_of
from .schemas import NO_NUL

router = APIRouter()

TournamentId = Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]


class TournamentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field("", max_length=80, pattern=NO_NUL)
    edition: str = Field(DEFAULT_EDITION, description="Edition key: " + ", ".join(EDITIONS))
    players: int = Field(4, ge=3, le=5, description="Players per table.")
    rounds: int = Field(3, ge=3, le=9)
    time_control: TimeControlSpec = Field(
        ..., description="The pace: a clock (3+10, {reserve_seconds, increment_seconds}) or turn-based days (1d)."
    )
    rated: bool = Field(False, description="Each table's game changes its players' ratings (accounts only).")
    starts_at: datetime | None = Field(None, description="When it starts (ISO 8601); default: once full.")
    capacity: int | None = Field(None, ge=2, le=1000, description="The most players; needed without a start time.")


def tournaments_of(request: Request) -> Tournaments:
    return services_of(request).tournaments


def refused(error: TournamentRefused) -> JSONResponse:
    return JSONResponse({"detail": str(error), "code": error.code}, status_code=409)


@router.post("/api/tournaments", status_code=201)
async def create(request: Request, response: Response, spec: TournamentCreate) -> dict[str, Any]:
    """Create a tournament (accounts only: 403 ``account_required`` for a guest)."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    if identity.guest:
        return JSONResponse(  # type: ignore[return-value]
            {"detail": "tournaments are created by accounts: register first", "code": "account_required"}, 403
        )
    try:
        edition = get_edition(spec.edition)
        edition.options(spec.players)
    except LuzError as error:
        raise HTTPException(422, str(error)) from None
    if spec.starts_at is None and spec.capacity is None:
        raise HTTPException(422, "give a start time (starts_at) or a number of players to start when full (capacity)")
    starts_at = spec.starts_at
    if starts_at is not None and starts_at.tzinfo is None:
        raise HTTPException(422, "give the start time with its zone (as 2026-12-06T18:00:00Z)")
    if starts_at is not None and starts_at.timestamp() <= services_of(request).clock.now():
        raise HTTPException(422, "the start time has passed: give a time to come")
    time_control = stored_time_control(spec.time_control)
    assert time_control is not None
    tournaments = tournaments_of(request)
    tournament_id = await asyncio.to_thread(
        tournaments.create,
        name=spec.name or f"{edition.name} tournament",
        edition=edition.key,
        size=spec.players,
        rounds=spec.rounds,
        time_control=time_control,
        rated=spec.rated,
        starts_at=starts_at.astimezone(UTC) if starts_at is not None else None,
        capacity=spec.capacity,
        created_by=identity.player_id,
    )
    row = await asyncio.to_thread(tournaments.row, tournament_id)
    assert row is not None
    return tournaments.describe(row)


@router.get("/api/tournaments")
async def listed(request: Request) -> list[dict[str, Any]]:
    """The open and playing tournaments, then the latest over, each with its number of players."""
    tournaments = tournaments_of(request)
    rows = await asyncio.to_thread(tournaments.listed)
    counts = await asyncio.to_thread(lambda: {row.id: len(tournaments.players(row.id)) for row in rows})
    return [{**tournaments.describe(row), "players": counts[row.id]} for row in rows]


@router.get("/api/tournaments/{tournament_id}")
async def tournament(request: Request, tournament_id: TournamentId) -> dict[str, Any]:
    """A tournament: its settings, players, standings (after each finished round) and, in ``played``, each round
    begun with its tables and their seats (a round's seed is never shown). ``you``: whether the caller plays in
    it."""
    services = services_of(request)
    await services.rounds.advance(tournament_id)  # due to start, or a round over: moved on before it is shown
    tournaments = services.tournaments
    row = await asyncio.to_thread(tournaments.row, tournament_id)
    if row is None:
        raise HTTPException(404, "no such tournament")
    players = await asyncio.to_thread(tournaments.players, tournament_id)
    names = dict(players)
    entries = await asyncio.to_thread(tournaments.entries, tournament_id)
    lines = standings([p for p, _ in players], list(entries.values()))
    rounds = []
    for played in await asyncio.to_thread(tournaments.rounds, tournament_id):
        tables = []
        for stored in await asyncio.to_thread(tournaments.tables, tournament_id, played.round_no):
            table = await services.tables.get(stored.table_id)
            if table is None:
                continue
            seats = [{"name": seat.name, "bot": seat.kind == "bot"} for seat in table.state.seats]
            tables.append(
                {"no": stored.table_no + 1, "id": stored.table_id, "status": table.state.status, "seats": seats}
            )
        rounds.append({"round": played.round_no, "over": played.over, "tables": tables})
    identity, _ = await identities_of(request).current(request)
    you = identity.player_id if identity is not None else None
    return {
        **tournaments.describe(row),
        "players": [{"name": name, "you": player == you} for player, name in players],
        "standings": [
            {
                "rank": rank,
                "name": names.get(line.player, "?"),
                "score": line.score,
                "points": line.points,
                "rounds": line.rounds,
                "you": line.player == you,
            }
            for rank, line in enumerate(lines, 1)
        ],
        "played": rounds,
        "you": you in names,
    }


@router.post("/api/tournaments/{tournament_id}/join")
async def join(request: Request, response: Response, tournament_id: TournamentId) -> Any:
    """Join before the start (one place per client address where seats are so limited); 409 with a ``code`` once
    started, when full, or for a second player from the same client; a rated one is for accounts."""
    identities = identities_of(request)
    identity = await identities.require(request, response, create=True, changes=True)
    settings = settings_of(request)
    client = identities.address_hash(request) if settings.seats_per_address else None
    services = services_of(request)
    try:
        await asyncio.to_thread(
            services.tournaments.join, tournament_id, identity.player_id, client, not identity.guest
        )
    except KeyError:
        raise HTTPException(404, "no such tournament") from None
    except TournamentRefused as error:
        return refused(error)
    await services.rounds.advance(tournament_id)  # full: it starts now
    return await tournament(request, tournament_id)


@router.post("/api/tournaments/{tournament_id}/leave")
async def leave(request: Request, response: Response, tournament_id: TournamentId) -> Any:
    """Leave before the start (409 ``started`` after)."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    services = services_of(request)
    try:
        await asyncio.to_thread(services.tournaments.leave, tournament_id, identity.player_id)
    except KeyError:
        raise HTTPException(404, "no such tournament") from None
    except TournamentRefused as error:
        return refused(error)
    return await tournament(request, tournament_id)
