"""History: a finished game's results are stored once with its last action; profiles list the games (with their
replays) and statistics; ``luz export`` and ``/api/export`` write finished games as records that replay."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from luz.engine import replay
from luz.server import Settings, app_services, create_app
from luz.server.history import finished_keys
from support.server import LUZ, Peer, Truth, create_table, guest, play, seats, wait_for

HEADER = "X-Luz-Session"


def finished_table(client: Any, truth: Truth) -> tuple[str, list[str]]:
    """A 3-player game of two guests and a bot, played to its end; the guests' player ids."""
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    players = []
    for seat in (0, 1):
        headers = guest(client)
        players.append(client.get("/api/me", headers=headers).json()["id"])
        joined = client.post(
            f"/api/tables/{table_id}/seats/{seat}/join",
            json={"name": ("Ann", "Bob")[seat], "token": tokens[seat]},
            headers=headers,
        )
        assert joined.status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as zero, Peer(client, table_id, tokens[1], 1, truth) as one:
        final = play([zero, one])
    assert final["table"]["status"] == "over"
    return table_id, players


def test_a_finished_game_is_in_its_players_profiles_and_exports(client: Any, truth: Truth, database_url: str) -> None:
    table_id, (first, second) = finished_table(client, truth)
    record = client.get(f"/api/tables/{table_id}/record").json()
    outcome = replay(record).outcome()
    assert outcome is not None
    with app_services(client.app).engine.connect() as connection:
        stored = connection.execute(text("SELECT seat, player_id, rank, points FROM results ORDER BY seat")).all()
    assert [tuple(r) for r in stored] == [
        (seat, (first, second, None)[seat], outcome.ranking.index(seat) + 1, outcome.totals[seat]) for seat in range(3)
    ]

    profile = client.get(f"/api/players/{first}").json()
    assert profile["id"] == first and profile["account"] is False
    [game] = profile["games"]
    assert game["table"] == table_id and game["game"] == 1 and game["seat"] == 0
    assert game["replay"] == f"/replay/{table_id}?game=1" and game["edition"] == "iello-2024"
    assert [p["name"] for p in game["players"]] == ["Ann", "Bob", "random"]
    stats = profile["stats"]
    assert stats["all"]["games"] == 1 and stats["against_bots"]["games"] == 1 and stats["against_humans"]["games"] == 0
    deals = len(record["deals"])
    assert stats["all"]["points_per_deal"] == outcome.totals[0] / deals
    assert stats["all"]["win_rate"] == (1.0 if outcome.winner == 0 else 0.0)
    assert client.get("/api/players/0123456789abcdef").status_code == 404

    lines = client.get("/api/export", params={"since": "2000-01-01"})
    assert lines.status_code == 200 and lines.headers["content-type"].startswith("application/x-ndjson")
    [exported] = [json.loads(line) for line in lines.text.splitlines()]
    assert exported["site"]["table"] == table_id and exported["names"] == ["Ann", "Bob", "random"]
    assert {k: v for k, v in exported.items() if k not in ("site", "names")} == {
        k: v for k, v in record.items() if k != "names"
    }
    assert client.get("/api/export", params={"since": "2999-01-01"}).text == ""
    assert client.get("/api/export", params={"since": "yesterday"}).status_code == 422

    cli = subprocess.run(
        [str(LUZ), "export", "--since", "2000-01-01", "--database-url", database_url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    assert [json.loads(line) for line in cli.stdout.splitlines()] == [exported]


def test_export_refuses_a_bad_day_in_one_line() -> None:
    cli = subprocess.run(
        [str(LUZ), "export", "--since", "1st of May"], capture_output=True, text=True, timeout=60, check=False
    )
    assert cli.returncode == 2 and cli.stderr.strip().splitlines() == [
        "error: --since must be a day as YYYY-MM-DD, not '1st of May'"
    ]


def test_the_export_comes_in_pages_at_a_limited_rate(database_url: str) -> None:
    """``/api/export`` gave the whole history in one answer to anyone, as often as asked: now pages of at most 100
    games, each naming the next in its ``Link`` header, at most ``exports_per_minute`` pages per client."""
    from fastapi.testclient import TestClient

    settings = Settings(database_url=database_url, bot_workers=0, exports_per_minute="8/minute")
    with TestClient(create_app(settings)) as client:
        engine, epoch = app_services(client.app).engine, datetime(2000, 1, 1, tzinfo=UTC)
        for _ in range(3):
            create_table(client, players=3, seats=seats("random", "random", "random"))
        wait_for(lambda: len(finished_keys(engine, epoch)) >= 3, timeout=120)
        before = finished_keys(engine, epoch)[:3]
        sites, url, pages = [], "/api/export?since=2000-01-01&limit=2", 0
        while url:
            page = client.get(url)
            assert page.status_code == 200 and page.headers["content-type"].startswith("application/x-ndjson")
            records = [json.loads(line) for line in page.text.splitlines()]
            assert 1 <= len(records) <= 2 and all(replay(r).outcome() is not None for r in records)
            sites += [(r["site"]["table"], r["site"]["game"]) for r in records]
            link = page.headers.get("link")
            url = link.removeprefix("<").split(">")[0] if link else ""
            assert not link or link.endswith('>; rel="next"')
            pages += 1
        # Every game finished before the paging began, each once, in the order of the pages (games finished
        # meanwhile, the bots playing on, come after them).
        assert sites[:3] == [(t, g) for t, g, _ in before] and len(set(sites)) == len(sites) >= 3
        assert pages >= 2
        last = f"{sites[-1][0]}:{sites[-1][1]}"
        assert client.get(f"/api/export?since=2000-01-01&after={last}").status_code == 200
        for bad in ("limit=101", "limit=0", "after=nope", "after=abc:1:2"):
            assert client.get(f"/api/export?since=2000-01-01&{bad}").status_code == 422, bad
        unknown = client.get("/api/export?since=2000-01-01&after=0123456789abcdef:1")
        assert unknown.status_code == 422 and "after" in unknown.json()["detail"]
        answers = [client.get("/api/export?since=2000-01-01&limit=1") for _ in range(8)]
        refused = [a for a in answers if a.status_code == 429]
        assert refused and all(int(a.headers["retry-after"]) > 0 for a in refused)
        assert refused[0].json()["detail"] == "too many export pages: wait a little"


def test_the_export_leaves_out_unlisted_tables(database_url: str) -> None:
    """``/api/export`` published an unlisted table's games with its id (the only key to watch its later games): now
    only listed tables' games; the operator's ``luz export`` still writes them all."""
    from fastapi.testclient import TestClient

    settings = Settings(database_url=database_url, bot_workers=0)
    with TestClient(create_app(settings)) as client:
        engine, epoch = app_services(client.app).engine, datetime(2000, 1, 1, tzinfo=UTC)
        listed, _, _ = create_table(client, players=3, seats=seats("random", "random", "random"))
        unlisted, _, _ = create_table(client, players=3, public=False, seats=seats("random", "random", "random"))
        played = {listed, unlisted}
        wait_for(lambda: played <= {t for t, _, _ in finished_keys(engine, epoch)}, timeout=120)
        exported = client.get("/api/export", params={"since": "2000-01-01"})
        tables = {json.loads(line)["site"]["table"] for line in exported.text.splitlines()}
        assert listed in tables and unlisted not in tables
        assert unlisted not in exported.text
        first_unlisted = next(g for t, g, _ in finished_keys(engine, epoch) if t == unlisted)
        cursor = client.get("/api/export", params={"since": "2000-01-01", "after": f"{unlisted}:{first_unlisted}"})
        assert cursor.status_code == 422, "an unlisted game's site is no cursor either"
        assert {t for t, _, _ in finished_keys(engine, epoch, listed_only=True)} & played == {listed}
