"""Game records: the versioned JSON format of ``docs/RECORD.md``, and replay through the rules.

A record is the persistent truth of a game: edition, players, options, seed, and for each deal the hands, the
aside and the actions in order. Loading replays every action; the first bad one is reported with its place.

>>> from luz.engine.game import Game
>>> game = Game.new("korokorodou-2014", players=3, seed=3)
>>> game.apply(game.legal_actions()[4])
>>> data = to_record(game)
>>> data["deals"][0]["actions"]
['bid:2']
>>> replay(data).actions == game.actions
True
"""

from __future__ import annotations

import json
from typing import Any

from .actions import parse_action
from .editions import Edition, get_edition
from .errors import InvalidRecord, LuzError, brief
from .game import Game, Phase, check_deal

FORMAT = "luz-record"
VERSION = 1


def to_record(game: Game, names: list[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` so far, as JSON-serialisable data."""
    if not game.history_complete:
        raise ValueError("a game built from a position has no history to record")
    edition = game.edition
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "edition": edition.key,
        "players": game.players,
        "names": names,
        "options": game.options.to_json(),
        "seed": game.seed,
        "first_player": game.sheet.first_player,
        "deals": [
            {
                "hands": [[edition.card_name(c) for c in hand] for hand in deal.hands],
                "aside": [edition.card_name(c) for c in deal.aside],
                "actions": [str(a) for a in actions],
            }
            for deal, actions in zip(game.deals, game.actions, strict=True)
        ],
    }
    outcome = game.outcome()
    record["outcome"] = None if outcome is None else outcome.to_json()
    if names is None:
        del record["names"]
    return record


def dumps(game: Game, names: list[str] | None = None) -> str:
    """The record as indented JSON text."""
    return json.dumps(to_record(game, names), indent=1, ensure_ascii=False)


def replay(data: Any, upto: int | None = None) -> Game:
    """Rebuild the game a record describes, replaying its actions (only the first ``upto`` when given).

    :class:`InvalidRecord` names the deal and action index (both 1-based, and the action's index in the whole
    game) and the reason for anything wrong.
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise InvalidRecord(f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise InvalidRecord("a record is a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise InvalidRecord(f"not a LUZ record (format {brief(data.get('format'))})")
    if data.get("version") != VERSION:
        raise InvalidRecord(f"unsupported record version {brief(data.get('version'))}; this program reads {VERSION}")
    try:
        edition = get_edition(data.get("edition", ""))
        players = data.get("players")
        if isinstance(players, bool) or not isinstance(players, int):
            raise InvalidRecord(f"players must be a whole number, not {brief(players)}")
        options = edition.options_from_json(players, data.get("options"))
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidRecord(f"seed must be a whole number or null, not {brief(seed)}")
        first = data.get("first_player", options.first_player)
        if seed is None and options.first_player is None:
            if first is None:
                raise InvalidRecord("a record without a seed must name its first player")
            options = edition.options(players, **{**options.to_json(), "first_player": first})
        game = Game(edition, players, options, seed=seed)
        if first is not None and first != game.sheet.first_player:
            raise InvalidRecord(f"first_player {brief(first)} is not the first player that seed {seed} draws")
    except InvalidRecord:
        raise
    except LuzError as error:
        raise InvalidRecord(str(error)) from None
    deals = data.get("deals")
    if not isinstance(deals, list):
        raise InvalidRecord("deals must be a list")
    if len(deals) > game.deal_count:
        raise InvalidRecord(f"{len(deals)} deals, but the game has only {game.deal_count}")
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or upto < 0):
        raise ValueError(f"upto must be a whole number >= 0, not {upto!r}")
    index = 0
    for number, deal in enumerate(deals, 1):
        if upto is not None and index >= upto and number > 1:
            return game
        waiting = game.phase is Phase.DEAL or (game.deal_number == number and not game.actions[-1])
        if not waiting:
            raise InvalidRecord(f"deal {number}: the previous deal is not finished")
        if not isinstance(deal, dict):
            raise InvalidRecord(f"deal {number}: not an object")
        try:
            raw_hands = _list(deal, "hands")
            if not all(isinstance(hand, list) for hand in raw_hands):
                raise InvalidRecord("hands must be a list of lists of cards")
            hands = [[edition.parse_card(c, players) for c in hand] for hand in raw_hands]
            aside = [edition.parse_card(c, players) for c in _list(deal, "aside")]
            _check_sorted(edition, hands)
            if seed is None:
                game.deal(hands, aside)
            elif check_deal(edition, players, hands, aside) != game.deals[-1]:
                raise InvalidRecord(f"the hands and aside are not the deal that seed {seed} gives")
            actions = _list(deal, "actions")
        except LuzError as error:
            raise InvalidRecord(f"deal {number}: {error}") from None
        for position, text in enumerate(actions, 1):
            if upto is not None and index >= upto:
                return game
            try:
                game.apply(parse_action(text))
            except LuzError as error:
                raise InvalidRecord(
                    f"deal {number}, action {position} (game action {index + 1}) {brief(text)}: {error}"
                ) from None
            index += 1
    if upto is not None and index < upto:
        raise InvalidRecord(f"the record has only {index} actions, not {upto}")
    return game


def _list(deal: dict[str, Any], key: str) -> list[Any]:
    value = deal.get(key)
    if not isinstance(value, list):
        raise InvalidRecord(f"{key} must be a list")
    return value


def _check_sorted(edition: Edition, hands: list[list[Any]]) -> None:
    for seat, hand in enumerate(hands):
        if hand != sorted(hand):
            order = ", ".join(c.letter for c in edition.colours)
            raise InvalidRecord(f"seat {seat}'s hand is not in slot order (colours {order}, then value)")
