"""Bots at the server: they play from their seat's view, in the bot processes, without holding up other tables."""

from __future__ import annotations

import multiprocessing
import random
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from luz.bots import BOTS, RandomBot
from luz.engine import Action, View
from luz.server import Settings, app_services, create_app
from support.server import Peer, Truth, create_table, join_all, play, seats, wait_for

SLOW = 1.0


class SleepyBot(RandomBot):
    """A random bot that thinks for a long time (as a strong bot might)."""

    name = "sleepy"

    def decide(self, view: View, rng: random.Random) -> Action:
        time.sleep(SLOW)
        return super().decide(view, rng)


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the bot processes must inherit the test bot")
def test_a_slow_bot_does_not_hold_up_other_tables(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "sleepy", SleepyBot)
    settings = Settings(database_url=sqlite_url, bot_workers=2, messages_per_second=10_000)
    with TestClient(create_app(settings)) as client:
        truth = Truth(app_services(client.app).tables.store)
        slow_id, _, _ = create_table(client, players=3, seats=seats("sleepy", "sleepy", "sleepy"))
        runtime = app_services(client.app).tables.live[slow_id]
        wait_for(lambda: runtime.state.version > 2 or runtime.game.current_player is not None)
        table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "random", "random"))
        join_all(client, table_id, tokens)
        started = time.monotonic()
        slow_version = runtime.state.version
        with Peer(client, table_id, tokens[0], 0, truth) as human:
            # A whole deal at this table while the slow table's bot thinks about one move.
            state = play([human], until=lambda s: s["view"]["deal_number"] == 2)
        elapsed = time.monotonic() - started
        assert state["version"] > 30
        # (Waiting behind the slow bot, the deal's 22 bot moves would take 22 times as long.)
        assert elapsed < 10 * SLOW, f"a deal took {elapsed:.2f} s next to a bot thinking {SLOW} s a move"
        # The slow table plays on too.
        wait_for(lambda: runtime.state.version > slow_version, timeout=4 * SLOW)


def test_bots_of_every_kind_finish_games_in_the_bot_processes(sqlite_url: str) -> None:
    settings = Settings(database_url=sqlite_url, bot_workers=1)
    with TestClient(create_app(settings)) as client:
        ids = [
            create_table(client, edition=edition, players=players, seats=seats(*kinds))[0]
            for edition, players, kinds in [
                ("iello-2024", 5, ["heuristic", "random"] * 2 + ["heuristic"]),
                ("korokorodou-2014", 3, ["random", "heuristic", "strong:iters=8"]),
                ("standard-deck", 4, ["heuristic"] * 4),
            ]
        ]

        def finished() -> bool:
            return all(client.get(f"/api/tables/{t}").json()["status"] == "over" for t in ids)

        wait_for(finished, timeout=60, step=0.1)
        for table_id in ids:
            record: dict[str, Any] = client.get(f"/api/tables/{table_id}/record").json()
            assert record["outcome"] is not None


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the bot processes must inherit the test bot")
def test_a_bot_over_its_time_is_replaced_for_that_move(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot gets ``bot_seconds`` a move: past it, the quick fallback bot moves for it and the table goes on."""
    monkeypatch.setitem(BOTS, "sleepy", SleepyBot)
    settings = Settings(database_url=sqlite_url, bot_workers=1, bot_seconds=SLOW / 10, messages_per_second=10_000)
    with TestClient(create_app(settings)) as client:
        table_id, _, _ = create_table(client, players=3, seats=seats("sleepy", "sleepy", "sleepy"))
        runtime = app_services(client.app).tables.live[table_id]
        # Twenty moves in the time the sleepy bot takes for five: the fallback moved for it.
        wait_for(lambda: runtime.state.version > 21, timeout=5 * SLOW)
    assert "went over" in caplog.text and "sleepy" in caplog.text


def test_bot_moves_take_at_least_the_pace(sqlite_url: str) -> None:
    """A bot's thinking time depends on what its seat sees, the others' hidden cards included: with a pace, every
    bot move takes the same least time, however quick the bot."""
    pace = 0.25
    settings = Settings(database_url=sqlite_url, bot_workers=0, bot_pace=pace, messages_per_second=10_000)
    with TestClient(create_app(settings)) as client:
        table_id, _, _ = create_table(client, players=3, seats=seats("random", "random", "heuristic"))
        runtime = app_services(client.app).tables.live[table_id]
        wait_for(lambda: runtime.state.version > 2, timeout=10)
        start, first = time.monotonic(), runtime.state.version
        wait_for(lambda: runtime.state.version >= first + 6, timeout=10)
        assert time.monotonic() - start >= 5 * pace  # five moves at least, each at least the pace
