"""Players' profiles and the export of finished games: ``/api/players/{id}`` and ``/api/export`` (in pages, at a
limited rate per client)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, time
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import iterate_in_threadpool

from ..history import finished_keys, profile, records_of
from ..puzzles import accuracy_of, recent_reviews
from .deps import client_of, engine_of, guards_of
from .guards import OverLimit

EXPORT_PAGE = 100
"""The most games one answer of ``/api/export`` holds (each is replayed to write its record)."""

router = APIRouter()
"""``/api/players/{id}`` (a profile) and ``/api/export`` (finished games as JSON Lines)."""


@router.get("/api/players/{player_id}")
async def player_profile(
    request: Request, player_id: Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]
) -> dict[str, Any]:
    """A player's profile: the newest games (each with its replay), statistics against humans and bots, and the
    mean accuracy of its newest reviewed games (``review_accuracy``: ``{"accuracy", "games"}``)."""
    found = await asyncio.to_thread(profile, engine_of(request), player_id)
    if found is None:
        raise HTTPException(404, "no such player")
    reviewed = await asyncio.to_thread(recent_reviews, engine_of(request), player_id)
    return {**found, "review_accuracy": accuracy_of(reviewed)}


@router.get("/api/export", response_class=StreamingResponse)
async def export(
    request: Request,
    since: Annotated[date, Query(description="YYYY-MM-DD (UTC)")],
    after: Annotated[
        str | None,
        Query(
            max_length=48,
            pattern=r"^[0-9A-Za-z_-]{1,32}:[0-9]{1,9}$",
            description="TABLE:GAME, the `site` of a game exported: the games finished after it",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=EXPORT_PAGE, description="the most games of this page")] = EXPORT_PAGE,
) -> StreamingResponse:
    """The games of listed tables finished since ``since`` (after the game ``after``), oldest first, at most
    ``limit``: one record (docs/RECORD.md) per line (``application/x-ndjson``). When there are more, the ``Link``
    header's ``rel="next"`` is the next page. 429 with ``Retry-After`` past ``exports_per_minute`` pages
    from one client."""
    rate = guards_of(request).export_rate
    wait = await rate.hit("export:" + client_of(request)) if rate is not None else None
    if wait is not None:
        raise OverLimit("exports_per_minute", "too many export pages: wait a little", wait)
    cursor = None
    if after is not None:
        table_id, game_no = after.split(":")
        cursor = (table_id, int(game_no))
    start, engine = datetime.combine(since, time(), tzinfo=UTC), engine_of(request)
    try:
        keys = await asyncio.to_thread(finished_keys, engine, start, cursor, limit + 1, True)
    except LookupError:
        raise HTTPException(422, "after: no finished game has that site (TABLE:GAME of an exported game)") from None
    headers = {}
    if len(keys) > limit:
        keys = keys[:limit]
        last = f"{keys[-1][0]}:{keys[-1][1]}"
        query = urlencode({"since": since.isoformat(), "after": last, "limit": limit})
        headers["Link"] = f'<{request.url.path}?{query}>; rel="next"'
    lines = iterate_in_threadpool(json.dumps(r, separators=(",", ":")) + "\n" for r in records_of(engine, keys))
    return StreamingResponse(lines, media_type="application/x-ndjson", headers=headers)
