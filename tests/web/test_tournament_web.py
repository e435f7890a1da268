"""A duplicate tournament in a real browser: two people join from the tournament's page, play round 1 at their
table (a bot in the third seat), and see the standings; the pages shot at 375x667 (touch) and 1280x800 in en, fr
and ja into tests/web/artifacts/tournament, each checked for untranslated keys and horizontal overflow."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import ARTIFACTS, open_player, play_together_to_end, register

pytestmark = pytest.mark.browser

SHOTS = ARTIFACTS / "tournament"
PHONE = {"width": 375, "height": 667}
DESKTOP = {"width": 1280, "height": 800}
LOCALES = {"en": "en-GB", "fr": "fr-FR", "ja": "ja-JP"}


def owner_creates(server: ServerProcess) -> str:
    """An account creates a 3-round tournament of 3-player tables that starts with 2 players; its id."""
    with httpx.Client(base_url=server.http, timeout=10) as http:
        session = http.post("/api/me/guest").json()["session"]
        headers = {"X-Luz-Session": session}
        made = http.post(
            "/api/account/register",
            json={"username": "organiser", "password": "correct horse battery"},
            headers=headers,
        )
        assert made.status_code == 201, made.text
        headers = {"X-Luz-Session": made.json()["session"]}
        body = {"name": "Sunday duplicate", "players": 3, "rounds": 3, "time_control": "5+15", "capacity": 2}
        created = http.post("/api/tournaments", json=body, headers=headers)
        assert created.status_code == 201, created.text
        return str(created.json()["id"])


def page_shows_no_key_and_fits(page: Any) -> None:
    """No untranslated key (``tour.…``) on the page and nothing wider than the window."""
    text = page.inner_text("body")
    assert "tour." not in text and "home." not in text
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_join_play_round_one_and_see_the_standings(browser: Any, server: ServerProcess) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tournament = owner_creates(server)
    url = f"{server.http}/tournaments/{tournament}"
    players = [open_player(browser, url, DESKTOP), open_player(browser, url, PHONE, touch=True)]
    for number, player in enumerate(players):
        page = player.page
        page.locator("#tour-join").click()
        page.wait_for_selector("#players li.you")  # joined (the second one fills it: it starts)
        if number == 0:
            page.screenshot(path=str(SHOTS / "joined-en-1280.png"), full_page=True)
    for player in players:
        player.page.reload()
        player.page.locator(".tour-table a", has_text="Play").click()  # their table of round 1
        player.page.wait_for_url("**/t/*")
    play_together_to_end(players)
    for player, size in zip(players, ("1280", "375"), strict=True):  # the game over: back to the tournament
        page = player.page
        page.wait_for_selector("#tournament-over:not([hidden])")
        assert page.get_attribute("#tournament-link", "href") == f"/tournaments/{tournament}"
        assert page.locator("#rematch").is_hidden() and page.locator("#replay-link").is_hidden()
        for language in LOCALES:
            page.click(f".lang button[data-lang='{language}']")
            page.wait_for_function(f"document.documentElement.lang === '{language}'")
            assert "tour." not in page.inner_text("#over")
            page.locator("#over").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"over-{language}-{size}.png"))
        page.click(".lang button[data-lang='en']")
    first = players[0].page
    first.goto(url)
    first.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 2")
    first.wait_for_function("[...document.querySelectorAll('#standings th')].some((th) => th.textContent === 'R1')")
    scores = first.locator("#standings tbody tr td:nth-child(3)").all_inner_texts()
    assert len(scores) == 2 and all(s.startswith(("+", "-", "0")) for s in scores)
    assert not players[0].errors and not players[1].errors
    assert first.locator(".tour-table a", has_text="Replay").count() == 1  # round 1's table, open now
    register(players[0], "firstplayer")  # an account: the list page offers the form that creates one
    cookies = first.context.cookies()
    for language, locale in LOCALES.items():
        for size, viewport in (("375", PHONE), ("1280", DESKTOP)):
            touch = viewport is PHONE
            context = browser.new_context(viewport=viewport, locale=locale, is_mobile=touch, has_touch=touch)
            context.add_cookies(cookies)  # the first player's identity: their row of the standings in bold
            page = context.new_page()
            page.goto(url)
            page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 2")
            page_shows_no_key_and_fits(page)
            page.screenshot(path=str(SHOTS / f"tournament-{language}-{size}.png"), full_page=True)
            page.goto(f"{server.http}/tournaments")
            page.wait_for_function("document.querySelectorAll('#tour-list li').length === 1")
            page_shows_no_key_and_fits(page)
            page.screenshot(path=str(SHOTS / f"list-{language}-{size}.png"), full_page=True)
            context.close()
