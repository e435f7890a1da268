"""The daily deal in the browser: from the home page's card to today's deal, played to the end through the page,
then the results (your rank, the chart, the best players, how everyone bid) in English, French and Japanese, the
share text copied with one tap, and another player's game opened as a replay; on a phone (375x667, touch) and a
laptop (1280x800)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from support.server import ServerProcess
from support.web import ARTIFACTS, Player, console_error, play_to_end, register

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "daily"
PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 800}}
MARKS = re.compile(r"^[🟩🟨🟥]{4} -?\d+ · top \d+%$")


def browser_player(browser: Any, server: ServerProcess, size: str) -> Player:
    context = browser.new_context(**(PHONE if size == "phone" else LAPTOP), locale="en-GB")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.http)
    page = context.new_page()
    player = Player(page)
    page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    page.on("console", lambda message: console_error(player, message))
    page.goto(f"{server.http}/")
    return player


def shoot(player: Player, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    player.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def speak(page: Any, lang: str) -> None:
    page.click(f".lang button[data-lang='{lang}']")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    body = page.inner_text("body")
    assert "daily." not in body, f"an untranslated key in {lang}"


def play_todays_deal(player: Player, server: ServerProcess, size: str) -> None:
    """From the home page's daily card to the end of today's deal, then to its results."""
    page = player.page
    page.wait_for_selector("#daily-card-link")
    assert "Not played yet" in page.inner_text("#daily-card")
    shoot(player, f"home-{size}-en")
    page.click("#daily-card-link")
    page.wait_for_url(re.compile(r"/daily\?edition=iello-2024"))
    page.wait_for_selector(".daily-deal[data-edition='iello-2024'] .daily-play")
    shoot(player, f"daily-before-{size}-en")
    page.click(".daily-deal[data-edition='iello-2024'] .daily-play")
    page.wait_for_url(re.compile(r"/t/[^/?#]+\?daily=iello-2024"))
    page.goto(f"{page.url}&pace=0")  # no pacing of the bots' moves on screen
    assert play_to_end(player, timeout=300) >= 4 * 11  # four deals: a bid and ten cards each
    page.click("#daily-link")
    page.wait_for_selector("#daily-results:not([hidden]) .daily-score")


def test_the_daily_deal_from_the_home_page_to_the_results(browser: Any, server: ServerProcess) -> None:
    players = {size: browser_player(browser, server, size) for size in ("laptop", "phone")}
    names = {}
    for size, player in players.items():
        player.page.wait_for_selector("#daily-card-link")
        register(player, f"daily_{size}")
        names[size] = player.page.evaluate("fetch('/api/me').then((r) => r.json()).then((me) => me.name)")
        play_todays_deal(player, server, size)
    laptop = players["laptop"].page
    laptop.reload()
    laptop.wait_for_selector("#daily-results:not([hidden]) .daily-score")
    # Both accounts ranked: the best players list the two, each game with its replay.
    leaders = laptop.locator("#results-leaders tbody tr")
    assert leaders.count() == 2
    assert names["phone"] in laptop.inner_text("#results-leaders")
    assert laptop.locator(".daily-bar").count() >= 1
    assert laptop.locator("#results-bids tbody tr").count() == 4
    assert "Rank" in laptop.inner_text("#results-you")
    # The share text: one mark per deal, the score and the percentile; copied with one tap.
    for size, player in players.items():
        page = player.page
        page.reload()
        page.wait_for_selector("#daily-results:not([hidden]) #share-text")
        share = page.inner_text("#share-text")
        first, second = share.split("\n")
        assert first.startswith("LUZ daily ") and "LUZ (IELLO, 2024)" in first
        assert MARKS.match(second), share
        if size == "phone":
            page.tap("#share-copy")
        else:
            page.click("#share-copy")
        assert page.evaluate("navigator.clipboard.readText()") == share
        for lang in ("en", "fr", "ja"):
            speak(page, lang)
            shoot(player, f"results-{size}-{lang}")
            page.goto(f"{server.http}/")
            page.wait_for_selector("#daily-card-link")
            shoot(player, f"home-played-{size}-{lang}")
            page.go_back()
            page.wait_for_selector("#daily-results:not([hidden]) #share-text")
        speak(page, "en")
    # Another player's game, as a replay (the existing page, with its review).
    row = laptop.locator("#results-leaders tbody tr", has_text=names["phone"])
    row.locator("a").click()
    laptop.wait_for_url(re.compile(r"/replay/[0-9a-f]+\?game=1"))
    laptop.wait_for_function("document.querySelector('#replay-info').textContent.trim() !== ''", timeout=30_000)
    shoot(players["laptop"], "replay-laptop-en")
    for player in players.values():
        assert not player.errors, player.errors
