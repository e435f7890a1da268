"""A tournament round's tables through the door (tables/rounds.py), on SQLite and PostgreSQL: ``StartRound`` seats
every player a table was created for and starts its game in one transaction and one version, stored before it is
applied, caught up after another write; and a round whose forming a crash cut short is finished by the next look
at the tournament, each table started once."""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from luz.server import Settings, app_services, create_app
from luz.server.clock import FakeClock
from luz.server.db import GameRow, PlayerRow
from luz.server.domain import Status
from luz.server.store import NewTable, insert_tables
from luz.server.tables.commands import StartRound
from luz.server.tables.registry import Registry
from luz.server.tables.table import Table
from support.server import guest, open_store

SEED = 2026
BOT = {"kind": "bot", "bot": "quick"}
CLOCK_START = 1_700_000_000.0


def app(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url, bot_workers=0), FakeClock(CLOCK_START)))


def round_table(client: TestClient, humans: int = 3) -> tuple[str, list[str]]:
    """A tournament's table of 4 as a round creates it: ``humans`` seats reserved for new players, bots after."""
    engine = app_services(client.app).engine
    players = [secrets.token_hex(8) for _ in range(humans)]
    with engine.begin() as connection:
        stamp = datetime.now(UTC)
        for n, player in enumerate(players):
            connection.execute(insert(PlayerRow).values(id=player, name=f"player {n}", created_at=stamp))
    seats: list[dict[str, Any]] = [{"kind": "human", "player": p, "name": f"player {n}"} for n, p in enumerate(players)]
    seats += [BOT] * (4 - humans)
    table = NewTable(
        name="Sunday · 1.1",
        edition="iello-2024",
        players=4,
        options={},
        public=False,
        grace_seconds=30.0,
        seats=seats,
        time_control={"reserve_ms": 300_000, "increment_ms": 10_000},
    )
    with Session(engine) as session, session.begin():
        [(table_id, _)] = insert_tables(session, [table])
    return table_id, players


def live(client: TestClient, table_id: str) -> Table:
    async def get() -> Table:
        table = await app_services(client.app).tables.get(table_id)
        assert table is not None
        return table

    return client.portal.call(get)


def submit(client: TestClient, table: Table, seed: int = SEED) -> Any:
    return client.portal.call(app_services(client.app).tables.submit, table, StartRound(seed))


def games(database_url: str, table_id: str) -> list[int]:
    with Session(open_store(database_url).engine) as session:
        return list(session.scalars(select(GameRow.seed).where(GameRow.table_id == table_id)))


def test_start_round_seats_every_player_and_starts_the_game_in_one_version(database_url: str) -> None:
    with app(database_url) as client:
        table_id, players = round_table(client)
        table = live(client, table_id)
        assert table.state.status == Status.WAITING and table.state.version == 1
        assert [s.joined for s in table.state.seats] == [False, False, False, True]  # reserved, not yet taken
        outcome = submit(client, table)
        assert outcome.started and outcome.tell and outcome.version == 2  # one version for every seat and the start
        assert table.state.status == Status.PLAYING and table.state.game_no == 1 and table.state.seed == SEED
        assert [s.player for s in table.state.seats[:3]] == players and all(s.joined for s in table.state.seats)
        assert table.game is not None and table.state.clock is not None
        stored = open_store(database_url).load(table_id)
        assert stored is not None and (stored.version, stored.status, stored.seats) == (
            2,
            Status.PLAYING,
            table.state.seats,
        )
        assert games(database_url, table_id) == [SEED]

        again = submit(client, table, seed=SEED + 1)  # formed again (after a crash): nothing changes
        assert not again.started and again.version == 2 and games(database_url, table_id) == [SEED]


def test_a_seat_reserved_for_nobody_is_refused(database_url: str) -> None:
    with app(database_url) as client:
        with Session(app_services(client.app).engine) as session, session.begin():
            [(open_id, _)] = insert_tables(
                session,
                [NewTable("open", "iello-2024", 3, {}, False, 30.0, [{"kind": "human"}, BOT, BOT])],
            )
        table = live(client, open_id)
        with pytest.raises(PermissionError, match="reserved for nobody"):
            submit(client, table)
        assert table.state.status == Status.WAITING and open_store(database_url).load(open_id).version == 1  # type: ignore[union-attr]


def test_nothing_is_applied_unless_stored(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with app(database_url) as client:
        table_id, _ = round_table(client)
        table = live(client, table_id)
        store = app_services(client.app).tables.store

        def down(*_: Any) -> Any:
            raise ConnectionError("the database went away")

        monkeypatch.setattr(store, "start_round", down)
        with pytest.raises(ConnectionError):
            submit(client, table)
        assert (table.state.version, table.state.status, table.game) == (1, Status.WAITING, None)
        assert not any(s.joined for s in table.state.seats[:3])
        monkeypatch.undo()
        assert submit(client, table).version == 2  # the same command once the database answers


def test_a_write_by_another_process_is_caught_up_with_then_started_on_top(database_url: str) -> None:
    with app(database_url) as client:
        table_id, players = round_table(client)
        table = live(client, table_id)
        other = open_store(database_url)  # another process renames a player: its seat's table moves on
        assert other.rename_player(players[0], "renamed") == [(table_id, 2)]
        outcome = submit(client, table)
        assert outcome.started and outcome.version == 3 and table.state.seats[0].name == "renamed"
        stored = other.load(table_id)
        assert stored is not None and stored.version == 3 and stored.seats == table.state.seats


def test_two_processes_start_a_table_at_once_and_it_starts_once(database_url: str) -> None:
    with app(database_url) as first, app(database_url) as second:
        table_id, _ = round_table(first)
        tables = [live(first, table_id), live(second, table_id)]
        barrier = threading.Barrier(2)
        outcomes: list[Any] = [None, None]

        def start(n: int, client: TestClient) -> None:
            barrier.wait(5)
            outcomes[n] = submit(client, tables[n])

        threads = [threading.Thread(target=start, args=(n, c)) for n, c in enumerate((first, second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(o.started for o in outcomes) == [False, True]  # one stored it; the other caught up with it
        assert [t.state.version for t in tables] == [2, 2] and all(t.state.status == Status.PLAYING for t in tables)
        assert games(database_url, table_id) == [SEED]


@pytest.mark.parametrize("started_before_the_crash", [0, 1])
def test_a_round_cut_short_by_a_crash_is_finished_on_restart(database_url: str, started_before_the_crash: int) -> None:
    """The process dies after the round and its tables were stored and ``started_before_the_crash`` tables were
    started; the next process's first look at the tournament starts the others, on the round's seed, each once."""
    with app(database_url) as client:
        services = app_services(client.app)
        account = {"username": "owner", "password": "correct horse battery"}
        owner = client.post("/api/account/register", json=account, headers=guest(client))
        soon = datetime.fromtimestamp(CLOCK_START + 86_400, UTC).isoformat()  # not due: only the crash forms it
        body = {"name": "Crash cup", "players": 4, "rounds": 3, "time_control": "3+10", "starts_at": soon}
        made = client.post("/api/tournaments", json=body, headers={"X-Luz-Session": owner.json()["session"]})
        tournament_id = made.json()["id"]
        for _ in range(8):
            joined = client.post(f"/api/tournaments/{tournament_id}/join", headers=guest(client))
            assert joined.status_code == 200, joined.text
        registry: Registry = services.tables
        real = registry.submit
        calls = 0

        async def dies(table: Table, command: Any) -> Any:
            nonlocal calls
            if isinstance(command, StartRound):
                calls += 1
                if calls > started_before_the_crash:
                    raise SystemError("the process died")
            return await real(table, command)

        registry.submit = dies  # type: ignore[method-assign]
        with pytest.raises(SystemError):
            client.portal.call(services.rounds.form, tournament_id, 1)
        tables = [t.table_id for t in services.tournaments.tables(tournament_id, 1)]
        seed = services.tournaments.rounds(tournament_id)[0].seed
    store = open_store(database_url)
    before = [store.load(t) for t in tables]
    assert len(tables) == 2
    assert [s.status for s in before if s is not None] == [Status.PLAYING] * started_before_the_crash + [
        Status.WAITING
    ] * (2 - started_before_the_crash)

    with app(database_url) as client:  # the next process
        page = client.get(f"/api/tournaments/{tournament_id}").json()
        assert page["status"] == "playing" and page["round"] == 1
        after = [store.load(t) for t in tables]
        assert all(s is not None and s.status == Status.PLAYING and s.game_no == 1 for s in after)
        assert [games(database_url, t) for t in tables] == [[seed], [seed]]
        seated = [s.player for state in after if state is not None for s in state.seats if s.player is not None]
        assert len(seated) == len(set(seated)) == 8
        assert all(s.joined for state in after if state is not None for s in state.seats)
        if started_before_the_crash:  # the table started before the crash was not started again
            assert after[0] is not None and before[0] is not None and after[0].game_no == before[0].game_no == 1
