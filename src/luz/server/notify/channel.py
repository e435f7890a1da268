"""The seam of the notification channels: what a player is told (:class:`Notice`), the :class:`Channel` protocol that
push and the email digest implement, and what a channel is built from (:class:`ChannelContext`).

A new channel is one new module with a class that has these methods and a ``build(context)``, and one line in
``channels.py``.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from sqlalchemy.engine import Engine

from ..clock import Clock
from .mail import Mailer, Tokens
from .preferences import Recipient

NoticeKind = Literal["turn", "reminder", "round", "invitation"]
Outcome = collections.Counter[str]
"""What telling did, counted by name: ``delivered`` (messages a channel handed on: pushes a push service took, a
turn queued for the digest), and the troubles (``gone``, ``failed``); the notifier adds them to its counts."""


@dataclass(frozen=True)
class Notice:
    """One thing a player is told, from public facts only: a table's id and name, its deadline, the seat offered and
    who offers it (an invitation); never a card, a hand or a bid."""

    kind: NoticeKind
    table_id: str
    table_name: str
    deadline: int | None = None
    """The mover's deadline (epoch ms), if the table has one."""
    seat: int | None = None
    """An invitation's open seat."""
    by: str | None = None
    """An invitation's sender (their display name)."""


class Channel(Protocol):
    """A way of telling a player (Web Push, the email digest, ...)."""

    name: str

    def wants(self, player: Recipient, notice: Notice) -> bool:
        """Whether this channel tells ``player`` of ``notice`` (their settings, the channel's configuration)."""
        ...

    async def tell(self, player: Recipient, notice: Notice, now_ms: int) -> Outcome:
        """Tell ``player`` of ``notice`` now (never raises for a send that failed: counted in the outcome)."""
        ...

    async def sweep(self, now_ms: int) -> Outcome:
        """The channel's own periodic work, once per scan of the notifier (the digest: the emails due)."""
        ...

    async def start(self) -> None:
        """Open what the channel sends with, in the event loop that sends."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class ChannelContext:
    """What the server gives each channel to build itself from."""

    engine: Engine
    clock: Clock
    mailer: Mailer
    tokens: Tokens
    """The signed links of emails."""
    base_url: str
    """Prefix of the links in emails (``LUZ_PUBLIC_URL``)."""
    vapid: Any
    """The server's VAPID key (a ``py_vapid.Vapid``)."""
    push_contact: str
    push_allow_local: bool
