"""The daily deal (daily.py's rules, daily_records.py's rows): today's deals and your attempts, playing one (a
private table created and seated through the one door, dealt the day's secret seed), the day's results once your
own attempt is over, your history and the archive's past deals (unranked).

Nothing of a day's deal reaches a player before their attempt is over: its seed never leaves the server, and what
this module answers a player whose attempt is not over depends only on that player (tests/server/test_daily.py).
An attempt not finished when its day ends is settled as abandoned: played (no second attempt), never ranked."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import date, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response

from luz.engine import get_edition

from .. import daily
from ..daily_records import OVER, PLAYING, REVEALED, AlreadyPlayed, Attempt, Board
from ..domain import SeatKind
from ..identity import Identity
from ..tables.commands import Created, Join, Start
from .dailies import Daily
from .deps import client_of, guards_of, identities_of, services_of, tables_of

router = APIRouter()

LEADERS = 50
"""Ranked players the results list (the best)."""
GUESTS = 20
"""Guests the results list (they are never ranked)."""
ARCHIVE_DAYS = 30
"""Past days the archive offers."""
HISTORY = 90
"""Your attempts listed (the newest), among which your best percentile is found."""
GRACE_SECONDS = float(daily.DAY_SECONDS)
"""A daily table waits for its player (its bots never take the seat over: the attempt is the player's)."""
DAY = r"^\d{4}-\d{2}-\d{2}$"


def daily_of(request: Request) -> Daily:
    service: Daily = services_of(request).daily
    return service


def _deal_or_404(edition: str) -> daily.DailyDeal:
    try:
        return daily.deal_of(edition)
    except KeyError:
        raise HTTPException(404, f"no daily deal for the edition {edition!r}") from None


def _day(text: str | None, today: date) -> date:
    if text is None:
        return today
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise HTTPException(422, f"not a day: {text!r} (YYYY-MM-DD)") from None


@router.get("/api/daily")
async def today(request: Request) -> dict[str, Any]:
    """Today's deals (UTC), the seconds left in the day, and your attempt at each (``null``: not played), your
    streak (days in a row) and best percentile. Nothing here depends on anyone else's play."""
    service = daily_of(request)
    identity, _ = await identities_of(request).current(request)
    day = service.today()
    deals = []
    for deal in daily.DEALS:
        attempt = await service.attempt(day, deal.edition, identity)
        deals.append(
            {
                "edition": deal.edition,
                "name": get_edition(deal.edition).name,
                "players": deal.players,
                "attempt": attempt.to_json() if attempt is not None else None,
            }
        )
    history = await _history(service, identity)
    return {
        "day": day.isoformat(),
        "seconds_left": daily.seconds_left(service.clock.now()),
        "deals": deals,
        "streak": history["streak"],
        "best_percentile": history["best_percentile"],
    }


async def _history(service: Daily, identity: Identity | None) -> dict[str, Any]:
    if identity is None:
        return {"streak": 0, "best_percentile": None, "attempts": []}
    attempts = await asyncio.to_thread(service.records.history, identity.player_id, HISTORY)
    today = service.today().isoformat()
    listed = []
    for attempt in attempts:
        entry = attempt.to_json()
        if attempt.score is not None and (attempt.day < today or attempt.status in OVER):
            histogram = await asyncio.to_thread(service.records.histogram, attempt.day, attempt.edition)
            rank, players = daily.place(attempt.score, histogram, ranked=not attempt.guest)
            entry |= {
                "rank": None if attempt.guest else rank,
                "players": players,
                "percentile": daily.percentile(rank, players),
            }
        listed.append(entry)
    percentiles = [entry["percentile"] for entry in listed if "percentile" in entry]
    days = {date.fromisoformat(day) for day in await asyncio.to_thread(service.records.days_played, identity.player_id)}
    return {
        "streak": daily.streak(days, service.today()),
        "best_percentile": max(percentiles) if percentiles else None,
        "attempts": listed,
    }


@router.get("/api/daily/history")
async def history(request: Request) -> dict[str, Any]:
    """Your attempts (newest first; a finished one with its rank and percentile), your streak, your best
    percentile, and the archive: the past days whose deals may be played again (unranked)."""
    service = daily_of(request)
    identity, _ = await identities_of(request).current(request)
    today = service.today()
    archive = [(today - timedelta(days=n)).isoformat() for n in range(1, ARCHIVE_DAYS + 1)]
    return {**await _history(service, identity), "archive": archive}


@router.post("/api/daily/{edition}", status_code=201)
async def play(request: Request, response: Response, edition: str) -> dict[str, Any]:
    """Play today's deal of ``edition``: your one attempt, at a private table (you at seat 0 against the site's
    bots, dealt the day's seed). Your attempt being played is answered again (``200``, ``"resumed": true``, no
    token: open it with your identity, ``?me=1``); a second attempt is refused (409)."""
    service = daily_of(request)
    deal = _deal_or_404(edition)
    identities = identities_of(request)
    identity = await identities.require(request, response, create=True, changes=True)
    day = service.today()
    attempt = await service.attempt(day, edition, identity)
    if attempt is not None:
        if attempt.status == PLAYING and attempt.table_id is not None:
            response.status_code = 200
            return {"table_id": attempt.table_id, "seat": daily.SEAT, "token": None, "resumed": True}
        raise HTTPException(409, f"you have had your attempt at today's {edition} deal: come back tomorrow")
    client, guards = client_of(request), guards_of(request)
    await guards.check_creation_rate(client)
    try:
        attempt_id = await asyncio.to_thread(
            service.records.claim,
            day.isoformat(),
            edition,
            identity.player_id,
            identity.name,
            identity.guest,
            service.clock.now(),
            PLAYING,
        )
    except AlreadyPlayed as error:
        raise HTTPException(409, str(error)) from None
    name = f"Daily deal {day.isoformat()}"
    table_id, token = await _table(request, identity, deal, name, service.seed(day, edition))
    await asyncio.to_thread(service.records.set_table, attempt_id, table_id)
    return {"table_id": table_id, "seat": daily.SEAT, "token": token, "resumed": False}


async def _table(
    request: Request, identity: Identity, deal: daily.DailyDeal, name: str, seed: int
) -> tuple[str, str | None]:
    """A private table of ``deal`` (its bots wait for its player: not a table of bots), ``identity`` seated and
    the game started on ``seed``, through the door."""
    tables = tables_of(request)
    edition = get_edition(deal.edition)
    table_id, tokens = await asyncio.to_thread(
        tables.store.create_table,
        name=name,
        edition=edition.key,
        players=deal.players,
        options=edition.options(deal.players, first_player=daily.SEAT).to_json(),
        public=False,
        grace_seconds=GRACE_SECONDS,
        seats=[
            {"kind": SeatKind.HUMAN, "bot": None, "name": None}
            if seat == daily.SEAT
            else {"kind": SeatKind.BOT, "bot": daily.BOT, "name": None}
            for seat in range(deal.players)
        ],
    )
    table = await tables.get(table_id)
    assert table is not None  # just created
    await tables.submit(table, Created(client_of(request)))
    joined = await tables.submit(table, Join(daily.SEAT, identity.name, tokens[daily.SEAT], identity.player_id))
    await tables.submit(table, Start(seed=seed))
    return table_id, joined.token


@router.post("/api/daily/{edition}/reveal")
async def reveal(request: Request, response: Response, edition: str) -> dict[str, Any]:
    """See today's results of ``edition`` now: this gives up your attempt (never ranked; not played yet: you
    cannot play it today)."""
    service = daily_of(request)
    _deal_or_404(edition)
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    day = service.today()
    attempt = await service.attempt(day, edition, identity)
    if attempt is None:
        with contextlib.suppress(AlreadyPlayed):
            await asyncio.to_thread(
                service.records.claim,
                day.isoformat(),
                edition,
                identity.player_id,
                identity.name,
                identity.guest,
                service.clock.now(),
                REVEALED,
            )
    elif attempt.status == PLAYING:
        await asyncio.to_thread(service.records.give_up, attempt.id)
    return await _results(service, day, edition, identity)


@router.get("/api/daily/{edition}/results")
async def results(
    request: Request, edition: str, day: Annotated[str | None, Query(pattern=DAY)] = None
) -> dict[str, Any]:
    """A day's results of ``edition`` (default today): your score, rank and percentile, the distribution, the
    best players (each game's table for its replay), guests, how everyone bid each deal, and your share text.
    Today's are refused (409) until your own attempt is over."""
    service = daily_of(request)
    _deal_or_404(edition)
    identity, _ = await identities_of(request).current(request)
    wanted = _day(day, service.today())
    if wanted > service.today():
        raise HTTPException(404, "that day has not come")
    if wanted == service.today():
        attempt = await service.attempt(wanted, edition, identity)
        if attempt is None or attempt.status not in OVER:
            raise HTTPException(
                409, "finish today's deal first: its results are shown once your attempt is over (or give it up)"
            )
    return await _results(service, wanted, edition, identity)


async def _results(service: Daily, day: date, edition: str, identity: Identity | None) -> dict[str, Any]:
    board = await asyncio.to_thread(service.records.board, day.isoformat(), edition, LEADERS, GUESTS)
    return results_json(board, await service.attempt(day, edition, identity), day, edition)


def results_json(board: Board, attempt: Attempt | None, day: date, edition: str) -> dict[str, Any]:
    """A day's results as ``GET /api/daily/{edition}/results`` answers them, for the player of ``attempt``."""
    histogram = board.histogram
    you: dict[str, Any] | None = None
    if attempt is not None:
        you = attempt.to_json()
        if attempt.score is not None:
            rank, players = daily.place(attempt.score, histogram, ranked=not attempt.guest)
            percent = daily.percentile(rank, players)
            you |= {
                "rank": None if attempt.guest else rank,
                "percentile": percent,
                "share": daily.share_text(day, get_edition(edition).name, attempt.marks, attempt.score, rank, players),
            }
    ranks: dict[int, int] = {}
    above = 0
    for score, count in histogram:  # best first: each score's rank, in one pass
        ranks[score] = above + 1
        above += count
    return {
        "day": day.isoformat(),
        "edition": edition,
        "you": you,
        "players": above,
        "distribution": daily.distribution(histogram),
        "leaders": [
            {"rank": ranks.get(a.score), "name": a.name, "score": a.score, "table_id": a.table_id}
            for a in board.leaders
        ],
        "guests": [{"name": a.name, "score": a.score, "table_id": a.table_id} for a in board.guests],
        "bids": board.bids,
    }


@router.post("/api/daily/{edition}/archive/{day}", status_code=201)
async def replay_day(
    request: Request, response: Response, edition: str, day: Annotated[str, Path(pattern=DAY)]
) -> dict[str, Any]:
    """Play a past day's deal of ``edition`` again, unranked (a table of your own, as today's)."""
    service = daily_of(request)
    deal = _deal_or_404(edition)
    wanted = _day(day, service.today())
    if not service.today() - timedelta(days=ARCHIVE_DAYS) <= wanted < service.today():
        raise HTTPException(404, f"the archive holds the {ARCHIVE_DAYS} days before today")
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    await guards_of(request).check_creation_rate(client_of(request))
    name = f"Daily deal {wanted.isoformat()}"
    table_id, token = await _table(request, identity, deal, name, service.seed(wanted, edition))
    return {"table_id": table_id, "seat": daily.SEAT, "token": token, "resumed": False}
