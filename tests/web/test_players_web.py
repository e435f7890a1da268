"""Players in a real browser: a guest plays with no form to fill, a second guest takes an invite with one click,
the identity cookie is out of the page's reach, the finished game is on the player's profile, and a browser that
signed in before keeps signing in while an attacker hammers its username."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from luz.bench.attacks import ATTACKER
from luz.server.api.identity import DEVICE_PATH
from luz.server.identity import DEVICE_COOKIE
from support.server import ServerProcess
from support.web import (
    Player,
    open_player,
    play_together_to_end,
    register_on_account_page,
    submit_account_form,
)

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
    assert page.locator("#stats th[scope=row] + td").first.inner_text() == "1"
    assert not ana.errors and not bo.errors, (ana.errors, bo.errors)


def sign_in_on_account_page(player: Player, base: str, username: str) -> None:
    """Submit the account page's sign-in form (the answer shows as signed in, or as an error)."""
    submit_account_form(player, base, "login", username)


def log_out(player: Player) -> None:
    player.page.click("#logout")
    player.page.wait_for_selector("#signed-in", state="hidden")


def test_a_browser_that_signed_in_before_is_not_locked_out(browser: Any, server: ServerProcess) -> None:
    owner = open_player(browser, f"{server.http}/account")
    register_on_account_page(owner, server.http, "pia")
    log_out(owner)
    sign_in_on_account_page(owner, server.http, "pia")
    owner.page.wait_for_selector("#signed-in:not([hidden])")
    [device] = [c for c in owner.page.context.cookies() if c["name"] == DEVICE_COOKIE]
    assert device["httpOnly"] and device["sameSite"] == "Strict" and device["path"] == DEVICE_PATH
    log_out(owner)
    transport = httpx.HTTPTransport(local_address=ATTACKER)
    with httpx.Client(base_url=server.http, transport=transport, timeout=30) as attacker:
        body = {"username": "pia", "password": "wrong password"}
        statuses = [attacker.post("/api/account/login", json=body).status_code for _ in range(12)]
    assert statuses[-1] == 429, statuses
    sign_in_on_account_page(owner, server.http, "pia")  # the form's fetch sends the device cookie
    owner.page.wait_for_selector("#signed-in:not([hidden])")
    stranger = open_player(browser, f"{server.http}/account")  # another browser: held by the username's limit
    sign_in_on_account_page(stranger, server.http, "pia")
    stranger.page.wait_for_function("document.querySelector('#account-error').textContent.length > 0")
    assert stranger.page.inner_text("#account-error") == "too many login attempts: wait a minute"
    assert not owner.errors, owner.errors
