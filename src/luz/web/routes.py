"""Routes of the web client: its pages, each a static HTML file (the JavaScript asks the server's API for the rest),
and the installable app's files that must live at the site's root: its manifest and its service worker."""

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
    "/puzzle/{table_id}": "puzzle.html",
    "/score": "score.html",
    "/how-to-play": "how-to-play.html",
    "/u/{player_id}": "profile.html",
    "/account": "account.html",
    "/leaderboard": "leaderboard.html",
    "/daily": "daily.html",
    "/games": "games.html",
    "/friends": "friends.html",
    "/tournaments": "tournaments.html",
    "/tournaments/{tournament_id}": "tournament.html",
    "/offline": "offline.html",
    "/deals": "deals.html",
    "/deals/{set_id}": "deals.html",
}


def _page_route(path: str, file: Path) -> None:
    async def page() -> FileResponse:
        return FileResponse(file, headers={"Cache-Control": "no-cache"})

    router.add_api_route(path, page, methods=["GET"], include_in_schema=False, name=f"page {path}")


for _path, _file in PAGES.items():
    _page_route(_path, STATIC / _file)


@router.get("/manifest.webmanifest", include_in_schema=False)
async def manifest() -> FileResponse:
    """The web app manifest (name, icons, colours, start page): what makes the site installable."""
    return FileResponse(
        STATIC / "manifest.webmanifest", media_type="application/manifest+json", headers={"Cache-Control": "no-cache"}
    )


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> FileResponse:
    """The service worker, at the root so that its scope is the whole site; never cached, so an update is seen."""
    return FileResponse(
        STATIC / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )
