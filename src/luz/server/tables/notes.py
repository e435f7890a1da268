"""Notes on your own cards: what a player thinks a hidden card is ("7", "low", "5-8"), kept by the server for
that seat only. While a game runs a seat's notes go to that seat's own connections and nowhere else; once the
game is over they are part of its replay (``GET /api/tables/{id}/notes``)."""

from __future__ import annotations

import asyncio
from typing import Any

from luz.engine import Phase

from ..store import Store
from .model import Refused
from .table import Table

NOTE_LENGTH = 12
"""The longest note, in characters: a value, "low"/"high" or a range fits."""


def check_note(table: Table, seat: int, slot: Any, text: Any) -> tuple[str, int]:
    """The note's text, trimmed, and the deal, if ``seat`` may put it on its card ``slot`` now; else
    :class:`Refused`."""
    game = table.game
    if game is None or game.phase not in (Phase.BID, Phase.PLAY):
        raise Refused("no_game", "notes are taken during a deal")
    if not isinstance(text, str) or not isinstance(slot, int) or isinstance(slot, bool):
        raise Refused("malformed", "a note message needs 'slot' (a number) and 'text' (a string)")
    if not 0 <= slot < len(game.deals[-1].hands[seat]):
        raise Refused("malformed", f"there is no card at slot {slot} of your hand")
    text = text.strip()
    if len(text) > NOTE_LENGTH or not text.isprintable():
        raise Refused("malformed", f"a note is at most {NOTE_LENGTH} printable characters")
    return text, len(game.deals)


def notes_message(table: Table, deal: int, notes: list[dict[str, Any]]) -> dict[str, Any]:
    """A seat's notes on its cards in the current deal: ``{"type": "notes", "deal": n, "notes": {slot: text}}``."""
    mine = {str(n["slot"]): n["text"] for n in notes if n["deal"] == deal}
    return {"type": "notes", "game_no": table.state.game_no, "deal": deal, "notes": mine}


async def own_notes(store: Store, table: Table, seat: int) -> dict[str, Any] | None:
    """The notes message for ``seat`` now (``None`` outside a deal)."""
    game = table.game
    if game is None or not game.deals:
        return None
    notes = await asyncio.to_thread(store.notes, table.state.id, table.state.game_no, seat)
    return notes_message(table, len(game.deals), notes)
