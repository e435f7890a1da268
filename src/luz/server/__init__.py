"""The game server: ``api`` (HTTP + WebSocket) -> ``tables`` (the live tables) -> ``store`` (persistence) -> ``db``.

>>> from luz.server import create_app
"""

from .api.app import app_services, create_app, stopping
from .settings import Settings

__all__ = ["Settings", "app_services", "create_app", "stopping"]
