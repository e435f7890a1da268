"""Issue 36's accomplice in real browsers: Leo plays the first deal of a rated game with Ana, then leaves; Ana plays
on to the end. The game-over panel says that the game is rated for nobody (nobody else finished it), Ana's
rating stays 1,500?, and the leaderboard states the rules. Screenshots at 375x667 (touch) and 1280x800 in en, fr
and ja."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import LAPTOP, PHONE, create_table, move_once, offered, open_player, play_to_end, shoot

pytestmark = pytest.mark.browser

ALONE = {
    "en": "This game is not rated: Leo left, and a rated game needs two players who finish it.",
    "fr": (
        "Cette partie n'est pas classée : Leo est parti, et une partie classée demande deux joueurs qui la finissent."
    ),
    "ja": "このゲームはレーティング対象外です：Leo が離脱し、最後まで遊んだプレイヤーが2人に満たないためです。",
}


def sit(player: Any, base: str, table_id: str, seat: int, token: str) -> None:
    player.page.goto(f"{base}/t/{table_id}?pace=0&seat={seat}&token={token}")
    player.page.wait_for_selector("#join:not([hidden])")
    player.page.click("#join-button")


def register(player: Any, username: str, name: str) -> None:
    status = player.page.evaluate(
        """async ([username, name]) => {
          const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                  body: JSON.stringify(body)});
          await post('/api/account/register', {username, password: 'correct horse'});
          return (await post('/api/me/name', {name})).status;
        }""",
        [username, name],
    )
    assert status == 200


def deal_number(player: Any) -> int:
    views = [state["view"] for state in player.states() if state.get("view")]
    return int(views[-1]["deal_number"]) if views else 0


def language(page: Any, lang: str) -> None:
    page.click(f".lang button[data-lang='{lang}']")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def test_a_rated_game_left_in_its_second_deal_is_rated_for_nobody(browser: Any, server: ServerProcess) -> None:
    base = server.http
    ana = open_player(browser, f"{base}/", viewport=PHONE, touch=True)
    leo = open_player(browser, f"{base}/", viewport=LAPTOP)
    for player, username, name in ((ana, "anafarm", "Ana"), (leo, "leofarm", "Leo")):
        player.page.wait_for_selector(".lang button")
        register(player, username, name)
    table_id, tokens = create_table(
        server, players=3, rated=True, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    sit(ana, base, table_id, 0, tokens[0])
    sit(leo, base, table_id, 1, tokens[1])
    while deal_number(ana) < 2:  # both play the first deal
        for player in (ana, leo):
            kind = offered(player)
            if kind in ("bid", "play"):
                move_once(player, kind)
        ana.page.wait_for_timeout(20)  # a poll's interval, not a wait for a state
    left = httpx.post(f"{base}/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert left.status_code == 200 and left.json()["unrated"] is None, "after the first deal"
    play_to_end(ana)

    panel = ana.page.wait_for_selector("#over-ratings:not([hidden]) p")
    assert panel.inner_text() == ALONE["en"]
    assert ana.page.locator("#over-ratings li").count() == 0, "no rating change for anyone"
    laptop = open_player(browser, f"{base}/t/{table_id}", viewport=LAPTOP)
    laptop.page.wait_for_selector("#over-ratings:not([hidden]) p")
    for player, size in ((ana, "phone"), (laptop, "laptop")):
        for lang in ("en", "fr", "ja"):
            language(player.page, lang)
            assert player.page.inner_text("#over-ratings p") == ALONE[lang]
            player.page.locator("#over-ratings").scroll_into_view_if_needed()
            shoot(player, f"farm-alone-{size}-{lang}", full_page=False)
    ratings = httpx.get(f"{base}/api/tables/{table_id}/ratings", timeout=10).json()
    assert ratings["seats"][0]["rating"] == 1500 and ratings["seats"][0]["provisional"] is True

    laptop.page.goto(f"{base}/leaderboard")
    ana.page.goto(f"{base}/leaderboard")
    for player, size in ((ana, "phone"), (laptop, "laptop")):
        player.page.wait_for_selector("#fair-provisional")
        for lang in ("en", "fr", "ja"):
            language(player.page, lang)
            assert "10" in player.page.inner_text("#fair-provisional")
            player.page.locator(".fair-policy").scroll_into_view_if_needed()
            shoot(player, f"farm-leaderboard-{size}-{lang}", full_page=False)
    assert not ana.errors and not leo.errors and not laptop.errors, (ana.errors, leo.errors, laptop.errors)
    for player in (ana, leo, laptop):
        player.page.context.close()
