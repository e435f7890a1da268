"""Web Push as a notification channel: every notice of a player who turned push on, to each of their browsers'
subscriptions (a subscription its push service says is gone is deleted)."""

from __future__ import annotations

import asyncio
from typing import Any

from .channel import ChannelContext, Notice, Outcome
from .preferences import Recipient
from .push import GONE, Pusher, Subscriptions
from .texts import invitation_payload, push_payload

DAY_SECONDS = 86400
INVITATION_TTL = 1800
"""Seconds a push service keeps an undelivered invitation (the seat may not stay open long)."""
SHORTEST_TTL = 60


class PushChannel:
    name = "push"

    def __init__(self, pusher: Pusher, subscriptions: Subscriptions) -> None:
        self.pusher = pusher
        self.subscriptions = subscriptions

    @classmethod
    def build(cls, context: ChannelContext) -> PushChannel:
        pusher = Pusher(context.vapid, context.push_contact, allow_local=context.push_allow_local)
        return cls(pusher, Subscriptions(context.engine))

    def wants(self, player: Recipient, notice: Notice) -> bool:
        return player.push_on

    async def tell(self, player: Recipient, notice: Notice, now_ms: int) -> Outcome:
        payload, ttl = self.payload(player, notice, now_ms)
        subscriptions = await asyncio.to_thread(self.subscriptions.of, player.id)
        answers = await asyncio.gather(*(self.pusher.send(s, payload, ttl=ttl) for s in subscriptions))
        outcome = Outcome()
        for subscription, status in zip(subscriptions, answers, strict=True):
            if status is not None and 200 <= status < 300:
                outcome["delivered"] += 1
            elif status in GONE:
                await asyncio.to_thread(self.subscriptions.remove, subscription.endpoint)
                outcome["gone"] += 1
            else:
                outcome["failed"] += 1
        return outcome

    @staticmethod
    def payload(player: Recipient, notice: Notice, now_ms: int) -> tuple[dict[str, Any], int]:
        """The push's content and how long a push service may keep it undelivered (seconds): until the deadline
        (at least a minute), a day without one, half an hour for an invitation."""
        if notice.kind == "invitation":
            assert notice.seat is not None and notice.by is not None, "an invitation names its seat and sender"
            payload = invitation_payload(notice.table_id, notice.table_name, notice.seat, notice.by, player.language)
            return payload, INVITATION_TTL
        payload = push_payload(notice.kind, notice.table_id, notice.table_name, notice.deadline, player.language)
        deadline = notice.deadline
        ttl = (deadline - now_ms) // 1000 if deadline is not None and deadline > now_ms else DAY_SECONDS
        return payload, max(SHORTEST_TTL, ttl)

    async def sweep(self, now_ms: int) -> Outcome:
        return Outcome()  # every push goes out as it is told

    async def start(self) -> None:
        await self.pusher.start()

    async def close(self) -> None:
        await self.pusher.close()
