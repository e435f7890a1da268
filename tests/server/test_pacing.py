"""The pacer spreads a burst over turns of the event loop: at most ``per_turn`` pass in one turn, every caller
passes, and a timer due meanwhile runs between them."""

from __future__ import annotations

import asyncio

import pytest

from luz.server.pacing import Pacer


def turns_of_a_burst(callers: int, per_turn: int) -> tuple[list[int], list[int]]:
    """The loop turn each of ``callers`` tasks, started in one turn, passed the pacer in, and the turns in which a
    callback scheduled once per turn saw it was due (it runs once in every turn while the burst lasts)."""
    passed: list[int] = []
    ticks: list[int] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        pacer = Pacer(per_turn)
        turn = 0

        def tick() -> None:  # counts the loop's turns: rescheduled from each turn into the next
            nonlocal turn
            turn += 1
            ticks.append(turn)
            if len(passed) < callers:
                loop.call_soon(tick)

        async def caller() -> None:
            await pacer.wait()
            passed.append(turn)

        loop.call_soon(tick)
        await asyncio.gather(*(caller() for _ in range(callers)))

    asyncio.run(scenario())
    return passed, ticks


@pytest.mark.parametrize(("callers", "per_turn"), [(100, 16), (5, 16), (33, 1)])
def test_at_most_per_turn_pass_in_one_turn_and_every_caller_passes(callers: int, per_turn: int) -> None:
    passed, _ = turns_of_a_burst(callers, per_turn)
    assert len(passed) == callers
    per = {turn: passed.count(turn) for turn in set(passed)}
    assert max(per.values()) <= per_turn
    assert len(per) >= -(-callers // per_turn)  # spread over at least that many turns


def test_the_loop_turns_between_the_bursts_parts() -> None:
    passed, ticks = turns_of_a_burst(100, 16)
    assert set(passed) <= set(ticks)  # each part of the burst passed in a turn where the ticker also ran
    assert len(set(passed)) == 7  # 100 = 6 x 16 + 4


def test_per_turn_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Pacer(0)
