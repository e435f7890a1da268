"""A deal of an engine game in the fast core, stepped from Python (for checks against the engine, benchmarks)."""

from __future__ import annotations

import numpy as np

from luz.engine import Action, Bid, Game, Phase, Play

from .rules import (
    BIDDING,
    CURRENT,
    LED,
    OVER,
    PHASE,
    PLAYING,
    H,
    apply_bid,
    apply_play,
    deal_score,
    legal_plays,
    max_bid,
    rules_array,
)


class SimDeal:
    """A deal of an engine game in the fast core, stepped from Python (for checks against the engine, benchmarks)."""

    def __init__(self, game: Game) -> None:
        if game.phase is not Phase.BID or any(b is not None for b in game.bids):
            raise ValueError("a SimDeal starts at the beginning of a deal, before any bid")
        hands = game.deals[-1].hands
        players = game.players
        self.val = np.array([[c.value for c in hand] for hand in hands], dtype=np.int64)
        self.col = np.array([[c.colour for c in hand] for hand in hands], dtype=np.int64)
        self.played = np.zeros((players, H), dtype=np.bool_)
        self.st = np.array([game.first_player, game.first_player, -1, 0, 0, 0, BIDDING, game.first_player])
        self.trick = np.zeros((players, 2), dtype=np.int64)
        self.won = np.zeros(players, dtype=np.int64)
        self.bids = np.full(players, -1, dtype=np.int64)
        self.safe = np.zeros(players, dtype=np.int64)
        self.rules = rules_array(game.edition, players, game.options, game.deal_number)
        self._legal = np.empty(H, dtype=np.int64)

    @property
    def current_player(self) -> int | None:
        return None if self.st[PHASE] == OVER else int(self.st[CURRENT])

    def legal_actions(self) -> list[Action]:
        """The legal actions of the player to act, in the engine's order."""
        if self.st[PHASE] == BIDDING:
            return [Bid(t, s) for t in range(int(max_bid(self.st, self.rules)) + 1) for s in (False, True)]
        if self.st[PHASE] == PLAYING:
            count = legal_plays(self.col, self.played, self.st[CURRENT], self.st[LED], self._legal)
            return [Play(int(slot)) for slot in self._legal[:count]]
        return []

    def apply(self, action: Action) -> int | None:
        """Apply a legal action of the player to act; the winner when it completes a trick."""
        if isinstance(action, Bid):
            apply_bid(self.st, self.bids, self.safe, self.rules, action.tricks, int(action.safety))
            return None
        winner = apply_play(self.val, self.col, self.played, self.st, self.trick, self.won, self.rules, action.slot)
        return None if winner < 0 else int(winner)

    def scores(self) -> list[int]:
        """Each seat's points for the deal once it is over."""
        return [int(deal_score(b, s, t, self.rules)) for b, s, t in zip(self.bids, self.safe, self.won, strict=True)]
