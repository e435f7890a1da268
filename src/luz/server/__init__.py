"""The game server: ``api`` (HTTP + WebSocket) -> ``tables`` (the live tables) -> ``store`` (persistence) -> ``db``.

>>> from luz.server import create_app
"""

from .api.app import create_app, stopping
from .settings import Settings

__all__ = ["Settings", "create_app", "stopping"]
