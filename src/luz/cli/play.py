"""``luz play``: a whole game in the terminal, the human at seat 0 against bots."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from luz.bots import BOTS, Bot, make_bot
from luz.engine import (
    DEFAULT_EDITION,
    EDITIONS,
    HAND_SIZE,
    Action,
    Bid,
    Deal,
    Game,
    IllegalAction,
    InvalidAction,
    LuzError,
    Phase,
    Play,
    Trick,
    get_edition,
    trick_winner,
    view,
)
from luz.engine.beliefs import with_hints
from luz.engine.errors import brief
from luz.engine.record import dumps

from .apps import app
from .records import fail, load
from .render import bid_text, card_text, render_outcome, render_sheet, render_table, render_trick, slot_label

HUMAN = 0
BOT_NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eve")
BID_INPUT = re.compile(r"0*(\d{1,9})\s*(\+?)")
SLOT_INPUT = re.compile(r"0*(\d{1,9})")
"""Typed numbers: leading zeros dropped, and too long a number is no bid or slot (nor a crash of ``int``)."""


class Abandoned(Exception):
    """The human left the game (end of input, Ctrl-C or ``quit``)."""


def help_text(game: Game) -> str:
    """What the human can type, and what the current deal is worth."""
    points = game.options.made_points[game.deal_number - 1]
    return (
        "Bid: the number of tricks you will take, e.g. 2; add + for the safety\n"
        "  (2+ is made with 2 or 3 tricks, for half the points).\n"
        f"Play: the slot number of a card of your hand (1 = low end, {HAND_SIZE} = HIGH end);\n"
        "  follow the led colour if you hold it. You never see your own values:\n"
        "  the others' cards and your own revealed ones bound them.\n"
        f"This deal a made bid scores {points} ({points // 2} with the safety); a miss costs\n"
        f"  {game.edition.miss_penalty} a trick of difference.\n"
        "?/help: this help. quit (or Ctrl-D, Ctrl-C): abandon the game."
    )


def read_action(text: str, game: Game) -> Action:
    """The action typed as ``text``: a bid (``2``, ``2+``) while bidding, a slot number while playing."""
    if game.phase is Phase.BID:
        match = BID_INPUT.fullmatch(text)
        if match is None:
            raise InvalidAction(f"{brief(text)} is not a bid: type a number of tricks, + for the safety (e.g. 2 or 2+)")
        return Bid(int(match[1]), bool(match[2]))
    return Play(read_slot(text, game))


def read_slot(text: str, game: Game) -> int:
    """The engine's slot (from 0) of the card typed as ``text``: its slot number as shown under the hand (from 1);
    a number out of range or of a card already played is refused with the number as typed."""
    match = SLOT_INPUT.fullmatch(text)
    if match is None:
        raise InvalidAction(f"{brief(text)} is not a slot: type the slot number (1..{HAND_SIZE}) of the card to play")
    number = int(match[1])
    if not 1 <= number <= HAND_SIZE:
        raise InvalidAction(f"a slot must be 1..{HAND_SIZE}, not {number}")
    slot = number - 1
    if view(game, HUMAN).hands[HUMAN][slot].played:
        raise IllegalAction(f"slot {number} was already played")
    return slot


def prompt(game: Game) -> str:
    """The question for the human, with the choices the rules leave."""
    legal = game.legal_actions()
    if game.phase is Phase.BID:
        top = max(a.tricks for a in legal if isinstance(a, Bid))
        return f"Your bid (0-{top}, + for the safety, ? for help): "
    slots = " ".join(slot_label(a.slot) for a in legal if isinstance(a, Play))
    return f"Your card (slot {slots}; ? for help): "


def ask_human(console: Console, game: Game) -> Action:
    """Ask until the human's input is a legal action, apply it and return it; bad input is explained and re-asked."""
    while True:
        text = console.input(prompt(game)).strip().lower()
        if not text:
            continue
        if text in ("?", "help"):
            console.print(help_text(game))
            continue
        if text in ("q", "quit"):
            raise Abandoned
        try:
            action = read_action(text, game)
            game.apply(action, HUMAN)
        except LuzError as error:
            console.print(str(error), style="red")
            continue
        return action


def narrate(
    console: Console, game: Game, names: list[str], seat: int, action: Action, deal: Deal, trick: Trick
) -> None:
    """Say what ``seat`` just did (``deal`` and ``trick`` as they were before), and the trick's or deal's end."""
    if isinstance(action, Bid):
        console.print(f"{names[seat]} bid{'' if seat == HUMAN else 's'} {bid_text(action)}")
        return
    card = deal.hands[seat][action.slot]
    text = card_text(game.edition, card.colour, card.value)
    slot = slot_label(action.slot)
    console.print(f"{names[seat]} play{'' if seat == HUMAN else 's'} ", text, f" (slot {slot})", sep="")
    plays = (*trick.plays, (seat, action.slot, card))
    if len(plays) < game.players:
        return
    winner = trick_winner([(s, c) for s, _, c in plays], game.edition.trump)
    console.print("  trick: ", render_trick(game.edition, Trick(trick.leader, plays, winner), names), sep="")
    if game.phase is Phase.GAME_OVER or game.deals[-1] is not deal:
        console.print(render_sheet(view(game, HUMAN), names))


def announce_deal(console: Console, game: Game, names: list[str]) -> None:
    """Say which deal begins and who bids and leads first."""
    console.print(
        f"\nDeal {game.deal_number} of {game.deal_count}, first player: {names[game.first_player]}", style="bold"
    )


def save(console: Console, game: Game, names: list[str], record: Path | None) -> None:
    """Write the game's record to ``record`` (when given)."""
    if record is None:
        return
    try:
        record.write_text(dumps(game, names) + "\n", encoding="utf-8")
    except OSError as error:
        console.print(f"Could not save the record: {error}", style="red", soft_wrap=True)
        raise typer.Exit(1) from None
    console.print(f"Record saved to {record}", soft_wrap=True)


def run_game(
    console: Console, game: Game, names: list[str], bots: dict[int, Bot], rng: random.Random, hints: bool = False
) -> None:
    """Play ``game`` to its end: the human at seat 0 is asked, the bots act at once; everything is narrated."""
    announce_deal(console, game, names)
    while game.current_player is not None:
        seat = game.current_player
        deal, trick = game.deals[-1], game.trick
        if seat == HUMAN:
            seen = view(game, HUMAN)
            console.print(render_table(with_hints(seen) if hints else seen, names))
            action = ask_human(console, game)
        else:
            action = bots[seat].choose(view(game, seat), rng)
            game.apply(action, seat)
        narrate(console, game, names, seat, action, deal, trick)
        if game.phase is Phase.BID and game.deals[-1] is not deal:
            announce_deal(console, game, names)


def deal_again(path: str, edition: str | None, players: int | None, seed: int | None) -> Game:
    """A new game on the deal of the record at ``path`` (its edition, players, options and seed); one line and
    exit 2 for a record without a seed, or for --edition, --players or --seed given too."""
    flags = (("--edition", edition), ("--players", players), ("--seed", seed))
    given = [name for name, value in flags if value is not None]
    if given:
        fail(f"--deal takes the record's edition, players and seed: leave out {', '.join(given)}")
    recorded, data = load(path)
    if data.get("seed") is None:
        fail(f"{path} has no seed: its deals cannot be dealt again")
    return Game.new(recorded.edition, recorded.players, seed=recorded.seed, options=recorded.options)


@app.command()
def play(
    edition: Annotated[
        str | None, typer.Option("--edition", "-e", help=f"One of {', '.join(EDITIONS)} (default {DEFAULT_EDITION}).")
    ] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players at the table, you included (default 4).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the deals and bots (random when omitted).")] = None,
    deal: Annotated[
        str | None,
        typer.Option(
            help="Play the deal of a game record again (a file, or - for standard input): its edition, players, "
            "options and seed, so the same cards at every deal and the same first player; you sit at seat 0."
        ),
    ] = None,
    record: Annotated[Path | None, typer.Option(help="Save the game's record (JSON) to this file.")] = None,
    bots: Annotated[
        str,
        typer.Option(help=f"Bots for seats 1.. ({', '.join(BOTS)}), comma-separated: one for all, or one per seat."),
    ] = "heuristic",
    name: Annotated[str, typer.Option(help="Your name.")] = "You",
    hints: Annotated[
        bool,
        typer.Option(
            "--hints",
            help="Show under your hand each card's lowest possible, most likely (guess) and highest possible value.",
        ),
    ] = False,
) -> None:
    """Play a whole game of LUZ in the terminal against bots: you never see your own values."""
    console = Console(highlight=False, markup=False)
    if deal is not None:
        game = deal_again(deal, edition, players, seed)
        players = game.players
    else:
        players = 4 if players is None else players
        try:
            game = Game.new(
                get_edition(edition or DEFAULT_EDITION),
                players,
                seed=seed if seed is not None else random.randrange(10**6),
            )
        except LuzError as error:
            raise typer.BadParameter(str(error), param_hint="'--edition' / '--players'") from None
    kinds = [k.strip() for k in bots.split(",")]
    if len(kinds) not in (1, players - 1):
        raise typer.BadParameter(
            f"give one bot for all seats or {players - 1} (one per seat), not {len(kinds)}", param_hint="'--bots'"
        )
    try:
        seats = {seat: make_bot(kinds[(seat - 1) % len(kinds)]) for seat in range(1, players)}
    except LuzError as error:
        raise typer.BadParameter(str(error), param_hint="'--bots'") from None
    names = [name.strip()[:12] or "You", *BOT_NAMES[: players - 1]]
    console.print(f"{game.edition.name}, {players} players, seed {game.seed}.", style="bold")
    again = f"--edition {game.edition.key} --players {players} --seed {game.seed}"
    if deal is not None:
        again = f"--deal {deal}"
    console.print(f"Replay this game with: luz play {again}", soft_wrap=True)
    console.print(", ".join(f"{names[s]} ({bot.name} bot)" for s, bot in seats.items()) + ". Type ? for help.")
    try:
        run_game(console, game, names, seats, random.Random(f"luz-play-bots:{game.seed}"), hints)
    except (Abandoned, EOFError, KeyboardInterrupt):
        console.print("\nGame abandoned.")
        save(console, game, names, record)
        raise typer.Exit(1) from None
    outcome = game.outcome()
    assert outcome is not None
    console.print(render_outcome(outcome, names))
    save(console, game, names, record)
