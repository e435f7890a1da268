"""Retry your mistakes (issue 35) in a browser: a game played by clicking, its review asked from the game-over
panel's link, then the accuracy on that panel, one puzzle solved (the page told nothing of the options' values
before it answers), the profile's list of mistakes to retry (shown to its owner only) and its accuracy; screenshots
at a phone's and a laptop's size in the three languages."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.pages import english_left, violations
from support.server import ServerProcess
from support.web import Player, open_player, play_to_end, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": ({"width": 375, "height": 667}, True), "desktop": ({"width": 1280, "height": 800}, False)}
LOCALES = {"en": "en-GB", "fr": "fr-FR", "ja": "ja-JP"}
WORLDS = "50"
"""Worlds per decision: one batch, for speed."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` with a bot process (where reviews are computed) and few worlds per review."""
    folder = tmp_path_factory.mktemp("puzzle")
    env = {"LUZ_REVIEW_WORLDS": WORLDS}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", bot_workers=1, env=env).start()
    yield process
    process.stop()


def review_of(server: ServerProcess, table_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{server.http}/api/tables/{table_id}/games/1/review", params={"seat": 0}, timeout=10)
    assert answer.status_code == 200, answer.text
    review: dict[str, Any] = answer.json()["review"]
    return review


SIT = """async () => {
  const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                          body: JSON.stringify(body)}).then((r) => r.json());
  const seats = [{kind: 'human'}, {kind: 'bot', bot: 'random'}, {kind: 'bot', bot: 'random'}];
  const made = await post('/api/tables', {players: 3, seats, name: 'Puzzle', options: {first_player: 0}});
  const joined = await post(`/api/tables/${made.table.id}/seats/0/join`, {token: made.invites[0].token, name: 'Ana'});
  return `/t/${made.table.id}?pace=0#seat=0&token=${joined.token}`;
}"""
"""A 3-player table against two random bots, its first seat taken by this browser's identity (the profile's)."""


ONE_LINE = """([boxSelector, figureSelector]) => {
  const box = document.querySelector(boxSelector);
  const figure = box.querySelector(figureSelector);
  const split = [];
  for (let width = 80; width <= 480; width += 2) {
    box.style.width = `${width}px`;
    if (figure.getClientRects().length !== 1) split.push(width);
  }
  box.style.width = '';
  return split;
}"""
"""The widths of an accuracy line's box (80 to 480 px) at which its figure ("83 %") is split across lines."""


def as_ana(browser: Any, state: Any, viewport: dict[str, int], lang: str, touch: bool) -> Player:
    """A page of Ana's browser (her identity's cookie) at this size, in ``lang``."""
    context = browser.new_context(
        storage_state=state, viewport=viewport, locale=LOCALES[lang], has_touch=touch, is_mobile=touch
    )
    context.add_init_script(f"localStorage.setItem('luz.lang', '{lang}')")
    player = Player(context.new_page())
    player.page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    player.page.on("console", lambda m: m.type == "error" and player.errors.append(f"console: {m.text}"))
    return player


def test_retry_a_mistake_and_see_your_accuracy(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/")
    ana.page.wait_for_selector(".lang button")
    seated = server.http + ana.page.evaluate(SIT)
    ana.page.goto(seated)
    play_to_end(ana)
    table_url = ana.page.url
    table_id = table_url.split("/t/")[1].split("?")[0]
    page = ana.page
    # No review yet: the game-over panel offers one; its link opens the replay, which asks for it.
    link = page.locator("#over-accuracy a")
    link.wait_for()
    assert page.locator("#over-accuracy").get_attribute("data-state") == "none"
    # Its question "is there a review?" was answered "none" (a 404 would be an error in every finished game's log).
    assert not ana.errors, ana.errors
    link.click()
    page.wait_for_selector("#review[data-state='ready']", timeout=120_000)
    review = review_of(server, table_id)
    puzzles = [d for d in review["decisions"] if d["label"] in ("mistake", "blunder")]
    assert puzzles, "the first enabled bid and the first playable card make mistakes"
    # The review's options of a mistake link to its puzzle.
    page.locator(f"#review-strip .review-mark[data-step='{puzzles[-1]['step']}']").click()
    retry = page.locator("#review-options a.review-retry")
    assert retry.get_attribute("href") == f"/puzzle/{table_id}?game=1&seat=0&step={puzzles[-1]['step']}"
    # Back at the table: the accuracy of the review, and a link to retry the mistakes.
    page.goto(table_url)
    page.wait_for_selector("#over-accuracy[data-state='ready']")
    shown = page.locator("#over-accuracy").inner_text()
    offered = f"Retry your {len(puzzles)} {'mistake' if len(puzzles) == 1 else 'mistakes'}"  # en.json's plural
    assert f"{round(review['game']['accuracy'])} %" in shown and re.search(rf"{offered}\b", shown), shown

    # The puzzle: the seat's view, no value of any option until it answers; the server's verdict then.
    first = puzzles[0]
    requests: list[str] = []
    page.on("response", lambda r: requests.append(r.url))
    page.locator("#over-accuracy a", has_text="Retry").click()
    page.wait_for_selector("#main[data-state='ready']")
    assert page.url.endswith(f"step={first['step']}")
    assert not page.locator("#puzzle-result p").count() and not page.locator("[data-option]").count()
    assert not any("/review" in url for url in requests), "the page never reads the review"
    own = page.locator("#seats .seat[data-seat='0'] .card.back").count()
    assert own >= 1, "its own unplayed cards face down"
    choice = first["best"]
    button = (
        page.locator(f"#puzzle-choices button[data-action='{choice}']")
        if choice.startswith("bid:")
        else page.locator(f"#puzzle-choices button.card[data-slot='{choice.split(':')[1]}']")
    )
    # Past its client's answers a minute, the server's 429 is said in words and the choice stays open.
    answer_url = re.compile(rf"/puzzles/{first['step']}/answer\?seat=0$")
    refusal = {"detail": "too many puzzle answers: wait a little"}
    page.route(answer_url, lambda route: route.fulfill(status=429, headers={"Retry-After": "30"}, json=refusal))
    button.click()
    page.wait_for_function("document.querySelector('#puzzle-error').textContent !== ''")
    assert page.inner_text("#puzzle-error") == "Too many answers in a short time: wait a little, then choose again."
    assert page.get_attribute("#main", "data-state") == "ready" and not page.locator("#puzzle-result p").count()
    assert all("429" in error for error in ana.errors), ana.errors  # (the refused request's line in the log)
    ana.errors.clear()
    page.unroute(answer_url)
    button.click()
    page.wait_for_selector("#main[data-state='answered']")
    assert page.inner_text("#puzzle-error") == "", "the refusal's words gone with the answer"
    assert page.locator("#puzzle-result").get_attribute("data-verdict") == "good"
    best_line = page.locator("#puzzle-result [data-option='best']")
    assert best_line.get_attribute("data-action") == first["best"]
    assert f"{first['options'][0]['points']:.1f}" in best_line.inner_text()
    assert not ana.errors, ana.errors
    # Accessible in the three languages (axe), no English left in Japanese.
    found: Counter[str] = Counter()
    assert violations(page, "puzzle", found) == []
    assert english_left(page) == [], "the puzzle in Japanese"  # violations() leaves the page in Japanese

    # The profile: your mistakes to retry (yours only) and your accuracy (anyone's eyes).
    me = page.evaluate("async () => (await (await fetch('/api/me')).json()).id")
    page.goto(f"{server.http}/u/{me}")
    page.wait_for_selector("#retry:not([hidden]) #retry-list li")
    links = page.locator("#retry-list a")
    assert links.count() == len(puzzles)
    assert links.first.get_attribute("href") == f"/puzzle/{table_id}?game=1&seat=0&step={first['step']}"
    page.click(".lang button[data-lang='en']")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert "(mean of the last 1 reviewed game)" in page.locator("#player-accuracy").inner_text()
    assert violations(page, "profile", found) == []
    assert english_left(page) == [], "the profile in Japanese"
    other = open_player(browser, f"{server.http}/u/{me}")
    other.page.wait_for_selector("#player-accuracy:not([hidden])")
    assert other.page.locator("#retry").is_hidden()
    other.page.context.close()

    # Screenshots: the puzzle answered, the profile's list, the game-over panel; phone (touch) and desktop.
    state = page.context.storage_state()
    for lang in LOCALES:
        for size, (viewport, touch) in SIZES.items():
            player = as_ana(browser, state, viewport, lang, touch)
            player.page.goto(f"{server.http}/u/{me}")
            player.page.wait_for_selector("#retry:not([hidden]) #retry-list li")
            shoot(player, f"profile-{lang}-{size}")
            split = player.page.evaluate(ONE_LINE, ["#player-accuracy", "strong .nowrap"])
            assert split == [], f"the profile's accuracy split in {lang} at widths {split}"
            player.page.goto(f"{server.http}/puzzle/{table_id}?game=1&seat=0&step={first['step']}")
            player.page.wait_for_selector("#main[data-state='ready']")
            shoot(player, f"puzzle-{lang}-{size}")
            if choice.startswith("bid:"):
                player.page.locator(f"#puzzle-choices button[data-action='{first['action']}']").click()
            else:
                player.page.locator(f"#puzzle-choices button.card[data-slot='{first['action'].split(':')[1]}']").click()
            player.page.wait_for_selector("#main[data-state='answered']")
            shoot(player, f"puzzle-answered-{lang}-{size}")
            assert "null" not in player.page.locator("#puzzle-result").inner_text()
            card = next((d for d in puzzles if d["kind"] == "play"), None)
            if card is not None:  # a card to choose: the seat's own hand, its legal cards as buttons
                player.page.goto(f"{server.http}/puzzle/{table_id}?game=1&seat=0&step={card['step']}")
                player.page.wait_for_selector("#main[data-state='ready'] #puzzle-choices button.card")
                shoot(player, f"puzzle-card-{lang}-{size}")
                assert player.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no overflow"
            player.page.goto(seated)
            player.page.wait_for_selector("#over-accuracy[data-state='ready']")
            player.page.locator("#over").scroll_into_view_if_needed()
            shoot(player, f"over-{lang}-{size}")
            # "83 %" never split across two lines, wherever the panel's line ends (it did on a phone).
            assert player.page.locator("#over-accuracy .accuracy-value").inner_text().count("%") == 1
            split = player.page.evaluate(ONE_LINE, ["#over-accuracy", ".accuracy-value .nowrap"])
            assert split == [], f"the game's accuracy split in {lang} at widths {split}"
            assert not player.errors, player.errors
            player.page.context.close()
