"""The game server: tables of humans and bots, live play over WebSocket, persistence that loses nothing."""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
