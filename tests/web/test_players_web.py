"""Players in a real browser: a guest plays with no form to fill, a second guest takes an invite with one click,
the identity cookie is out of the page's reach, and the finished game is on the player's profile."""

from __future__ import annotations

import re
from typing import Any

import pytest

from support.server import ServerProcess
from support.web import open_player, play_together_to_end

pytestmark = pytest.mark.browser


def test_a_guest_plays_with_no_form_and_finds_the_game_on_its_profile(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0")
    page = ana.page
    page.wait_for_selector("#edition option", state="attached")
    page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    guest_name = page.input_value("#player-name")
    assert re.fullmatch(r"\w+ \w+ \d{3}", guest_name)
    assert "luz_session" not in page.evaluate("document.cookie"), "the identity cookie is HttpOnly"
    page.select_option("#players", "3")
    for seat, spec in enumerate(["human", "human", "bot:random"]):
        page.select_option(f"#seat-{seat}", spec)
    page.click("#create-button")  # nothing typed: the guest's name is already there
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    page.wait_for_selector("#invites input")
    link = page.locator("#invites input").first.input_value()

    bo = open_player(browser, link.replace("#", "?pace=0#"))
    bo.page.wait_for_selector("#join:not([hidden])")
    bo.page.wait_for_function("document.querySelector('#join-name').value.length > 0")
    assert bo.page.input_value("#join-name") != guest_name  # another browser, another guest
    bo.page.click("#join-button")
    play_together_to_end([ana, bo])

    page.click("#me-link")
    page.wait_for_url(re.compile(r"/u/[0-9a-f]+"))
    page.wait_for_selector("#games .game-row")
    assert page.inner_text("#player-name-title") == f"{guest_name} guest"  # with its guest mark
    assert page.locator("#games .game-row").count() == 1
    href = page.get_attribute("#games .game-row a", "href")
    assert href is not None and re.fullmatch(r"/replay/[0-9a-f]+\?game=1", href)
    assert page.locator("#stats td").first.inner_text() == "1"
    assert not ana.errors and not bo.errors, (ana.errors, bo.errors)
