"""Bot moves at the live tables: which bot plays the seat to move, its move computed in a bot process (or here for
a quick bot) and released at a time that depends only on the bot, never on the cards."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from luz.engine import Action, View, view

from ..domain import SeatKind, Status
from ..settings import Settings
from .botpool import BotPool, choose_for, is_quick, release_time, within_caps
from .commands import Act, Door
from .model import QUICK_BOT, Refused
from .table import Table

log = logging.getLogger("luz.server")


class BotMoves:
    """The bots of this process's tables."""

    def __init__(self, door: Door, pool: BotPool | None, settings: Settings) -> None:
        self.door = door
        self.pool = pool
        """The bot processes (``None``: bots move in this process)."""
        self.settings = settings
        self._tasks: set[asyncio.Task[None]] = set()
        self.pending: dict[str, int] = {}
        """The version at which each table's bot move is on its way: a table's move is scheduled once, however
        many ways the table was resumed."""
        self.thinking: dict[str, Future[Any]] = {}
        """Each table's bot move in a bot process, if any: a table has at most one there at a time (its fair
        share). Kept here, not in the table: only the writer writes a table."""

    def busy(self, table: Table) -> bool:
        """Whether a bot process still computes a move of ``table``'s."""
        thinking = self.thinking.get(table.id)
        return thinking is not None and not thinking.done()

    def forget(self, table: Table) -> None:
        """``table`` left memory."""
        self.thinking.pop(table.id, None)

    def bot_for(self, table: Table, seat: int) -> str | None:
        """The bot that plays ``seat`` now, if any (within this server's caps, whatever the table stored)."""
        spec = table.state.seats[seat]
        if spec.kind == SeatKind.BOT:
            return within_caps(spec.bot or QUICK_BOT, self.settings)
        return QUICK_BOT if seat in table.taken_over or seat in table.replaced() else None

    def schedule(self, table: Table, delay: float = 0.0) -> None:
        """Let the bot of the seat to move, if a bot plays it, move (after ``delay`` seconds)."""
        game = table.game
        if game is None or table.state.status != Status.PLAYING or game.current_player is None:
            return
        bot = self.bot_for(table, game.current_player)
        version = table.state.version
        if bot is not None and self.pending.get(table.id) != version:
            self.pending[table.id] = version
            task = asyncio.create_task(self._move(table, game.current_player, bot, version, delay))
            self._tasks.add(task)

            def ended(task: asyncio.Task[None]) -> None:
                self._tasks.discard(task)
                if self.pending.get(table.id) == version:
                    del self.pending[table.id]

            task.add_done_callback(ended)

    async def _move(self, table: Table, seat: int, bot: str, version: int, delay: float) -> None:
        """Play ``bot``'s move at its release time from now: how long a bot thinks depends on what its seat sees,
        the other players' hidden cards included, so the time its move reaches them must not."""
        if delay:
            await asyncio.sleep(delay)
        game = table.game
        if game is None or table.state.version != version or game.current_player != seat:
            return
        loop = asyncio.get_running_loop()
        release = loop.time() + release_time(bot, self.settings)
        # From the game's secret seed and the moves so far, never the table: two tables dealt the same seed (the
        # daily deal's) whose players make the same moves see the same bot moves.
        seed = f"{game.seed}:{table.state.game_no}:{sum(len(deal) for deal in game.actions)}"
        action = await self._think(table, bot, view(game, seat), seed, release)
        if (early := release - loop.time()) > 0:  # not a sleep(0): at the release time, nothing waits
            await asyncio.sleep(early)
        with contextlib.suppress(Refused):  # the table moved on meanwhile
            await self.door.submit(table, Act(seat, action, expected=version))

    async def _think(self, table: Table, bot: str, seen: View, seed: str, release: float) -> Action:
        """``bot``'s move if a bot process has it by ``release``, else the quick bot's, made while the bot process
        searches: at the release time one of them is ready, so the move leaves then whatever the search did (made
        after the search overran, the quick bot's moves left a median 31 ms late against 13 ms). A quick bot
        moves here (a millisecond): no table's quick bots wait for the bot processes."""
        if self.pool is None or is_quick(bot):
            return choose_for(bot, seen, seed)
        if self.busy(table):
            # Its bot still thinks about an earlier move: a table never holds more than one bot process.
            return choose_for(QUICK_BOT, seen, seed)
        loop = asyncio.get_running_loop()
        share = table.creator or table.id
        thinking = self.thinking[table.id] = self.pool.submit(share, choose_for, bot, seen, seed)
        fallback = choose_for(QUICK_BOT, seen, seed)  # while the bot process searches
        for attempt in (1, 2):
            search = asyncio.wrap_future(thinking)
            try:  # no wait_for: cancelling the search at its timeout would take the loop another turn
                await asyncio.wait([search], timeout=release - loop.time())
            except asyncio.CancelledError:  # the server stops: the search is withdrawn, its outcome dropped
                search.cancel()
                raise
            if not search.done():  # a waiting move is withdrawn (no process time spent on it); a running one ends
                search.cancel()
                log.warning("bot %s went over its time at table %s: %s moves for it", bot, table.id, QUICK_BOT)
                break
            if not isinstance(search.exception(), BrokenProcessPool):
                action: Action = search.result()
                return action
            log.error("bot process died during a move at table %s (attempt %d)", table.id, attempt)
            self.pool.recover()
            if attempt == 1:  # once more, in the new bot processes
                thinking = self.thinking[table.id] = self.pool.submit(share, choose_for, bot, seen, seed)
        return fallback

    def running(self) -> set[asyncio.Task[None]]:
        """The bot moves on their way."""
        return set(self._tasks)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
