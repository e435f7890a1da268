"""Players' profiles and the export of finished games: ``/api/players/{id}`` and ``/api/export``."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, time
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool

from ..history import finished_games, profile

router = APIRouter()
"""``/api/players/{id}`` (a profile) and ``/api/export`` (finished games as JSON Lines)."""


@router.get("/api/players/{player_id}")
async def player_profile(
    request: Request, player_id: Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]
) -> dict[str, Any]:
    """A player's profile: the newest games (each with its replay) and statistics against humans and bots."""
    found = await asyncio.to_thread(profile, request.app.state.engine, player_id)
    if found is None:
        raise HTTPException(404, "no such player")
    return found


@router.get("/api/export", response_class=StreamingResponse)
async def export(request: Request, since: Annotated[date, Query(description="YYYY-MM-DD (UTC)")]) -> StreamingResponse:
    """Every game finished since ``since``, one record (docs/RECORD.md) per line (``application/x-ndjson``)."""
    start = datetime.combine(since, time(), tzinfo=UTC)
    lines = iterate_in_threadpool(
        json.dumps(r, separators=(",", ":")) + "\n" for r in finished_games(request.app.state.engine, start)
    )
    return StreamingResponse(lines, media_type="application/x-ndjson")
