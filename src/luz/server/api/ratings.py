"""The leaderboard and a table's seats' ratings: ``/api/leaderboard`` and ``/api/tables/{id}/ratings``."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request

from luz.engine import DEFAULT_EDITION, EDITIONS

from ..ratings import game_changes, leaderboard, table_ratings
from .deps import engine_of

router = APIRouter()
"""``/api/leaderboard`` and ``/api/tables/{id}/ratings``."""


@router.get("/api/leaderboard")
async def best_players(
    request: Request,
    edition: Annotated[str, Query(description="Edition key: " + ", ".join(EDITIONS))] = DEFAULT_EDITION,
    players: Annotated[int, Query(ge=3, le=5)] = 4,
) -> dict[str, Any]:
    """A pool's leaderboard (an edition at one player count): established ratings first, best first."""
    if edition not in EDITIONS:
        raise HTTPException(422, "no such edition: " + ", ".join(EDITIONS))
    return await asyncio.to_thread(leaderboard, engine_of(request), edition, players)


@router.get("/api/tables/{table_id}/ratings")
async def seat_ratings(request: Request, table_id: str) -> dict[str, Any]:
    """Each seat's rating in the table's pool (accounts only; public, as on the leaderboard), and what the current
    game did to each (``changes``: ``{"before", "after", "change"}`` per seat once it is rated, else ``None``;
    ``unrated``: why it counts for nobody, if so)."""
    if "\x00" in table_id or len(table_id) > 32:
        raise HTTPException(404, "no such table")
    found = await asyncio.to_thread(table_ratings, engine_of(request), table_id)
    if found is None:
        raise HTTPException(404, "no such table")
    return {"seats": found, **await asyncio.to_thread(game_changes, engine_of(request), table_id)}
