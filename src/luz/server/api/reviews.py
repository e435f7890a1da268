"""A finished game's review (luz.bots.review, docs/REVIEW.md): asked with ``POST``, read with ``GET``, for any seat
once the game is over (every hand is public then)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response

from ..reviews import ReviewRefused, ReviewsUnavailable
from ..tables import Table
from .deps import client_of, finished_game, finished_record, identities_of, reviews_of, tables_of
from .guards import OverLimit
from .schemas import DB_INT

router = APIRouter()

GAME = Annotated[int, Path(ge=1, lt=DB_INT, description="The game's number at the table (1 for the first)")]
SEAT = Annotated[int, Query(ge=0, le=4, description="The reviewed seat (0-based)")]


async def reviewed_game(request: Request, table_id: str, game: int, seat: int) -> tuple[Table, int]:
    """The table and game number of a review that may be shown: 404 for no such game, 409 while it is played,
    422 for a seat the table does not have."""
    table, number = await finished_game(request, table_id, game, "review is")
    if seat >= table.state.players:
        raise HTTPException(422, f"seat must be 0..{table.state.players - 1} at this table")
    return table, number


@router.post("/api/tables/{table_id}/games/{game}/review")
async def ask_review(request: Request, response: Response, table_id: str, game: GAME, seat: SEAT) -> dict[str, Any]:
    """The review of ``seat`` in a finished game: ``200`` with it when it is ready, else it is computed (``202``,
    ``{"status": "queued" | "running"}``: read it with ``GET`` until it is ready). An identity has one review being
    computed at a time and the server a few (``429`` beyond); ``503`` where the server runs no bot processes."""
    identities = identities_of(request)
    identity, by_cookie = await identities.current(request)
    if identity is None:
        raise HTTPException(401, "not signed in: open the site (or POST /api/me/guest) first")
    if by_cookie:
        identities.check_same_site(request)
    table, number = await reviewed_game(request, table_id, game, seat)
    stored = await asyncio.to_thread(tables_of(request).store.review_of, table.id, number, seat)
    if stored is not None:
        return {"status": "ready", "review": stored}
    record = await finished_record(request, table, number)
    try:
        status = reviews_of(request).ask((table.id, number, seat), identity.player_id, client_of(request), record)
    except ReviewRefused as refused:
        raise OverLimit(refused.limit, str(refused), 10) from None
    except ReviewsUnavailable as unavailable:
        raise HTTPException(503, str(unavailable)) from None
    response.status_code = 202
    return status


@router.get("/api/tables/{table_id}/games/{game}/review")
async def read_review(request: Request, response: Response, table_id: str, game: GAME, seat: SEAT) -> dict[str, Any]:
    """The review of ``seat`` in a finished game: ``200`` when ready, ``202`` while it is computed, ``404`` if it
    was never asked (or failed: ask again)."""
    table, number = await reviewed_game(request, table_id, game, seat)
    # Computing here first, then stored: a review is stored before it stops being computed, so that one which
    # ends while the database is read is found there (read the other way round, it was neither: a 404).
    status = reviews_of(request).status((table.id, number, seat))
    if status is not None:
        response.status_code = 202
        return status
    stored = await asyncio.to_thread(tables_of(request).store.review_of, table.id, number, seat)
    if stored is None:
        raise HTTPException(404, "this seat's game has not been reviewed: POST to ask for its review")
    return {"status": "ready", "review": stored}
