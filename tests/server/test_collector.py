"""The freezing collector (collector.py): a full collection at the start, then never while tables are live."""

from __future__ import annotations

import asyncio
import gc

import pytest

from luz.server import collector


def test_no_full_collection_while_tables_are_live(monkeypatch: pytest.MonkeyPatch) -> None:
    live = {"table"}
    size = [100 << 20]
    monkeypatch.setattr(collector, "memory_size", lambda: size[0])

    async def scenario() -> tuple[int, bool, int, bool]:
        freezing = collector.FreezingCollector(asyncio.get_running_loop(), lambda: not live, interval=3600)
        try:
            assert freezing.full_collections == 1  # the warm-up, before serving
            size[0] = 1000 << 20  # grown tenfold
            freezing._step()
            busy = freezing.full_collections, freezing.put_off
            live.clear()
            freezing._step()
            return (*busy, freezing.full_collections, freezing.put_off)
        finally:
            freezing.stop()

    assert asyncio.run(scenario()) == (1, True, 2, False)
    assert gc.get_freeze_count() == 0  # stopped: the collector as it was
