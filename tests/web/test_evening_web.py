"""The first evening of two friends, one on a phone (375x667, touch) and one on a laptop (1280x800), in English,
French and Japanese: three invitations make one notice that never covers "Take this seat" (none for the table it
invites to); a player back at a table after a timeout is told which card the bot played for them, at the table and in
My games; the phone's header folds its links behind a menu (every page reachable) and shows the deal counter whole;
a completed trick's cards lie apart and its "wins" badge covers no card's value. Screenshots in
``LUZ_SHOTS`` (default tests/web/artifacts/evening)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import ARTIFACTS, Player, create_table, next_move, register

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}
LANGUAGES = ("en", "fr", "ja")
SHOTS = Path(os.environ.get("LUZ_SHOTS") or ARTIFACTS / "evening")
PAGES = ["/", "/games", "/friends", "/leaderboard", "/score", "/how-to-play", "/account"]


def open_as(browser: Any, url: str, size: str) -> Player:
    """A page in a browser context of its own; the phone is a touch screen."""
    phone = size == "phone"
    context = browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone, locale="en-GB")
    page = context.new_page()
    player = Player(page)
    page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    page.on("websocket", player.listen)
    page.goto(url)
    page.wait_for_selector(".lang button")
    return player


def speak(player: Player, lang: str) -> None:
    player.page.click(f".lang button[data-lang='{lang}']")
    player.page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def shoot(player: Player, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    player.page.screenshot(path=str(SHOTS / f"{name}.png"))


def post(player: Player, url: str, body: Any = None, method: str = "POST") -> Any:
    """A JSON request from the player's page (its identity)."""
    return player.page.evaluate(
        """async ([url, body, method]) => {
          const r = await fetch(url, {method, headers: {'Content-Type': 'application/json'},
                                      body: body === null ? undefined : JSON.stringify(body)});
          return {status: r.status, body: await r.json().catch(() => null)};
        }""",
        [url, body, method],
    )


HIT = """(selector) => {
  const node = document.querySelector(selector);
  node.scrollIntoView({block: 'center'});
  const box = node.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return node === hit || node.contains(hit);
}"""


def test_three_invitations_make_one_notice_that_covers_no_seat(browser: Any, server: ServerProcess) -> None:
    ana = open_as(browser, f"{server.http}/", "laptop")
    bo = open_as(browser, f"{server.http}/", "phone")
    cy = open_as(browser, f"{server.http}/", "laptop")
    ana_id, bo_id, cy_id = register(ana, "anaevening"), register(bo, "boevening"), register(cy, "cyevening")
    for friend, friend_id in ((ana, ana_id), (cy, cy_id)):
        assert post(friend, f"/api/players/{bo_id}/follow", method="PUT")["status"] == 200
        assert post(bo, f"/api/players/{friend_id}/follow", method="PUT")["status"] == 200
    paces: list[Any] = [{"days_per_move": 1}, "3+10", None]
    # Ana invites Bo twice, Cy once (one player may invite another twice a minute).
    inviters = [ana, ana, cy]
    tables = []
    for number, pace in enumerate(paces):
        host = inviters[number]
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
        spec = {"players": 3, "seats": seats, "public": False, "name": f"Evening {number + 1}"}
        if pace is not None:
            spec["time_control"] = pace if isinstance(pace, str) else "1d"
        made = post(host, "/api/tables", spec)["body"]
        table_id = made["table"]["id"]
        assert (
            post(host, f"/api/tables/{table_id}/seats/0/join", {"token": made["invites"][0]["token"]})["status"] == 200
        )
        tables.append((table_id, made["invites"][0]["token"]))
    # A public table of someone else's, where Bo may take a seat.
    public, _ = create_table(server, players=3, name="Open house", seats=[{"kind": "human"}] * 2 + [{"kind": "bot"}])
    for size in ("phone", "laptop"):
        bo.page.set_viewport_size(SIZES[size])
        bo.page.goto(f"{server.http}/t/{public}")
        bo.page.locator("#waiting-seats button").first.wait_for()
        if size == "phone":
            for host, (table_id, _) in zip(inviters, tables, strict=True):
                assert post(host, f"/api/tables/{table_id}/seats/1/invite", {"player": bo_id})["status"] == 201
        notice = bo.page.locator("#invitation-notice")
        notice.wait_for()
        bo.page.wait_for_function("document.querySelector('#invitation-notice').textContent.includes('3')")
        for lang in LANGUAGES:
            speak(bo, lang)
            assert bo.page.locator(".invitation-row").count() == 1, "one row folded: the newest"
            assert bo.page.evaluate(HIT, "#waiting-seats button"), f"Take this seat is covered ({size}, {lang})"
            shoot(bo, f"invitations-{size}-{lang}")
            bo.page.click(".invitation-more")
            assert bo.page.locator(".invitation-row").count() == 3
            assert bo.page.evaluate(HIT, "#waiting-seats button"), f"unfolded, it still covers nothing ({size})"
            shoot(bo, f"invitations-open-{size}-{lang}")
            bo.page.click(".invitation-more")
        speak(bo, "en")
        rows = bo.page.locator(".invitation-row")
        bo.page.click(".invitation-more")
        texts = [rows.nth(n).inner_text() for n in range(3)]
        assert ["Evening 3" in texts[0], "Evening 2" in texts[1], "Evening 1" in texts[2]] == [True] * 3, texts
        assert "live, no clock" in texts[0] and "live, clock 3+10" in texts[1] and "turn-based, 1 day" in texts[2]
        assert "3 invitations" in bo.page.locator(".invitation-count").inner_text()

    # At a table it invites to, that invitation is not shown (its seat offers itself); Ana leaves another: withdrawn.
    bo.page.set_viewport_size(SIZES["phone"])
    bo.page.goto(f"{server.http}/t/{tables[0][0]}")
    bo.page.locator('#waiting-seats li[data-seat="1"] button').wait_for()
    bo.page.wait_for_function("document.querySelectorAll('.invitation-row').length === 1")
    bo.page.click(".invitation-more")
    assert bo.page.locator(".invitation-row").count() == 2
    assert bo.page.locator(f'.invitation-row[data-table="{tables[0][0]}"]').count() == 0
    left = httpx.post(
        f"{server.http}/api/tables/{tables[1][0]}/leave", headers={"Authorization": f"Bearer {tables[1][1]}"}
    )
    assert left.status_code == 200
    bo.page.wait_for_function("document.querySelectorAll('.invitation-row').length === 1", timeout=15_000)
    assert bo.page.locator(f'.invitation-row[data-table="{tables[2][0]}"]').count() == 1
    shoot(bo, "invitations-at-the-invited-table-phone-en")

    # Join goes to the very table invited to.
    bo.page.locator(".invitation-row button", has_text="Join").click()
    bo.page.wait_for_url(re.compile(rf"/t/{tables[2][0]}"))
    assert not bo.errors, bo.errors


def seated(browser: Any, server: ServerProcess, size: str, **spec: Any) -> tuple[Player, str]:
    """A player at seat 0 of a new 3-player table against two random bots (seat 0 first), joined from its page."""
    player = open_as(browser, f"{server.http}/", size)
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, options={"first_player": 0}, **spec)
    joined = post(player, f"/api/tables/{table_id}/seats/0/join", {"token": tokens[0], "name": "Bo"})
    assert joined["status"] == 200, joined
    player.page.evaluate(
        "([id, token]) => localStorage.setItem(`luz.seat.${id}`, JSON.stringify({seat: 0, token}))",
        [table_id, tokens[0]],
    )
    player.page.goto(f"{server.http}/t/{table_id}?pace=0")
    return player, table_id


def test_a_player_back_after_a_timeout_is_told_the_card_the_bot_played(browser: Any, server: ServerProcess) -> None:
    # A second of reserve, then 30 s a move: Bo's time runs out at his bid and at his first card.
    clock = {"reserve_seconds": 1, "increment_seconds": 30}
    bo, table_id = seated(browser, server, "phone", name="Timeout table", time_control=clock)
    missed = bo.page.locator("#missed-notice")
    bo.page.wait_for_function(
        "document.querySelector('#missed-notice:not([hidden])')?.textContent.includes('played your')", timeout=60_000
    )
    played = bo.states()[-1]["table"]["clock"]["missed"][0]["card"]
    text = missed.inner_text()
    assert re.fullmatch(rf"A bot played your {re.escape(played['rank'])}\S+ when your time ran out\.", text), text
    for size in ("phone", "laptop"):
        bo.page.set_viewport_size(SIZES[size])
        for lang in LANGUAGES:
            speak(bo, lang)
            assert missed.is_visible() and played["rank"] in missed.inner_text()
            shoot(bo, f"timeout-table-{size}-{lang}")
        speak(bo, "en")
    bo.page.goto(f"{server.http}/games")
    line = bo.page.locator(f'li[data-table="{table_id}"] .game-card-missed')
    line.wait_for()
    assert re.fullmatch(r"A bot played your \S+ when your time ran out\.", line.inner_text())
    for size in ("phone", "laptop"):
        bo.page.set_viewport_size(SIZES[size])
        for lang in LANGUAGES:
            speak(bo, lang)
            shoot(bo, f"timeout-my-games-{size}-{lang}")
        speak(bo, "en")
    assert not bo.errors, bo.errors


CUT = """() => [...document.querySelectorAll('#table-info .deal-count, #table-name')].map((e) => ({
  text: e.textContent, cut: e.scrollWidth > e.clientWidth + 0.5 || e.scrollHeight > e.clientHeight + 1,
  ellipsis: getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth,
  visible: e.getBoundingClientRect().right <= innerWidth + 0.5}))"""

MENU = """() => [...document.querySelectorAll('#site-nav a')].map((a) => { const r = a.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {href: a.getAttribute('href'), shown: r.width > 0 && r.left >= 0 && r.right <= innerWidth
          && r.bottom <= innerHeight, hit: a === hit || a.contains(hit)}; })"""


def test_the_phone_header_has_a_menu_and_the_deal_counter_whole(browser: Any, server: ServerProcess) -> None:
    bo, _ = seated(browser, server, "phone", name="Bo and his friends' long-named Friday table")
    next_move(bo)
    for size in ("phone", "laptop"):
        bo.page.set_viewport_size(SIZES[size])
        for lang in LANGUAGES:
            speak(bo, lang)
            for found in bo.page.evaluate(CUT):
                assert not found["cut"] and not found["ellipsis"] and found["visible"], (size, lang, found)
            assert bo.page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            shoot(bo, f"header-table-{size}-{lang}")
            if size == "phone":
                assert not bo.page.locator("#site-nav").is_visible()
                bo.page.click("#menu-button")
                links = bo.page.evaluate(MENU)
                assert {link["href"] for link in links} >= set(PAGES), links
                assert all(link["shown"] and link["hit"] for link in links), links
                shoot(bo, f"header-menu-{size}-{lang}")
                bo.page.keyboard.press("Escape")
                assert not bo.page.locator("#site-nav").is_visible()
            else:
                assert not bo.page.locator("#menu-button").is_visible() and bo.page.locator("#site-nav").is_visible()
        speak(bo, "en")
    # Every page is reached through the menu on a phone.
    bo.page.set_viewport_size(SIZES["phone"])
    for path in PAGES:
        bo.page.click("#menu-button")
        link = bo.page.locator(f'#site-nav a[href="{path}"]')
        if path == "/account":
            link = bo.page.locator("#site-nav #account-link")
        link.click()
        bo.page.wait_for_url(re.compile(rf"{re.escape(server.http)}{re.escape(path)}(\?.*)?$"))
        bo.page.wait_for_selector("#menu-button")
    assert not bo.errors, bo.errors


TRICK = """() => {
  const boxes = [...document.querySelectorAll('#trick-cards .trick-play .card')].map((c) => c.getBoundingClientRect());
  const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5
    || b.bottom <= a.top + 0.5;
  const overlaps = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => { if (!apart(a, b)) overlaps.push([i, i + j + 1]); }));
  const badge = document.querySelector('#trick-cards .wins');
  const values = [...document.querySelectorAll('.card .val, .card .sym')].map((v) => v.getBoundingClientRect());
  const covered = badge ? values.filter((v) => v.width && !apart(v, badge.getBoundingClientRect())).length : 0;
  return {cards: boxes.length, overlaps, badge: Boolean(badge), covered};
}"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_completed_trick_lies_apart_and_the_next_deal_says_the_beads_left(
    browser: Any, server: ServerProcess, size: str
) -> None:
    """A whole deal by clicking: every completed trick's cards lie apart, its badge over no value; then the second
    deal's bidding shows the first deal's summary with the bet beads left under the cap."""
    bo, _ = seated(browser, server, size, name="Tricks")
    seen = 0
    deadline = time.monotonic() + 180
    while not bo.page.locator("#summary").is_visible():
        assert time.monotonic() < deadline, f"only {seen} completed tricks seen"
        kind = next_move(bo)
        assert kind != "over"
        found = bo.page.evaluate(TRICK)
        assert not found["overlaps"] and not found["covered"], found
        if found["badge"]:
            seen += 1
            assert found["cards"] == 3, found
            if seen == 1:
                for lang in LANGUAGES:
                    speak(bo, lang)
                    shoot(bo, f"last-trick-{size}-{lang}")
                speak(bo, "en")
        if bo.page.locator("#summary").is_visible():
            break
        version = bo.page.locator("#main").get_attribute("data-version")
        if kind == "bid":
            bo.page.locator("#bid-buttons button:not(:disabled)").first.click()
        else:
            bo.page.locator("#my-hand button.card:not(:disabled):not([aria-pressed])").first.click()
        bo.page.wait_for_function(f"document.querySelector('#main').dataset.version !== '{version}'")
    beads = bo.page.locator("#summary-beads")
    assert beads.is_visible() and re.fullmatch(r"Bet beads left under the cap: \d+ of 15", beads.inner_text())
    assert bo.page.evaluate(HIT, "#summary-beads")
    whole = "(s) => { const e = document.querySelector(s); return e.scrollHeight <= e.clientHeight + 1; }"
    assert bo.page.evaluate(whole, "#summary"), "the summary shows whole, its beads line too"
    for lang in LANGUAGES:
        speak(bo, lang)
        assert beads.is_visible() and beads.inner_text()
        shoot(bo, f"deal-2-summary-{size}-{lang}")
    speak(bo, "en")
    bo.page.click("#summary-close")  # the deal's closing trick, its winner marked
    found = bo.page.evaluate(TRICK)
    assert found == {"cards": 3, "overlaps": [], "badge": True, "covered": 0}, found
    shoot(bo, f"closing-trick-{size}-en")
    assert not bo.errors, bo.errors


def test_a_friend_away_from_a_turn_based_table_was_last_seen_not_disconnected(
    browser: Any, server: ServerProcess
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(
        server, players=3, seats=seats, time_control="1d", name="Slow Sunday", options={"first_player": 2}
    )
    ana = open_as(browser, f"{server.http}/", "phone")
    bo = open_as(browser, f"{server.http}/", "laptop")
    for seat, player in ((0, ana), (1, bo)):
        assert post(player, f"/api/tables/{table_id}/seats/{seat}/join", {"token": tokens[seat]})["status"] == 200
        player.page.evaluate(
            "([id, seat, token]) => localStorage.setItem(`luz.seat.${id}`, JSON.stringify({seat, token}))",
            [table_id, seat, tokens[seat]],
        )
        player.page.goto(f"{server.http}/t/{table_id}")
    ana.page.wait_for_selector('#seats .seat[data-seat="1"]')
    bo.page.wait_for_selector("#me:not([hidden])")
    here = "!document.querySelector('#seats .seat[data-seat=\"1\"] .badge.seen')"
    ana.page.wait_for_function(here)  # Bo is at the table
    bo.page.context.close()  # Bo goes to bed
    seen = ana.page.locator('#seats .seat[data-seat="1"] .badge.seen')
    seen.wait_for(timeout=15_000)
    assert seen.inner_text() == "last seen just now"
    assert ana.page.locator("#seats .badge.away").count() == 0, "no red 'disconnected' at a turn-based table"
    for size in ("phone", "laptop"):
        ana.page.set_viewport_size(SIZES[size])
        for lang in LANGUAGES:
            speak(ana, lang)
            assert seen.is_visible() and seen.inner_text()
            shoot(ana, f"last-seen-{size}-{lang}")
        speak(ana, "en")
    assert not ana.errors, ana.errors
