"""Reviews an attacker asks for: each takes the bot processes in short turns under a share of its own, so the
other tables' bot moves never wait for a whole review; and the reviews a process computes are bounded."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from fastapi.testclient import TestClient

from luz.server import Settings, app_services, create_app
from luz.server.tables.botpool import BotPool
from support.server import create_table, guest, seats, wait_for


def hold(seconds: float, tag: str) -> str:
    """A computation that holds its bot process ``seconds`` (a bot move's stand-in)."""
    time.sleep(seconds)
    return tag


def test_a_review_never_holds_the_bot_processes_from_another_tables_moves(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/luz.sqlite3", bot_workers=1, review_queue=4)
    with TestClient(create_app(settings)) as client:
        pool: BotPool = app_services(client.app).tables.bots.pool
        wait_for(lambda: pool.healthy, timeout=60, step=0.05)
        table_id, _, _ = create_table(client, players=4, seats=seats("random", "heuristic", "random", "heuristic"))
        wait_for(lambda: client.get(f"/api/tables/{table_id}").json()["status"] == "over", timeout=60, step=0.05)
        # The attacker asks for every seat's review at the default settings (seconds of search each).
        for seat in range(4):
            asked = client.post(f"/api/tables/{table_id}/games/1/review?seat={seat}", headers=guest(client))
            assert asked.status_code == 202, asked.text
        again = client.post(f"/api/tables/{table_id}/games/1/review?seat=0", headers=guest(client))
        assert again.status_code == 202, "a review being computed is waited on, not asked twice"
        path = f"/api/tables/{table_id}/games/1/review?seat=3"
        wait_for(lambda: client.get(path).json().get("done", 0) >= 1, timeout=60, step=0.02)
        # Another table's moves meanwhile: each waits for one batch of worlds at most, never for a review.
        waits = []
        for n in range(8):
            started = time.monotonic()
            assert pool.submit(f"victim{n % 2}", hold, 0.0, f"move{n}").result(timeout=60) == f"move{n}"
            waits.append(time.monotonic() - started)
        status = client.get(path)
        assert status.status_code == 202 and status.json()["status"] == "running", "the reviews were still computed"
        median, most = statistics.median(waits) * 1000, max(waits) * 1000
        print(f"a move's wait behind 4 reviews: median {median:.0f} ms, max {most:.0f} ms")
        # The four reviews end.
        for seat in range(4):
            path = f"/api/tables/{table_id}/games/1/review?seat={seat}"
            wait_for(lambda path=path: client.get(path).status_code == 200, timeout=300, step=0.2)
