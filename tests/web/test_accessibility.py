"""axe-core (axe-playwright-python) on every page and every phase of the table, in English, French and Japanese, at
a phone's and a laptop's size: no violation at any impact.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from support.pages import LANGUAGES, violations
from support.server import ServerProcess
from support.web import create_table, move_once, next_move, open_player, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_no_violation_anywhere_in_any_language(browser: Any, server: ServerProcess, size: str) -> None:
    found: Counter[str] = Counter()
    player = open_player(browser, f"{server.http}/", SIZES[size])
    page = player.page
    bad = []
    pages = ("/", "/how-to-play", "/score", "/leaderboard", "/daily", "/games", "/friends", "/account", "/offline")
    for path in (*pages, "/no-such-page"):
        page.goto(f"{server.http}{path}")
        page.wait_for_selector(".lang button")
        bad += violations(page, path, found)
        if path == "/how-to-play":
            shoot(player, f"{size}-how-to-play", full_page=False)

    page.goto(f"{server.http}/")
    page.wait_for_selector("#edition option", state="attached")
    page.click("#tutorial-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+\?tutorial=1"))
    page.wait_for_selector("#coach[data-step='welcome']")
    bad += violations(page, "tutorial", found)

    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2
    table_id, tokens = create_table(server, edition="iello-2024", players=3, seats=seats, name="Axe")
    page.goto(f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    page.fill("#join-name", "Ana")
    page.click("#join-button")
    checked = set()
    while (kind := next_move(player)) != "over":
        phase = "summary" if page.locator("#summary").is_visible() else kind
        if phase not in checked:
            checked.add(phase)
            bad += violations(page, f"table, {phase}", found)
        move_once(player, kind)
    bad += violations(page, "table, game over", found)
    page.goto(f"{server.http}/replay/{table_id}?game=1")
    page.wait_for_selector("#board:not([hidden])")
    bad += violations(page, "replay", found)
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    page.goto(f"{server.http}/u/{me['id']}")
    page.wait_for_selector("#games .game-row")
    bad += violations(page, "profile", found)
    # A turn-based game of this identity: the table with its deadline, then My games with its card.
    made = page.evaluate(
        """async () => {
          const seats = [{kind: 'human'}, {kind: 'bot', bot: 'random'}, {kind: 'bot', bot: 'random'}];
          const spec = {players: 3, seats, time_control: '2d', options: {first_player: 0}};
          const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                  body: JSON.stringify(body)}).then((r) => r.json());
          const made = await post('/api/tables', spec);
          const joined = await post(`/api/tables/${made.table.id}/seats/0/join`, {token: made.invites[0].token});
          localStorage.setItem(`luz.seat.${made.table.id}`, JSON.stringify({seat: 0, token: joined.token}));
          return made.table.id;
        }"""
    )
    page.goto(f"{server.http}/t/{made}?pace=0")
    page.wait_for_selector("#deadline:not([hidden])")
    bad += violations(page, "turn-based table", found)
    page.goto(f"{server.http}/games")
    page.wait_for_selector(".game-card.mine")
    bad += violations(page, "my games", found)
    assert checked == {"bid", "play", "summary"}
    for lang in LANGUAGES:
        assert found[f"{lang} rules passed"] > 100, f"axe ran its rules on the pages in {lang}"
    print(f"axe at {size}: {dict(found)}")
    assert not bad, bad
