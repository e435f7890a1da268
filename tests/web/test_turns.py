"""What tells you it is your turn and what answers a key: the tab's title (switchable, remembered), your own
seat's badges, the safety box and its label on one line, and a key for a card you may not play."""

from __future__ import annotations

from typing import Any

import pytest

from support.server import ServerProcess
from support.web import PLAYABLE, move_once, next_move, seated_against_random_bots

pytestmark = pytest.mark.browser


def test_turn_alerts_badges_and_keys(browser: Any, server: ServerProcess) -> None:
    player = seated_against_random_bots(browser, server, "Turns", "Kay")
    page = player.page
    assert next_move(player) == "bid"
    assert page.title().startswith("● Your turn"), page.title()
    badges = page.locator("#me-badges .badge:not(.guest-tag)").all_inner_texts()  # the guest mark is a name's
    assert badges == ["to bid", "first"], "your own seat shows the same badges as the others (bidding: to bid)"
    box = page.locator("#safety").bounding_box()
    label = page.locator("label.safety-choice span").bounding_box()
    assert box and label and abs((box["y"] + box["height"] / 2) - (label["y"] + label["height"] / 2)) < 12

    page.uncheck("#alert-title")  # switched off, and remembered
    page.wait_for_function("!document.title.startsWith('●')")
    page.reload()
    assert next_move(player) == "bid"
    assert not page.is_checked("#alert-title") and not page.title().startswith("●")
    page.check("#alert-title")
    page.wait_for_function("document.title.startsWith('●')")

    move_once(player, "bid")
    assert next_move(player) == "play"
    played = int(page.locator(PLAYABLE).first.get_attribute("data-slot") or 0)
    move_once(player, "play")
    assert next_move(player) == "play"
    page.keyboard.press(str(played + 1))  # a key for a card already played says so
    page.wait_for_function("document.querySelector('#refusal').textContent !== ''")
    assert page.inner_text("#refusal") == f"Your card at position {played + 1} is already played."
    assert not player.errors, player.errors
