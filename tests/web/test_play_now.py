"""Play now: from the home page's first screen, one tap to a game against bots, seated, the first bid offered;
the settings last used (by Play now or the form) shown beside it and used again; a refusal shown beside it."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import next_move, open_player, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
LAPTOP = {"width": 1280, "height": 800}

IN_FIRST_SCREEN = """(selector) => {
  const box = document.querySelector(selector).getBoundingClientRect();
  return box.width > 0 && box.top >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
}"""


def ready(page: Any) -> str:
    """Wait until Play now can be used; the settings line it shows."""
    page.wait_for_selector("#play-now:not([disabled])")
    page.wait_for_function("() => document.querySelector('#play-now-settings').textContent.trim()")
    return str(page.inner_text("#play-now-settings"))


def table_of(server: ServerProcess, url: str) -> dict[str, Any]:
    table_id = url.split("/t/")[1].split("?")[0].split("#")[0]
    answer = httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10)
    assert answer.status_code == 200, answer.text
    table: dict[str, Any] = answer.json()
    return table


def play_now_to_a_bid(player: Any) -> float:
    """One tap on Play now, then wait for the enabled bid buttons; the seconds between."""
    page = player.page
    start = time.monotonic()
    page.click("#play-now")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"), wait_until="domcontentloaded")
    assert next_move(player) == "bid", "the first move offered at a new table is a bid"
    return time.monotonic() - start


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_play_now_reaches_a_bid_in_one_tap(browser: Any, server: ServerProcess, size: str) -> None:
    viewport = PHONE if size == "phone" else LAPTOP
    player = open_player(browser, f"{server.http}/", viewport)
    page = player.page
    settings = ready(page)
    assert settings == "LUZ (IELLO, 2024) · 4 players · Casual bots"
    for part in ("#play-now", "#play-now-settings", "#play-now-change"):
        assert page.evaluate(IN_FIRST_SCREEN, part), f"{part} is not on the first screen at {size}"
    shoot(player, f"home-play-now-{size}", full_page=False)

    seconds = play_now_to_a_bid(player)
    print(f"\nPlay now at {size}: home page -> first bid offered in 1 tap, {seconds:.2f} s")
    table = table_of(server, page.url)
    assert table["players"] == 4 and table["edition"] == "iello-2024"
    assert [seat["kind"] for seat in table["seats"]] == ["human", "bot", "bot", "bot"]
    assert {seat["bot"] for seat in table["seats"][1:]} == {"heuristic"}
    assert not table["public"], "a game against bots is not listed in the lobby"

    # The form changes the settings (Change leads to it): a 3-player table with beginner bots (cheap to run)...
    page.goto(f"{server.http}/")
    ready(page)
    page.click("#play-now-change")
    page.wait_for_function("() => document.activeElement?.id === 'edition'")
    page.select_option("#players", "3")
    for seat in (1, 2):
        page.select_option(f"#seat-{seat}", "bot:random")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"), wait_until="domcontentloaded")
    # ...and Play now uses them the next time, saying so beside the button.
    page.goto(f"{server.http}/")
    assert ready(page) == "LUZ (IELLO, 2024) · 3 players · Beginner bots"
    play_now_to_a_bid(player)
    table = table_of(server, page.url)
    assert table["players"] == 3
    assert [seat.get("bot") for seat in table["seats"]] == [None, "random", "random"]
    assert not player.errors, player.errors


def test_play_now_in_french_and_its_refusal_beside_it(browser: Any, tmp_path: Path) -> None:
    # A server with the limit of new tables per client at one a minute: the second Play now is refused.
    limited = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log")
    limited.env = {"LUZ_TABLES_PER_MINUTE": "1/minute"}
    limited.start()
    try:
        player = open_player(browser, f"{limited.http}/?lang=fr", PHONE, locale="fr-FR")
        page = player.page
        assert ready(page) == "LUZ (IELLO, 2024) · 4 joueurs · robots de niveau amateur"
        play_now_to_a_bid(player)  # the first, within the limit
        page.goto(f"{limited.http}/?lang=fr")
        ready(page)
        page.click("#play-now")
        page.wait_for_selector("#play-now-error:not(:empty)")
        refusal = page.inner_text("#play-now-error")
        assert refusal.startswith("La table n'a pas été créée"), refusal
        assert page.evaluate(IN_FIRST_SCREEN, "#play-now-error"), "the refusal is shown beside the button"
        assert page.is_enabled("#play-now") and page.get_attribute("#play-now", "aria-busy") is None
        assert page.inner_text("#play-now") == "Jouer maintenant contre des robots"
        assert "/t/" not in page.url, "the page stays home"
    finally:
        limited.stop()
