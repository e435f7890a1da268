"""Play this deal (issue 37) in the browser: from a finished game's replay, "Play this deal with bots" makes a table
dealt the same cards (played to its end by clicking: every deal's hands and aside the original's), whose game over
lists the original's scores, linked to its replay; "with friends" makes one of open seats with their invitations.
At a phone's size (touch) and a laptop's, in English, French and Japanese: nothing left in English in Japanese."""

from __future__ import annotations

import datetime
import time
from typing import Any

import httpx
import pytest

from luz.engine import replay
from support.pages import english_left
from support.server import ServerProcess
from support.web import Player, console_error, create_table, play_to_end, record_of, shoot

pytestmark = pytest.mark.browser

SIZES = {
    "phone": {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
LANGUAGES = ("en", "fr", "ja")


@pytest.fixture(scope="module")
def original(server: ServerProcess) -> str:
    """A finished 3-player game of random bots at an unlisted table: its id."""
    bots = [{"kind": "bot", "bot": "random"}] * 3
    table_id, _ = create_table(server, players=3, seats=bots, public=False, options={"bid_cap": None})
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.05)
    return table_id


def open_page(browser: Any, url: str, size: str) -> Player:
    context = browser.new_context(locale="en-GB", **SIZES[size])
    page = context.new_page()
    player = Player(page)
    page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    page.on("console", lambda message: console_error(player, message))
    page.goto(url)
    return player


def speak(page: Any, lang: str) -> None:
    page.click(f".lang button[data-lang='{lang}']")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")


def deals_of(record: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(deal.hands, deal.aside) for deal in replay(record).deals]


def test_play_this_deal_with_bots_deals_the_same_cards(browser: Any, server: ServerProcess, original: str) -> None:
    ana = open_page(browser, f"{server.http}/replay/{original}?game=1", "phone")
    page = ana.page
    page.wait_for_selector("#deal:not([hidden])")
    assert page.locator("#deal-others li").inner_text() == "No other table has played this deal yet."
    page.tap("#deal-bots")
    page.wait_for_url(f"{server.http}/t/*")
    again = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    summary = httpx.get(f"{server.http}/api/tables/{again}", timeout=10).json()
    assert summary["shared_deal"] is True and summary["public"] is False and summary["rated"] is False
    assert [seat["kind"] for seat in summary["seats"]] == ["human", "bot", "bot"]
    page.wait_for_selector("#shared-deal-note:not([hidden])")
    assert "Shared deal" in page.locator("#table-info").inner_text()
    shoot(ana, "deals-table-phone-en", full_page=False)
    page.goto(f"{server.http}/t/{again}?pace=0")
    play_to_end(ana)
    assert deals_of(record_of(server, again)) == deals_of(record_of(server, original))
    assert record_of(server, again)["first_player"] == record_of(server, original)["first_player"]
    # The game over lists the original's scores, linked to its replay.
    page.wait_for_selector("#other-scores:not([hidden]) .other-game")
    link = page.locator("#other-scores .other-game a")
    assert link.get_attribute("href") == f"/replay/{original}?game=1"
    shown = page.locator("#other-scores .other-seats li").all_inner_texts()
    totals = sorted(replay(record_of(server, original)).sheet.totals, reverse=True)
    assert [int(text.split()[-1]) for text in shown] == totals
    page.locator("#other-scores").scroll_into_view_if_needed()
    shoot(ana, "deals-over-phone-en")
    # The original's replay now lists this game.
    page.goto(f"{server.http}/replay/{original}?game=1")
    page.wait_for_selector(f"#deal-others .other-game[data-table='{again}']")
    assert not ana.errors, ana.errors
    ana.page.context.close()


@pytest.mark.parametrize("size", SIZES)
def test_the_deal_panel_in_three_languages_and_with_friends(
    browser: Any, server: ServerProcess, original: str, size: str
) -> None:
    bea = open_page(browser, f"{server.http}/replay/{original}?game=1", size)
    page = bea.page
    page.wait_for_selector("#deal:not([hidden])")
    for lang in LANGUAGES:
        speak(page, lang)
        box = page.locator("#deal").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["viewport"]["width"]
        for button in ("#deal-bots", "#deal-friends"):
            inside = page.locator(button).bounding_box()
            assert inside is not None and inside["x"] + inside["width"] <= box["x"] + box["width"] + 0.5, button
        page.locator("#deal").scroll_into_view_if_needed()
        shoot(bea, f"deals-replay-{size}-{lang}", full_page=False)
    assert english_left(page) == [], "ja"
    if size == "phone":
        page.tap("#deal-friends")
    else:
        page.click("#deal-friends")
    page.wait_for_url(f"{server.http}/t/*")
    friends = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    summary = httpx.get(f"{server.http}/api/tables/{friends}", timeout=10).json()
    assert summary["shared_deal"] is True and summary["status"] == "waiting"
    assert [(seat["kind"], seat["joined"]) for seat in summary["seats"]] == [
        ("human", True),
        ("human", False),
        ("human", False),
    ]
    page.wait_for_selector("#shared-deal-note:not([hidden])")
    assert page.locator("#shared-deal-note").inner_text().startswith("一度プレイされた配り")
    shoot(bea, f"deals-friends-{size}-ja")
    assert not bea.errors, bea.errors
    bea.page.context.close()


def test_a_deal_set_named_played_compared_and_closed(browser: Any, server: ServerProcess) -> None:
    """Named at /deals (a phone, by touch), played from its page with bots, its results without replays while it
    is open; closed by its namer, the replays linked. Its page in three languages at both sizes."""
    cleo = open_page(browser, f"{server.http}/deals", "phone")
    page = cleo.page
    page.wait_for_selector("#set-new:not([hidden])")
    page.fill("#set-name", "Club Rivoli, semaine 12")
    page.select_option("#set-players", "3")
    shoot(cleo, "deals-set-new-phone-en", full_page=False)
    page.tap("#set-create")
    page.wait_for_url(f"{server.http}/deals/*")
    set_id = page.url.split("/deals/")[1]
    page.wait_for_selector("#set-panel:not([hidden])")
    assert page.locator("#set-title").inner_text() == "Club Rivoli, semaine 12"
    assert page.locator("#set-link").input_value() == f"{server.http}/deals/{set_id}"
    assert page.locator("#set-games li").inner_text() == "No table has finished this deal yet."
    assert page.locator("#set-close").is_visible()
    # Another table of the group plays it meanwhile (bots only: it ends by itself).
    bots = [{"kind": "bot", "bot": "random"}] * 3
    finished, _ = create_table(server, deal_set=set_id, seats=bots)
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.http}/api/tables/{finished}", timeout=10).json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.05)
    page.tap("#set-bots")
    page.wait_for_url(f"{server.http}/t/*")
    mine = page.url.split("/t/")[1].split("?")[0].split("#")[0]
    assert httpx.get(f"{server.http}/api/tables/{mine}", timeout=10).json()["deal_set"] == set_id
    page.goto(f"{server.http}/deals/{set_id}")
    page.wait_for_selector("#set-games .other-game")
    assert page.locator("#set-games .other-game a").count() == 0, "no replay while the set is open"
    assert page.locator("#set-unfinished").inner_text() == "1 table still playing or waiting."
    for size in SIZES:
        viewer = open_page(browser, f"{server.http}/deals/{set_id}", size)
        viewer.page.wait_for_selector("#set-results:not([hidden]) .other-game")
        assert viewer.page.locator("#set-close").is_hidden(), "only its namer closes it"
        for lang in LANGUAGES:
            speak(viewer.page, lang)
            shoot(viewer, f"deals-set-{size}-{lang}")
        assert english_left(viewer.page) == [], size
        assert not viewer.errors, viewer.errors
        viewer.page.context.close()
    page.tap("#set-close")
    page.wait_for_selector("#set-play[hidden]", state="attached")
    link = page.locator("#set-games .other-game a")
    assert link.get_attribute("href") == f"/replay/{finished}?game=1"
    shoot(cleo, "deals-set-closed-phone-en")
    assert not cleo.errors, cleo.errors
    cleo.page.context.close()


MONTHS = {
    "en": ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"],
    "fr": ["janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."],
}


def written_date(day: datetime.date, lang: str) -> str:
    """``day`` as a player reading ``lang`` expects it (British English, as the browser's locale is en-GB)."""
    if lang == "ja":
        return f"{day.year}/{day.month:02}/{day.day:02}"
    return f"{day.day} {MONTHS[lang][day.month - 1]} {day.year}"


def other_games(server: ServerProcess, table_id: str) -> list[dict[str, Any]]:
    """The other finished games on the deal of ``table_id``'s first game."""
    answer = httpx.get(f"{server.http}/api/tables/{table_id}/deal?game=1", timeout=10)
    others: list[dict[str, Any]] = answer.json()["others"]
    return others


@pytest.mark.parametrize("size", SIZES)
def test_the_other_games_dates_are_written_in_the_pages_language(
    browser: Any, server: ServerProcess, original: str, size: str
) -> None:
    """The replay's other games on its deal, each dated as its readers write dates (issue: "06/12/2026" in
    Japanese): in English (the browser's en-GB), French and Japanese."""
    bots = [{"kind": "bot", "bot": "random"}] * 3
    again, _ = create_table(server, seats=bots, deal={"table": original, "game": 1})
    deadline = time.monotonic() + 60
    while not (mine := [o for o in other_games(server, original) if o["table"] == again]):
        assert time.monotonic() < deadline, "the bots' game on the same deal did not end"
        time.sleep(0.05)
    finished = datetime.datetime.fromisoformat(mine[0]["finished_at"]).astimezone(datetime.UTC).date()
    context = browser.new_context(locale="en-GB", timezone_id="UTC", **SIZES[size])
    viewer = Player(context.new_page())
    viewer.page.on("pageerror", lambda error: viewer.errors.append(f"page error: {error}"))
    viewer.page.goto(f"{server.http}/replay/{original}?game=1")
    page = viewer.page
    link = page.locator(f"#deal-others .other-game[data-table='{again}'] a")
    link.wait_for()
    for lang in LANGUAGES:
        speak(page, lang)
        assert link.inner_text() == written_date(finished, lang)
        page.locator("#deal-others").scroll_into_view_if_needed()
        shoot(viewer, f"deals-replay-date-{size}-{lang}", full_page=False)
    assert not viewer.errors, viewer.errors
    context.close()
