"""The tables' domain vocabulary apart from persistence: a table's state and seats, its ``Status`` and ``SeatKind``,
the seat policies and their refusals, the rating rules ``unrates`` and ``unrated_at_end``, and the replay of a stored
table (``build_game``).

The store persists these values, the live tables (``tables/``) change them; this module imports neither."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from luz.engine import Game, get_edition, parse_action


def is_turn_based(time_control: dict[str, int] | None) -> bool:
    """Whether a stored time control gives days per move (a turn-based table)."""
    return time_control is not None and "days_per_move" in time_control


def replaced(clock: dict[str, Any] | None) -> set[int]:
    """The seats of a turn-based game that a bot plays for the rest of it, their players' time having run out
    ``timeouts_before_bot`` times in a row (``timecontrol.py``)."""
    return set(clock.get("replaced", ())) if clock is not None else set()


class Status(StrEnum):
    """Where a table is: waiting for players, playing a game, between games (its last one over), or expired
    (nobody came in time: tables/commands.py ``Expire``)."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"
    EXPIRED = "expired"


class SeatKind(StrEnum):
    """Who sits at a seat: a person or a bot."""

    HUMAN = "human"
    BOT = "bot"


@dataclass
class SeatState:
    seat: int
    kind: SeatKind
    bot: str | None
    name: str | None
    joined: bool
    player: str | None = None
    """The id of the identity that took the seat (public: it links to the player's profile)."""
    guest: bool = False
    """Whether that identity is a guest (shown as a "guest" mark beside its name)."""
    shows_hand: bool = False
    """Whether its player agreed that anyone watching sees its cards (at a ``show_hands`` table)."""
    client: str | None = field(default=None, repr=False)
    """The keyed hash of the client it was taken from (never sent: fanout.py refuses that client the face-up
    view)."""
    forced_moves: bool = True
    """Whether its player's only legal card is played for them at a turn-based table (their setting; private)."""

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "bot": self.bot,
            "name": self.name,
            "joined": self.joined,
            "player": self.player,
            "guest": self.guest,
            "shows_hand": self.shows_hand,
        }


@dataclass
class TableState:
    """A table as stored: its settings, seats, current game's seed and actions, and version."""

    id: str
    name: str
    edition: str
    players: int
    options: dict[str, Any]
    public: bool
    grace_seconds: float
    status: Status
    game_no: int
    version: int
    seats: list[SeatState]
    hints: bool = False
    rated: bool = False
    """Whether its games change the players' ratings (ratings.py): every human seat an account's."""
    seed: int | None = None
    actions: list[str] = field(default_factory=list)
    time_control: dict[str, int] | None = None
    """A reserve and an increment per move (timecontrol.py); ``None``: untimed."""
    clock: dict[str, Any] | None = None
    rematch: dict[str, Any] | None = None
    """The rematch offered after the last game (tables/rematch.py), as stored; ``None``: none."""
    show_hands: bool = False
    """Whether spectators see every hand face up (an unlisted, unrated table only: fanout.py)."""
    tutorial: bool = False
    """Whether it is a tutorial's table: its bots play on alone once its one human has gone (a table of bots)."""
    unrated: dict[str, Any] | None = None
    """Why the current game of a rated table no longer counts (``{"reason": "left" | "timeout", "seat": n}``:
    in its first deal; ``"alone"``: it ended with fewer than two humans who finished it, ``"linked"``: its
    players share a client); ``None``: it counts, or the table is unrated."""
    deal_seed: int | None = None
    """The finished game's seed its first game plays again ("Play this deal"); never in the summary."""
    deal_set: str | None = None
    """The named deal set its first game plays (then ``deal_seed`` is the set's)."""
    tournament: str | None = None
    """The tournament whose round it plays: its one game is the round's (no rematch)."""

    def summary(self) -> dict[str, Any]:
        gone = replaced(self.clock)
        return {
            "id": self.id,
            "name": self.name,
            "edition": self.edition,
            "players": self.players,
            "options": self.options,
            "public": self.public,
            "grace_seconds": self.grace_seconds,
            "hints": self.hints,
            "rated": self.rated,
            "show_hands": self.show_hands,
            "tutorial": self.tutorial,
            "shared_deal": self.deal_seed is not None,
            "deal_set": self.deal_set,
            "tournament": self.tournament,
            "unrated": self.unrated,
            "time_control": self.time_control,
            "turn_based": is_turn_based(self.time_control),
            "status": self.status,
            "game_no": self.game_no,
            "version": self.version,
            "seats": [{**s.public(), "replaced": s.seat in gone} for s in self.seats],
            "rematch": self.rematch if self.status == Status.OVER else None,
        }


def unrates(state: TableState, game: Game | None, seat: int, timeout: bool, away: set[int]) -> tuple[str, int] | None:
    """Why a move of ``seat`` now makes the current game of a rated table unrated for everyone: its player's time
    ran out (``timeout``), or a bot plays for them (``away``: they left, or were gone past their grace), in the
    first deal. ``None``: the game still counts (or never did)."""
    if not state.rated or state.unrated is not None or state.status != Status.PLAYING or game is None:
        return None
    if game.deal_number != 1 or game.outcome() is not None:
        return None
    if state.seats[seat].kind != SeatKind.HUMAN:
        return None
    if timeout:
        return ("timeout", seat)
    return ("left", seat) if seat in away else None


def unrated_at_end(state: TableState, results: list[dict[str, Any]] | None) -> tuple[str, int] | None:
    """Why a rated game that ends now counts for nobody: a human left it (after its first deal) and fewer than two
    humans finished at their seats (``alone``, the seat of one who left: no rating comes from a game whose other
    players all left). ``None``: it still counts (or never did)."""
    if not state.rated or state.unrated is not None or not results:
        return None
    humans = [r for r in results if r["kind"] == SeatKind.HUMAN and r["player_id"] is not None]
    left = [r["seat"] for r in humans if r["abandoned"]]
    if not left or len(humans) - len(left) >= 2:
        return None
    return ("alone", left[0])


def agreed(state: TableState) -> bool:
    """Whether the table may start as far as showing hands goes: at a ``show_hands`` table every seated human
    agreed that anyone watching sees its cards (bots need not)."""
    humans = [seat for seat in state.seats if seat.kind == SeatKind.HUMAN]
    return not state.show_hands or all(seat.shows_hand for seat in humans)


def build_game(state: TableState) -> Game | None:
    """The current game of a stored table, replayed through the rules from its seed and actions."""
    if state.seed is None:
        return None
    edition = get_edition(state.edition)
    game = Game(edition, state.players, edition.options(state.players, **state.options), seed=state.seed)
    for action in state.actions:
        game.apply(parse_action(action))
    return game


class SecondSeat(PermissionError):
    """The identity already holds another seat at the table: one seat per identity."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"you already hold seat {seat + 1} at this table: one seat per player")
        self.seat = seat


class AccountRequired(PermissionError):
    """A guest asked for a seat at a rated table: only accounts are rated."""

    code = "account_required"

    def __init__(self) -> None:
        super().__init__("this table is rated: sign in to an account (or register) to take a seat")


class AccountTooNew(PermissionError):
    """An account too new (and with too few finished games) asked for a seat at a rated table."""

    code = "account_too_new"

    def __init__(self, hours: float, games: int) -> None:
        super().__init__(
            f"this table is rated: an account takes a rated seat once it is {hours:g} hours old or has finished"
            f" {games} games; play unrated games meanwhile"
        )


class OneSeatPerAddress(PermissionError):
    """Another seat of a public or rated table was taken from the same client address, through any identity."""

    code = "one_seat_per_address"

    def __init__(self) -> None:
        super().__init__(
            "another seat of this table was taken from your address: one seat per address at public and rated"
            " tables (friends behind one address play at a private table, by its invite links)"
        )


@dataclass(frozen=True)
class SeatPolicy:
    """The fair-play rules of taking a seat (settings.py): seats per client address at public and rated tables
    (0: no limit), and how old, or how many finished games, an account needs for a rated seat."""

    seats_per_address: int = 0
    rated_min_account_hours: float = 0.0
    rated_min_games: int = 0


class TooManyWaiting(PermissionError):
    """The client already has as many public tables waiting for players as one may (the lobby is for all)."""

    code = "waiting_tables_per_client"

    def __init__(self, cap: int) -> None:
        super().__init__(
            f"you already have {cap} public tables waiting for players, the most at once: play one, or wait until"
            " one expires"
        )


class Expired(PermissionError):
    """A seat of a table that expired, nobody having joined in time."""

    code = "expired"

    def __init__(self) -> None:
        super().__init__("this table expired: nobody joined it in time; create another")


class TooManyGames(PermissionError):
    """The identity already sits at as many unfinished turn-based tables as one may."""

    code = "too_many_games"

    def __init__(self, cap: int) -> None:
        super().__init__(f"you already play {cap} turn-based games, the most at once: finish one first")
