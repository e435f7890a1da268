"""Routes of the web client: its pages, each a static HTML file (the JavaScript asks the server's API for the rest)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

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


def _page_route(path: str, file: Path) -> None:
    async def page() -> FileResponse:
        return FileResponse(file, headers={"Cache-Control": "no-cache"})

    router.add_api_route(path, page, methods=["GET"], include_in_schema=False, name=f"page {path}")


for _path, _file in PAGES.items():
    _page_route(_path, STATIC / _file)
