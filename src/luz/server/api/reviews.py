"""A finished game's review (luz.bots.review, docs/REVIEW.md): asked with ``POST``, read with ``GET``, for any seat
once the game is over (every hand is public then); its mistakes as puzzles (``puzzles.py``), under the same rules,
each answer checked here; your own puzzles and accuracy from your recent reviewed games."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, Field

from ..puzzles import answer, mistakes_to_retry, puzzle_entries, puzzles, recent_reviews
from ..reviews import ReviewRefused, ReviewsUnavailable
from ..tables import Table
from .deps import client_of, engine_of, finished_game, finished_record, guards_of, identities_of, reviews_of, tables_of
from .guards import OverLimit
from .schemas import DB_INT

router = APIRouter()

GAME = Annotated[int, Path(ge=1, lt=DB_INT, description="The game's number at the table (1 for the first)")]
SEAT = Annotated[int, Query(ge=0, le=4, description="The reviewed seat (0-based)")]
STEP = Annotated[int, Path(ge=0, lt=DB_INT, description="The puzzle's decision: its step in the game (0-based)")]


class Answer(BaseModel):
    """A puzzle's answer: one of its legal actions, in engine notation (``bid:2+``, ``play:3``: slots from 0)."""

    action: str = Field(max_length=16)


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


@router.get("/api/tables/{table_id}/games/{game}/accuracy")
async def read_accuracy(request: Request, table_id: str, game: GAME, seat: SEAT) -> dict[str, Any]:
    """The game-over panel's line for ``seat``: ``ready`` with its accuracy and the steps of its mistakes to
    retry once its review is stored, ``running`` while it is computed, ``none`` if nobody asked for it (never a
    ``404`` for that: a page asks at every game's end)."""
    table, number = await reviewed_game(request, table_id, game, seat)
    if reviews_of(request).status((table.id, number, seat)) is not None:
        return {"status": "running"}
    stored = await asyncio.to_thread(tables_of(request).store.review_of, table.id, number, seat)
    if stored is None:
        return {"status": "none"}
    steps = [decision["step"] for decision in puzzle_entries(stored)]
    return {"status": "ready", "accuracy": stored["game"]["accuracy"], "puzzles": steps}


async def stored_review(request: Request, table_id: str, game: int, seat: int) -> tuple[Table, int, dict[str, Any]]:
    """The table, game number and stored review of ``seat``: 404 when it was never computed."""
    table, number = await reviewed_game(request, table_id, game, seat)
    stored = await asyncio.to_thread(tables_of(request).store.review_of, table.id, number, seat)
    if stored is None:
        raise HTTPException(404, "this seat's game has not been reviewed: POST to its review first")
    return table, number, stored


@router.get("/api/tables/{table_id}/games/{game}/puzzles")
async def read_puzzles(request: Request, table_id: str, game: GAME, seat: SEAT) -> dict[str, Any]:
    """The reviewed seat's mistakes and blunders as puzzles, in game order: each the seat's view at that decision
    and what it played, never an option's value or which was best (``POST .../answer`` tells them)."""
    table, number, review = await stored_review(request, table_id, game, seat)
    record = await finished_record(request, table, number)
    return {"seat": seat, "puzzles": await asyncio.to_thread(puzzles, record, review)}


@router.post("/api/tables/{table_id}/games/{game}/puzzles/{step}/answer")
async def answer_puzzle(request: Request, table_id: str, game: GAME, step: STEP, seat: SEAT, body: Answer) -> Any:
    """Check the answer to the puzzle at ``step``: whether it is within the noise of the best, its label had it
    been played, and the values of the option chosen, the one played and the best. 404: no such puzzle; 422: not
    a legal action there; 429 with ``Retry-After`` past ``puzzle_answers_per_minute`` answers from one client
    (counted before the stored review is read)."""
    rate = guards_of(request).puzzle_answer_rate
    wait = await rate.hit("puzzle-answer:" + client_of(request)) if rate is not None else None
    if wait is not None:
        raise OverLimit("puzzle_answers_per_minute", "too many puzzle answers: wait a little", wait)
    _, _, review = await stored_review(request, table_id, game, seat)
    try:
        return answer(review, step, body.action)
    except LookupError as missing:
        raise HTTPException(404, str(missing)) from None
    except ValueError as illegal:
        raise HTTPException(422, str(illegal)) from None


@router.get("/api/me/puzzles")
async def my_puzzles(request: Request) -> dict[str, Any]:
    """Your mistakes to retry from your newest reviewed games (only yours: nobody else sees this list); none
    without an identity."""
    identity, _ = await identities_of(request).current(request)
    if identity is None:
        return {"puzzles": []}
    reviewed = await asyncio.to_thread(recent_reviews, engine_of(request), identity.player_id)
    return {"puzzles": mistakes_to_retry(reviewed)}
