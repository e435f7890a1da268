"""Actions: ``Bid(tricks, safety)`` and ``Play(slot)``, with their text and JSON forms.

>>> parse_action("bid:2+"), parse_action("play:7")
(Bid(tricks=2, safety=True), Play(slot=7))
>>> str(Bid(0, safety=True)), action_to_json(Play(3))
('bid:0+', {'type': 'play', 'slot': 3})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .editions import HAND_SIZE, MAX_BID
from .errors import InvalidAction, brief


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``tricks`` (0..10), with the optional safety (make it with ``tricks`` or ``tricks + 1``)."""

    tricks: int
    safety: bool = False

    def __str__(self) -> str:
        return f"bid:{self.tricks}{'+' if self.safety else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """Play the card at ``slot``: its position 0..9 in the dealt, sorted hand (0 = low end)."""

    slot: int

    def __str__(self) -> str:
        return f"play:{self.slot}"


Action = Bid | Play

ALL_BIDS: tuple[Bid, ...] = tuple(Bid(t, s) for t in range(MAX_BID + 1) for s in (False, True))
PLAYS: tuple[Play, ...] = tuple(Play(slot) for slot in range(HAND_SIZE))


def check_action(action: object) -> Action:
    """``action`` if it is a well-formed action, else :class:`InvalidAction` naming what is wrong."""
    if isinstance(action, Bid):
        if isinstance(action.tricks, bool) or not isinstance(action.tricks, int):
            raise InvalidAction(f"a bid's tricks must be a whole number, not {action.tricks!r}")
        if not 0 <= action.tricks <= MAX_BID:
            raise InvalidAction(f"a bid must be 0..{MAX_BID} tricks, not {action.tricks}")
        if not isinstance(action.safety, bool):
            raise InvalidAction(f"a bid's safety must be true or false, not {action.safety!r}")
        return action
    if isinstance(action, Play):
        if isinstance(action.slot, bool) or not isinstance(action.slot, int):
            raise InvalidAction(f"a play's slot must be a whole number, not {action.slot!r}")
        if not 0 <= action.slot < HAND_SIZE:
            raise InvalidAction(f"a slot must be 0..{HAND_SIZE - 1}, not {action.slot}")
        return action
    raise InvalidAction(f"not an action: {action!r} (expected a Bid or a Play)")


def parse_action(text: str) -> Action:
    """The action written ``bid:N``, ``bid:N+`` (with safety) or ``play:SLOT``."""
    if not isinstance(text, str):
        raise InvalidAction(f"an action must be text like 'bid:2', 'bid:2+' or 'play:4', not {brief(text)}")
    kind, sep, arg = text.strip().lower().partition(":")
    if sep and kind == "bid":
        safety = arg.endswith("+")
        number = arg[:-1] if safety else arg
        if _is_number(number):
            return check_action(Bid(int(number), safety))
    elif sep and kind == "play" and _is_number(arg):
        return check_action(Play(int(arg)))
    raise InvalidAction(f"cannot read action {brief(text)}: expected 'bid:N', 'bid:N+' or 'play:SLOT'")


def _is_number(text: str) -> bool:
    """Plain ASCII digits (``str.isdigit`` also accepts digits that ``int`` refuses, like ``²``), few enough for
    ``int`` to read (it refuses over 4,300; no bid or slot has more than two)."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Bid):
        return {"type": "bid", "tricks": action.tricks, "safety": action.safety}
    return {"type": "play", "slot": action.slot}


def action_from_json(data: Any) -> Action:
    """An action from its JSON object form; :class:`InvalidAction` if malformed."""
    if not isinstance(data, dict):
        raise InvalidAction(f"an action must be an object, not {type(data).__name__}")
    kind = data.get("type")
    if kind == "bid":
        if set(data) - {"type", "tricks", "safety"} or "tricks" not in data:
            raise InvalidAction("a bid has exactly 'tricks' and optionally 'safety'")
        return check_action(Bid(data["tricks"], data.get("safety", False)))
    if kind == "play":
        if set(data) != {"type", "slot"}:
            raise InvalidAction("a play has exactly 'slot'")
        return check_action(Play(data["slot"]))
    raise InvalidAction(f"unknown action type {kind!r}: expected 'bid' or 'play'")
