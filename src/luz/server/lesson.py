"""The tutorial's deduction lesson: a prepared position (not a live game) and what the engine's beliefs say of it.

The learner holds three red cards at the start of a 3-player IELLO deal. The other two hands show four of the
eight red values; the four the learner sees nowhere (1, 3, 6, 8) are in its hand or set aside, and its hand is
sorted, so its 3rd card, the highest of its three reds, is 6 or 8: 8 three times as often (the engine counts the
worlds). Its values are prepared, so showing their probabilities hides nothing of any game.

>>> lesson = lesson_json()
>>> [(v["value"], v["numerator"], v["denominator"]) for v in lesson["marginals"][2]["values"]]
[(6, 1, 4), (8, 3, 4)]
"""

from __future__ import annotations

from typing import Any

from luz.engine import Card, Game, View, get_edition, view
from luz.engine.beliefs import Beliefs

EDITION = "iello-2024"
PLAYERS = 3
LEARNER = 0
QUESTION_SLOT = 2
"""The card asked about ("your 3rd card"): the highest of the learner's three reds."""

_HANDS = (  # (colour, value); colours in the edition's order: red, green, blue, purple, yellow (trump)
    ((0, 3), (0, 6), (0, 8), (1, 2), (1, 7), (2, 4), (2, 5), (3, 6), (4, 1), (4, 8)),
    ((0, 2), (0, 5), (1, 1), (1, 4), (1, 8), (2, 1), (2, 7), (3, 3), (4, 3), (4, 6)),
    ((0, 4), (0, 7), (1, 3), (1, 6), (2, 2), (2, 8), (3, 1), (3, 5), (4, 5), (4, 7)),
)
_ASIDE = ((0, 1), (1, 5), (2, 3), (2, 6), (3, 2), (3, 4), (3, 7), (3, 8), (4, 2), (4, 4))


def lesson_view() -> View:
    """The position as the learner sees it: the deal's first bid is its own."""
    edition = get_edition(EDITION)
    game = Game(edition, PLAYERS, edition.options(PLAYERS, first_player=LEARNER))
    game.deal([[Card(c, v) for c, v in hand] for hand in _HANDS], [Card(c, v) for c, v in _ASIDE])
    return view(game, LEARNER)


def lesson_json() -> dict[str, Any]:
    """The lesson for the client: the learner's view, the question, each candidate value's verdict, and the exact
    marginal of every hidden slot (the engine's :class:`~luz.engine.beliefs.Beliefs` of that view)."""
    seen = lesson_view()
    beliefs = Beliefs(seen)
    edition = seen.edition
    low, high = edition.values[PLAYERS]
    colour = seen.hands[LEARNER][QUESTION_SLOT].colour
    letter = edition.colours[colour].letter
    holders = {s.value: h for h, hand in enumerate(seen.hands) for s in hand if s.colour == colour and s.value}
    asked = beliefs.probabilities(QUESTION_SLOT)
    best = max(asked.values())

    def verdict(value: int) -> str:
        if value in holders:
            return "seen"  # in another hand, face up for the learner
        if value not in asked:
            return "order"  # unseen, but the hand's order rules it out
        return "likeliest" if asked[value] == best else "possible"

    return {
        "view": seen.to_json(),
        "question": {"slot": QUESTION_SLOT, "colour": letter},
        "candidates": [
            {"value": v, "name": edition.value_name(v), "verdict": verdict(v), "holder": holders.get(v)}
            for v in range(low, high + 1)
        ],
        "worlds": beliefs.world_count(),
        "marginals": [
            {
                "slot": slot,
                "values": [
                    {
                        "value": v,
                        "name": edition.value_name(v),
                        "numerator": p.numerator,
                        "denominator": p.denominator,
                        "probability": float(p),
                    }
                    for v, p in sorted(probabilities.items())
                ],
            }
            for slot, probabilities in sorted(beliefs.exact_table().items())
        ],
    }
