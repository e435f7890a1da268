"""Named deal sets ("Thursday club, week 12"): one deal that several tables play at different times, then compare
on one page: ``/api/deal-sets`` (docs/PROTOCOL.md). A table is made on a set by ``POST /api/tables`` with
``deal_set``."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request, Response

from luz.engine import LuzError, get_edition

from ..history import deal_set_results
from .deps import client_of, engine_of, guards_of, identities_of, tables_of
from .schemas import DealSetCreate

router = APIRouter()

SET_ID = Annotated[str, Path(max_length=32, pattern=r"^[0-9a-f]+$")]


@router.post("/api/deal-sets", status_code=201)
async def name_deal_set(request: Request, response: Response, body: DealSetCreate) -> dict[str, Any]:
    """Name a new deal set on a secret random deal; you (a new guest if need be) may close it. Counted as a table
    created (``tables_per_minute``: 429 beyond)."""
    await guards_of(request).check_creation_rate(client_of(request))
    try:
        edition = get_edition(body.edition)
        options = edition.options(body.players, **body.options).to_json()
    except LuzError as error:
        raise HTTPException(422, str(error)) from None
    except TypeError:
        raise HTTPException(422, "options must be an object of table options") from None
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    store = tables_of(request).store
    return await asyncio.to_thread(
        store.create_deal_set, body.name, edition.key, body.players, options, identity.player_id
    )


@router.get("/api/deal-sets/{set_id}")
async def deal_set(request: Request, set_id: SET_ID) -> dict[str, Any]:
    """A deal set's page: its name and rules, and its tables' results (their replays once it is closed)."""
    store = tables_of(request).store
    found = await asyncio.to_thread(store.deal_set_summary, set_id)
    if found is None:
        raise HTTPException(404, "no such deal set")
    results = await asyncio.to_thread(deal_set_results, engine_of(request), set_id, found["closed"])
    return found | results


@router.post("/api/deal-sets/{set_id}/close")
async def close_deal_set(request: Request, response: Response, set_id: SET_ID) -> dict[str, Any]:
    """Close a deal set (its namer only: 403 for anyone else): no new table on it, and its games' replays shown."""
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    try:
        closed = await asyncio.to_thread(tables_of(request).store.close_deal_set, set_id, identity.player_id)
    except PermissionError as error:
        raise HTTPException(403, str(error)) from None
    if closed is None:
        raise HTTPException(404, "no such deal set")
    return closed
