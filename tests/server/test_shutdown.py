"""``luz serve`` stops when told: on SIGTERM it stops accepting, closes the WebSockets with 1012 (service restart:
the clients reconnect), ends the event streams and exits within 10 s, whatever its bot processes are doing, with
every acknowledged action stored.

Slow (real server processes, one compiling the bots' fast core): marked ``slow``.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from support.server import (
    ServerProcess,
    Truth,
    WirePeer,
    action_log,
    alive,
    assert_log_has_no_gap,
    assert_stored,
    backend_urls,
    children_of,
    create_table,
    guest,
    join_all,
    open_store,
    play_wire,
    seats,
    wait_for,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the bot processes from /proc"),
]

STOP_LIMIT = 10.0
"""Seconds from SIGTERM to the server's exit."""


def stop_timed(server: ServerProcess) -> float:
    """SIGTERM the server and wait for it to exit (generously: the assertion is on the time it took)."""
    assert server.process is not None
    told = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    try:
        server.process.wait(STOP_LIMIT + 50)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the server ignored SIGTERM for {STOP_LIMIT + 50:g} s")
    return time.monotonic() - told


def test_sigterm_while_the_bot_process_compiles_stops_the_server_within_10_s(tmp_path: Path) -> None:
    """A cold install: the bot process compiles the fast core (numba, tens of seconds to minutes) as the server
    starts serving. Before, SIGTERM waited for the compile to end (30 s to over 90 s); now the bot process is
    terminated and the server exits at once."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()  # empty: nothing compiled yet
    server = ServerProcess(
        f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=1, env={"NUMBA_CACHE_DIR": str(cache)}
    )
    try:
        server.start()
        assert server.process is not None
        pid = server.process.pid
        workers = wait_for(lambda: children_of(pid), timeout=30)
        health = httpx.get(f"{server.http}/healthz", timeout=10).json()
        assert health["bots"] == "starting", health  # still warming up: compiling
        took = stop_timed(server)
        assert took < STOP_LIMIT, f"stopped {took:.1f} s after SIGTERM"
        assert wait_for(lambda: not any(alive(w) for w in workers), timeout=10)
        print(f"stopped {took:.2f} s after SIGTERM during the bot process's warm-up")
    finally:
        server.stop()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_sigterm_closes_the_sockets_with_1012_and_keeps_every_acknowledged_action(backend: str, tmp_path: Path) -> None:
    with backend_urls(backend, tmp_path) as url:
        asyncio.run(stop_while_playing(url, tmp_path))


async def stop_while_playing(url: str, tmp_path: Path) -> None:
    """Two players acting as fast as they can at a table with a search bot, a spectator and a player's event
    stream open: SIGTERM. Each socket is closed with 1012, the event stream ends (before, it held the shutdown up
    for ever), the server exits within 10 s, and every action acknowledged is in the database, the log whole."""
    server = ServerProcess(url, tmp_path / "server.log", bot_workers=1).start()
    store = open_store(url)
    truth = Truth(store)
    peers: list[WirePeer] = []
    try:
        assert server.process is not None
        wait_for(lambda: httpx.get(f"{server.http}/healthz", timeout=10).json()["bots"] == "ready", timeout=300)
        with httpx.Client(base_url=server.http, timeout=10) as http:
            table_id, tokens, _ = create_table(http, players=3, seats=seats("human", "human", "strong:iters=16"))
            join_all(http, table_id, tokens)
            watcher = guest(http)
        peers = [WirePeer(server.ws, table_id, tokens[s], s, truth) for s in (0, 1)]
        peers.append(WirePeer(server.ws, table_id, None, None, truth))  # a spectator
        for peer in peers:
            await peer.__aenter__()
        events_open = asyncio.Event()
        events = asyncio.create_task(read_events(server.http, watcher, events_open))
        await asyncio.wait_for(events_open.wait(), 30)
        playing = asyncio.create_task(play_wire(peers[:2], timeout=300))
        deadline = time.monotonic() + 60
        while sum(len(peer.acks) for peer in peers) < 8:
            assert time.monotonic() < deadline and not playing.done(), "the game did not move"
            await asyncio.sleep(0.01)
        workers = children_of(server.process.pid)
        took = await asyncio.to_thread(stop_timed, server)
        with pytest.raises((AssertionError, ConnectionClosed)):
            await playing  # cut short by the sockets' closing (a reply that never came, or a send refused)
        lines = await asyncio.wait_for(events, 10)  # ended by the server, not cut
        assert took < STOP_LIMIT, f"stopped {took:.1f} s after SIGTERM"
        for peer in peers:
            assert isinstance(peer.closed, ConnectionClosed), peer.closed
            assert peer.closed.rcvd is not None and peer.closed.rcvd.code == 1012, peer.closed
        assert lines and lines[0] == "event: games", lines
        assert wait_for(lambda: not any(alive(w) for w in workers), timeout=10)
        acked = [a for peer in peers for a in peer.acks]
        for version, action in acked:
            assert_stored(store, table_id, version, action)
        assert_log_has_no_gap(action_log(store, table_id))
        assert "Traceback" not in server.log() and "never retrieved" not in server.log(), server.log()[-3000:]
        print(f"stopped {took:.2f} s after SIGTERM with {len(acked)} actions acknowledged, all stored")
    finally:
        for peer in peers:
            await peer.close()
        server.stop()
        store.engine.dispose()


async def read_events(base: str, identity: dict[str, str], opened: asyncio.Event) -> list[str]:
    """The lines of ``/api/me/events`` until the server ends the stream."""
    lines: list[str] = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(10, read=None)) as http,
        http.stream("GET", "/api/me/events", headers=identity) as response,
    ):
        assert response.status_code == 200
        async for line in response.aiter_lines():
            lines.append(line)
            opened.set()
    return lines
