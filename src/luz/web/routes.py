"""Routes of the web client: its pages, the score-keeper's report and the steps of a replay.

The rules stay in the engine: the score report comes from the code behind ``luz score``, and a replay's steps are
views computed by the engine after each action, so the browser only displays them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.responses import FileResponse

from luz.bots import BOTS
from luz.cli.score import BadInput, sheet_from_json
from luz.engine import HAND_SIZE, MAX_BID, Game, LuzError, Phase, replay, view

STATIC = Path(__file__).parent / "static"

router = APIRouter()

PAGES = {
    "/": "index.html",
    "/t/{table_id}": "table.html",
    "/replay": "replay.html",
    "/replay/{table_id}": "replay.html",
    "/score": "score.html",
    "/u/{player_id}": "profile.html",
    "/account": "account.html",
}


def _page_route(path: str, file: Path) -> None:
    async def page() -> FileResponse:
        return FileResponse(file, headers={"Cache-Control": "no-cache"})

    router.add_api_route(path, page, methods=["GET"], include_in_schema=False, name=f"page {path}")


for _path, _file in PAGES.items():
    _page_route(_path, STATIC / _file)


@router.get("/api/bots")
async def bots() -> list[str]:
    """The bot levels a seat can be given."""
    return list(BOTS)


@router.post("/api/score")
async def score(document: Annotated[Any, Body()]) -> dict[str, Any]:
    """The score-keeper's report for a game played with the real box: the same document as ``luz score -``.

    The report of ``luz score`` plus what the page needs: the number of deals, the highest bid and the tricks of
    a deal (for the entry form), how the leader was decided (``tie_break``), and whether the next deal's first
    player is the leader on score rather than the usual rotation (3 players, last deal).
    """
    try:
        sheet = sheet_from_json(document)
    except (BadInput, LuzError) as error:
        raise HTTPException(422, " ".join(str(error).split())) from None
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
    """The spectator's view of ``game`` with every hand and the aside face up."""
    shown = view(game, None).to_json()
    if game.phase is Phase.DEAL or not game.deals:
        return shown
    deal, name = game.deals[-1], game.edition.card_name
    for hand, cards in zip(shown["hands"], deal.hands, strict=True):
        for slot, card in zip(hand, cards, strict=True):
            slot["value"], slot["card"] = card.value, name(card)
    shown["aside"] = [name(card) for card in deal.aside]
    return shown
