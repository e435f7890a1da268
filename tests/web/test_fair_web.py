"""Fair ratings in a real browser: the game-over panel of a rated game shows each player's rating before and
after ("1,500 → 1,512? (+12)": provisional after it), as the profile does per game; a rated game left in its
first deal tells the table it is no longer rated; the leaderboard states the policies. Screenshots at phone and
laptop sizes."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import create_table, open_player, play_together_to_end, register_on_account_page, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
LAPTOP = {"width": 1280, "height": 800}
BEFORE_AFTER = re.compile(r"^(.+): 1,500 → (1,\d{3})\? \(([+−±])(\d+)\)$")


def sit(player: Any, base: str, table_id: str, seat: int, token: str) -> None:
    player.page.goto(f"{base}/t/{table_id}?pace=0&seat={seat}&token={token}")
    player.page.wait_for_selector("#join:not([hidden])")
    player.page.click("#join-button")


def test_the_game_over_panel_shows_each_rating_before_and_after(browser: Any, server: ServerProcess) -> None:
    base = server.http
    ana = open_player(browser, f"{base}/account", viewport=LAPTOP)
    bo = open_player(browser, f"{base}/account", viewport=PHONE)
    register_on_account_page(ana, base, "anafair")
    register_on_account_page(bo, base, "bofair")
    table_id, tokens = create_table(
        server, players=3, rated=True, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    sit(ana, base, table_id, 0, tokens[0])
    sit(bo, base, table_id, 1, tokens[1])
    play_together_to_end([ana, bo])
    lines: dict[str, list[tuple[str, str]]] = {}
    for player, size in ((ana, "laptop"), (bo, "phone")):
        player.page.wait_for_selector("#over-ratings:not([hidden]) li")
        shown = player.page.locator("#over-ratings li").all_inner_texts()
        assert len(shown) == 2, "a line per account, none for the bot"
        for text in shown:
            found = BEFORE_AFTER.match(text.strip())
            assert found, text
            name, after, sign, change = found.groups()
            assert int(after.replace(",", "")) - 1500 == (-1 if sign == "−" else 1) * int(change)
            lines.setdefault(size, []).append((name, sign))
        player.page.locator("#over").scroll_into_view_if_needed()
        shoot(player, f"{size}-fair-game-over", full_page=False)
    assert sorted(sign for _, sign in lines["laptop"]) == ["+", "−"], "one won, one lost"

    # The profile shows the same before and after for the game.
    ana.page.click("#me-link")
    ana.page.wait_for_selector("#games .game-row .rating-before-after")
    text = ana.page.inner_text("#games .game-row .rating-before-after")
    assert re.fullmatch(r"1,500 → 1,\d{3}\? \([+−±]\d+\)", text.strip()), text

    # In French, the numbers as French writes them.
    fr = open_player(browser, f"{base}/t/{table_id}", viewport=PHONE, locale="fr-FR")
    fr.page.wait_for_selector("#over-ratings:not([hidden]) li")
    assert "1\u202f500 → " in fr.page.inner_text("#over-ratings") or "1 500 → " in fr.page.inner_text("#over-ratings")
    assert not ana.errors and not bo.errors and not fr.errors, (ana.errors, bo.errors, fr.errors)
    for player in (ana, bo, fr):
        player.page.context.close()


def test_a_rated_game_left_in_its_first_deal_tells_the_table_it_is_no_longer_rated(
    browser: Any, server: ServerProcess
) -> None:
    base = server.http
    ana = open_player(browser, f"{base}/account", viewport=PHONE)
    register_on_account_page(ana, base, "anaabort")
    table_id, tokens = create_table(
        server, players=3, rated=True, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    )
    sit(ana, base, table_id, 0, tokens[0])
    with httpx.Client(base_url=base, timeout=10) as http:
        guest = http.post("/api/me/guest").json()["session"]
        registered = http.post(
            "/api/account/register",
            json={"username": "leaver", "password": "correct horse"},
            headers={"X-Luz-Session": guest},
        )
        session = {"X-Luz-Session": registered.json()["session"]}
        joined = http.post(
            f"/api/tables/{table_id}/seats/1/join", json={"name": "Leo", "token": tokens[1]}, headers=session
        )
        assert joined.status_code == 200, joined.text
        ana.page.wait_for_selector("#game:not([hidden])")
        left = http.post(f"/api/tables/{table_id}/leave", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert left.status_code == 200 and left.json()["unrated"] == {"reason": "left", "seat": 1}
    note = ana.page.wait_for_selector("#unrated-note:not([hidden])")
    assert note.inner_text() == (
        "This game is no longer rated: Leo left during the first deal. It goes on as a friendly game."
    )
    assert "No longer rated" in ana.page.inner_text("#table-info")
    shoot(ana, "phone-fair-unrated", full_page=False)
    laptop = open_player(browser, f"{base}/t/{table_id}", viewport=LAPTOP, locale="fr-FR")
    laptop.page.wait_for_selector("#unrated-note:not([hidden])")
    assert "Leo est parti pendant la première donne" in laptop.page.inner_text("#unrated-note")
    shoot(laptop, "laptop-fair-unrated-fr", full_page=False)

    # The leaderboard states the policies, in both languages.
    laptop.page.goto(f"{base}/leaderboard")
    laptop.page.wait_for_selector(".fair-policy li")
    assert "première donne" in laptop.page.inner_text(".fair-policy")
    shoot(laptop, "laptop-fair-leaderboard-fr")
    ana.page.goto(f"{base}/leaderboard")
    ana.page.wait_for_selector(".fair-policy li")
    assert "before the end of its first deal" in ana.page.inner_text(".fair-policy")
    shoot(ana, "phone-fair-leaderboard")
    assert not ana.errors and not laptop.errors, (ana.errors, laptop.errors)
    for player in (ana, laptop):
        player.page.context.close()
