"""Notifications as the server runs them: the VAPID key, mail, the channels and the notifier's loop, started and
stopped with the app; the background sending of verification emails."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine

from ..clock import Clock
from ..identity import Players
from ..notify import (
    ChannelContext,
    Mailer,
    Notice,
    Notifier,
    Preferences,
    Subscriptions,
    Tokens,
    build_channels,
    vapid_key,
)
from ..notify.mail import DEFAULT_FROM, Verifications
from ..notify.push import public_key
from ..settings import Settings
from ..tables import Registry


@dataclass
class Notifications:
    """What the routes need of notifications, one per app (in its services)."""

    settings: Settings
    subscriptions: Subscriptions
    preferences: Preferences
    mailer: Mailer
    tokens: Tokens
    key: str
    """The VAPID public key (base64url)."""
    notifier: Notifier
    clock: Clock
    verifications: Verifications
    sending: set[asyncio.Task[bool]] = field(default_factory=set)

    @classmethod
    async def start(cls, engine: Engine, registry: Registry, settings: Settings, clock: Clock) -> Notifications:
        """Keys, mail, the channels, and the notifier's loop started (whether a seat is at its table: the registry
        knows)."""
        vapid = await asyncio.to_thread(vapid_key, engine, settings.vapid_private_key)
        tokens = Tokens(await asyncio.to_thread(Players(engine).signing_key, settings.secret_key))
        mailer = Mailer(settings.smtp_url, settings.mail_from, settings.public_url)
        context = ChannelContext(
            engine,
            clock,
            mailer,
            tokens,
            base_url=settings.public_url,
            vapid=vapid,
            push_contact=settings.mail_from or DEFAULT_FROM,
            push_allow_local=settings.push_allow_local,
        )
        notifier = Notifier(
            engine,
            build_channels(context),
            seat_connected=registry.seat_connected,
            interval=settings.notify_seconds,
            clock=clock,
        )
        await notifier.start()
        subscriptions, preferences = Subscriptions(engine), Preferences(engine)
        verifications = Verifications(engine, settings.verification_mails_per_day)
        return cls(
            settings, subscriptions, preferences, mailer, tokens, public_key(vapid), notifier, clock, verifications
        )

    async def close(self) -> None:
        await self.notifier.stop()
        for task in list(self.sending):
            task.cancel()

    def round_started(self, seated: list[tuple[str, str, str]]) -> None:
        """Each ``(player, table id, table name)`` of a tournament's new round told of their table through their
        channels (Web Push: "a new round starts"; the email digest, which lists their tables as a turn does)."""
        for player, table_id, name in seated:
            task = asyncio.create_task(self.notifier.tell(player, Notice("round", table_id, name)))
            self.sending.add(task)
            task.add_done_callback(self.sending.discard)

    def send_in_background(self, message: Any, to: str) -> None:
        task = asyncio.create_task(self.mailer.send(message, to))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)
