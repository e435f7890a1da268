"""Reading a score-keeper JSON document (the input of ``luz score`` and of ``POST /api/score``) into a
:class:`~luz.engine.scoring.ScoreSheet`, every deal scored.

>>> sheet = sheet_from_json({"edition": "iello-2024", "players": 3, "first_player": 0,
...                          "deals": [{"bids": [2, 1, 3], "safety": [False, True, False], "tricks": [2, 2, 6]}]})
>>> sheet.totals, sheet.next_first_player()
((10, 5, -15), 1)
>>> sheet_from_json({"edition": "iello-2024", "players": 3, "deals": {}})
Traceback (most recent call last):
...
luz.engine.errors.InvalidScoreDocument: deals must be a list, not {}
"""

from __future__ import annotations

import json
from typing import Any

from .editions import get_edition
from .errors import InvalidScoreDocument, LuzError
from .scoring import ScoreSheet

_DOCUMENT_KEYS = {"edition", "players", "first_player", "options", "deals"}
_DEAL_KEYS = {"bids", "safety", "tricks"}


def sheet_from_json(document: object) -> ScoreSheet:
    """The score sheet described by a score-keeper JSON document (see ``luz score --help``), every deal added.

    A document that is not one raises :class:`InvalidScoreDocument`; a deal the rules refuse raises it too, naming
    the deal. An unknown edition, players or options the edition refuses raise their own :class:`LuzError`.
    """
    checked = _check_object(document, "the document", _DOCUMENT_KEYS, ("edition", "players", "deals"))
    sheet = _new_sheet(checked)
    deals = checked["deals"]
    if not isinstance(deals, list):
        raise InvalidScoreDocument(f"deals must be a list, not {_show(deals)}")
    for number, deal in enumerate(deals, 1):
        sheet = _add_deal(sheet, number, deal)
    return sheet


def _new_sheet(document: dict[str, Any]) -> ScoreSheet:
    """The empty score sheet for the document's edition, players, options and first player."""
    if not isinstance(document["edition"], str):
        raise InvalidScoreDocument(f"edition must be a string, not {_show(document['edition'])}")
    edition = get_edition(document["edition"])
    players = document["players"]
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidScoreDocument(f"players must be a whole number, not {_show(players)}")
    table = edition.options_from_json(players, document.get("options"))
    first = document.get("first_player", table.first_player)
    if table.first_player is not None and first != table.first_player:
        raise InvalidScoreDocument(
            f"first_player {_show(first)} disagrees with options.first_player {table.first_player}"
        )
    return ScoreSheet.new(edition, players, 0 if first is None else first, table)


def _add_deal(sheet: ScoreSheet, number: int, deal: object) -> ScoreSheet:
    """``sheet`` with deal ``number`` (1-based, a JSON object) added; errors name the deal."""
    where = f"deal {number}"
    checked = _check_object(deal, where, _DEAL_KEYS, ("bids", "tricks"))
    try:
        return sheet.add(checked["bids"], checked.get("safety", [False] * sheet.players), checked["tricks"])
    except LuzError as error:
        raise InvalidScoreDocument(f"{where}: {str(error).removeprefix(f'{where}: ')}") from None


def _check_object(value: object, what: str, allowed: set[str], required: tuple[str, ...]) -> dict[str, Any]:
    """``value`` if it is a JSON object with only ``allowed`` keys and every ``required`` one.

    Its values stay unchecked (``Any``): :class:`ScoreSheet` and the edition check what they are given.
    """
    if not isinstance(value, dict):
        raise InvalidScoreDocument(f"{what} must be a JSON object, not {_show(value)}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise InvalidScoreDocument(
            f"{what}: unknown key(s) {', '.join(map(_show, unknown))}; known: {', '.join(sorted(allowed))}"
        )
    missing = [key for key in required if key not in value]
    if missing:
        raise InvalidScoreDocument(f"{what}: missing {', '.join(missing)}")
    return value


def _show(value: object) -> str:
    """``value`` as JSON on one line, shortened past 40 characters.

    >>> _show("x" * 50)
    '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
    """
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"
