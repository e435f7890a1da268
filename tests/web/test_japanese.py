"""Japanese, a third language of every page: a Japanese browser gets it, and no English text is left on a page
(home, the table while bidding, How to play, the other pages), at a phone's and a laptop's size."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.pages import english_left
from support.server import ServerProcess
from support.web import create_table, next_move, open_player, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}
PAGES = (
    "/how-to-play",
    "/score",
    "/leaderboard",
    "/daily",
    "/games",
    "/friends",
    "/account",
    "/offline",
    "/no-such-page",
)


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_japanese_player_reads_japanese_on_every_page(browser: Any, server: ServerProcess, size: str) -> None:
    player = open_player(browser, f"{server.http}/", SIZES[size], locale="ja-JP")
    page = player.page
    page.wait_for_function("document.documentElement.lang === 'ja'")
    assert page.inner_text("h1") == "LUZ をプレイ", "a Japanese browser gets Japanese"
    switch = page.locator(".lang button[data-lang='ja']")
    assert switch.inner_text() == "JA" and switch.get_attribute("aria-pressed") == "true"
    assert switch.get_attribute("aria-label") == "日本語"
    page.wait_for_selector("#edition option", state="attached")
    assert "LUZ IELLO 版 (2024)" in page.locator("#edition").inner_text(), "the editions named in Japanese"
    page.wait_for_function("document.querySelector('#seat-1').textContent.includes('ボット')")
    assert english_left(page) == []
    shoot(player, f"home-{size}-ja", full_page=False)

    for path in PAGES:
        page.goto(f"{server.http}{path}")
        page.wait_for_selector(".lang button")
        assert english_left(page) == [], path
        if path == "/how-to-play":
            assert page.inner_text("article:not([hidden]) h1") == "LUZ の遊び方"
            shoot(player, f"how-to-play-{size}-ja", full_page=False)

    seats = [{"kind": "human"}, {"kind": "bot", "bot": "heuristic"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, options={"first_player": 0})
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "ハナ", "token": tokens[0]})
    page.goto(f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    assert next_move(player) == "bid"
    assert page.inner_text("#status") == "あなたの番：ビッドしてください。"
    assert page.inner_text("#table-name") == "LUZ IELLO 版 (2024) のテーブル", "the default table name in Japanese"
    names = page.evaluate("[...document.querySelectorAll('#seats .seat-name')].map((n) => n.textContent)")
    assert names == ["セオリー 2", "ランダム 3"], "the bots named in Japanese"
    assert english_left(page) == []
    shoot(player, f"table-bidding-{size}-ja", full_page=False)
    # (The console's 403 and 404 are the guest's friends page and the missing page's, as in English.)
    assert [error for error in player.errors if error.startswith("page error")] == [], player.errors


HOW_TO_PLAY_DECK = """() => ({
  header: [...document.querySelectorAll('article:not([hidden]) .deck-table thead th')].map((th) => th.textContent),
  rows: [...document.querySelectorAll('article:not([hidden]) .deck-table tbody tr')]
    .map((tr) => tr.children[3].textContent),
  caption: document.querySelector('article:not([hidden]) .deck-table caption').textContent,
  lessons: document.querySelectorAll('[data-lesson] .lesson-answers').length,
})"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_how_to_play_in_japanese_has_the_deck_and_the_lesson(browser: Any, server: ServerProcess, size: str) -> None:
    """The Japanese article's deck table and deduction puzzle, drawn by how-to-play.js and answered in Japanese."""
    player = open_player(browser, f"{server.http}/how-to-play", SIZES[size], locale="ja-JP")
    page = player.page
    page.wait_for_selector("article[data-lang=ja]:not([hidden]) .deck-table tbody tr")
    page.wait_for_selector("article[data-lang=ja]:not([hidden]) .lesson-answers button")
    deck = page.evaluate(HOW_TO_PLAY_DECK)
    assert deck["header"] == ["版", "人数", "数字", "色（切り札）", "手札", "除外"]
    assert deck["caption"].startswith("同じ色のカード")
    assert len(deck["rows"]) >= 3 and all("(切り札)" in colours for colours in deck["rows"]), deck["rows"]
    assert deck["lessons"] == 1, "the lesson is drawn once, in the shown article"
    page.locator("article:not([hidden]) [data-deck]").scroll_into_view_if_needed()
    shoot(player, f"how-to-play-deck-{size}-ja", full_page=False)
    page.click(".lesson-answers button[data-value='7']")
    page.wait_for_selector(".lesson-result[data-verdict='seen']")
    assert page.inner_text(".lesson-verdict").startswith("違います：サイ が"), "the seat holding the red 7 is named"
    page.click(".lesson-answers button[data-value='8']")
    page.wait_for_selector(".lesson-result[data-verdict='likeliest']")
    assert page.inner_text(".lesson-verdict").startswith("正解：8 が最も確率が高く")
    assert english_left(page) == []
    page.locator("article:not([hidden]) .lesson-result").scroll_into_view_if_needed()
    shoot(player, f"how-to-play-lesson-{size}-ja", full_page=False)
    assert [error for error in player.errors if error.startswith("page error")] == [], player.errors
