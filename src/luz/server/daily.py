"""The daily deal's rules, pure: the day (UTC), its secret seed per edition, the seat and bots everyone plays it
with, a score's rank and percentile among the day's players, a deal's mark and the share text (no spoilers).

>>> day_of(1_700_000_000.0)
datetime.date(2023, 11, 14)
>>> seconds_left(1_700_000_000.0)
6400.0
>>> percentile(rank=1, players=4)
100
>>> share_text(date(2023, 11, 14), "LUZ (IELLO, 2024)", ["made", "missed", "safety", "made"], 55, rank=3, players=12)
'LUZ daily 2023-11-14 · LUZ (IELLO, 2024)\\n🟩🟥🟨🟩 55 · top 25%'
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from luz.engine import DealResult

DAY_SECONDS = 86_400


@dataclass(frozen=True)
class DailyDeal:
    """One edition's daily deal: played at its usual size, you at ``SEAT`` against bots of level ``BOT``."""

    edition: str
    players: int


DEALS = (DailyDeal("iello-2024", 4), DailyDeal("korokorodou-2014", 4), DailyDeal("standard-deck", 4))
"""The day's deals, in the order the pages show them (IELLO first)."""
SEAT = 0
"""Your seat (the first to bid): the same for everyone."""
BOT = "heuristic"
"""The bots' level: a quick bot, deterministic given its seed (a search bot that overran its time would fall back
to another bot, and two players could meet different moves)."""

MARKS = {"made": "🟩", "safety": "🟨", "missed": "🟥"}
"""A deal's mark in the share text: made, made with the safety, missed."""


def deal_of(edition: str) -> DailyDeal:
    """The daily deal of ``edition``; ``KeyError`` if it has none."""
    for deal in DEALS:
        if deal.edition == edition:
            return deal
    raise KeyError(edition)


def day_of(now: float) -> date:
    """The UTC day of the epoch time ``now``."""
    return datetime.fromtimestamp(now, UTC).date()


def day_end(day: date) -> float:
    """The epoch time at which ``day`` ends (the next UTC midnight)."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() + DAY_SECONDS


def seconds_left(now: float) -> float:
    """Seconds until the day of ``now`` ends."""
    return day_end(day_of(now)) - now


def seed_of(secret: bytes, day: date, edition: str) -> int:
    """The day's deal of ``edition``: an HMAC-SHA256 of the day and edition under the server's secret, as a
    63-bit integer (it fits a database's BIGINT). Without the secret, nobody can tell it before the day.

    >>> seed_of(b"k", date(2026, 12, 6), "iello-2024") != seed_of(b"k", date(2026, 12, 7), "iello-2024")
    True
    """
    digest = hmac.new(secret, f"luz-daily:{day.isoformat()}:{edition}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def mark(result: DealResult, seat: int = SEAT) -> str:
    """``made``, ``safety`` (made with the safety) or ``missed``: ``seat``'s bid in one scored deal."""
    bid, tricks, safety = result.bids[seat], result.tricks[seat], result.safety[seat]
    if tricks == bid or (safety and tricks == bid + 1):
        return "safety" if safety else "made"
    return "missed"


def rank_of(score: int, histogram: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """``score``'s rank (1: the best; ties share a rank) and the number of players, from ``(score, players)``
    pairs.

    >>> rank_of(30, [(50, 2), (30, 3), (10, 1)])
    (3, 6)
    """
    above = players = 0
    for value, count in histogram:
        players += count
        if value > score:
            above += count
    return above + 1, players


def place(score: int, histogram: Sequence[tuple[int, int]], ranked: bool) -> tuple[int, int]:
    """Where ``score`` stands among the day's ranked players: its rank and their number; a guest's (not
    ``ranked``: not in ``histogram``) placed among them as if it were.

    >>> place(30, [(50, 1), (30, 1)], ranked=True), place(30, [(50, 1), (30, 1)], ranked=False)
    ((2, 2), (2, 3))
    """
    rank, players = rank_of(score, histogram)
    return rank, players if ranked else players + 1


def percentile(rank: int, players: int) -> int:
    """The share of the day's players (percent, rounded down) whose score was not better than that of ``rank``:
    the best is 100; the worst of four is 25.

    >>> percentile(rank=4, players=4), percentile(rank=2, players=3)
    (25, 66)
    """
    return (players - rank + 1) * 100 // players if players else 100


def top(rank: int, players: int) -> int:
    """The "top N%" that ``rank`` among ``players`` puts you in (rounded up: the best of two is in the top 50%).

    >>> top(1, 2), top(1, 1000), top(7, 7)
    (50, 1, 100)
    """
    return -(-100 * rank // players) if players else 100


def distribution(histogram: Sequence[tuple[int, int]], buckets: int = 10) -> list[dict[str, int]]:
    """The day's scores as at most ``buckets`` bars of equal width, each ``{"low", "high", "players"}`` (the
    scores ``low`` to ``high`` included), lowest first.

    >>> distribution([(-10, 1), (0, 2), (10, 3)], buckets=2)
    [{'low': -10, 'high': 0, 'players': 3}, {'low': 1, 'high': 10, 'players': 3}]
    """
    if not histogram:
        return []
    low, high = min(v for v, _ in histogram), max(v for v, _ in histogram)
    width = max(1, -(-(high - low + 1) // buckets))
    bars = [{"low": low + n * width, "high": low + (n + 1) * width - 1, "players": 0} for n in range(buckets)]
    for value, count in histogram:
        bars[(value - low) // width]["players"] += count
    while bars and bars[-1]["low"] > high:
        bars.pop()
    bars[-1]["high"] = high
    return bars


def share_text(day: date, edition_name: str, marks: Sequence[str], score: int, rank: int, players: int) -> str:
    """What a player shares of their daily: the day, the edition, one mark per deal (made, made with the safety,
    missed), the score and where it stands ("top N%"); no card, no bid."""
    deals = "".join(MARKS[m] for m in marks)
    return f"LUZ daily {day.isoformat()} · {edition_name}\n{deals} {score} · top {top(rank, players)}%"


def streak(days: Iterable[date], today: date) -> int:
    """Days in a row with a daily played, ending today or yesterday (today's may still be to play).

    >>> d = date(2026, 12, 6)
    >>> streak([d, d - timedelta(days=1), d - timedelta(days=3)], d), streak([d - timedelta(days=1)], d)
    (2, 1)
    """
    played = set(days)
    day = today if today in played else today - timedelta(days=1)
    count = 0
    while day in played:
        count += 1
        day -= timedelta(days=1)
    return count
