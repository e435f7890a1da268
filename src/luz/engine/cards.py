"""Cards and colours: small immutable values shared by every edition."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Colour:
    """A colour (or suit) of an edition.

    ``letter`` is the one-letter code used in card notation, ``symbol`` a glyph that tells the colour apart
    without relying on hue (colour-blind players, terminals without colour).
    """

    letter: str
    name: str
    symbol: str
    trump: bool = False


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card: a colour index into the edition's colours (its sorting order) and a value.

    Cards order by colour group first, then value, which is exactly the sorted order of a hand.

    >>> Card(0, 3) < Card(0, 7) < Card(1, 1)
    True
    """

    colour: int
    value: int

    def __repr__(self) -> str:
        return f"Card({self.colour}, {self.value})"
