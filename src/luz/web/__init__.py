"""The web client: the pages (home and lobby, table, replay, score-keeper), their static files, and the two JSON
endpoints only they need (the score-keeper's report and a replay's steps). See docs/USER_GUIDE.md.

>>> sorted(p.name for p in STATIC.glob("*.html"))
['index.html', 'replay.html', 'score.html', 'table.html']
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .routes import STATIC, router

__all__ = ["STATIC", "install", "router"]


def install(app: FastAPI) -> None:
    """Serve the web client from ``app``: its pages, ``/static/...`` and its endpoints."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
