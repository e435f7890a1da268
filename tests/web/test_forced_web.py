"""Forced moves in the browser (issue 37): at a turn-based table, the player's only legal card is played for them
(the hand not offered meanwhile) and a line at the table says so, in English, French and Japanese, at a phone's
size (touch) and a laptop's."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import Player, console_error, create_table, move_once, next_move, shoot

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
