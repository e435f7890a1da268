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

from typing import Any

from ..clock import Clock, Timer
from ..domain import SeatKind, Status, TableState, is_turn_based
from ..settings import Settings
from .commands import Door, ExpireRematch
from .model import Refused
from .table import Table

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
    if state.tournament is not None:
        raise Refused("tournament", "a tournament's table plays one game: the next round seats you again")
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


class Rematch:
    """The timers of the rematch offers of a process's tables: when an offer's time is up, ``ExpireRematch``."""

    def __init__(self, door: Door, clock: Clock) -> None:
        self.door = door
        self.clock = clock
        self.timers: dict[str, Timer] = {}

    def arm(self, table: Table) -> None:
        """After every change: a timer for the table's open offer (when it runs out), none for anything else."""
        offer = table.state.rematch if table.state.status == Status.OVER else None
        at = self.clock.now_ms()
        if status(offer, at) != OPEN:
            self.forget(table)
            return
        assert offer is not None
        if table.id in self.timers:
            return
        delay = (offer["expires_at"] - at + 5) / 1000

        def ring() -> None:
            self.timers.pop(table.id, None)
            self.door.post(table, ExpireRematch())

        self.timers[table.id] = self.clock.call_later(delay, ring)

    def forget(self, table: Table) -> None:
        """The table leaves memory (or its offer is settled): no timer for it."""
        timer = self.timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()
