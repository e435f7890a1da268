"""The LUZ rules engine: pure, typed, no I/O. Everything else in ``luz`` stands on this package.

>>> from luz.engine import Game, Bid, view
>>> game = Game.new("iello-2024", players=4, seed=11)
>>> game.apply(Bid(2, safety=True))
>>> view(game, 0).to_json()["bids"][game.first_player]
{'tricks': 2, 'safety': True}
"""

from .actions import Action, Bid, Play, action_from_json, action_to_json, check_action, parse_action
from .cards import Card, Colour
from .editions import DEFAULT_EDITION, EDITIONS, HAND_SIZE, MAX_BID, Edition, TableOptions, get_edition
from .errors import (
    IllegalAction,
    InvalidAction,
    InvalidCard,
    InvalidDeal,
    InvalidOptions,
    InvalidRecord,
    InvalidScoreDocument,
    InvalidScores,
    LuzError,
    UnknownEdition,
    UnsupportedPlayerCount,
)
from .game import Deal, Game, Phase, Trick, check_deal, shuffle_deal, trick_winner
from .record import replay, to_record
from .scoresheet import sheet_from_json
from .scoring import DealResult, DealResultJson, Outcome, ScoreSheet, TieBreak
from .views import SlotView, View, ViewsJson, face_up_view, played_card_json, view

__all__ = [
    "DEFAULT_EDITION",
    "EDITIONS",
    "HAND_SIZE",
    "MAX_BID",
    "Action",
    "Bid",
    "Card",
    "Colour",
    "Deal",
    "DealResult",
    "DealResultJson",
    "Edition",
    "Game",
    "IllegalAction",
    "InvalidAction",
    "InvalidCard",
    "InvalidDeal",
    "InvalidOptions",
    "InvalidRecord",
    "InvalidScoreDocument",
    "InvalidScores",
    "LuzError",
    "Outcome",
    "Phase",
    "Play",
    "ScoreSheet",
    "SlotView",
    "TableOptions",
    "TieBreak",
    "Trick",
    "UnknownEdition",
    "UnsupportedPlayerCount",
    "View",
    "ViewsJson",
    "action_from_json",
    "action_to_json",
    "check_action",
    "check_deal",
    "face_up_view",
    "get_edition",
    "parse_action",
    "played_card_json",
    "replay",
    "sheet_from_json",
    "shuffle_deal",
    "to_record",
    "trick_winner",
    "view",
]
