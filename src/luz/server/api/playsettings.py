"""A player's play settings: ``/api/me/play`` (docs/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict

from .deps import identities_of, tables_of

router = APIRouter()


class PlaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    forced_moves: bool


@router.get("/api/me/play")
async def play_settings(request: Request, response: Response) -> dict[str, Any]:
    """Your play settings: ``forced_moves``, whether your only legal card is played for you at turn-based tables."""
    identity = await identities_of(request).require(request, response, create=True, changes=False)
    return {"forced_moves": await asyncio.to_thread(tables_of(request).store.forced_moves, identity.player_id)}


@router.put("/api/me/play")
async def change_play_settings(request: Request, response: Response, body: PlaySettings) -> dict[str, Any]:
    """Change your play settings: stored, then taken by your tables held in memory (from your next turn there);
    the others read them when they next load."""
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    tables = tables_of(request)
    await asyncio.to_thread(tables.store.set_forced_moves, identity.player_id, body.forced_moves)
    await tables.change_play_settings(identity.player_id, body.forced_moves)
    return {"forced_moves": body.forced_moves}
