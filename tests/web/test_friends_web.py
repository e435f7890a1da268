"""Friends in real browsers: two accounts in two browser contexts follow each other from their profiles, one invites
the other from the Friends page to an open seat of her table, the other gets the invitation as a notice on the page
he has open and joins with it (no token), and they start playing with a bot in the third seat. Screenshots of the
Friends page and of the notice at phone and laptop sizes; axe on the Friends page in both languages."""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import LAPTOP, PHONE, follow_from_profile, move_once, offered, open_player, register, shoot

pytestmark = pytest.mark.browser


def axe_violations(page: Any, where: str) -> list[str]:
    """The serious and critical violations of ``page`` in English and in French."""
    from axe_playwright_python.sync_playwright import Axe

    bad = []
    passed = 0
    for lang in ("en", "fr"):
        page.click(f".lang button[data-lang='{lang}']")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        response = Axe().run(page).response
        passed += len(response["passes"])
        found = Counter(v["impact"] for v in response["violations"])
        bad += [
            f"{where} ({lang}): {v['id']} {[n['target'] for n in v['nodes']][:3]}"
            for v in response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        print(f"axe {where} ({lang}): {dict(found)}")
    assert passed > 20, "axe ran its rules"
    page.click(".lang button[data-lang='en']")
    page.wait_for_function("document.documentElement.lang === 'en'")
    return bad


def test_friends_follow_each_other_and_one_invites_the_other_to_play(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/", viewport=LAPTOP)
    bo = open_player(browser, f"{server.http}/", viewport=PHONE)
    ana.page.wait_for_selector(".lang button")
    bo.page.wait_for_selector(".lang button")
    ana_id, bo_id = register(ana, "ana"), register(bo, "bobo")

    # A guest's Friends page asks to register; an account's lists nobody yet.
    guest = open_player(browser, f"{server.http}/friends", viewport=PHONE)
    guest.page.locator("#friends-guest").wait_for()
    guest.page.context.close()

    follow_from_profile(ana, server, bo_id, "Follow")
    shoot(ana, "profile-following-laptop", full_page=False)
    follow_from_profile(bo, server, ana_id, "Follow back")  # bo sees that ana follows him
    assert bo.page.locator("#player-relation .badge", has_text="Follows you").is_visible()
    shoot(bo, "profile-following-phone", full_page=False)

    # Ana's table: three seats, a bot in the third; she sits at the first, the second is open.
    table_id = ana.page.evaluate(
        """async () => {
          const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                  body: JSON.stringify(body)}).then((r) => r.json());
          const seats = [{kind: 'human'}, {kind: 'human'}, {kind: 'bot', bot: 'random'}];
          const made = await post('/api/tables', {players: 3, seats, public: false, name: 'Friday friends'});
          const joined = await post(`/api/tables/${made.table.id}/seats/0/join`, {token: made.invites[0].token});
          localStorage.setItem(`luz.seat.${made.table.id}`, JSON.stringify({seat: 0, token: joined.token}));
          return made.table.id;
        }"""
    )

    # Bo has a page open (My games): the invitation reaches it there.
    bo.page.goto(f"{server.http}/games")
    bo.page.wait_for_selector("#games-link", state="attached")

    ana.page.goto(f"{server.http}/friends")
    row = ana.page.locator(f'#following .friend[data-player="{bo_id}"]')
    row.wait_for()
    assert row.locator(".presence.online").count() == 1, "bo has a page open: online"
    assert ana.page.locator("#friends-seat").is_visible()
    shoot(ana, "friends-laptop", full_page=False)
    ana.page.set_viewport_size(PHONE)
    shoot(ana, "friends-phone", full_page=False)
    ana.page.set_viewport_size(LAPTOP)
    bad = axe_violations(ana.page, "friends")
    assert not bad, bad

    row.locator("button", has_text="Invite").click()
    ana.page.locator("#following .friend button", has_text="Invited").wait_for()

    toast = bo.page.locator(".invitation-notice")
    toast.wait_for()
    assert "Friday friends" in toast.inner_text() and "seat 2" in toast.inner_text()
    shoot(bo, "invitation-notice-phone", full_page=False)
    bo.page.set_viewport_size(LAPTOP)
    shoot(bo, "invitation-notice-laptop", full_page=False)
    bo.page.set_viewport_size(PHONE)
    toast.locator("button", has_text="Join").click()
    bo.page.wait_for_url(re.compile(rf"/t/{table_id}"))

    # Every seat is taken: the game starts; each plays from their own seat (the bot plays the third).
    ana.page.goto(f"{server.http}/t/{table_id}?pace=0")
    seats = httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()["seats"]
    assert [s["player"] for s in seats[:2]] == [ana_id, bo_id]
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
    assert not ana.errors and not bo.errors, (ana.errors, bo.errors)
