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


def test_two_greedy_clients_cannot_keep_a_third_clients_review_from_being_computed(tmp_path: Path) -> None:
    """Two clients that asked again as soon as one of theirs ended kept every place (4 a process, 2 a client)
    and the third client was refused; now the reviews wait their turn, one client after another, and the third
    client's is computed while the two greedy ones still ask. A real server, one review at a time; each client
    from an address of its own (127.0.0.2, 127.0.0.3, 127.0.0.4)."""
    import httpx

    from support.server import ServerProcess

    env = {"LUZ_REVIEW_QUEUE": "1", "LUZ_REVIEWS_PER_CLIENT": "2", "LUZ_REVIEW_WORLDS": "64"}
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=1, env=env)
    server.start(timeout=120)
    clients = [
        httpx.Client(base_url=server.http, timeout=30, transport=httpx.HTTPTransport(local_address=f"127.0.0.{n}"))
        for n in (2, 3, 4)
    ]
    try:
        greedy_a, greedy_b, victim = clients
        bots = seats("random", "random", "random")
        tables = [
            victim.post("/api/tables", json={"players": 3, "seats": bots}).json()["table"]["id"] for _ in range(5)
        ]
        wait_for(lambda: all(victim.get(f"/api/tables/{t}").json()["status"] == "over" for t in tables), timeout=120)
        paths = [f"/api/tables/{t}/games/1/review?seat={s}" for t in tables for s in range(3)]
        supply = {id(greedy_a): paths[:7], id(greedy_b): paths[7:14]}
        mine = paths[14]

        def ask(http: httpx.Client, path: str) -> httpx.Response:
            session = http.post("/api/me/guest").json()["session"]  # a fresh guest: one review per identity
            return http.post(path, headers={"X-Luz-Session": session})

        asked: dict[int, list[str]] = {id(greedy_a): [], id(greedy_b): []}
        for http in (greedy_a, greedy_b):
            for _ in range(2):
                path = supply[id(http)].pop(0)
                assert ask(http, path).status_code == 202
                asked[id(http)].append(path)
        third = ask(victim, mine)
        assert third.status_code == 202, third.text
        position = third.json().get("position")
        print(f"the third client's review: {third.json()}")
        greedy_done = 0
        deadline = time.monotonic() + 300
        while victim.get(mine).status_code != 200:
            assert time.monotonic() < deadline, "the third client's review was never computed"
            for http in (greedy_a, greedy_b):
                for path in list(asked[id(http)]):
                    if http.get(path).status_code == 200:  # one ended: the greedy client asks again at once
                        greedy_done += 1
                        asked[id(http)].remove(path)
                        assert supply[id(http)], "the greedy clients ran out of reviews to ask before the third's"
                        fresh = supply[id(http)].pop(0)
                        assert ask(http, fresh).status_code == 202
                        asked[id(http)].append(fresh)
            time.sleep(0.05)
        print(f"computed before the third client's: {greedy_done} of the greedy clients' (it was at {position})")
        assert position is not None and position <= 3
        assert greedy_done <= 3 and all(asked.values()), "the greedy clients were still asking"
    finally:
        for http in clients:
            http.close()
        server.stop()
