"""The notification channels, each alone with fakes (no push service, no SMTP server), and the notifier with a fake
channel on a SQLite database, its time an injected clock that the tests advance: nothing here sleeps."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from luz.server.clock import FakeClock
from luz.server.db import make_engine, migrate
from luz.server.identity import Players
from luz.server.notify import Notice, Notifier, Tokens
from luz.server.notify.channel import Outcome
from luz.server.notify.digest import DIGEST_EVERY_MS, DigestChannel
from luz.server.notify.mail import Mailer
from luz.server.notify.preferences import Recipient
from luz.server.notify.push import Subscription
from luz.server.notify.push_channel import INVITATION_TTL, PushChannel
from luz.server.ratelimit import TokenBucket
from luz.server.store import Store
from support.notify import DAY_MS, column, make_due, seated_table

NOON = datetime(2025, 1, 15, 12, 0, tzinfo=UTC).timestamp()
NOON_MS = int(NOON * 1000)


def recipient(**changes: Any) -> Recipient:
    base = Recipient("p1", "ann", True, None, False, False, None, None, "UTC", "en", False, None)
    return replace(base, **changes)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path}/luz.sqlite3")
    migrate(engine)
    yield engine
    engine.dispose()


def set_player(engine: Engine, player_id: str, **values: Any) -> None:
    assignments = ", ".join(f"{name} = :{name}" for name in values)
    with engine.begin() as connection:
        connection.execute(text(f"UPDATE players SET {assignments} WHERE id = :id"), {"id": player_id, **values})


# -- Web Push alone ------------------------------------------------------------------------------------------------


class FakePusher:
    """Answers each endpoint with the status set for it (201 by default), recording what it was asked to send."""

    def __init__(self, answers: dict[str, int | None]) -> None:
        self.answers = answers
        self.sent: list[tuple[str, dict[str, Any], int]] = []

    async def send(self, subscription: Subscription, payload: dict[str, Any], ttl: int = 86400) -> int | None:
        self.sent.append((subscription.endpoint, payload, ttl))
        return self.answers.get(subscription.endpoint, 201)


@dataclass
class FakeSubscriptions:
    endpoints: list[str]
    removed: list[str] = field(default_factory=list)

    def of(self, player_id: str) -> list[Subscription]:
        return [Subscription(e, player_id, "key", "auth") for e in self.endpoints if e not in self.removed]

    def remove(self, endpoint: str, player_id: str | None = None) -> bool:
        self.removed.append(endpoint)
        return True


def test_push_tells_every_subscription_and_forgets_the_gone_ones() -> None:
    pusher = FakePusher({"https://gone.example": 410, "https://down.example": None})
    subscriptions = FakeSubscriptions(["https://ok.example", "https://gone.example", "https://down.example"])
    channel = PushChannel(pusher, subscriptions)  # type: ignore[arg-type]
    notice = Notice("turn", "t1", "Friday table", deadline=NOON_MS + 3_600_000)

    outcome = asyncio.run(channel.tell(recipient(language="fr"), notice, NOON_MS))

    assert outcome == Outcome(delivered=1, gone=1, failed=1)
    assert subscriptions.removed == ["https://gone.example"]
    assert {ttl for _, _, ttl in pusher.sent} == {3600}  # until the deadline
    payload = pusher.sent[0][1]
    assert payload["title"] == "À vous de jouer à Friday table" and payload["table"] == "t1"


def test_push_keeps_a_turn_without_deadline_a_day_and_an_invitation_half_an_hour() -> None:
    pusher = FakePusher({})
    channel = PushChannel(pusher, FakeSubscriptions(["https://ok.example"]))  # type: ignore[arg-type]
    asyncio.run(channel.tell(recipient(), Notice("reminder", "t1", "Late"), NOON_MS))
    invitation = Notice("invitation", "t2", "Sunday", seat=1, by="Bea")
    asyncio.run(channel.tell(recipient(language="ja"), invitation, NOON_MS))
    (_, reminder, day), (_, invited, half_hour) = pusher.sent
    assert reminder["kind"] == "reminder" and day == 24 * 3600
    assert invited["kind"] == "invitation" and invited["title"] == "Bea が Sunday にあなたを招待しています"
    assert half_hour == INVITATION_TTL


def test_push_is_wanted_only_by_players_who_turned_it_on() -> None:
    channel = PushChannel(FakePusher({}), FakeSubscriptions([]))  # type: ignore[arg-type]
    notice = Notice("turn", "t1", "Table")
    assert channel.wants(recipient(push_on=True), notice)
    assert not channel.wants(recipient(push_on=False), notice)


# -- the email digest alone ----------------------------------------------------------------------------------------


class FakeMailer(Mailer):
    """A configured mailer that keeps what it is given (the SMTP exchange is test_mail's)."""

    def __init__(self) -> None:
        super().__init__("smtp://mail.example:25", "luz@example.org", "https://luz.example")
        self.outbox: list[EmailMessage] = []

    async def send(self, message: EmailMessage, to: str) -> bool:
        assert message["To"] == to
        self.outbox.append(message)
        return True


def mailable_player(engine: Engine) -> str:
    identity, _ = Players(engine).create_guest()
    address = "ann@example.org"
    set_player(engine, identity.player_id, username="ann", email=address, email_verified=True, email_on=True)
    return identity.player_id


def test_the_digest_wants_turns_of_verified_addresses_only_with_smtp() -> None:
    mailable = recipient(email="ann@example.org", email_verified=True, email_on=True)
    turn = Notice("turn", "t1", "Table")
    with_smtp = DigestChannel(None, FakeMailer(), Tokens("test"), "")  # type: ignore[arg-type]
    assert with_smtp.wants(mailable, turn)
    assert not with_smtp.wants(mailable, replace(turn, kind="reminder"))
    assert not with_smtp.wants(replace(mailable, email_verified=False), turn)
    assert not with_smtp.wants(replace(mailable, username=None), turn)  # a guest
    without = DigestChannel(None, Mailer("", "", "https://luz.example"), Tokens("test"), "")  # type: ignore[arg-type]
    assert not without.wants(mailable, turn)
    no_public_url = DigestChannel(None, Mailer("smtp://mail.example:25", "", ""), Tokens("test"), "")  # type: ignore[arg-type]
    assert not no_public_url.wants(mailable, turn), "no email without the public address its links are made from"


def test_the_digest_goes_at_most_once_an_hour_as_the_clock_moves(engine: Engine) -> None:
    mailer = FakeMailer()
    channel = DigestChannel(engine, mailer, Tokens("test"), "https://luz.example")
    player_id = mailable_player(engine)
    table_id = seated_table(Store(engine), player_id)
    make_due(engine, table_id, deadline=NOON_MS + DAY_MS)
    clock = FakeClock(NOON)
    player = recipient(id=player_id, email="ann@example.org", email_verified=True, email_on=True)

    async def turn_then_sweep() -> Outcome:
        await channel.tell(player, Notice("turn", table_id, "Friday table"), round(clock.now() * 1000))
        return await channel.sweep(round(clock.now() * 1000))

    assert asyncio.run(turn_then_sweep()) == Outcome(digest=1)
    [message] = mailer.outbox
    assert message["To"] == "ann@example.org" and "Friday table" in str(message.get_body(("plain",)))
    clock.advance(DIGEST_EVERY_MS / 1000 - 60)  # the next turn within the hour: no second email yet
    assert asyncio.run(turn_then_sweep()) == Outcome()
    assert column(engine, table_id, "id") == table_id and len(mailer.outbox) == 1
    clock.advance(60)
    assert asyncio.run(channel.sweep(round(clock.now() * 1000))) == Outcome(digest=1)
    assert len(mailer.outbox) == 2


# -- the notifier with a fake channel --------------------------------------------------------------------------------


class FakeChannel:
    """Tells into a list; wants only the kinds it is given."""

    name = "fake"

    def __init__(self, kinds: tuple[str, ...] = ("turn", "reminder", "invitation")) -> None:
        self.kinds = kinds
        self.told: list[tuple[str, Notice, int]] = []
        self.sweeps = 0

    def wants(self, player: Recipient, notice: Notice) -> bool:
        return notice.kind in self.kinds

    async def tell(self, player: Recipient, notice: Notice, now_ms: int) -> Outcome:
        self.told.append((player.id, notice, now_ms))
        return Outcome(delivered=1)

    async def sweep(self, now_ms: int) -> Outcome:
        self.sweeps += 1
        return Outcome()

    async def start(self) -> None: ...

    async def close(self) -> None: ...


def test_a_turn_due_is_told_once_to_each_channel_that_wants_it(engine: Engine) -> None:
    player_id = Players(engine).create_guest()[0].player_id
    table_id = seated_table(Store(engine), player_id, name="Due table")
    wanting, indifferent = FakeChannel(), FakeChannel(kinds=("invitation",))
    clock = FakeClock(NOON)
    notifier = Notifier(engine, [wanting, indifferent], clock=clock)
    make_due(engine, table_id, notify_at=NOON_MS - 1000, deadline=NOON_MS + DAY_MS)

    async def scans() -> None:
        for _ in range(3):
            await notifier.scan()

    asyncio.run(scans())
    [(told_id, notice, at)] = wanting.told
    assert (told_id, notice, at) == (player_id, Notice("turn", table_id, "Due table", NOON_MS + DAY_MS), NOON_MS)
    assert indifferent.told == [] and wanting.sweeps == indifferent.sweeps == 3
    assert notifier.counts["turn"] == 1 and column(engine, table_id, "notify_at") is None
    [sent] = notifier.sent
    assert sent.delivered == (("fake", 1),) and sent.latency_ms == 1000


def test_quiet_hours_postpone_a_turn_until_the_clock_reaches_their_end(engine: Engine) -> None:
    player_id = Players(engine).create_guest()[0].player_id
    set_player(engine, player_id, quiet_start=11 * 60, quiet_end=13 * 60, timezone="UTC")
    table_id = seated_table(Store(engine), player_id)
    channel, clock = FakeChannel(), FakeClock(NOON)
    notifier = Notifier(engine, [channel], clock=clock)
    make_due(engine, table_id, notify_at=NOON_MS, deadline=NOON_MS + DAY_MS)
    one_pm = NOON_MS + 3_600_000

    asyncio.run(notifier.scan())
    assert channel.told == [] and column(engine, table_id, "notify_at") == one_pm
    clock.advance(3599)
    asyncio.run(notifier.scan())
    assert channel.told == []
    clock.advance(1)
    asyncio.run(notifier.scan())
    assert [notice.kind for _, notice, _ in channel.told] == ["turn"] and notifier.counts["postponed"] == 1


def test_a_seat_at_its_table_is_told_nothing(engine: Engine) -> None:
    player_id = Players(engine).create_guest()[0].player_id
    table_id = seated_table(Store(engine), player_id)
    asked: list[tuple[str, int]] = []

    async def connected(table: str, seat: int) -> bool:
        asked.append((table, seat))
        return True

    channel = FakeChannel()
    notifier = Notifier(engine, [channel], seat_connected=connected, clock=FakeClock(NOON))
    make_due(engine, table_id, notify_at=NOON_MS, remind_at=NOON_MS, deadline=NOON_MS + DAY_MS)
    asyncio.run(notifier.scan())
    assert channel.told == [] and asked == [(table_id, 0), (table_id, 0)]
    assert notifier.counts["connected"] == 2


def test_an_invitation_is_told_at_once_but_not_in_quiet_hours(engine: Engine) -> None:
    player_id = Players(engine).create_guest()[0].player_id
    channel, clock = FakeChannel(), FakeClock(NOON)
    notifier = Notifier(engine, [channel], clock=clock)
    invitation = Notice("invitation", "t9", "Sunday", seat=2, by="Bea")
    assert asyncio.run(notifier.tell(player_id, invitation))
    set_player(engine, player_id, quiet_start=12 * 60, quiet_end=12 * 60 + 30, timezone="UTC")
    assert not asyncio.run(notifier.tell(player_id, invitation))
    assert not asyncio.run(notifier.tell("nobody", invitation))
    assert [(p, n) for p, n, _ in channel.told] == [(player_id, invitation)]
    assert notifier.counts == collections.Counter(invitation=1, quiet=1)


# -- a socket's message rate ---------------------------------------------------------------------------------------


def test_a_token_bucket_refills_as_its_clock_moves() -> None:
    clock = FakeClock(NOON)
    bucket = TokenBucket(2, clock)
    assert [bucket.take() for _ in range(5)] == [True] * 4 + [False]  # a burst of twice the rate
    clock.advance(0.5)
    assert bucket.take() and not bucket.take()  # one message more in half a second at 2 a second
    clock.advance(60)
    assert sum(bucket.take() for _ in range(10)) == 4  # refilled to the burst, no more
