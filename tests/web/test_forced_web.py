"""Forced moves in the browser (issue 37): at a turn-based table, the player's only legal card is played for them
(the hand not offered meanwhile) and a line at the table says so; the setting is a checkbox of the account page.
In English, French and Japanese, at a phone's size (touch) and a laptop's."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import Player, console_error, create_table, move_once, next_move, open_player, shoot

pytestmark = pytest.mark.browser

SIZES = {
    "phone": {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}


@pytest.mark.parametrize("size", SIZES)
def test_the_only_legal_card_is_played_for_you_and_said(browser: Any, server: ServerProcess, size: str) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, time_control="1d", options={"first_player": 0})
    joined = httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"token": tokens[0]}, timeout=10)
    assert joined.status_code == 200, joined.text
    context = browser.new_context(locale="en-GB", **SIZES[size])
    page = context.new_page()
    ana = Player(page)
    page.on("pageerror", lambda error: ana.errors.append(f"page error: {error}"))
    page.on("console", lambda message: console_error(ana, message))
    page.goto(f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    deadline = time.monotonic() + 120
    while not page.locator("#forced-note").is_visible():
        kind = next_move(ana)
        assert kind != "over", "every game has forced cards: at least each deal's last"
        if not page.locator("#forced-note").is_visible():
            move_once(ana, kind)
        assert time.monotonic() < deadline
    assert page.locator("#forced-note").inner_text() == "Your last card was your only legal one: it was played for you."
    for lang in ("en", "fr", "ja"):
        page.click(f".lang button[data-lang='{lang}']")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        shoot(ana, f"forced-{size}-{lang}", full_page=False)
    assert not ana.errors, ana.errors
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_setting_is_a_checkbox_of_the_account_page(browser: Any, server: ServerProcess, size: str) -> None:
    """Unticked, saved at once (said so), still unticked after a reload and over the API; a save that fails says
    so and shows the setting as it still is. Shot in English, French and Japanese."""
    player = open_player(browser, f"{server.http}/account", SIZES[size]["viewport"], touch=size == "phone")
    page, box = player.page, player.page.locator("#play-forced")
    page.wait_for_selector("#play-forced:enabled")
    assert box.is_checked(), "on by default"
    box.click()
    message = page.wait_for_selector("#play-message:not(:empty)")
    assert message.inner_text() == "Saved: from your next turn, you will play every card yourself."
    page.locator("#play-settings").scroll_into_view_if_needed()
    shoot(player, f"account-play-saved-{size}-en", full_page=False)
    assert page.evaluate("async () => (await (await fetch('/api/me/play')).json()).forced_moves") is False
    page.reload()
    page.wait_for_selector("#play-forced:enabled")
    assert not box.is_checked(), "the setting survives a reload"
    page.route("**/api/me/play", lambda route: route.abort() if route.request.method == "PUT" else route.continue_())
    box.click()
    error = page.wait_for_selector("#play-error:not(:empty)")
    failed = "Your setting could not be saved, so it stays as it was. Check your connection and try again."
    assert error.inner_text() == failed
    page.wait_for_selector("#play-forced:enabled")
    assert not box.is_checked(), "the setting shown as it still is"
    for lang in ("en", "fr", "ja"):
        page.click(f".lang button[data-lang='{lang}']")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert error.inner_text() != "" and (lang == "en" or "Check your connection" not in error.inner_text())
        shoot(player, f"account-play-{size}-{lang}", full_page=False)
        page.locator("#play-settings").scroll_into_view_if_needed()
        shoot(player, f"account-play-panel-{size}-{lang}", full_page=False)
    player.errors = [error for error in player.errors if "ERR_FAILED" not in error]  # the save refused on purpose
    assert not player.errors, player.errors
    page.context.close()
