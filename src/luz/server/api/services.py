"""The server's services, one typed object built by the composition root (``app.py``) and read by the routes
through ``deps.py``'s dependencies."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from ..clock import Clock
from ..friends import Friends
from ..health import DatabaseHealth
from ..metrics import Metrics
from ..pacing import Pacer
from ..reviews import Reviews
from ..settings import Settings
from ..tables import Registry
from ..tables.chat import Chat
from ..tables.rounds import Rounds
from ..tournaments import Tournaments
from ..vacation import Vacations
from .dailies import Daily
from .guards import Guards
from .identities import Identities
from .notifications import Notifications


@dataclass
class Services:
    """What the routes use, each built once per app at its start."""

    settings: Settings
    clock: Clock
    """The time of notifications and rate windows (a ``FakeClock`` in tests)."""
    metrics: Metrics
    guards: Guards
    engine: Engine
    tables: Registry
    identities: Identities
    friends: Friends
    chat: Chat
    reviews: Reviews
    notifications: Notifications
    daily: Daily
    """The daily deal: its seeds' secret and its attempts' settlement (daily.py)."""
    database_health: DatabaseHealth
    """``/healthz``'s view of the database (a test may put another in its place)."""
    tournaments: Tournaments
    """The tournaments as stored (tournaments.py)."""
    rounds: Rounds
    """The tournaments' rounds, formed and started through the door (tables/rounds.py)."""
    vacations: Vacations
    """The players' vacations, their turn-based clocks paused through the door (vacation.py)."""
    connections: Pacer
    """Connections attached (and told their state) or detached, a few in each turn of the loop: a wave of them
    spread out (pacing.py)."""
