"""Routes of the web client: its pages, the score-keeper's report and the steps of a replay.

The rules stay in the engine: the score report comes from the code behind ``luz score``, and a replay's steps are
views computed by the engine after each action, so the browser only displays them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from luz.bots import BOTS
from luz.bots.levels import levels as bot_levels
from luz.cli.score import BadInput, sheet_from_json
from luz.engine import HAND_SIZE, MAX_BID, Game, LuzError, Phase, face_up_view, get_edition, replay

STATIC = Path(__file__).parent / "static"

router = APIRouter()

PAGES = {
    "/": "index.html",
    "/t/{table_id}": "table.html",
    "/replay": "replay.html",
    "/replay/{table_id}": "replay.html",
    "/score": "score.html",
    "/how-to-play": "how-to-play.html",
    "/u/{player_id}": "profile.html",
    "/account": "account.html",
    "/leaderboard": "leaderboard.html",
}

TUTORIAL_SEED = 1
"""The tutorial's deal (IELLO 2024, 4 players, you bid first): a hand of all five colours, a lone red card (you
must play it when red is led) and two trumps."""


def _page_route(path: str, file: Path) -> None:
    async def page() -> FileResponse:
        return FileResponse(file, headers={"Cache-Control": "no-cache"})

    router.add_api_route(path, page, methods=["GET"], include_in_schema=False, name=f"page {path}")


for _path, _file in PAGES.items():
    _page_route(_path, STATIC / _file)


@router.get("/api/bots")
async def bots(levels: bool = False) -> list[str] | list[dict[str, Any]]:
    """The bot levels a seat can be given: their names, or with ``?levels=true`` each as ``{"name", "label",
    "rating"}`` (weakest first; the rating is measured, on one OpenSkill scale: see ``luz.bots.levels``)."""
    if levels:
        return bot_levels()
    return list(BOTS)


class TutorialRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field("", max_length=40, pattern=r"^[^\x00]*$")


@router.post("/api/tutorial", status_code=201)
async def tutorial(request: Request, body: TutorialRequest) -> dict[str, Any]:
    """A private table for the tutorial: you at seat 0, bidding first, against three heuristic bots, on the prepared
    deal (the real engine and server play it). The answer holds your seat's token, as a join would."""
    from luz.server.runtime import build_game  # the server imports this module: import it when asked

    manager = request.app.state.manager
    edition = get_edition("iello-2024")
    table_id, tokens = await asyncio.to_thread(
        manager.store.create_table,
        name="Tutorial",
        edition=edition.key,
        players=4,
        options=edition.options(4, first_player=0).to_json(),
        public=False,
        grace_seconds=300,
        seats=[{"kind": "human", "bot": None, "name": None}]
        + [{"kind": "bot", "bot": "heuristic", "name": None} for _ in range(3)],
    )
    runtime = await manager.runtime(table_id)
    async with runtime.lock:
        token, runtime.state = await asyncio.to_thread(
            manager.store.join, table_id, 0, body.name.strip() or "You", tokens[0]
        )
        runtime.game = build_game(runtime.state)
    await manager.start_if_ready(runtime, seed=TUTORIAL_SEED)
    return {"table_id": table_id, "seat": 0, "token": token}


@router.get("/api/tables/{table_id}/notes")
async def game_notes(request: Request, table_id: str, game: int | None = None) -> dict[str, Any]:
    """The players' notes on their own cards in a finished game, for its replay (while a game runs, each seat's
    notes go to that seat alone, over its WebSocket)."""
    _, number = await finished_game(request, table_id, game, "notes are")
    return {"notes": await asyncio.to_thread(request.app.state.manager.store.notes, table_id, number)}


async def finished_game(request: Request, table_id: str, game: int | None, what: str) -> tuple[Any, int]:
    """The live table and the number of its finished game ``game`` (default: the current one), whose ``what``
    ("notes are", "chat is") may be shown now: 404 for no such game, 409 while it is being played."""
    runtime = await request.app.state.manager.runtime(table_id)
    number = game or (runtime.state.game_no if runtime else 0)
    if runtime is None or not 1 <= number <= runtime.state.game_no:
        raise HTTPException(404, "no such game")
    if number == runtime.state.game_no and (runtime.game is None or runtime.game.outcome() is None):
        raise HTTPException(409, f"the game is not over: its {what} shown once it is")
    return runtime, number


@router.post("/api/score")
async def score(document: Annotated[Any, Body()], quiet: bool = False) -> dict[str, Any]:
    """The score-keeper's report for a game played with the real box: the same document as ``luz score -``.

    The report of ``luz score`` plus what the page needs: the number of deals, the highest bid and the tricks of
    a deal (for the entry form), how the leader was decided (``tie_break``), and whether the next deal's first
    player is the leader on score rather than the usual rotation (3 players, last deal). A sheet the rules refuse
    is a 422 with the reason, or with ``quiet=true`` a 200 answer ``{"refused": reason}`` (the page's entry form:
    a refused deal is an answer to show, not an error in the browser's console).
    """
    try:
        sheet = sheet_from_json(document)
    except (BadInput, LuzError) as error:
        reason = " ".join(str(error).split())
        if quiet:
            return {"refused": reason}
        raise HTTPException(422, reason) from None
    report = sheet.to_json()
    upcoming = sheet.next_first_player()
    report["deal_count"] = sheet.deal_count
    report["max_bid"], report["tricks_per_deal"] = MAX_BID, HAND_SIZE
    report["tie_break"] = sheet.standings().to_json()["tie_break"]
    report["next_first_is_leader"] = upcoming is not None and upcoming != sheet.usual_first_player(len(sheet.deals))
    return report


@router.post("/api/replay")
async def replay_steps(record: Annotated[Any, Body()]) -> dict[str, Any]:
    """A game record (docs/RECORD.md) replayed step by step: the view with every hand face up before the first
    action and after each one (assumption A4: a finished game's replay may show everything)."""
    try:
        final = replay(record)
    except LuzError as error:
        raise HTTPException(422, " ".join(str(error).split())) from None
    game = replay(record, upto=0)
    steps = [{"action": None, "seat": None, "view": open_view(game)}]
    for number, deal_actions in enumerate(final.actions):
        for action in deal_actions:
            if game.phase is Phase.DEAL:  # a record without a seed: its deals are given, not drawn
                game.deal(final.deals[number].hands, final.deals[number].aside)
            seat = game.current_player
            game.apply(action)
            steps.append({"action": str(action), "seat": seat, "view": open_view(game)})
    names = record.get("names")
    if not (isinstance(names, list) and len(names) == final.players and all(isinstance(n, str) for n in names)):
        names = None
    return {"names": names, "steps": steps}


def open_view(game: Game) -> dict[str, Any]:
    """The spectator's view of ``game`` with every hand and the aside face up (the engine's ``face_up_view``)."""
    return face_up_view(game).to_json()
