"""One display name per identity (on SQLite and PostgreSQL): after a rename the same name in every answer (``/api/me``,
the table's summary, the WebSocket state, chat, the replay's record, the profile, the leaderboard), names unique
among accounts in any case, renames rate-limited and kept as a history on the profile, guests marked as such."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.orm import Session

from luz.server import Settings, app_services, create_app
from luz.server.db import NameChangeRow, PlayerRow
from support.server import Peer, Truth, create_table, from_address, guest, play, seats

HEADER = "X-Luz-Session"
TAKEN = "that display name is taken: choose another"


def rename(http: Any, headers: dict[str, str], name: str) -> Any:
    return http.post("/api/me/name", json={"name": name}, headers=headers)


def join(http: Any, table_id: str, seat: int, headers: dict[str, str], **body: Any) -> Any:
    return http.post(f"/api/tables/{table_id}/seats/{seat}/join", json=body, headers=headers)


def register(http: Any, headers: dict[str, str], username: str) -> Any:
    return http.post("/api/account/register", json={"username": username, "password": "correct horse"}, headers=headers)


def account(http: Any, username: str, name: str) -> tuple[dict[str, str], str]:
    """A guest renamed ``name``, then registered as ``username``: its header and id."""
    headers = guest(http)
    assert rename(http, headers, name).status_code == 200
    made = register(http, headers, username)
    assert made.status_code == 201, made.text
    return {HEADER: made.json()["session"]}, made.json()["id"]


def names_in(state: dict[str, Any]) -> list[str | None]:
    return [seat["name"] for seat in state["table"]["seats"]]


def test_a_rename_shows_at_once_in_every_answer(client: Any, truth: Truth) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    ada, bob = guest(client), guest(client)
    assert join(client, table_id, 0, ada, token=tokens[0]).status_code == 200
    assert join(client, table_id, 1, bob, token=tokens[1], name="Bob").status_code == 200
    me = client.get("/api/me", headers=ada).json()
    viewer = guest(client)
    with (
        Peer(client, table_id, tokens[0], 0, truth) as zero,
        Peer(client, table_id, tokens[1], 1, truth) as one,
        Peer(client, table_id, None, None, truth, headers=viewer) as watcher,
    ):
        assert names_in(zero.state)[:2] == [me["name"], "Bob"]
        renamed = rename(client, ada, "  Ada   Lovelace ")
        assert renamed.status_code == 200, renamed.text
        assert renamed.json() == {**me, "name": "Ada Lovelace"}  # trimmed, inner spaces collapsed
        assert client.get("/api/me", headers=ada).json()["name"] == "Ada Lovelace"
        assert client.get(f"/api/tables/{table_id}").json()["seats"][0]["name"] == "Ada Lovelace"
        for peer in (zero, one, watcher):  # pushed to every connection, without asking
            peer.wait_state(lambda s: names_in(s)[0] == "Ada Lovelace")
        zero.send({"type": "chat", "text": "hello"})
        said = one.wait(lambda m: m["type"] == "chat" and not m["history"])["messages"][0]
        assert said["name"] == "Ada Lovelace" and said["player"] == me["id"]
        # A spectator renamed while watching speaks under its new name.
        assert rename(client, viewer, "Vera").status_code == 200
        watcher.send({"type": "chat", "text": "go on"})
        heard = watcher.wait(lambda m: m["type"] == "chat" and m["messages"][0]["text"] == "go on")
        assert heard["messages"][0]["name"] == "Vera"
        final = play([zero, one])
        assert names_in(final)[:2] == ["Ada Lovelace", "Bob"]
    record = client.get(f"/api/tables/{table_id}/record").json()
    assert record["names"][:2] == ["Ada Lovelace", "Bob"]
    profile = client.get(f"/api/players/{me['id']}").json()
    assert profile["name"] == "Ada Lovelace" and profile["guest"] is True
    assert profile["former_names"] == [{"name": me["name"], "until": profile["former_names"][0]["until"]}]
    [game] = profile["games"]
    assert [p["name"] for p in game["players"]][:2] == ["Ada Lovelace", "Bob"]
    assert [p["guest"] for p in game["players"]] == [True, True, False]
    # A rename after the game: the finished game's record and the profile show the name of now.
    assert rename(client, ada, "Ada L.").status_code == 200
    assert client.get(f"/api/tables/{table_id}/record").json()["names"][0] == "Ada L."
    again = client.get(f"/api/players/{me['id']}").json()
    assert again["name"] == "Ada L." and [n["name"] for n in again["former_names"]] == ["Ada Lovelace", me["name"]]
    assert again["games"][0]["players"][0]["name"] == "Ada L."


def test_a_join_with_a_name_renames_the_identity(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    other, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    cy = guest(client)
    assert join(client, other, 0, cy).status_code == 200
    joined = join(client, table_id, 1, cy, token=tokens[1], name="Cy")
    assert joined.status_code == 200 and joined.json()["table"]["seats"][1]["name"] == "Cy"
    assert client.get("/api/me", headers=cy).json()["name"] == "Cy"
    # The seat it held elsewhere shows the name too: one name per player.
    assert client.get(f"/api/tables/{other}").json()["seats"][0]["name"] == "Cy"


def test_names_are_unique_among_accounts_in_any_case(client: Any) -> None:
    _, alice = account(client, "alice1", "Alice")
    assert client.get(f"/api/players/{alice}").json()["guest"] is False
    intruder = guest(client)
    for taken in ("alice", "ALICE", " Alice "):
        refused = rename(client, intruder, taken)
        assert refused.status_code == 409 and refused.json()["detail"] == TAKEN
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    by_join = join(client, table_id, 0, intruder, token=tokens[0], name="aLiCe")
    assert by_join.status_code == 409 and by_join.json()["detail"] == TAKEN
    assert not client.get(f"/api/tables/{table_id}").json()["seats"][0]["joined"]
    # Guests may share a name (they are marked as guests), but none may register under an account's name.
    twin_one, twin_two = guest(client), guest(client)
    assert rename(client, twin_one, "Bob").status_code == 200
    assert rename(client, twin_two, "bob").status_code == 200
    assert register(client, twin_one, "bob1").status_code == 201
    late = register(client, twin_two, "bob2")
    assert late.status_code == 409 and late.json()["detail"] == TAKEN
    assert client.get("/api/me", headers=twin_two).json()["guest"] is True
    # An account renames to another account's name in another case: refused; to its own in another case: fine.
    headers, _ = account(client, "carol1", "Carol")
    assert rename(client, headers, "BOB").status_code == 409
    assert rename(client, headers, "CAROL").json()["name"] == "CAROL"
    assert rename(client, intruder, "carol").status_code == 409


def test_a_name_that_looks_like_an_accounts_is_taken(client: Any) -> None:
    """Next to an account named ``Alice``, a guest could take ``Аlice`` (Cyrillic А), fullwidth ``Ａｌｉｃｅ``,
    ``Al\u200dice`` or ``Alice\u200d``: each is now taken (409) or refused as invisible (422)."""
    _, alice = account(client, "alice1", "Alice")
    intruder = guest(client)
    for look_alike in ("Аlice", "Ａｌｉｃｅ", "ALICE", "ΑLICE", "Аlicе", "Alice\ufe0f"):
        refused = rename(client, intruder, look_alike)
        assert refused.status_code == 409 and refused.json()["detail"] == TAKEN, look_alike
    for invisible in ("Al\u200dice", "Alice\u200d", "\u200bAlice", "Alice\u2060"):
        refused = rename(client, intruder, invisible)
        assert refused.status_code == 422 and "invisible" in refused.json()["detail"], invisible
    assert client.get("/api/me", headers=intruder).json()["name"] != "Alice"
    # A look-alike guest cannot register either, and an account cannot rename to one.
    headers, _ = account(client, "bob1", "Bob")
    assert rename(client, headers, "Аlice").status_code == 409
    # Names that only share letters are fine, and so are Japanese names and emoji joined by a zero-width joiner.
    for name in ("Alicia", "Alice 2", "Alíce", "さくら", "サクラ", "山田太郎", "👩\u200d💻 Dev", "❤️"):
        assert rename(client, guest(client), name).status_code == 200, name
    _, sakura = account(client, "sakura1", "さくら")
    _, yamada = account(client, "yamada1", "山田太郎")
    assert len({alice, sakura, yamada}) == 3
    taken = rename(client, guest(client), "さくら")
    assert taken.status_code == 409


def test_existing_names_are_given_their_skeleton_by_the_migration(database_url: str) -> None:
    """0015 backfills every account's skeleton; of two accounts whose names look alike, the later gets a number."""
    from sqlalchemy import text

    from luz.server.db import make_engine, migrate
    from luz.server.names import skeleton
    from support.server import migrate_to

    engine = make_engine(database_url)
    try:
        migrate_to(engine, "0012")
        with engine.begin() as connection:
            for n, (player_id, name, username) in enumerate(
                (("p1", "Alice", "alice"), ("p2", "Аlice", "alice2"), ("p3", "Bob", "bob"), ("p4", "Аlice", None))
            ):
                connection.execute(
                    text(
                        "INSERT INTO players (id, name, username, account_name, created_at)"
                        " VALUES (:id, :name, :username, :account, :at)"
                    ),
                    {
                        "id": player_id,
                        "name": name,
                        "username": username,
                        "account": name.lower() if username else None,
                        "at": f"2026-01-0{n + 1} 00:00:00",
                    },
                )
        migrate(engine)
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT id, name, name_skeleton FROM players ORDER BY id")).all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [
        ("p1", "Alice", skeleton("Alice")),
        ("p2", "Аlice 2", skeleton("Alice 2")),
        ("p3", "Bob", "bob"),
        ("p4", "Аlice", None),  # a guest: no skeleton
    ]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("   ", "a name cannot be empty"),
        ("Eve\u202egnp.exe", "a name cannot hold invisible or control characters (U+202E)"),
        ("tab\tbell\x07", "a name cannot hold invisible or control characters"),
        ("Al\u200dice", "a zero-width joiner only joins two emoji"),
        ("Alice\u200d", "a zero-width joiner only joins two emoji"),
        ("Ali\u200bce", "a name cannot hold invisible or control characters (U+200B)"),
        ("\u3164", "a name cannot hold invisible or control characters (U+3164)"),
        ("Bob\u2066x", "a name cannot hold invisible or control characters (U+2066)"),
        ("\U000e0041dmin", "a name cannot hold invisible or control characters (U+E0041)"),
        ("x" * 41, "at most 40 characters"),
    ],
)
def test_a_bad_name_is_refused_with_a_clear_error(module_client: Any, name: str, why: str) -> None:
    refused = rename(module_client, guest(module_client), name)
    assert refused.status_code == 422 and why in str(refused.json()["detail"])


@pytest.fixture
def strict_client(database_url: str) -> Iterator[Any]:
    """An app allowing two renames in seven days."""
    from fastapi.testclient import TestClient

    settings = Settings(database_url=database_url, bot_workers=0, messages_per_second=10_000, renames_per_week=2)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_renames_are_rate_limited_the_first_from_a_guest_name_free(strict_client: Any) -> None:
    client = strict_client
    me = guest(client)
    for name in ("First", "Second", "Third"):  # the first away from the random name, then two
        assert rename(client, me, name).status_code == 200
    assert rename(client, me, "Third").status_code == 200, "the same name is no change: not counted"
    refused = rename(client, me, "Fourth")
    assert refused.status_code == 429 and "2 times in the last 7 days" in refused.json()["detail"]
    assert client.get("/api/me", headers=me).json()["name"] == "Third"
    profile = client.get(f"/api/players/{client.get('/api/me', headers=me).json()['id']}").json()
    assert [n["name"] for n in profile["former_names"]][:2] == ["Second", "First"]
    assert len(profile["former_names"]) == 3


def test_a_guest_mark_on_seats_and_registering_lifts_it_at_the_table(client: Any) -> None:
    table_id, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    dee, eve = guest(client), guest(client)
    assert join(client, table_id, 0, dee, token=tokens[0]).status_code == 200
    assert join(client, table_id, 1, eve, token=tokens[1]).status_code == 200
    assert [s["guest"] for s in client.get(f"/api/tables/{table_id}").json()["seats"]] == [True, True, False]
    assert register(client, dee, "dee1").status_code == 201
    assert [s["guest"] for s in client.get(f"/api/tables/{table_id}").json()["seats"]] == [False, True, False]


def test_a_rated_player_renamed_shows_on_the_leaderboard_with_the_old_name_on_the_profile(
    client: Any, truth: Truth
) -> None:
    table_id, tokens, _ = create_table(
        client, players=3, rated=True, seats=seats("human", "human", "random"), options={"first_player": 0}
    )
    homes = [from_address(client, f"203.0.113.{n}") for n in (1, 2)]  # two homes: rated together (links.py)
    ann, ann_id = account(homes[0], "ann1", "Ann")
    bob, _ = account(homes[1], "bob1", "Bob")
    assert join(homes[0], table_id, 0, ann, token=tokens[0]).status_code == 200
    assert join(homes[1], table_id, 1, bob, token=tokens[1]).status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as zero, Peer(client, table_id, tokens[1], 1, truth) as one:
        assert rename(client, ann, "Annie").status_code == 200
        one.wait_state(lambda s: names_in(s)[0] == "Annie")
        play([zero, one])
    board = client.get("/api/leaderboard", params={"edition": "iello-2024", "players": 3}).json()
    entry = next(e for e in board["ranking"] if e["player"] == ann_id)
    assert entry["name"] == "Annie" and entry["guest"] is False
    profile = client.get(f"/api/players/{ann_id}").json()
    assert profile["name"] == "Annie" and "Ann" in [n["name"] for n in profile["former_names"]]


def test_a_rename_makes_no_move_in_flight_stale(client: Any, truth: Truth) -> None:
    """A name is no move: a move made on the state before another player's rename is taken, not refused as
    stale (the player need not choose again)."""
    table_id, tokens, _ = create_table(
        client, players=3, seats=seats("human", "human", "random"), options={"first_player": 0}
    )
    ada, bob = guest(client), guest(client)
    assert join(client, table_id, 0, ada, token=tokens[0]).status_code == 200
    assert join(client, table_id, 1, bob, token=tokens[1]).status_code == 200
    with Peer(client, table_id, tokens[0], 0, truth) as zero:
        seen = zero.wait_state(lambda s: s["view"] is not None and s["view"]["current_player"] == 0)
        assert rename(client, bob, "Bob").status_code == 200
        renamed = zero.wait_state(lambda s: names_in(s)[1] == "Bob")
        assert renamed["version"] > seen["version"]
        reply = zero.act(zero.check.states[-1]["view"]["legal_actions"][0], version=seen["version"])
        assert reply["type"] == "ack", reply


def cut_short(client: Any, player_id: str, name: str) -> None:
    """The player's name stored and not its seats' (as a rename cut short when they were two transactions)."""
    with Session(app_services(client.app).tables.store.engine) as session, session.begin():
        player = session.get(PlayerRow, player_id)
        assert player is not None
        session.add(NameChangeRow(player_id=player_id, old_name=player.name, new_name=name))
        player.name = name


def test_a_rename_cut_short_is_repaired_by_renaming_again(client: Any) -> None:
    """The name stored but not every seat's: asking again for the same name renames the seats left behind, at
    every table."""
    first, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    second, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
    cy = guest(client)
    assert join(client, first, 0, cy).status_code == 200
    assert join(client, second, 1, cy).status_code == 200
    me = client.get("/api/me", headers=cy).json()
    cut_short(client, me["id"], "Cy")
    assert client.get(f"/api/tables/{first}").json()["seats"][0]["name"] == me["name"]
    assert rename(client, cy, "Cy").status_code == 200  # the same name again
    assert client.get(f"/api/tables/{first}").json()["seats"][0]["name"] == "Cy"
    assert client.get(f"/api/tables/{second}").json()["seats"][1]["name"] == "Cy"


def test_a_rename_cut_short_is_repaired_at_start(settings: Settings, truth: Truth) -> None:
    """A server that starts renames every seat left behind by a rename cut short, and a table in memory shows it
    at once (a ``Refresh`` through the door); a table already right is not touched."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(settings)) as client:
        held, tokens, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
        other, _, _ = create_table(client, players=3, seats=seats("human", "human", "random"))
        ada, bob = guest(client), guest(client)
        assert join(client, held, 0, ada, token=tokens[0]).status_code == 200
        assert join(client, held, 1, bob, token=tokens[1]).status_code == 200
        assert join(client, other, 1, bob).status_code == 200
        bob_id = client.get("/api/me", headers=bob).json()["id"]
        cut_short(client, bob_id, "Bob")
        registry = app_services(client.app).tables
        with Peer(client, held, tokens[0], 0, truth) as zero:
            zero.wait_state(lambda s: s["table"]["seats"][1]["name"] is not None)
            assert client.portal.call(registry.repair_names) == 2
            zero.wait_state(lambda s: names_in(s)[1] == "Bob")
        assert client.portal.call(registry.repair_names) == 0  # nothing left behind: no table bumped
        cut_short(client, bob_id, "Bobby")
    with TestClient(create_app(settings)) as client:  # a restart
        assert client.get(f"/api/tables/{held}").json()["seats"][1]["name"] == "Bobby"
        assert client.get(f"/api/tables/{other}").json()["seats"][1]["name"] == "Bobby"


def test_a_rename_reaches_every_seat_or_none(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's name and every seat of the player in one transaction: a failure on the way leaves the name,
    its history and every seat as they were."""
    tables = [create_table(client, players=3, seats=seats("human", "human", "random"))[0] for _ in range(3)]
    dee = guest(client)
    for table_id in tables:
        assert join(client, table_id, 0, dee).status_code == 200
    me = client.get("/api/me", headers=dee).json()
    store = app_services(client.app).tables.store
    bump, bumped = store._bump, []

    def failing_bump(session: Any, row: Any) -> int:
        bumped.append(row.id)
        if len(bumped) == 3:
            raise RuntimeError("the server stopped")
        return bump(session, row)

    monkeypatch.setattr(store, "_bump", failing_bump)
    with pytest.raises(RuntimeError):
        rename(client, dee, "Dee")
    monkeypatch.undo()
    assert client.get("/api/me", headers=dee).json()["name"] == me["name"]
    assert client.get(f"/api/players/{me['id']}").json()["former_names"] == []
    assert [store.load(t).seats[0].name for t in tables] == [me["name"]] * 3
    assert rename(client, dee, "Dee").status_code == 200
    assert [store.load(t).seats[0].name for t in tables] == ["Dee"] * 3
    assert store.rename_player(me["id"], "Dee") == []  # nothing left to repair: no table bumped
