"""Vacation in the browser (issue 37): an account starts a vacation from its account page (days left, the end
date, "End it now"), and the others at its turn-based table read "Ana is on vacation until ..." instead of her
countdown; in English, French and Japanese, at a phone's size (touch) and a laptop's."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import LAPTOP, create_table, open_player, register, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": ({"width": 375, "height": 667}, True), "laptop": (LAPTOP, False)}
NAME = {"phone": "Ana", "laptop": "Anna"}
"""Her display name at each size (an account's is unique)."""
NAMES = itertools.count(1)


@pytest.mark.parametrize("size", SIZES)
def test_a_vacation_from_the_account_page_is_shown_at_the_table(browser: Any, server: ServerProcess, size: str) -> None:
    viewport, touch = SIZES[size]
    table_id, tokens = create_table(
        server,
        players=3,
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
        time_control="3d",
        time_bank_hours=12,
        options={"first_player": 0},
    )
    ana = open_player(browser, f"{server.http}/account", viewport=viewport, touch=touch)
    ana.page.wait_for_selector("#vacation-state:not(:empty)")
    register(ana, f"ana{size}{next(NAMES)}")
    joined = ana.page.evaluate(
        """async ([id, token, name]) => (await fetch(`/api/tables/${id}/seats/0/join`, {method: 'POST',
             headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name, token})})).status""",
        [table_id, tokens[0], NAME[size]],
    )
    assert joined == 200
    bo = httpx.post(
        f"{server.http}/api/tables/{table_id}/seats/1/join", json={"name": "Bo", "token": tokens[1]}, timeout=10
    )
    assert bo.status_code == 200, bo.text

    ana.page.reload()
    state = ana.page.locator("#vacation-state")
    state.filter(has_text="20 of your 20").wait_for()
    ana.page.fill("#vacation-days", "5")
    ana.page.click("#vacation-start")
    state.filter(has_text="You are on vacation until").wait_for()
    assert "15 of your 20" in state.inner_text()
    assert ana.page.locator("#vacation-end").is_visible()
    for lang in ("en", "fr", "ja"):
        ana.page.click(f".lang button[data-lang='{lang}']")
        ana.page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        ana.page.locator("#vacation").scroll_into_view_if_needed()
        shoot(ana, f"vacation-account-{size}-{lang}", full_page=False)

    other = open_player(browser, f"{server.http}/t/{table_id}#seat=1&token={tokens[1]}", viewport=viewport, touch=touch)
    note = other.page.locator("#vacation-note")
    note.filter(has_text=f"{NAME[size]} is on vacation until").wait_for()
    assert other.page.locator("#deadline").is_hidden()  # no countdown: her clock is paused
    for lang in ("en", "fr", "ja"):
        other.page.click(f".lang button[data-lang='{lang}']")
        other.page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        shoot(other, f"vacation-table-{size}-{lang}", full_page=False)
    assert NAME[size] in note.inner_text()

    ana.page.click(".lang button[data-lang='en']")
    ana.page.click("#vacation-end")
    state.filter(has_text="19 of your 20").wait_for()  # her first day is begun: it counts
    note.wait_for(state="hidden")  # back: the others see her countdown again, with her time bank
    other.page.click(".lang button[data-lang='en']")
    other.page.locator("#deadline-text").filter(has_text=f"{NAME[size]} to move").wait_for()
    assert "time bank 12\u00a0h" in other.page.locator("#deadline-text").inner_text()
    assert not ana.errors and not other.errors, (ana.errors, other.errors)
