"""A player's vacation: ``/api/me/vacation`` (docs/PROTOCOL.md, "Vacation")."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .deps import identities_of, services_of

router = APIRouter()


class VacationRequest(BaseModel):
    """A vacation of ``days`` days from now, or until ``until`` (a date: back at its midnight, UTC)."""

    model_config = ConfigDict(extra="forbid")
    days: int | None = Field(None, ge=1, le=366, description="Days from now.")
    until: date | None = Field(None, description="The date you are back (its midnight, UTC).")

    @model_validator(mode="after")
    def one_of(self) -> VacationRequest:
        if (self.days is None) == (self.until is None):
            raise ValueError("give either days or until")
        return self


@router.get("/api/me/vacation")
async def vacation(request: Request, response: Response) -> dict[str, Any]:
    """Your vacation: ``allowance_days`` a year, ``days_left`` this ``year``, ``until`` (epoch ms) if on one."""
    identity = await identities_of(request).require(request, response, create=True, changes=False)
    return await asyncio.to_thread(services_of(request).vacations.state, identity.player_id, identity.guest)


@router.post("/api/me/vacation")
async def start_vacation(request: Request, response: Response, body: VacationRequest) -> dict[str, Any]:
    """Go on vacation: the clocks of your turn-based games stop until you are back."""
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    until = None
    if body.until is not None:
        until = int(datetime(body.until.year, body.until.month, body.until.day, tzinfo=UTC).timestamp() * 1000)
    return await services_of(request).vacations.start(identity.player_id, identity.guest, body.days, until)


@router.delete("/api/me/vacation")
async def end_vacation(request: Request, response: Response) -> dict[str, Any]:
    """End your vacation now: your clocks run again with the time they had; unbegun days are given back."""
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    return await services_of(request).vacations.end(identity.player_id, identity.guest)
