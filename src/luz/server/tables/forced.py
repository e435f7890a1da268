"""Forced moves: at a turn-based table, a person to move whose only legal action is one card has it played for
them (their setting, on by default), through the door as an ``Act`` marked ``forced``; the clock then lists the
seat (timecontrol.after_move) until it next moves, so the table can say so. Legal actions depend only on colours
and positions, which every seat sees: playing a forced card early tells nobody anything new."""

from __future__ import annotations

from luz.engine import Phase

from ..domain import SeatKind, Status, is_turn_based
from .commands import Act, Door
from .table import Table


def forced_seat(table: Table) -> int | None:
    """The person to move whose only legal card the server plays for them now (``None``: nobody): at a
    turn-based table, in a trick, their setting on, no bot playing their seat."""
    state, game = table.state, table.game
    if game is None or state.status != Status.PLAYING or not is_turn_based(state.time_control):
        return None
    seat = game.current_player
    if game.phase is not Phase.PLAY or seat is None:
        return None
    spec = state.seats[seat]
    if spec.kind != SeatKind.HUMAN or not spec.forced_moves or seat in table.bot_seats():
        return None
    return seat if len(game.legal_actions()) == 1 else None


class ForcedMoves:
    """Looks at a table after each change (``Registry.resume``): posts its mover's forced card, once per version."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.posted: dict[str, int] = {}
        """Each table's version whose forced move was posted (a table resumed twice posts it once)."""

    def schedule(self, table: Table) -> None:
        seat = forced_seat(table)
        if seat is None or table.game is None or self.posted.get(table.id) == table.state.version:
            return
        self.posted[table.id] = table.state.version
        [action] = table.game.legal_actions()
        self.door.post(table, Act(seat, action, expected=table.state.version, forced=True))

    def forget(self, table: Table) -> None:
        """The table leaves this process's memory."""
        self.posted.pop(table.id, None)
