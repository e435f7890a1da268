"""Friends in one home (issue 36), in real browsers on one internet address with the one-seat-per-address rule on:
Ana invites Bo from the Friends page to her listed, rated table; the Invite button first says that a friend from
her address makes the table unrated, sends on a second press; Bo joins from the invitation's toast, is seated,
and the table is no longer rated; they play. Screenshots of the warning and the table at 375x667 (touch) and
1280x800 in en, fr and ja."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import LAPTOP, PASSWORD, PHONE, follow_from_profile, move_once, offered, open_player, register, shoot

pytestmark = pytest.mark.browser

HOME = "198.51.100.50"
"""Ana's and Bo's one internet address."""
WARNING = {
    "en": "a friend playing from your address",
    "fr": "un ami qui joue depuis votre adresse",
    "ja": "同じアドレス",
}


@pytest.fixture(scope="module")
def home_server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` with one seat per address (as served), the loopback a trusted proxy."""
    folder = tmp_path_factory.mktemp("home")
    env = {"LUZ_TRUSTED_PROXIES": "127.0.0.1", "LUZ_SEATS_PER_ADDRESS": "1"}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", env=env).start()
    yield process
    process.stop()


def language(page: Any, lang: str) -> None:
    page.click(f".lang button[data-lang='{lang}']")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def warn_and_shoot(player: Any, friend_id: str, size: str) -> None:
    """In each language: press Invite once (the warning, no invitation sent) and take the screenshot."""
    page = player.page
    for lang in ("en", "fr", "ja"):
        language(page, lang)
        row = page.locator(f'#following .friend[data-player="{friend_id}"]')
        row.locator(".friend-invite button").click()
        warning = row.locator(".friend-warning")
        warning.wait_for()
        assert WARNING[lang] in warning.inner_text(), warning.inner_text()
        assert row.locator(".friend-invite button").inner_text() != ""
        shoot(player, f"home-friends-warning-{size}-{lang}", full_page=False)
    language(page, "en")


def test_friends_of_one_address_play_an_invited_game(browser: Any, home_server: ServerProcess) -> None:
    base = home_server.http
    ana = open_player(browser, f"{base}/", viewport=LAPTOP, address=HOME)
    bo = open_player(browser, f"{base}/", viewport=PHONE, address=HOME, touch=True)
    for player in (ana, bo):
        player.page.wait_for_selector(".lang button")
    ana_id, bo_id = register(ana, "anahome"), register(bo, "bohome")
    follow_from_profile(ana, home_server, bo_id, "Follow")

    # Ana's listed, rated table: she sits at seat 0; a stranger of her address (Bo, uninvited) is refused seat 1.
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    spec = {"players": 3, "rated": True, "name": "Home game", "seats": seats}
    made = httpx.post(f"{base}/api/tables", json=spec, timeout=10).json()
    table_id = made["table"]["id"]
    ana.page.evaluate(
        """async ([table, token]) => {
          const r = await fetch(`/api/tables/${table}/seats/0/join`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})});
          const joined = await r.json();
          localStorage.setItem(`luz.seat.${table}`, JSON.stringify({seat: 0, token: joined.token}));
        }""",
        [table_id, made["invites"][0]["token"]],
    )
    refused = bo.page.evaluate(
        """async (table) => (await fetch(`/api/tables/${table}/seats/1/join`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: '{}'})).json()""",
        table_id,
    )
    assert refused["code"] == "one_seat_per_address", refused
    bo.errors.clear()  # the browser logs that refusal (409): expected

    # The warning, at a laptop's size and on a phone (Ana signed in on her phone too), in each language.
    ana.page.goto(f"{base}/friends")
    ana.page.locator(f'#following .friend[data-player="{bo_id}"] .friend-invite').wait_for()
    warn_and_shoot(ana, bo_id, "laptop")
    phone = open_player(browser, f"{base}/account", viewport=PHONE, address=HOME, touch=True)
    logged = phone.page.evaluate(
        """async ([username, password]) => (await fetch('/api/account/login', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({username, password})})).status""",
        ["anahome", PASSWORD],
    )
    assert logged == 200
    phone.page.goto(f"{base}/friends")
    phone.page.locator(f'#following .friend[data-player="{bo_id}"] .friend-invite').wait_for()
    warn_and_shoot(phone, bo_id, "phone")

    # The second press sends; Bo joins from the toast, from the same address: seated, and the table unrated.
    bo.page.goto(f"{base}/games")
    bo.page.wait_for_selector("#games-link", state="attached")  # behind the menu on a phone
    row = ana.page.locator(f'#following .friend[data-player="{bo_id}"]')
    row.locator(".friend-invite button").click()
    row.locator(".friend-invite button", has_text="Invite anyway").click()
    row.locator("button", has_text="Invited").wait_for()
    toast = bo.page.locator(".invitation-notice")
    toast.wait_for()
    toast.locator("button", has_text="Join").click()
    bo.page.wait_for_url(re.compile(rf"/t/{table_id}"))
    summary = httpx.get(f"{base}/api/tables/{table_id}", timeout=10).json()
    assert [s["player"] for s in summary["seats"][:2]] == [ana_id, bo_id]
    assert summary["rated"] is False and summary["status"] == "playing"

    ana.page.goto(f"{base}/t/{table_id}?pace=0")
    moved = {"ana": 0, "bo": 0}
    deadline = time.monotonic() + 90
    while min(moved.values()) < 2:
        assert time.monotonic() < deadline, f"the game did not go on: {moved}"
        for name, player in (("ana", ana), ("bo", bo)):
            kind = offered(player)
            if kind in ("bid", "play"):
                move_once(player, kind)
                moved[name] += 1
        ana.page.wait_for_timeout(50)  # a poll's interval, not a wait for a state
    for player, size in ((ana, "laptop"), (bo, "phone")):
        for lang in ("en", "fr", "ja"):
            language(player.page, lang)
            shoot(player, f"home-friends-table-{size}-{lang}", full_page=False)
        language(player.page, "en")
    assert not ana.errors and not bo.errors and not phone.errors, (ana.errors, bo.errors, phone.errors)
    for player in (ana, bo, phone):
        player.page.context.close()
