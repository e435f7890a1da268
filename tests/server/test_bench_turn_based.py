"""``luz bench server --turn-based`` (luz.bench.turnbased): the seeded tables rebuild from their record, and a tiny
run reports every figure, sane."""

from __future__ import annotations

from pathlib import Path

import pytest

from luz.bench.turnbased import BOT_SEAT, bench_turn_based, seat_token, seed_tables, table_id, traced_table_memory
from luz.server.db import make_engine
from luz.server.domain import build_game
from luz.server.store import Store


def test_the_seeded_tables_rebuild_from_their_record(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/luz.sqlite3"
    seeded = seed_tables(url, 200, subscribed=2, push_origin="http://127.0.0.1:9")
    assert seeded.count == 200 and len(seeded.since) == 200
    engine = make_engine(url)
    try:
        store = Store(engine)
        for number in (0, 1, 2, 199):
            state = store.load(table_id(number))
            assert state is not None and state.status == "playing" and state.clock is not None
            game = build_game(state)
            assert game is not None and game.current_player == number % 3 != BOT_SEAT
            assert store.seat_of(table_id(number), seat_token(number, game.current_player)) == game.current_player
    finally:
        engine.dispose()


def test_the_memory_of_a_loaded_table_is_traced(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/luz.sqlite3"
    seed_tables(url, 40)
    per_table = traced_table_memory(url, list(range(40)))
    assert 1024 < per_table < 1024 * 1024  # a table, its game and timers: more than a KiB, less than a MiB


@pytest.mark.slow
def test_a_tiny_run_reports_every_figure() -> None:
    report = bench_turn_based(tables=200, active=20, seconds=6, deadlines=20, idle_seconds=1)
    assert report["tables"] == 200 and report["active_tables"] == 20 and report["processes"] == 1
    assert report["database"] == "sqlite" and report["window_s"] >= 5
    assert 0 < report["startup_to_healthz_s"][0] < 120
    assert all(0 < rss < 4096 for rss in report["rss_after_run_mib"])
    assert report["moves_acked"] == report["cold_moves_measured"] == 2  # 20 tables a minute, 6 s
    for name in ("cold_connect_to_ack_ms", "cold_connect_to_state_ms", "cold_act_to_ack_ms"):
        figures = report[name]
        assert figures["count"] == 2 and 0 < figures["p50"] <= figures["p99"] <= figures["max"]
    assert report["cold_act_to_ack_ms"]["p50"] <= report["cold_connect_to_ack_ms"]["p50"]
    assert report["deadlines_aged"] == report["deadlines_fired"] == 20
    assert report["deadlines_fired_per_s"] > 0
    assert report["stored_tables"] == 200  # beside the tables in memory: each figure named for what it counts
    per_table = report["rss_growth_per_table_loaded_kib"]
    assert per_table is not None and per_table >= 0
    assert report["loaded_tables_per_gib"] is None if per_table == 0 else report["loaded_tables_per_gib"] > 0
    assert report["traced_kib_per_loaded_table"] > 1 and report["loaded_tables_per_gib_traced"] > 0
    assert report["move_errors"] == {} and report["server_errors"] == 0 and report["crashed_servers"] == []
    assert report["pushes_received"] >= report["turn_passed_to_push_received_ms"]["count"]
