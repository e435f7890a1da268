"""The daily deal's pure rules (luz.server.daily): the seed, the day, the marks, ranks and percentiles, the chart's
bars, the share text and the streak."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from luz.engine import DealResult
from luz.server import daily

DAY = date(2026, 12, 6)


def test_the_seed_is_the_days_and_editions_under_the_secret() -> None:
    seeds = {daily.seed_of(b"secret", DAY + timedelta(days=n), deal.edition) for n in range(30) for deal in daily.DEALS}
    assert len(seeds) == 30 * len(daily.DEALS)  # a new deal each day, for each edition
    assert daily.seed_of(b"secret", DAY, "iello-2024") == daily.seed_of(b"secret", DAY, "iello-2024")
    assert daily.seed_of(b"other", DAY, "iello-2024") != daily.seed_of(b"secret", DAY, "iello-2024")
    assert all(0 <= seed < 2**63 for seed in seeds)  # a database BIGINT


def test_the_day_turns_at_utc_midnight() -> None:
    midnight = daily.day_end(DAY)
    assert daily.day_of(midnight - 1) == DAY and daily.day_of(midnight) == DAY + timedelta(days=1)
    assert daily.seconds_left(midnight - 90) == 90


def deal(bid: int, safety: bool, tricks: int) -> DealResult:
    return DealResult(0, (bid, 0, 0, 0), (safety, False, False, False), (tricks, 0, 0, 0), (0, 0, 0, 0))


def test_a_deals_mark() -> None:
    assert daily.mark(deal(3, False, 3)) == "made"
    assert daily.mark(deal(3, True, 4)) == "safety" and daily.mark(deal(3, True, 3)) == "safety"
    assert daily.mark(deal(3, False, 4)) == "missed" and daily.mark(deal(3, True, 5)) == "missed"


def test_ranks_percentiles_and_the_top() -> None:
    histogram = [(80, 1), (40, 2), (-10, 1)]
    assert daily.rank_of(40, histogram) == (2, 4)
    assert daily.percentile(2, 4) == 75 and daily.top(2, 4) == 50
    assert daily.place(90, histogram, ranked=False) == (1, 5)  # a guest placed among the ranked
    assert daily.percentile(1, 1) == 100 and daily.top(1, 1) == 100


@given(st.lists(st.tuples(st.integers(-200, 200), st.integers(1, 50)), min_size=1, unique_by=lambda p: p[0]))
def test_the_charts_bars_hold_every_player_once(histogram: list[tuple[int, int]]) -> None:
    bars = daily.distribution(histogram)
    assert 1 <= len(bars) <= 10
    assert sum(bar["players"] for bar in bars) == sum(count for _, count in histogram)
    assert bars[0]["low"] == min(s for s, _ in histogram) and bars[-1]["high"] == max(s for s, _ in histogram)
    for value, _ in histogram:
        assert sum(bar["low"] <= value <= bar["high"] for bar in bars) == 1


def test_the_share_text_tells_no_card_and_no_bid() -> None:
    text = daily.share_text(DAY, "LUZ (IELLO, 2024)", ["made", "safety", "missed", "made"], -15, rank=10, players=40)
    assert text == "LUZ daily 2026-12-06 · LUZ (IELLO, 2024)\n🟩🟨🟥🟩 -15 · top 25%"


def test_the_streak_counts_days_in_a_row() -> None:
    week = [DAY - timedelta(days=n) for n in range(7)]
    assert daily.streak(week, DAY) == 7
    assert daily.streak(week[1:], DAY) == 6  # today's may still be played
    assert daily.streak(week[2:], DAY) == 0
    assert daily.streak(week[:3] + week[4:], DAY) == 3
