"""Typed errors. Every error says what was wrong; none ever names a hidden card value."""

from __future__ import annotations


class LuzError(ValueError):
    """Base of every error the engine raises for bad input."""


class UnknownEdition(LuzError):
    """No edition is registered under this key."""


class UnsupportedPlayerCount(LuzError):
    """The edition is not played with this many players."""


class InvalidOptions(LuzError):
    """Table options that make no sense for this edition and player count."""


class InvalidCard(LuzError):
    """Card notation that does not name a card of this edition."""


class InvalidDeal(LuzError):
    """Explicit hands and aside that are not a deal of this edition (wrong cards, sizes or order)."""


class InvalidAction(LuzError):
    """A malformed action: wrong type, out of any possible range, unparsable text."""


class IllegalAction(LuzError):
    """A well-formed action that the rules forbid now (not your turn, must follow, over the cap...)."""


class InvalidScores(LuzError):
    """Tabletop results that cannot be scored (trick totals, bids out of range, too many deals...)."""


class InvalidScoreDocument(LuzError):
    """A score-keeper JSON document (``luz score``, ``POST /api/score``) that is not one: wrong shape, unknown or
    missing keys; or a deal in it that cannot be scored, named."""


class InvalidRecord(LuzError):
    """A game record that cannot be loaded; says where (deal and action index) and why."""


def brief(value: object, limit: int = 40) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters (a hostile value may be a megabyte of
    text, or a number too long to print)."""
    try:
        text = repr(value)
    except ValueError:  # an integer over Python's 4,300-digit limit for printing
        return "a number too long to print"
    return text if len(text) <= limit else text[: limit - 3] + "..."
