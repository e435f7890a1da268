"""One name per player in a real browser: the name set on the home page is the identity's, shown in the header, at
the table (its initials from the name, never from "(you)"), in the lobby and on the profile, with a "guest" mark
beside guests' names; screenshots at phone and laptop sizes."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import PHONE, open_player, shoot

pytestmark = pytest.mark.browser


def test_the_home_pages_name_is_the_players_everywhere(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0")
    page = ana.page
    page.wait_for_selector("#edition option", state="attached")
    page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    guest_name = page.input_value("#player-name")
    page.wait_for_selector("#me-link")
    assert page.inner_text("#me-link") == guest_name
    page.fill("#player-name", "  Ada   Lovelace ")
    page.click("#name-save")
    page.wait_for_selector("#name-status.ok")
    assert page.inner_text("#name-status") == "Saved: you are Ada Lovelace everywhere."
    assert page.input_value("#player-name") == "Ada Lovelace"
    assert page.inner_text("#me-link") == "Ada Lovelace"
    shoot(ana, "names-home-laptop")

    page.select_option("#players", "3")
    for seat, spec in enumerate(["human", "human", "bot:random"]):
        page.select_option(f"#seat-{seat}", spec)
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    table_id = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    mine = page.locator("#waiting-seats li[data-seat='0']")
    mine.locator(".guest-tag").wait_for()
    assert mine.locator("strong").inner_text() == "Ada Lovelace"
    assert page.inner_text("#me-link") == "Ada Lovelace"

    # The lobby shows who sits, a guest with the mark.
    lobby = open_player(browser, f"{server.http}/", viewport=PHONE)
    entry = lobby.page.locator(f"#lobby li[data-table='{table_id}'] .lobby-players")
    entry.wait_for()
    assert entry.inner_text() == "Ada Lovelace guest"
    lobby.page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    assert lobby.page.input_value("#player-name") != "Ada Lovelace", "another browser, another guest"
    shoot(lobby, "names-home-phone", full_page=False)
    lobby.page.locator(f"#lobby li[data-table='{table_id}']").scroll_into_view_if_needed()
    shoot(lobby, "names-lobby-phone", full_page=False)

    # A second player takes the other seat through the invite, under a name typed there.
    link = page.locator("#invites input").first.input_value()
    bo = open_player(browser, link.replace("#", "?pace=0#"), viewport=PHONE)
    bo.page.wait_for_selector("#join:not([hidden])")
    bo.page.fill("#join-name", "Bo")
    bo.page.click("#join-button")
    seat = bo.page.locator("#seats section[data-seat='0']")
    seat.locator(".guest-tag").wait_for()
    assert seat.locator(".seat-name").inner_text() == "Ada Lovelace"
    assert seat.locator(".avatar").inner_text() == "AL"
    shoot(bo, "names-table-phone")

    page.wait_for_selector("#me:not([hidden])")
    page.wait_for_function("document.querySelector('#me-title').textContent.includes('Ada Lovelace')")
    assert page.inner_text("#me-title") == "Ada Lovelace (you)"
    # The score sheet's column for a long label shows initials: of the name, not of "(you)".
    assert page.locator("#sheet th[title='Ada Lovelace (you)']").inner_text() == "AL"
    assert page.locator("#seats section[data-seat='1'] .seat-name").inner_text() == "Bo"
    assert page.locator("#seats section[data-seat='1'] .avatar").inner_text() == "BO"
    shoot(ana, "names-table-laptop")

    # Her profile: the name of now, the guest mark, the name she left.
    me = httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()["seats"][0]["player"]
    profile = open_player(browser, f"{server.http}/u/{me}", viewport=PHONE)
    profile.page.wait_for_selector("#former-names:not([hidden])")
    assert profile.page.inner_text("#player-name-title") == "Ada Lovelace guest"
    assert profile.page.inner_text("#former-names") == f"Formerly known as {guest_name}"
    assert profile.page.inner_text("#player-avatar") == "AL"
    shoot(profile, "names-profile-phone")
    for player in (ana, lobby, bo, profile):
        assert not player.errors, player.errors
