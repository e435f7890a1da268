"""Bot levels: every offered bot with a label and its measured rating, through ``/api/bots?levels=true``."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from luz.bots import BOTS
from luz.bots.levels import LEVELS, levels
from luz.server.api.tables import router


def test_every_offered_bot_has_a_level_weakest_first() -> None:
    listed = levels()
    assert [level["name"] for level in listed] == [level.bot for level in LEVELS]
    assert {level["name"] for level in listed} == set(BOTS)
    assert [level["label"] for level in listed] == ["beginner", "casual", "strong", "expert"]
    ratings = [level["rating"] for level in listed]
    assert all(isinstance(r, float) for r in ratings) and ratings == sorted(ratings)


def test_the_endpoint_keeps_its_list_and_gives_levels_on_request() -> None:
    app = FastAPI()
    app.include_router(router)
    client = TestClient(app)
    assert client.get("/api/bots").json() == list(BOTS)
    assert client.get("/api/bots", params={"levels": "true"}).json() == levels()
