"""Premoves in the browser (issue 37): at a live table, while the bots play (slow ones here), the player taps a
card of their hand to choose it as their next card (raised, labelled "Next", a line says so); it is played when
their turn comes if it still follows the colour, else a line says it was cancelled. In English, French and
Japanese, at a phone's size (touch) and a laptop's."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import Player, create_table, move_once, offered, open_player, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": ({"width": 375, "height": 667}, True), "laptop": ({"width": 1280, "height": 800}, False)}
LANGUAGES = ("en", "fr", "ja")
CHOSEN = (
    "Your next card is chosen: it will be played when your turn comes if it is still legal. Choose it again to cancel."
)
CANCELLED = "Your chosen card could no longer be played: choose again."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` whose bots take 2.5 s a move: time to choose a card while they play."""
    folder = tmp_path_factory.mktemp("premove")
    env = {"LUZ_TRUSTED_PROXIES": "127.0.0.1", "LUZ_BOT_PACE": "2.5"}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", env=env).start()
    yield process
    process.stop()


def newest_view(player: Player) -> dict[str, Any] | None:
    states = player.states()
    return states[-1]["view"] if states else None


def set_language(player: Player, lang: str) -> None:
    player.page.click(f".lang button[data-lang='{lang}']")
    player.page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def chance(view: dict[str, Any] | None) -> tuple[list[int], list[int]] | None:
    """While a bot is to play a trick a bot led and seat 0 has not played in: seat 0's unplayed slots of the led
    colour and of the others."""
    if view is None or view["phase"] != "play" or view["current_player"] == 0:
        return None
    trick = view["trick"]
    if not trick or not trick["plays"] or any(play["seat"] == 0 for play in trick["plays"]):
        return None
    led = trick["plays"][0]["colour"]
    mine = [slot for slot in view["hands"][0] if not slot["played"]]
    return [s["slot"] for s in mine if s["colour"] == led], [s["slot"] for s in mine if s["colour"] != led]


def choose(player: Player, slot: int, keyboard: bool) -> bool:
    """Tap the card at ``slot`` to choose it, or (``keyboard``) press its number then Enter (``False``: the turn
    came first, the card is not offered so)."""
    card = player.page.locator(f"#my-hand button.card[data-slot='{slot}'][aria-pressed]")
    try:
        card.wait_for(timeout=1000)
        if keyboard:
            player.page.keyboard.press(str((slot + 1) % 10))
            if not card.evaluate("button => button === document.activeElement"):
                return False
            player.page.keyboard.press("Enter")
        else:
            card.click(timeout=1000)
    except Exception:  # the turn came meanwhile: no premove to make
        return False
    return True


def played_for_me(player: Player, deal: int, slot: int, since: int) -> None:
    """Wait until the server has played seat 0's chosen card at ``slot`` of deal ``deal``: a state received after
    frame ``since`` shows it played, and the hand shows a gap there; or the deal is over (the card closed it, and
    the next deal's new hand may already be shown: no gap to see). Nobody but the server plays for seat 0 while
    this waits, so a later deal means the card was played."""
    hand_gap = f"() => !document.querySelector(\"#my-hand button.card[data-slot='{slot}']\")"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        views = [json.loads(frame) for _, frame in player.frames[since:]]
        views = [m["view"] for m in views if m.get("type") == "state" and m["view"]["hands"]]
        if any(view["deal_number"] != deal or view["phase"] == "game_over" for view in views):
            return
        if any(view["hands"][0][slot]["played"] for view in views) and player.page.evaluate(hand_gap):
            return
        player.page.wait_for_timeout(50)
    pytest.fail(f"the chosen card at slot {slot} was not played (or no gap was shown for it)")


@pytest.mark.parametrize("size", SIZES)
def test_a_next_card_is_chosen_while_the_bots_play(browser: Any, server: ServerProcess, size: str) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, name="premove", options={"first_player": 0})
    joined = httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, timeout=10)
    assert joined.status_code == 200, joined.text
    viewport, touch = SIZES[size]
    ana = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}", viewport, touch=touch)
    page = ana.page
    page.wait_for_selector("#main[data-version]")
    page.wait_for_function("() => document.querySelector('#bid-buttons button:not(:disabled)')")
    assert page.locator("#my-hand button.card[aria-pressed]").count() == 0, "no premove during the bidding"
    shots, played, cancelled, keyed = list(LANGUAGES), 0, 0, 0
    deadline = time.monotonic() + 240
    while shots or not played or not cancelled or not (touch or keyed):
        assert time.monotonic() < deadline, (shots, played, cancelled, keyed)
        kind = offered(ana)
        if kind == "over":
            pytest.fail("the game ended before a premove was played and one cancelled")
        if kind in ("bid", "play"):
            move_once(ana, kind)
            page.wait_for_timeout(50)
            continue
        slots = chance(newest_view(ana))
        if slots is None:
            page.wait_for_timeout(50)
            continue
        follow, other = slots
        cancel = not cancelled and bool(follow and other)
        slot = other[0] if cancel else (follow or other)[0]
        lang = "en" if cancel or not shots else shots[0]
        if page.evaluate("document.documentElement.lang") != lang:
            set_language(ana, lang)
        keyboard = not touch and played % 2 == 1
        before = newest_view(ana)
        assert before is not None
        deal, since = before["deal_number"], len(ana.frames)
        if not choose(ana, slot, keyboard):
            continue
        tag = page.locator(f"#my-hand button.card[data-slot='{slot}'] .premove-tag")
        try:
            tag.wait_for(timeout=2000)
        except Exception:
            continue  # played or cancelled at once: the turn came before the picture
        assert page.get_attribute(f"#my-hand button.card[data-slot='{slot}']", "aria-pressed") == "true"
        tagged, keys = page.evaluate(
            "() => [Boolean(document.querySelector('.premove-tag')), document.querySelector('#keys-help').dataset.i18n]"
        )
        assert keys == "hand.keys_premove" or not tagged, "while a next card is chosen, Enter chooses (the keys say so)"
        if lang == "en":
            assert page.locator("#premove-note").inner_text() == CHOSEN
        if not cancel and shots:
            shoot(ana, f"premove-chosen-{size}-{shots.pop(0)}", full_page=False)
        if cancel:
            page.wait_for_function("() => document.querySelector('#premove-note.cancelled')", timeout=60_000)
            assert page.locator("#premove-note").inner_text() == CANCELLED
            assert page.locator(".premove-tag").count() == 0
            for each in LANGUAGES:
                set_language(ana, each)
                shoot(ana, f"premove-cancelled-{size}-{each}", full_page=False)
            set_language(ana, "en")
            cancelled += 1
        else:
            played_for_me(ana, deal, slot, since)
            played += 1
            keyed += keyboard
    told = [frame for _, frame in ana.frames if '"type":"premove"' in frame.replace(" ", "")]
    assert any('"cancelled":true' in frame.replace(" ", "") for frame in told), "the server said it cancelled one"
    assert not ana.errors, ana.errors
    page.context.close()
