"""The web client: the pages (home and lobby, table, My games, Friends, replay, score-keeper) and their static
files; it imports nothing of the server, whose API the pages call. See docs/USER_GUIDE.md.

>>> sorted(p.name for p in STATIC.glob("*.html"))
['account.html', 'daily.html', 'deals.html', 'friends.html', 'games.html', 'how-to-play.html', 'index.html',
     'leaderboard.html', 'not-found.html', 'offline.html', 'profile.html', 'puzzle.html', 'replay.html', 'score.html',
     'table.html', 'tournament.html', 'tournaments.html']
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from .routes import STATIC, router

__all__ = ["STATIC", "install", "router"]


def install(app: FastAPI) -> None:
    """Serve the web client from ``app``: its pages and ``/static/...``."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_exception_handler(HTTPException, not_found_page)


async def not_found_page(request: Request, error: Exception) -> Response:
    """A page for an unknown address asked by a browser; the usual JSON error for everything else (the API)."""
    wants_page = "text/html" in request.headers.get("accept", "") and not request.url.path.startswith("/api/")
    if not isinstance(error, HTTPException):
        raise error
    if error.status_code == 404 and wants_page:
        return FileResponse(STATIC / "not-found.html", status_code=404, headers={"Cache-Control": "no-cache"})
    return await http_exception_handler(request, error)
