"""Re-dealing what a seat could not see at one of its decisions (the non-interference tests of the review and of
its puzzles)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from luz.bots.review import Decision
from luz.engine import Card, get_edition
from luz.engine.beliefs import Beliefs


def redealt(record: dict[str, Any], decision: Decision, seat: int, rng: np.random.Generator) -> dict[str, Any]:
    """The record up to and including ``decision``, with everything ``seat`` could not see then drawn again from
    its beliefs: its own unplayed values in that deal, and so the aside (the record gives the deals, no seed)."""
    beliefs = Beliefs(decision.seen)
    world = beliefs.world(beliefs.sample_values(1, rng)[0])
    edition = get_edition(record["edition"])
    deals = copy.deepcopy(record["deals"][: decision.deal + 1])
    current = deals[-1]
    hand = [edition.parse_card(name, record["players"]) for name in current["hands"][seat]]
    hand = [Card(card.colour, world.values.get(slot, card.value)) for slot, card in enumerate(hand)]
    current["hands"][seat] = [edition.card_name(card) for card in hand]
    current["aside"] = [edition.card_name(card) for card in sorted(world.aside)]
    current["actions"] = current["actions"][: decision.index + 1]
    return {**record, "seed": None, "deals": deals, "outcome": None}
