"""LUZ as a PettingZoo AEC environment, ``luz_v0``: one agent per seat, turn by turn.

Each agent observes ``{"observation": float32 vector, "action_mask": int8 vector of 32}``: the encoding of its
seat's view (:class:`~luz.research.encoding.Encoder`, perfect recall of the deal by default) and the action ids
it may take now (all zero when it is not its turn). Rewards are the points each seat scores when a deal ends;
every agent terminates when the game is over. Deals come from the engine's seeded shuffles, the game seed from
``reset(seed=...)``. An illegal or malformed action raises the engine's error and changes nothing.
``render_mode="ansi"`` renders the table as every player sees it as text; ``"human"`` prints that text after each
reset and step, as PettingZoo's classic games render in human mode.

>>> from luz.research import luz_v0
>>> env = luz_v0.env(edition="standard-deck", players=3)
>>> env.reset(seed=1)
>>> observation, reward, terminated, truncated, info = env.last()
>>> observation["action_mask"].sum(), env.agent_selection in env.possible_agents
(np.int64(22), True)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from luz.engine import DEFAULT_EDITION, Game, Phase, get_edition, to_record, view

from .encoding import ACTION_COUNT, Encoder, Table

NAME = "luz_v0"


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # type: ignore[misc]
    """The unwrapped AEC environment; ``options`` are table options (``bid_cap=None``, ``trick_history=True``...)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": NAME,
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        edition: str = DEFAULT_EDITION,
        players: int = 4,
        perfect_recall: bool = True,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.edition = get_edition(edition)
        self.players = players
        self.options = self.edition.options(players, **options)
        self.encoder = Encoder(self.edition, players, self.options, perfect_recall)
        self._table_text = Encoder(self.edition, players, self.options, perfect_recall=False)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8),
            }
        )
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The engine game being played (after :meth:`reset`)."""
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table.game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes its deals and first player (``options`` is not used)."""
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(2**63 - 1))
        self.table = Table(Game.new(self.edition, self.players, seed=game_seed, options=self.options))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._agent_to_act()
        if self.render_mode == "human":
            self.render()

    def _agent_to_act(self) -> str:
        seat = self.game.current_player
        return self.possible_agents[0 if seat is None else seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table.observation(self.encoder, self._seats[agent])

    def step(self, action: Any) -> None:
        """Play ``action`` (an id 0..31) for the agent to act; ``None`` for an agent that is done."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None
        scores = table.apply_id(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if scores is not None:
            for seat, points in enumerate(scores):
                self.rewards[self.possible_agents[seat]] = float(points)
        if table.game.phase is Phase.GAME_OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self._agent_to_act()
        if self.render_mode == "human":
            self.render()

    def record(self) -> dict[str, Any]:
        """The game so far as a luz record (docs/RECORD.md): replay it with :func:`luz.engine.replay`."""
        return to_record(self.game, names=list(self.possible_agents))

    def render(self) -> str | None:
        """The table as every player sees it (no unplayed value): returned for ``render_mode="ansi"``, printed for
        ``"human"``."""
        if self.render_mode is None or self.table is None:
            return None
        text = self._table_text.text(view(self.game, None), 0)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
