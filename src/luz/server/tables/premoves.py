"""Premoves: at a live (not turn-based) table, a seat whose turn it is not may choose, during the play phase, the
card it will play when its turn comes. The choice is the seat's own: kept in this process's memory (a restart
forgets it; the seat's client is told so on reconnecting), sent to that seat's connections only, never stored,
logged or shown to anyone else. When the seat's turn comes (``Registry.resume``) the card is played through the
door, as an ``Act`` marked ``premove``, if it is still legal; else the choice is cancelled and the seat told.
Legality depends only on colours and positions, which every seat sees: neither the card played at once nor its
cancellation says anything of the seat's own values."""

from __future__ import annotations

from typing import Any

from luz.engine import Phase, Play

from ..domain import Status, is_turn_based
from .commands import Act, Door, DropPremove
from .model import Chosen, Refused
from .table import Table


def dealing(table: Table) -> tuple[int, int] | None:
    """The game and deal being played, if any (``None`` between games)."""
    game = table.game
    if game is None or table.state.status != Status.PLAYING or not game.deals:
        return None
    return table.state.game_no, len(game.deals)


def chosen(table: Table, seat: int) -> int | None:
    """The slot ``seat`` chose to play next in the current deal (``None``: none)."""
    choice = table.premoves.get(seat)
    if choice is None or (choice.game_no, choice.deal) != dealing(table):
        return None
    return choice.slot


def check_premove(table: Table, seat: int, slot: Any) -> Chosen | None:
    """The premove ``seat`` may choose now (``slot`` ``None``: its premove cancelled); else :class:`Refused`."""
    if slot is not None and (not isinstance(slot, int) or isinstance(slot, bool)):
        raise Refused("malformed", "a premove message needs 'slot': a slot of your hand, or null to cancel")
    game, now = table.game, dealing(table)
    if game is None or now is None:
        raise Refused("no_game", "no game is being played at this table")
    if is_turn_based(table.state.time_control):
        raise Refused("turn_based", "premoves are for live tables (a turn-based table plays forced cards for you)")
    if slot is None:
        return None
    if game.phase is not Phase.PLAY:
        raise Refused("not_now", "a next card is chosen while the cards are played, not during the bidding")
    if game.current_player == seat:
        raise Refused("your_turn", "it is your turn: play the card itself")
    hand = game.deals[-1].hands[seat]
    if not 0 <= slot < len(hand):
        raise Refused("malformed", f"there is no card at slot {slot} of your hand")
    if game.is_played(seat, slot):
        raise Refused("illegal", f"the card at slot {slot} of your hand is already played")
    return Chosen(*now, slot)


def premove_message(table: Table, seat: int, cancelled: bool = False) -> dict[str, Any] | None:
    """``seat``'s premove, for its own connections: ``{"type": "premove", "game_no", "deal", "slot", "cancelled"}``
    (``slot`` ``None``: none; ``cancelled``: the server dropped it, no longer legal). ``None`` outside a deal or
    at a turn-based table."""
    now = dealing(table)
    if now is None or is_turn_based(table.state.time_control):
        return None
    return {"type": "premove", "game_no": now[0], "deal": now[1], "slot": chosen(table, seat), "cancelled": cancelled}


class Premoves:
    """Looks at a table after each change (``Registry.resume``): plays its mover's premove, or cancels it, once
    per version."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.posted: dict[str, int] = {}
        """Each table's version whose premove was posted (a table resumed twice posts it once)."""

    def schedule(self, table: Table) -> None:
        game = table.game
        seat = game.current_player if game is not None else None
        if game is None or seat is None or game.phase is not Phase.PLAY or seat in table.bot_seats():
            return
        slot = chosen(table, seat)
        if slot is None or self.posted.get(table.id) == table.state.version:
            return
        self.posted[table.id] = table.state.version
        if Play(slot) in game.legal_actions():
            self.door.post(table, Act(seat, Play(slot), expected=table.state.version, premove=True))
        else:
            self.door.post(table, DropPremove(seat, slot))

    def forget(self, table: Table) -> None:
        """The table leaves this process's memory."""
        self.posted.pop(table.id, None)
