"""Every input that changes a live table, as a value (as lichess's round commands): the closed ``Command`` type that
``Writer.process`` takes, the ``Outcome`` it returns (what to send, what to arm, what to tell the other
processes), and the ``Door`` through which collaborators hand their commands in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from luz.engine import Action

from ..domain import SeatPolicy
from .model import Change, Connection, Outbox, Refused, Watcher

if TYPE_CHECKING:
    from .table import Table


@dataclass(frozen=True)
class Act:
    """``seat``'s move at version ``expected`` (``None``: whatever the version); ``timeout``: the timeout bot's
    move, its player's time having run out; ``forced``: the seat's only legal card, played for its player;
    ``premove``: the card its player chose before its turn (premoves.py)."""

    seat: int
    action: Action
    expected: int | None = None
    timeout: bool = False
    forced: bool = False
    premove: bool = False


@dataclass(frozen=True)
class Start:
    """Start the first game once every seat is taken, or (``next_game``) the next one after a game; on ``seed``
    when given (the tutorial's prepared deal), else a random one whose first player is one seat to the left."""

    seed: int | None = None
    next_game: bool = False


@dataclass(frozen=True)
class StartRound:
    """A tournament table's round begins: every seat reserved for a player when the round created the table is
    taken by that player and the game starts on the round's ``seed``, in one transaction and one version
    (``Store.start_round``). A table already started: nothing (the round formed again after a crash)."""

    seed: int


@dataclass(frozen=True)
class Join:
    """Take ``seat`` for ``player_id`` under the name ``name``, with its invite ``token`` or an open seat of a
    public table (``Store.join`` checks the seat's policies)."""

    seat: int
    name: str
    token: str | None
    player_id: str | None = None
    max_turn_based: int | None = None
    client: str | None = None
    policy: SeatPolicy | None = None


@dataclass(frozen=True)
class Leave:
    """``seat``'s player gives the seat up (before the first game it opens again; later a bot plays it)."""

    seat: int


@dataclass(frozen=True)
class TakeOver:
    """A bot plays ``seat`` while its player is away; ``announce``: tell the other processes (this process
    decided it)."""

    seat: int
    announce: bool = True


@dataclass(frozen=True)
class Return:
    """``seat``'s player is back, said to be connected to another process: its bot stops here too (back here: an
    ``Attach``)."""

    seat: int


@dataclass(frozen=True)
class Attach:
    """A connection of ``seat`` opened here (``None``: a spectator's, tied to people by ``watcher``): the seat is
    shown connected (its bot, if any, stops; the connection is sent its own state next, not this change's), a
    seat's oldest connections beyond ``max_connections_per_seat`` are closed; :class:`Refused` (``full``) for a
    spectator beyond ``max_spectators_per_table``. No version: a move in flight stays fresh."""

    seat: int | None
    connection: Connection
    watcher: Watcher | None = None


@dataclass(frozen=True)
class Detach:
    """A connection closed (or was dropped for a failed send): a seat left with none here is shown so and its
    grace period begins (presence's). Nothing if it was already detached. No version."""

    seat: int | None
    connection: Connection


@dataclass(frozen=True)
class RematchAnswer:
    """``seat`` offers or accepts (``accept``) a rematch, or declines the offer."""

    seat: int
    accept: bool


@dataclass(frozen=True)
class ExpireRematch:
    """The rematch offer's time is up."""


@dataclass(frozen=True)
class Expire:
    """The table's time to wait for players is up: it expires if it is still waiting (``Store.expire``)."""


@dataclass(frozen=True)
class ShowHand:
    """``seat``'s player agrees that anyone watching sees its cards (a ``show_hands`` table starts once every
    seated human has)."""

    seat: int


@dataclass(frozen=True)
class Note:
    """``seat``'s note ``text`` on its card ``slot`` (sent to that seat's connections only)."""

    seat: int
    slot: Any
    text: Any


@dataclass(frozen=True)
class Premove:
    """``seat``'s player chooses the card at ``slot`` to play when its turn comes (``None``: cancels its choice);
    kept in memory and sent to that seat's connections only (premoves.py)."""

    seat: int
    slot: Any


@dataclass(frozen=True)
class DropPremove:
    """``seat``'s premove of ``slot`` is no longer legal at its turn: cancelled, and the seat told."""

    seat: int
    slot: int


@dataclass(frozen=True)
class ChangeSeatSettings:
    """``player_id`` changed their play settings (already stored): their seats here play by them from now on
    (``forced_moves``: their only legal card played for them at a turn-based table)."""

    player_id: str
    forced_moves: bool


@dataclass(frozen=True)
class SpendBank:
    """``seat``'s time ran out at version ``expected``: its time bank extends its turn (``timecontrol.spend_bank``)."""

    seat: int
    expected: int


@dataclass(frozen=True)
class PauseClock:
    """``seat``'s player is on vacation until ``until`` (epoch ms): its clock at this turn-based table stops."""

    seat: int
    until: int


@dataclass(frozen=True)
class ResumeClock:
    """``seat``'s player is back from vacation: its clock runs again with the time it had left."""

    seat: int


@dataclass(frozen=True)
class Created:
    """The table was just created on this process by ``client`` (its address's keyed hash): the bots of its
    tables share the bot processes' time as one (``BotPool``), and its tables of bots are counted."""

    client: str


@dataclass(frozen=True)
class Follow:
    """Another process stored the table's ``version`` (``change``: the action, when it was one)."""

    version: int
    change: Change | None = None


@dataclass(frozen=True)
class Refresh:
    """Read the table again from the database (its seats were renamed in one transaction: ``Store.rename_player``)."""


Command = (
    Act
    | Start
    | StartRound
    | Join
    | Leave
    | TakeOver
    | Return
    | Attach
    | Detach
    | RematchAnswer
    | ExpireRematch
    | Expire
    | ShowHand
    | Note
    | Premove
    | DropPremove
    | ChangeSeatSettings
    | SpendBank
    | PauseClock
    | ResumeClock
    | Created
    | Follow
    | Refresh
)
"""Every change of a live table."""


@dataclass
class Outcome:
    """What one command did, for ``publish``: the writer sends nothing itself."""

    send: list[Outbox] = field(default_factory=list)
    """Outboxes to send in order (states caught up with first, each version once)."""
    changed: bool = False
    """Whether the table changed: its timers are armed again and its bots looked at."""
    tell: bool = False
    """Whether the other processes are told of the table's new ``version`` (``event``: the action, if one)."""
    version: int = 0
    event: Change | None = None
    acted: Act | None = None
    """The move stored, if the command was one (for the metrics)."""
    started: bool = False
    """A game has just started: a player who joined but is not connected must not hold it up."""
    revoked: set[Connection] = field(default_factory=set)
    """Connections whose seat's token no longer opens the seat: closed."""
    evicted: set[Connection] = field(default_factory=set)
    """A seat's oldest connections beyond its limit: closed."""
    presence: str | None = None
    """A word to the other processes about the command's seat (``away``: a bot plays it here)."""
    connected: bool | None = None
    """The command's seat was just attached here (``True``: its grace period stops) or its last connection here
    closed (``False``: its grace period begins)."""
    spectators: int | None = None
    """The table's spectators here, when their number changed (the other processes add them up)."""
    seat: int | None = None
    token: str | None = None
    """A join's seat token."""
    bot_delay: float = 0.0
    """Seconds before a bot to move plays (after another process's move: its own bot may be on it)."""
    refused: Refused | None = None
    """Why the table refused the command (raised once what was caught up on the way is sent)."""


class Door(Protocol):
    """The one way into a table (the registry): a command submitted, processed by the writer, published."""

    async def submit(self, table: Table, command: Command) -> Outcome: ...
    def post(self, table: Table, command: Command) -> None:
        """Submit ``command`` in the background (a timer's), refusals dropped."""
