"""LUZ as an OpenSpiel game: ``pyspiel.load_game("luz", {...})`` once this module is imported.

Parameters: ``edition`` (a key or alias, default ``iello-2024``), ``players`` (default 4), ``bid_cap`` (``-1``
the edition's, ``-2`` none, else the cap), ``trick_history`` (default false), ``first_player`` (``-1``: drawn by
chance, else the seat) and ``made_points`` (``"default"`` or one number a deal separated by ``/``: ``"2/4/6/8"``).

Chance deals the cards one at a time: outcome ``i`` is card ``i`` of the edition's sorted deck, the j-th card
drawn in a deal goes to seat ``j // 10`` and the cards never drawn are the aside, so every deal is exactly
uniform and a chance node has at most 60 outcomes. A game starts with a chance node drawing the first player
unless ``first_player`` is set. The episode is the whole game (all deals); returns are the raw point totals, and
``rewards()`` are the points of the deals that ended since the previous player action.

Information state (perfect recall within a deal): the seat's View plus the order of the deal's plays; earlier
deals enter through their scores, since no card of a finished deal can matter to a later one. Observation: the
seat's View alone, i.e. the table as the rules let it be seen. Both are built from :func:`luz.engine.view`.

>>> import pyspiel
>>> game = pyspiel.load_game("luz", {"edition": "standard-deck", "players": 3, "first_player": 0})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes()), game.num_distinct_actions()
(True, 40, 32)
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]

from luz.engine import (
    DEFAULT_EDITION,
    EDITIONS,
    HAND_SIZE,
    Action,
    Card,
    Edition,
    Game,
    InvalidOptions,
    Phase,
    TableOptions,
    View,
    get_edition,
    replay,
    to_record,
)
from luz.engine import view as view_of
from luz.engine.beliefs import Beliefs

from .encoding import ACTION_COUNT, Encoder, Table, action_of, points_scale

SHORT_NAME = "luz"
PARAMETERS: dict[str, Any] = {
    "edition": DEFAULT_EDITION,
    "players": 4,
    "bid_cap": -1,
    "trick_history": False,
    "first_player": -1,
    "made_points": "default",
}
"""The game's parameters and their defaults."""
EDITION_BID_CAP, NO_BID_CAP = -1, -2
"""Special values of the ``bid_cap`` parameter (OpenSpiel parameters have one type: an int here)."""
REPLAYS_KEPT = 16
"""States at the start of a deal that a game keeps for resampling."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="LUZ (you never see your own cards)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=max(p for edition in EDITIONS.values() for p in edition.player_counts),
    min_num_players=min(p for edition in EDITIONS.values() for p in edition.player_counts),
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


@dataclass(frozen=True, eq=False)
class Setup:
    """One kind of table, resolved from the game's parameters (shared by every state of the game)."""

    params: tuple[tuple[str, Any], ...]
    edition: Edition
    players: int
    options: TableOptions
    """The table options; ``first_player`` is None when chance draws it."""
    deck: tuple[Card, ...]
    deck_index: dict[Card, int]
    infostate: Encoder
    observation: Encoder

    def new_game(self, first_player: int) -> Game:
        options = TableOptions(self.options.bid_cap, self.options.trick_history, first_player, self.options.made_points)
        return Game(self.edition, self.players, options)

    def deal_of(self, drawn: Sequence[int]) -> tuple[list[list[Card]], list[Card]]:
        """The hands and aside of a deal whose cards were drawn in order ``drawn`` (10 to a seat, in seat order)."""
        cards = [self.deck[i] for i in drawn]
        hands = [cards[i : i + HAND_SIZE] for i in range(0, len(cards), HAND_SIZE)]
        taken = set(drawn)
        return hands, [card for i, card in enumerate(self.deck) if i not in taken]


@functools.cache
def setup_of(params: tuple[tuple[str, Any], ...]) -> Setup:
    """The table that a game's parameters describe; :class:`InvalidOptions` names a bad parameter."""
    given = dict(params)
    unknown = set(given) - set(PARAMETERS)
    if unknown:
        raise InvalidOptions(f"unknown luz parameter(s): {', '.join(sorted(unknown))}; known: {', '.join(PARAMETERS)}")
    values = {**PARAMETERS, **given}
    edition = get_edition(values["edition"])
    players = values["players"]
    edition.check_players(players)
    overrides: dict[str, Any] = {"trick_history": values["trick_history"]}
    cap = values["bid_cap"]
    if cap < 0 and cap not in (EDITION_BID_CAP, NO_BID_CAP):
        raise InvalidOptions(f"bid_cap must be -1 (the edition's), -2 (no cap) or a cap >= 0, not {cap}")
    if cap == NO_BID_CAP:
        overrides["bid_cap"] = None
    elif cap != EDITION_BID_CAP:
        overrides["bid_cap"] = cap
    first = values["first_player"]
    if first < -1:
        raise InvalidOptions(f"first_player must be -1 (drawn by chance) or a seat, not {first}")
    if first != -1:
        overrides["first_player"] = first
    points = str(values["made_points"]).strip().lower()
    if points != "default":
        try:
            overrides["made_points"] = [int(p) for p in points.split("/")]
        except ValueError:
            raise InvalidOptions(f"made_points must be 'default' or numbers like '10/20/30/40': {points!r}") from None
    options = edition.options(players, **overrides)
    deck = edition.deck(players)
    return Setup(
        params=tuple(sorted(values.items())),
        edition=edition,
        players=players,
        options=options,
        deck=deck,
        deck_index={card: i for i, card in enumerate(deck)},
        infostate=Encoder(edition, players, options, perfect_recall=True),
        observation=Encoder(edition, players, options, perfect_recall=False),
    )


class LuzGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game: metadata and factories; states hold the engine game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.setup = setup_of(tuple(sorted((params or {}).items())))
        self._replayed: OrderedDict[tuple[int, ...], LuzState] = OrderedDict()
        setup = self.setup
        deals = setup.edition.deals(setup.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=max(len(setup.deck), setup.players),
            num_players=setup.players,
            min_utility=float(-setup.edition.miss_penalty * HAND_SIZE * deals),
            max_utility=float(max(sum(setup.options.made_points), 1)),
            max_game_length=deals * setup.players * (1 + HAND_SIZE),
        )
        super().__init__(GAME_TYPE, info, dict(setup.params))

    def new_initial_state(self) -> LuzState:
        return LuzState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> LuzObserver:
        return LuzObserver(self.setup, iig_obs_type, params)

    def state_after(self, history: Sequence[int]) -> LuzState:
        """A new state after ``history``; the last few are kept, so that a search resampling the same deal again
        and again replays only that deal."""
        key = tuple(history)
        state = self._replayed.get(key)
        if state is None:
            state = self.new_initial_state()
            for action in history:
                state.apply_action(action)
            self._replayed[key] = state
            if len(self._replayed) > REPLAYS_KEPT:
                self._replayed.popitem(last=False)
        else:
            self._replayed.move_to_end(key)
        return state.clone()  # type: ignore[no-any-return]

    def max_chance_nodes_in_history(self) -> int:
        setup = self.setup
        drawn_first = 1 if setup.options.first_player is None else 0
        return drawn_first + setup.edition.deals(setup.players) * HAND_SIZE * setup.players


class Progress:
    """A state's Python side in one object, so that OpenSpiel's clone (a deep copy) and serialisation (a
    pickle) stay cheap and exact: the table, the cards drawn so far in this deal, the last rewards."""

    __slots__ = ("deal_start", "drawn", "rewards", "setup", "table")

    def __init__(
        self,
        setup: Setup,
        table: Table | None,
        drawn: Sequence[int] = (),
        rewards: tuple[float, ...] | None = None,
        deal_start: int = 0,
    ) -> None:
        self.setup = setup
        self.table = table
        self.drawn = list(drawn)
        self.rewards = rewards or (0.0,) * setup.players
        self.deal_start = deal_start
        """The index in the history of this deal's first card drawn."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Progress:
        table = None if self.table is None else self.table.clone()
        return Progress(self.setup, table, self.drawn, self.rewards, self.deal_start)

    def __reduce__(self) -> tuple[Any, ...]:
        table = self.table
        record = None
        if table is not None:
            if not table.game.history_complete:
                raise ValueError("a state rebuilt from a seat's view has no history: it cannot be serialised")
            record = json.dumps(to_record(table.game))
        plays = None if table is None else (table.plays, table.first_trick)
        return (_restore, (self.setup.params, record, plays, self.drawn, self.rewards, self.deal_start))


def _restore(
    params: tuple[tuple[str, Any], ...],
    record: str | None,
    plays: tuple[list[tuple[int, int]], int] | None,
    drawn: list[int],
    rewards: tuple[float, ...],
    deal_start: int,
) -> Progress:
    table = None
    if record is not None and plays is not None:
        table = Table(replay(record), [tuple(p) for p in plays[0]], plays[1])  # type: ignore[misc]
    return Progress(setup_of(params), table, drawn, rewards, deal_start)


class LuzState(pyspiel.State):  # type: ignore[misc]
    """A position of the OpenSpiel game: chance deals, then the engine plays."""

    def __init__(self, game: LuzGame) -> None:
        super().__init__(game)
        setup = game.setup
        first = setup.options.first_player
        table = None if first is None else Table(setup.new_game(first))
        self._progress = Progress(setup, table)

    # -- the engine underneath --------------------------------------------------------------------------

    @property
    def table(self) -> Table | None:
        """The engine game and the deal's play order (``None`` until chance has drawn the first player)."""
        return self._progress.table

    def view(self, seat: int | None) -> View | None:
        """What ``seat`` (``None``: a spectator) knows now: the only source of observations."""
        table = self._progress.table
        return None if table is None else view_of(table.game, seat)

    # -- the OpenSpiel API ----------------------------------------------------------------------------

    def current_player(self) -> int:
        table = self._progress.table
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        game = table.game
        if game.current_player is not None:
            return game.current_player
        if game.phase is Phase.GAME_OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE)

    def _legal_actions(self, player: int) -> list[int]:
        table = self._progress.table
        assert table is not None and player == table.game.current_player
        return table.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        progress = self._progress
        if progress.table is None:
            players = progress.setup.players
            return [(seat, 1.0 / players) for seat in range(players)]
        drawn = set(progress.drawn)
        left = [card for card in range(len(progress.setup.deck)) if card not in drawn]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        progress = self._progress
        table = progress.table
        if table is None or table.game.current_player is None:
            self._apply_chance(action)
            return
        scores = table.apply_id(action)
        progress.rewards = (0.0,) * progress.setup.players if scores is None else tuple(map(float, scores))

    def _apply_chance(self, outcome: int) -> None:
        progress = self._progress
        setup = progress.setup
        if progress.table is None:
            if not 0 <= outcome < setup.players:
                raise ValueError(f"the first player is a seat 0..{setup.players - 1}, not {outcome}")
            progress.table = Table(setup.new_game(outcome))
            return
        game = progress.table.game
        if game.phase is not Phase.DEAL:
            raise ValueError("no chance event now: the game is over")
        if not 0 <= outcome < len(setup.deck) or outcome in progress.drawn:
            raise ValueError(f"card {outcome} cannot be drawn: it is not in the deck or was drawn already")
        if not progress.drawn:
            progress.deal_start = len(self.history())
        progress.drawn.append(outcome)
        if len(progress.drawn) == HAND_SIZE * setup.players:
            game.deal(*setup.deal_of(progress.drawn))
            progress.drawn = []

    def _action_to_string(self, player: int, action: int) -> str:
        progress = self._progress
        if player >= 0:
            return str(action_of(action))
        if progress.table is None:
            return f"first player: seat {action}"
        setup = progress.setup
        return f"deal {setup.edition.card_name(setup.deck[action])} to seat {len(progress.drawn) // HAND_SIZE}"

    def is_terminal(self) -> bool:
        table = self._progress.table
        return table is not None and table.game.phase is Phase.GAME_OVER

    def returns(self) -> list[float]:
        table = self._progress.table
        if table is None:
            return [0.0] * self._progress.setup.players
        return [float(total) for total in table.game.sheet.totals]

    def rewards(self) -> list[float]:
        return list(self._progress.rewards)

    def __str__(self) -> str:
        """Everything, hidden values included (for debugging; never shown to a player)."""
        progress = self._progress
        if progress.table is None:
            return "first player not drawn yet"
        game = progress.table.game
        name = progress.setup.edition.card_name
        lines = [f"deal {game.deal_number}/{game.deal_count}, {game.phase.value}, first {game.first_player}"]
        if game.phase is not Phase.DEAL:
            deal = game.deals[-1]
            lines += [f"hand {seat}: {' '.join(map(name, hand))}" for seat, hand in enumerate(deal.hands)]
            lines.append(f"aside: {' '.join(map(name, deal.aside))}")
            lines.append(f"actions: {' '.join(map(str, game.actions[-1]))}")
        if progress.drawn:
            lines.append(f"drawn: {' '.join(name(progress.setup.deck[i]) for i in progress.drawn)}")
        lines.append(f"totals: {' '.join(map(str, game.sheet.totals))}")
        return "\n".join(lines)

    # -- search -----------------------------------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> LuzState:
        """A state that ``player_id`` cannot tell from this one, drawn uniformly from those (exactly, by the
        belief sampler), with a history that leads to it: the same actions, the seat's own cards dealt
        differently. ``probability_sampler()`` gives the uniform numbers in [0, 1)."""
        progress = self._progress
        table = progress.table
        uniform = _Uniform(probability_sampler)
        if table is None or table.game.phase is Phase.GAME_OVER:
            return self.clone()  # type: ignore[no-any-return]
        game = table.game
        if game.phase is Phase.DEAL:  # cards being dealt: nobody has seen any
            cards = uniform.sample(range(len(progress.setup.deck)), len(progress.drawn))
            if game.history_complete:
                return self._with_draws(progress.deal_start, cards)
            state: LuzState = self.clone()
            state._progress.drawn = cards
            return state
        beliefs = Beliefs(view_of(game, player_id))
        world = beliefs.sample(uniform)  # type: ignore[arg-type]
        if not game.history_complete:
            return state_at(self.get_game(), Table(beliefs.to_game(world), table.plays, table.first_trick))
        deck_index = progress.setup.deck_index
        hand = game.deals[-1].hands[player_id]
        replaced = {
            deck_index[hand[slot]]: deck_index[Card(hand[slot].colour, value)] for slot, value in world.values.items()
        }
        history = self.history()
        start = progress.deal_start + HAND_SIZE * player_id
        own = [replaced.get(card, card) for card in history[start : start + HAND_SIZE]]
        return self._with_draws(start, own)

    def _with_draws(self, start: int, cards: Sequence[int]) -> LuzState:
        """This state's history replayed with the draws from ``start`` (in this deal) replaced by ``cards``."""
        history = self.history()
        history[start : start + len(cards)] = cards
        deal_start = self._progress.deal_start
        state: LuzState = self.get_game().state_after(history[:deal_start])
        for action in history[deal_start:]:
            state.apply_action(action)
        return state


class _Uniform:
    """A ``random.Random``-like source over an OpenSpiel probability sampler (only what the samplers use)."""

    def __init__(self, sampler: Callable[[], float]) -> None:
        self.random = sampler

    def sample(self, population: range, count: int) -> list[int]:
        pool = list(population)
        for i in range(count):
            j = i + int(self.random() * (len(pool) - i))
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:count]


def state_at(game: LuzGame, table: Table) -> LuzState:
    """A state of ``game`` at ``table``'s position, with no history before it (for search from a view)."""
    state: LuzState = game.new_initial_state()
    state._progress = Progress(game.setup, table)
    return state


class LuzObserver:
    """OpenSpiel's observer interface over :class:`~luz.research.encoding.Encoder`: one seat's view (private
    info of a single player), or the public view (no private info); perfect recall adds the deal's play order."""

    def __init__(
        self, setup: Setup, iig_obs_type: pyspiel.IIGObservationType | None, params: dict[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"luz observers take no parameters, not {params!r}")
        private = pyspiel.PrivateInfoType.SINGLE_PLAYER
        perfect_recall = False
        if iig_obs_type is not None:
            if not iig_obs_type.public_info:
                raise ValueError("luz observations always include public information")
            private = iig_obs_type.private_info
            perfect_recall = iig_obs_type.perfect_recall
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("luz observers show one seat's view or the public view, never every seat's cards")
        self._public = private == pyspiel.PrivateInfoType.NONE
        self.encoder = setup.infostate if perfect_recall else setup.observation
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = self.encoder.split(self.tensor)

    def _seen(self, state: LuzState, player: int) -> tuple[View | None, Any]:
        table = state.table
        memory = None if table is None else table.memory()
        return state.view(None if self._public else player), memory

    def set_from(self, state: LuzState, player: int) -> None:
        seen, memory = self._seen(state, player)
        self.encoder.encode(seen, player, memory, self.tensor)

    def string_from(self, state: LuzState, player: int) -> str:
        seen, memory = self._seen(state, player)
        return self.encoder.text(seen, player, memory)


pyspiel.register_game(GAME_TYPE, LuzGame)


def record_from_history(game: LuzGame, history: Sequence[int]) -> dict[str, Any]:
    """The luz record (docs/RECORD.md) of the game an OpenSpiel history describes, decoded from the history alone
    (a deal still being drawn is left out); :func:`luz.engine.replay` checks it through the rules."""
    setup = game.setup
    actions = list(history)
    first = setup.options.first_player
    if first is None:
        if not actions:
            raise ValueError("the history is empty: the first player is not drawn yet")
        first = actions.pop(0)
    engine = setup.new_game(first)
    dealt = HAND_SIZE * setup.players
    while actions:
        if engine.phase is Phase.DEAL:
            if len(actions) < dealt:
                break
            engine.deal(*setup.deal_of(actions[:dealt]))
            del actions[:dealt]
        else:
            engine.apply(action_of(actions.pop(0)))
    return to_record(engine)


# -- search from a seat's view: the entry point for bots ------------------------------------------------


def game_for(seen: View) -> LuzGame:
    """The OpenSpiel game of the table ``seen`` belongs to (one game object per kind of table, reused)."""
    options = seen.options
    bid_cap = NO_BID_CAP if options.bid_cap is None else options.bid_cap
    made_points = "/".join(map(str, options.made_points))
    return _loaded(seen.edition.key, seen.players, bid_cap, options.trick_history, made_points)


@functools.cache
def _loaded(edition: str, players: int, bid_cap: int, trick_history: bool, made_points: str) -> LuzGame:
    params = {
        "edition": edition,
        "players": players,
        "bid_cap": bid_cap,
        "trick_history": trick_history,
        "made_points": made_points,
    }
    return pyspiel.load_game(SHORT_NAME, params)  # type: ignore[no-any-return]


def state_from_view(seen: View, rng: random.Random) -> LuzState:
    """A state at the position ``seen`` shows, its hidden part drawn uniformly from the seat's beliefs."""
    return state_at(game_for(seen), Table.from_view(seen, rng))


class DealRolloutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """Values by random play to the end of the current deal (not the game), in the engine: faster and less
    noisy than whole-game rollouts, since later deals are fresh shuffles. Values are point totals."""

    def __init__(self, rollouts: int = 1, seed: int = 0) -> None:
        self.rollouts = rollouts
        self._rng = random.Random(seed)

    def evaluate(self, state: LuzState) -> np.ndarray:
        table = state.table
        assert table is not None
        total = np.zeros(table.game.players)
        choice = self._rng.choice
        for _ in range(self.rollouts):
            game = table.game.clone()
            while game.current_player is not None:
                game.apply(choice(game.legal_actions()))
            total += game.sheet.totals
        return total / self.rollouts

    def prior(self, state: LuzState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


class _OutOfTime(Exception):
    """Raised inside a search when its time is up (after at least two simulations: OpenSpiel's first one only
    expands the root, and a final policy needs a visit)."""


class _TimedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """ISMCTS that also stops after ``seconds`` a search (``None``: only after ``max_simulations``)."""

    def __init__(self, *args: Any, seconds: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self.simulations = 0
        self._deadline = float("inf")

    def sample_root_state(self, state: LuzState) -> LuzState:
        if self.simulations >= 2 and time.perf_counter() > self._deadline:
            raise _OutOfTime
        self.simulations += 1
        return super().sample_root_state(state)  # type: ignore[no-any-return]

    def restart_at(self, state: LuzState) -> None:
        """Nothing to forget: each search builds its tree afresh from the state it is given. (OpenSpiel's
        ``evaluate_bots`` calls this when it starts from a state with a history, and fails without it.)"""

    def run_search(self, state: LuzState) -> list[tuple[int, float]]:
        self.simulations = 0
        self._deadline = float("inf") if self.seconds is None else time.perf_counter() + self.seconds
        try:
            return super().run_search(state)  # type: ignore[no-any-return]
        except _OutOfTime:
            return self.get_final_policy(state, self._root_node)  # type: ignore[no-any-return]


def make_ismcts_bot(
    game: LuzGame,
    *,
    simulations: int = 100,
    seconds: float | None = None,
    seed: int = 0,
    exploration: float = 1.0,
    evaluator: str | mcts.Evaluator = "deal",
) -> ismcts.ISMCTSBot:
    """OpenSpiel's ISMCTS on ``game``, resampling worlds through :meth:`LuzState.resample_from_infostate`.

    ``evaluator``: ``"deal"`` (:class:`DealRolloutEvaluator`), ``"game"`` (OpenSpiel's whole-game random
    rollouts) or an evaluator. The UCT constant is ``exploration`` times the points one deal can swing, since
    values are raw points. ``seconds`` stops each search early (``simulations`` still bounds it).
    """
    if isinstance(evaluator, str):
        if evaluator not in ("deal", "game"):
            raise ValueError(f"evaluator must be 'deal', 'game' or an OpenSpiel evaluator, not {evaluator!r}")
        if evaluator == "deal":
            evaluator = DealRolloutEvaluator(seed=seed)
        else:
            evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    setup = game.setup
    bot = _TimedISMCTS(
        game,
        evaluator,
        exploration * points_scale(setup.edition, setup.options),
        simulations,
        random_state=np.random.RandomState(seed),
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        seconds=seconds,
    )
    rng = random.Random(seed)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.random))
    return bot


def ismcts_action(seen: View, **settings: Any) -> Action:
    """The action OpenSpiel's ISMCTS chooses for the seat whose view is ``seen`` (its turn).

    ``settings`` are :func:`make_ismcts_bot`'s (``simulations``, ``seconds``, ``seed``, ``exploration``,
    ``evaluator``). The search starts from a world drawn from the seat's exact beliefs and resamples one per
    simulation; it sees nothing but ``seen``. It stops after ``simulations`` or ``seconds``, whichever comes first.
    """
    if seen.seat is None or seen.seat != seen.current_player or not seen.legal_actions:
        raise ValueError("ismcts_action needs the view of the seat whose turn it is")
    if len(seen.legal_actions) == 1:
        return seen.legal_actions[0]
    state = state_from_view(seen, random.Random(settings.get("seed", 0)))
    bot = make_ismcts_bot(state.get_game(), **settings)
    choice = action_of(int(bot.step(state)))
    assert choice in seen.legal_actions
    return choice
