"""Reviews of finished games on the server (:mod:`luz.bots.review`): asked over HTTP, computed a decision at a time in
the bot processes, stored once in the database and served from there.

A review is a few seconds of search. It runs in the bot processes as one computation per batch of worlds of a
decision (``luz.bots.review.BATCH``: tens of milliseconds), each under a fair share of its own for the client that
asked (``review:`` and the client): between two of them, the bot moves of tables that have used the processes less
go first, so that a review delays a search bot's move by one batch at most.

The process computes ``Settings.review_queue`` reviews at once; the others wait their turn in a queue shared fairly
among clients (addresses): each time one ends, the next starts from the client after the last one served, round
the clients in turn, so that clients asking again as soon as theirs end cannot keep another's waiting. One
identity has at most one review waiting or computed, one client ``Settings.reviews_per_client`` (its free guests
share them), and at most ``Settings.review_waiting`` wait in all; beyond, :class:`ReviewRefused` (429). A review
never changes the game's record: it reads it. While it is computed, its status carries each deal whose
decisions are all reviewed (its summary computed once, in the bot processes, when its last decision is done).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .settings import Settings
from .store import Store
from .tables.botpool import BotPool

if TYPE_CHECKING:
    from luz.bots.review import Decision, Values

log = logging.getLogger("luz.server")

Key = tuple[str, int, int]
"""A review's table, game number and seat."""


class ReviewRefused(Exception):
    """The review cannot be queued now (the caller has one being computed, or the server's queue is full); ``limit``
    names which."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class ReviewsUnavailable(Exception):
    """This server computes no reviews (it has no bot processes)."""


@dataclass
class _Pending:
    identity: str
    client: str
    record: dict[str, Any] = field(repr=False)
    done: int = 0
    total: int | None = None
    deals: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """The deals whose decisions are all reviewed, in order: each its number, summary and decisions' entries."""
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def status(self) -> dict[str, Any]:
        if self.total is None or self.done == 0:
            return {"status": "queued"}
        return {"status": "running", "done": self.done, "total": self.total, "deals": list(self.deals)}


class Reviews:
    """The reviews this process is computing or has queued, and the stored ones."""

    def __init__(self, store: Store, pool: BotPool | None, settings: Settings) -> None:
        self.store = store
        self.pool = pool
        self.settings = settings
        self._pending: dict[Key, _Pending] = {}
        self._waiting: dict[str, deque[Key]] = {}
        """Each client's reviews waiting to start, the clients in the order they are served next (a dict keeps
        the order its keys were put in: a client served goes to the end)."""

    def status(self, key: Key) -> dict[str, Any] | None:
        """``{"status": "queued", "position"}`` (1: the next to start) or ``{"status": "running", "done",
        "total", "deals"}`` (the deals reviewed so far) while it is computed here."""
        pending = self._pending.get(key)
        if pending is None:
            return None
        if pending.task is None:
            return {"status": "queued", "position": self._order().index(key) + 1}
        return pending.status()

    def _order(self) -> list[Key]:
        """The waiting reviews in the order they will start: one of each client in turn."""
        queues = [list(waiting) for waiting in self._waiting.values()]
        order: list[Key] = []
        for turn in range(max((len(q) for q in queues), default=0)):
            order += [q[turn] for q in queues if turn < len(q)]
        return order

    def ask(self, key: Key, identity: str, share: str, record: dict[str, Any]) -> dict[str, Any]:
        """Queue the review of ``key`` for ``identity`` (its bot-process time charged to ``share``, its client)
        from the finished game's ``record``, unless it is queued or computed already; its status."""
        if key in self._pending:
            status = self.status(key)
            assert status is not None
            return status
        if self.pool is None:
            raise ReviewsUnavailable("this server computes no reviews (it runs no bot processes)")
        busy = "one review at a time: yours is being computed, ask again once it is ready"
        if any(p.identity == identity for p in self._pending.values()):
            raise ReviewRefused(busy, "reviews_per_identity")
        if sum(p.client == share for p in self._pending.values()) >= self.settings.reviews_per_client:
            raise ReviewRefused(busy, "reviews_per_client")
        if sum(len(q) for q in self._waiting.values()) >= self.settings.review_waiting:
            raise ReviewRefused("the server's review queue is full: try again in a minute", "review_waiting")
        self._pending[key] = _Pending(identity, share, record)
        self._waiting.setdefault(share, deque()).append(key)
        self._start_next()
        status = self.status(key)
        assert status is not None
        return status

    def _start_next(self) -> None:
        """Start waiting reviews while fewer than ``review_queue`` are computed: the first client's first, that
        client then going to the end of the turn."""
        running = sum(p.task is not None for p in self._pending.values())
        while running < self.settings.review_queue and self._waiting:
            client = next(iter(self._waiting))
            waiting = self._waiting.pop(client)
            key = waiting.popleft()
            if waiting:
                self._waiting[client] = waiting
            pending = self._pending[key]
            pending.task = asyncio.create_task(
                self._compute(key, pending.client, pending.record, pending), name=f"review {key}"
            )
            running += 1

    async def _compute(self, key: Key, share: str, record: dict[str, Any], pending: _Pending) -> None:
        from luz.bots.review import (
            ReviewSettings,
            batch_count,
            decision_list,
            is_forced,
            judge,
            placed,
            summarise,
            summarise_deal,
            values_batch,
        )

        table_id, game_no, seat = key
        settings = ReviewSettings(worlds=self.settings.review_worlds)
        share = "review:" + share
        try:
            # The record replayed, the seat's views built and the review summed up in the bot processes too: tens
            # of milliseconds for a 5-player game, which the event loop would take from every table.
            seat_decisions: list[Decision] = (await self._in_pool(share, [(decision_list, record, seat)]))[0]
            pending.total = len(seat_decisions)
            entries: list[dict[str, Any]] = []
            for at, decision in enumerate(seat_decisions):
                batches: list[Values] = []
                if not is_forced(decision.seen):
                    count = batch_count(settings)
                    batches = await self._in_pool(
                        share, [(values_batch, decision.seen, settings, decision.key, b) for b in range(count)]
                    )
                entries.append(placed(decision, judge(decision.seen, decision.chosen, batches)))
                # A deal's summary once its last decision is reviewed (the last deal's: in the review itself).
                if at + 1 < len(seat_decisions) and seat_decisions[at + 1].deal != decision.deal:
                    mine = [e for e in entries if e["deal"] == decision.deal + 1]
                    job = (summarise_deal, record, seat, decision.deal + 1, mine)
                    summary = (await self._in_pool(share, [job]))[0]
                    pending.deals.append({"deal": decision.deal + 1, "summary": summary, "decisions": mine})
                pending.done += 1
            review = (await self._in_pool(share, [(summarise, record, seat, settings, entries)]))[0]
            await asyncio.to_thread(self.store.save_review, table_id, game_no, seat, review)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the review of %s failed", key)
        finally:
            self._pending.pop(key, None)
            self._start_next()

    async def _in_pool(self, share: str, jobs: list[tuple[Any, ...]]) -> list[Any]:
        """Each ``(fn, *args)`` of ``jobs`` computed in the bot processes under ``share``, their results in order;
        all again once if the pool had to be replaced meanwhile."""
        assert self.pool is not None
        for attempt in (1, 2):
            futures = [self.pool.submit(share, *job) for job in jobs]
            try:
                return list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))
            except BrokenProcessPool:
                for future in futures:
                    future.cancel()
                self.pool.recover()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """Stop the reviews being computed (what they computed is lost; they may be asked again)."""
        self._waiting.clear()
        tasks = [p.task for p in self._pending.values() if p.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
