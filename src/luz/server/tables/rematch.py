"""Rematch offers after a game: a small collaborator of the table's single writer (as lichess's rematch).

At a table with one human seat, asking for the next game starts it at once. With two or more, the first ask is an
offer that every other human seated answers; when all have accepted, the next game starts (its first player one
seat to the left of the last game's: ``table.next_seed``); one decline ends the offer, and so does its time
running out. The offer is stored in the table's row with a version bump (``Store.set_rematch``), so every process
and every connection sees it in the table's summary:
``{"by": seat, "accepted": [seats], "declined": seat | None, "expired": bool, "expires_at": epoch ms}``.
The offer is among the human seats whose player is seated now (a seat whose player left the table, a bot playing
it, does not answer). The process holding the table expires the offer on time; an offer read past its time counts
as expired whoever reads it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..domain import SeatKind, Status, TableState, is_turn_based
from ..settings import Settings
from ..store import StaleVersion, Store
from ..timecontrol import now_ms
from .model import Outbox, Refused
from .table import Table, Writer, next_seed

OPEN, DECLINED, EXPIRED = "open", "declined", "expired"


def humans(state: TableState) -> list[int]:
    """The seats whose answer a rematch needs: human seats whose player is seated."""
    return [s.seat for s in state.seats if s.kind == SeatKind.HUMAN and s.joined]


def status(offer: dict[str, Any] | None, at: int) -> str | None:
    """Where an offer stands at ``at`` (epoch ms): ``open``, ``declined`` or ``expired``; ``None``: no offer."""
    if offer is None:
        return None
    if offer.get("declined") is not None:
        return DECLINED
    if offer.get("expired") or at >= offer["expires_at"]:
        return EXPIRED
    return OPEN


def waiting_for(state: TableState) -> list[int]:
    """The seated humans who have not accepted the table's offer yet."""
    accepted = set((state.rematch or {}).get("accepted", []))
    return [seat for seat in humans(state) if seat not in accepted]


def lifetime_ms(state: TableState, settings: Settings) -> int:
    """How long an offer waits: ``rematch_seconds``, or at a turn-based table as long as a move may take (its
    players come by once a day or so)."""
    seconds = int(settings.rematch_seconds * 1000)
    control = state.time_control
    if is_turn_based(control) and control is not None:
        return max(seconds, control["reserve_ms"])
    return seconds


def decide(state: TableState, seat: int, accept: bool, at: int, lifetime: int) -> dict[str, Any] | None:
    """``seat``'s answer applied: the offer to store, or ``None`` when the next game is to start (everyone seated
    has accepted). :class:`Refused` when the answer may not be given."""
    if state.status != Status.OVER:
        raise Refused("no_game", "a rematch is offered once the game is over")
    seated = humans(state)
    if seat not in seated:
        raise Refused("not_seated", "only the players seated at the table answer a rematch")
    offer = state.rematch
    if status(offer, at) != OPEN:
        if not accept:
            raise Refused("no_offer", "there is no rematch offer to answer")
        offer = {"by": seat, "accepted": [], "declined": None, "expired": False, "expires_at": at + lifetime}
    assert offer is not None
    if seat in offer["accepted"]:
        raise Refused("answered", "you have already accepted this rematch")
    if not accept:
        return {**offer, "declined": seat}
    offer = {**offer, "accepted": sorted([*offer["accepted"], seat])}
    if all(human in offer["accepted"] for human in seated):
        return None
    return offer


class Host(Protocol):
    """What the rematch asks of the registry: background work, telling everyone of a change, a game started."""

    def spawn(self, work: Awaitable[Any]) -> None: ...
    async def changed(self, table: Table, *before: Outbox) -> None: ...
    def started(self, table: Table) -> None: ...


class Rematch:
    """The rematch offers of a process's tables and their timers."""

    def __init__(self, host: Host, store: Store, writer: Writer, settings: Settings) -> None:
        self.host = host
        self.store = store
        self.writer = writer
        self.settings = settings
        self.timers: dict[str, asyncio.TimerHandle] = {}

    async def answer(self, table: Table, seat: int, accept: bool) -> bool:
        """``seat`` offers or accepts (``accept``) a rematch, or declines the offer; stored, then everyone told.
        Returns whether the next game started. :class:`Refused` when the table refuses the answer."""
        lifetime = lifetime_ms(table.state, self.settings)
        return await self._change(table, lambda state: decide(state, seat, accept, now_ms(), lifetime))

    async def settle(self, table: Table) -> bool:
        """After a player left the table: the next game starts if every human still seated has accepted the open
        offer (the offer stands for those seated). Whether it started."""

        def complete(state: TableState) -> dict[str, Any] | None:
            if status(state.rematch, now_ms()) != OPEN or not humans(state) or waiting_for(state):
                raise Refused("no_offer", "no offer that everyone seated has accepted")
            return None

        try:
            return await self._change(table, complete)
        except Refused:
            return False

    async def _change(self, table: Table, change: Callable[[TableState], dict[str, Any] | None]) -> bool:
        """Store the offer that ``change`` makes of the table's state, or start the next game when it makes
        ``None``; then everyone is told. Whether the game started. :class:`Refused` as ``change`` refuses."""
        caught_up: list[Outbox] = []
        try:
            async with table.lock:
                if self.writer.shared:  # another process may have stored an answer this one has not heard of
                    caught_up += await self.writer.catch_up(table)
                for _ in range(3):
                    offer = change(table.state)
                    try:
                        state = await self._stored(table, offer)
                    except StaleVersion:
                        caught_up += await self.writer.catch_up(table)
                        continue
                    if offer is None:
                        table.reload(state)
                    else:
                        table.state = state
                    break
                else:
                    raise Refused("busy", "the table is busy: try again")
        except Refused:
            if caught_up:
                self.host.spawn(self.host.changed(table, *caught_up))
            raise
        if offer is None:
            self.host.started(table)
        await self.host.changed(table, *caught_up)
        return offer is None

    async def _stored(self, table: Table, offer: dict[str, Any] | None) -> TableState:
        """Store ``offer`` at the table's version, or start the next game when it is ``None`` (everyone accepted):
        the table as stored then. :class:`StaleVersion` if the table moved."""
        version = table.state.version
        if offer is None:
            return await asyncio.to_thread(self.store.start_game, table.id, version, next_seed(table.game))
        return await asyncio.to_thread(self.store.set_rematch, table.id, version, offer)

    def arm(self, table: Table) -> None:
        """After every change: a timer for the table's open offer (when it runs out), none for anything else."""
        offer = table.state.rematch if table.state.status == Status.OVER else None
        at = now_ms()
        if status(offer, at) != OPEN:
            self.forget(table)
            return
        assert offer is not None
        if table.id in self.timers:
            return
        delay = (offer["expires_at"] - at + 5) / 1000
        loop = asyncio.get_running_loop()
        self.timers[table.id] = loop.call_later(delay, lambda: self.host.spawn(self._expire(table)))

    def forget(self, table: Table) -> None:
        """The table leaves memory (or its offer is settled): no timer for it."""
        timer = self.timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()

    async def _expire(self, table: Table) -> None:
        """The offer's time is up: stored as expired (once, whichever process stores it first), everyone told."""
        self.timers.pop(table.id, None)
        caught_up: list[Outbox] = []
        wrote = False
        async with table.lock:
            for _ in range(3):
                offer = table.state.rematch
                if table.state.status != Status.OVER or offer is None or offer.get("expired"):
                    break
                if status(offer, now_ms()) == OPEN or offer.get("declined") is not None:
                    break  # rang a little early (looked at again below), or declined meanwhile
                try:
                    table.state = await self._stored(table, {**offer, "expired": True})
                except StaleVersion:
                    caught_up += await self.writer.catch_up(table)
                    continue
                wrote = True
                break
        if wrote or caught_up:
            await self.host.changed(table, *caught_up)
        else:
            self.arm(table)  # rang a little early: again at the offer's end
