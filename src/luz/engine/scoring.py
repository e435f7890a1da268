"""The score sheet: scoring, first-player rotation, end of game and tie-breaks, kept apart from play.

The same sheet serves the engine (fed by played deals) and the tabletop score-keeper (fed by hand).

>>> from luz.engine.editions import get_edition
>>> sheet = ScoreSheet.new(get_edition("iello-2024"), players=3, first_player=0)
>>> sheet = sheet.add(bids=(2, 1, 3), safety=(False, True, False), tricks=(2, 2, 6))
>>> sheet.deals[0].scores, sheet.next_first_player()
((10, 5, -15), 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypedDict

from .editions import HAND_SIZE, MAX_BID, Edition, TableOptions
from .errors import InvalidScores


class DealResultJson(TypedDict):
    """:meth:`DealResult.to_json`: the lists are by seat."""

    first_player: int
    bids: list[int]
    safety: list[bool]
    tricks: list[int]
    scores: list[int]


@dataclass(frozen=True, slots=True)
class DealResult:
    """One scored deal: who bid first, the bids, safeties, tricks taken and points, by seat."""

    first_player: int
    bids: tuple[int, ...]
    safety: tuple[bool, ...]
    tricks: tuple[int, ...]
    scores: tuple[int, ...]

    def to_json(self) -> DealResultJson:
        return {
            "first_player": self.first_player,
            "bids": list(self.bids),
            "safety": list(self.safety),
            "tricks": list(self.tricks),
            "scores": list(self.scores),
        }


class TieBreak(Enum):
    """What decided the winner."""

    TOTAL = "total"
    LAST_DEAL = "last_deal"
    SEAT_ORDER = "seat_order"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: totals, the full ranking (best first) and how the winner was decided."""

    totals: tuple[int, ...]
    ranking: tuple[int, ...]
    tied: tuple[int, ...]
    """Seats that shared the highest total (just the winner when there was no tie)."""
    decided_by: TieBreak
    reference_seat: int
    """The seat counted from in the last tie-break (the last deal's first bidder, or its usual first player)."""
    last_deal_scores: tuple[int, ...]

    @property
    def winner(self) -> int:
        return self.ranking[0]

    def explain(self, names: Sequence[str] | None = None) -> str:
        """A sentence saying why the winner won."""
        name = (lambda s: names[s]) if names else (lambda s: f"seat {s}")
        winner = self.winner
        if self.decided_by is TieBreak.TOTAL:
            return f"{name(winner)} wins with the highest total, {self.totals[winner]}."
        others = ", ".join(name(s) for s in self.tied if s != winner)
        head = f"{name(winner)} is tied with {others} on {self.totals[winner]} points"
        if self.decided_by is TieBreak.LAST_DEAL:
            return f"{head} and wins with the most points in the last deal ({self.last_deal_scores[winner]})."
        return (
            f"{head} and on points in the last deal ({self.last_deal_scores[winner]}); "
            f"{name(winner)} wins as the tied player nearest {name(self.reference_seat)}, counting from them."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": list(self.totals),
            "ranking": list(self.ranking),
            "winner": self.winner,
            "tie_break": {
                "tied": list(self.tied),
                "decided_by": self.decided_by.value,
                "reference_seat": self.reference_seat,
            },
        }


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """An immutable score sheet; :meth:`add` returns a new one with a deal scored."""

    edition: Edition
    players: int
    options: TableOptions
    first_player: int
    """First player of the first deal."""
    deals: tuple[DealResult, ...] = ()

    @classmethod
    def new(cls, edition: Edition, players: int, first_player: int, options: TableOptions | None = None) -> ScoreSheet:
        options = options or edition.options(players)
        edition.check_options(players, options)
        if isinstance(first_player, bool) or not isinstance(first_player, int) or not 0 <= first_player < players:
            raise InvalidScores(f"first_player must be a seat 0..{players - 1}, not {first_player!r}")
        return cls(edition, players, options, first_player)

    # -- progress ----------------------------------------------------------------------------------------

    @property
    def deal_count(self) -> int:
        return self.edition.deals(self.players)

    @property
    def is_over(self) -> bool:
        return len(self.deals) >= self.deal_count

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(d.scores[s] for d in self.deals) for s in range(self.players))

    def usual_first_player(self, deal_index: int) -> int:
        """First player of deal ``deal_index`` (0-based) by plain rotation to the left."""
        return (self.first_player + deal_index) % self.players

    def first_player_of(self, deal_index: int) -> int:
        """Actual first player of deal ``deal_index``, given the deals before it on this sheet."""
        usual = self.usual_first_player(deal_index)
        last = deal_index == self.deal_count - 1
        if not (last and self.players == 3 and self.edition.leader_opens_last_deal_with_3):
            return usual
        totals = [sum(d.scores[s] for d in self.deals[:deal_index]) for s in range(self.players)]
        best = max(totals)
        return next(s for s in self._from(usual) if totals[s] == best)

    def first_player_is_leader(self, deal_index: int) -> bool:
        """Whether deal ``deal_index``'s first player is the leader on score rather than the usual rotation's seat
        (3 players, last deal, where the edition says so, and the leader is not the rotation's seat)."""
        return self.first_player_of(deal_index) != self.usual_first_player(deal_index)

    def known_first_player(self, deal_index: int) -> int | None:
        """First player of deal ``deal_index`` if the deals on this sheet already decide it, else ``None``: a deal
        of the plain rotation is always decided; the leader's deal (3 players, last deal) once the deals before it
        are all on the sheet; no deal after the last."""
        if not 0 <= deal_index < self.deal_count:
            return None
        last = deal_index == self.deal_count - 1
        leader_rule = last and self.players == 3 and self.edition.leader_opens_last_deal_with_3
        if leader_rule and len(self.deals) < deal_index:
            return None
        return self.first_player_of(deal_index)

    def next_first_player(self) -> int | None:
        """First player of the next deal, or ``None`` once the game is over."""
        return None if self.is_over else self.first_player_of(len(self.deals))

    def _from(self, seat: int) -> list[int]:
        return [(seat + i) % self.players for i in range(self.players)]

    # -- adding deals ------------------------------------------------------------------------------------

    def check_bids(self, bids: Sequence[int]) -> None:
        """Bids in range and within the table's cap."""
        for seat, bid in enumerate(bids):
            if isinstance(bid, bool) or not isinstance(bid, int) or not 0 <= bid <= MAX_BID:
                raise InvalidScores(f"seat {seat}'s bid must be 0..{MAX_BID}, not {bid!r}")
        cap = self.options.bid_cap
        if cap is not None and sum(bids) > cap:
            raise InvalidScores(f"the bids sum to {sum(bids)}, over the table's cap of {cap}")

    def add(self, bids: Sequence[int], safety: Sequence[bool], tricks: Sequence[int], check: bool = True) -> ScoreSheet:
        """Score one more deal; :class:`InvalidScores` says what is wrong with it.

        ``check=False`` skips the checks, for results that the rules engine itself produced.
        """
        if check:
            self._check_deal(bids, safety, tricks)
        number = len(self.deals) + 1
        scores = tuple(
            self.edition.score(b, s, t, number, self.options) for b, s, t in zip(bids, safety, tricks, strict=True)
        )
        result = DealResult(self.first_player_of(len(self.deals)), tuple(bids), tuple(safety), tuple(tricks), scores)
        return ScoreSheet(self.edition, self.players, self.options, self.first_player, (*self.deals, result))

    def _check_deal(self, bids: Sequence[int], safety: Sequence[bool], tricks: Sequence[int]) -> None:
        if self.is_over:
            raise InvalidScores(
                f"the game is over: {self.edition.key} with {self.players} players has {self.deal_count} deals"
            )
        number = len(self.deals) + 1
        for label, values in (("bids", bids), ("safety", safety), ("tricks", tricks)):
            if not isinstance(values, Sequence) or isinstance(values, str) or len(values) != self.players:
                raise InvalidScores(f"deal {number}: {label} must list one entry per player ({self.players})")
        self.check_bids(bids)
        for seat, flag in enumerate(safety):
            if not isinstance(flag, bool):
                raise InvalidScores(f"deal {number}: seat {seat}'s safety must be true or false, not {flag!r}")
        for seat, taken in enumerate(tricks):
            if isinstance(taken, bool) or not isinstance(taken, int) or not 0 <= taken <= HAND_SIZE:
                raise InvalidScores(f"deal {number}: seat {seat}'s tricks must be 0..{HAND_SIZE}, not {taken!r}")
        if sum(tricks) != HAND_SIZE:
            raise InvalidScores(f"deal {number}: tricks must sum to {HAND_SIZE}, not {sum(tricks)}")

    # -- ranking -----------------------------------------------------------------------------------------

    def _reference_seat(self) -> int:
        if not self.deals:
            return self.first_player
        if self.edition.tie_break_from_usual_first:
            return self.usual_first_player(len(self.deals) - 1)
        return self.deals[-1].first_player

    def standings(self) -> Outcome:
        """Totals and ranking so far, with the end-of-game tie-breaks applied to the latest deal."""
        totals = self.totals
        last = self.deals[-1].scores if self.deals else (0,) * self.players
        reference = self._reference_seat()

        def key(seat: int) -> tuple[int, int, int]:
            return (-totals[seat], -last[seat], (seat - reference) % self.players)

        ranking = tuple(sorted(range(self.players), key=key))
        winner = ranking[0]
        tied = tuple(s for s in ranking if totals[s] == totals[winner])
        if len(tied) == 1:
            decided = TieBreak.TOTAL
        elif sum(1 for s in tied if last[s] == last[winner]) == 1:
            decided = TieBreak.LAST_DEAL
        else:
            decided = TieBreak.SEAT_ORDER
        return Outcome(totals, ranking, tied, decided, reference, tuple(last))

    def outcome(self) -> Outcome | None:
        """The game's outcome once it is over, else ``None``."""
        return self.standings() if self.is_over else None

    def to_json(self) -> dict[str, Any]:
        """The score-keeper's JSON report."""
        standings = self.standings()
        report: dict[str, Any] = {
            "deals": [{"first_player": d.first_player, "scores": list(d.scores)} for d in self.deals],
            "totals": list(standings.totals),
            "ranking": list(standings.ranking),
        }
        if self.is_over:
            report["winner"] = standings.winner
        else:
            report["next_first_player"] = self.next_first_player()
        return report
