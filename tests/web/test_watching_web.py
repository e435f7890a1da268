"""Watching in the browser: a third person watches a public game from the lobby's "Playing now" (joining mid-deal,
they see the bids and the tricks won), its spectator count; the "spectators see every hand" option offered by the
create form only for an unlisted, unrated table, its badge, a spectator seeing every hand while the seat never sees
its own cards. Screenshots at phone and laptop sizes; axe on the lobby with "Playing now", in both languages."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import Checker, ServerProcess, Truth, open_store
from support.web import LAPTOP, create_table, move_once, next_move, open_player, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` trusting the loopback as a proxy: a page sending ``X-Forwarded-For`` is another client."""
    folder: Path = tmp_path_factory.mktemp("watching")
    env = {"LUZ_TRUSTED_PROXIES": "127.0.0.1"}
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", env=env).start()
    yield process
    process.stop()


SIZES = {"phone": PHONE, "laptop": {"width": 1280, "height": 800}}


def serious_violations(page: Any) -> list[str]:
    """The serious and critical axe violations of ``page``, in English and in French."""
    from axe_playwright_python.sync_playwright import Axe  # type: ignore[import-untyped]

    bad, found = [], Counter[str]()
    for lang in ("en", "fr"):
        page.click(f".lang button[data-lang='{lang}']")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        response = Axe().run(page).response
        found["passes"] += len(response["passes"])
        for violation in response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                bad.append(f"{lang}: {violation['id']} {[n['target'] for n in violation['nodes']][:3]}")
    assert found["passes"] > 0
    return bad


def test_a_third_person_watches_a_public_game_from_playing_now(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(
        server, name="Friday night", players=4, seats=seats, grace_seconds=600, options={"first_player": 0}
    )
    ana = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    ana.page.fill("#join-name", "Ana")
    ana.page.click("#join-button")
    bo = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=1&token={tokens[1]}", PHONE)
    bo.page.fill("#join-name", "Bo")
    bo.page.click("#join-button")
    # The two players bid: the third person comes in mid-deal.
    for player in (ana, bo):
        assert next_move(player, timeout=60) == "bid"
        move_once(player, "bid")
    ana.page.wait_for_function("document.querySelectorAll('.seat .bid-text').length >= 2", timeout=60_000)

    carl = open_player(browser, f"{server.http}/")
    card = carl.page.locator(f"#playing li[data-table='{table_id}']")
    card.wait_for()
    assert "Friday night" in card.inner_text() and "Ana" in card.inner_text() and "Bo" in card.inner_text()
    assert card.locator(".watch-count").get_attribute("data-spectators") == "0"
    assert card.locator(".watch-count").inner_text().strip() == "No spectator yet"
    assert carl.page.locator(f"#lobby li[data-table='{table_id}']").count() == 0  # no longer waiting
    for size, viewport in SIZES.items():
        carl.page.set_viewport_size(viewport)
        shoot(carl, f"{size}-playing-now")
    assert not serious_violations(carl.page)
    carl.page.click(".lang button[data-lang='en']")

    card.locator("a.watch-link").click()
    carl.page.wait_for_url(f"**/t/{table_id}")
    carl.page.wait_for_selector("#game:not([hidden])")
    # A spectator: no hand of its own, every seat shown with its bid and tricks won.
    assert carl.page.locator("#me").is_hidden()
    for seat in (0, 1):
        carl.page.locator(f".seat[data-seat='{seat}'] .bid-text").wait_for()
    assert carl.page.locator(".seat .badge.tricks").count() == 4
    state = carl.states()[-1]
    assert state["seat"] is None and state["view"]["bids"][0] is not None
    assert all(s["card"] is None for hand in state["view"]["hands"] for s in hand if not s["played"])
    assert carl.page.locator("#show-hands-badge").is_hidden()
    shoot(carl, "laptop-watching")

    # The lobby counts the spectator.
    lobby = open_player(browser, f"{server.http}/", PHONE)
    counted = lobby.page.locator(f"#playing li[data-table='{table_id}'] .watch-count[data-spectators='1']")
    counted.wait_for(timeout=15_000)
    assert counted.inner_text().strip() == "1 spectator"
    shoot(lobby, "phone-playing-now-watched")
    for player in (ana, bo, carl, lobby):
        assert not player.errors, player.errors
        player.page.context.close()


def test_spectators_see_every_hand_at_an_unlisted_table_its_players_see_the_badge(
    browser: Any, server: ServerProcess
) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0", LAPTOP)
    page = ana.page
    page.wait_for_selector("#seat-0")
    page.fill("#player-name", "Ana")
    field = page.locator("#show-hands-field")
    assert field.is_hidden()  # listed by default
    page.uncheck("#public")
    assert field.is_visible()
    page.check("#rated")
    assert field.is_hidden()
    page.uncheck("#rated")
    page.check("#show-hands")
    page.locator("#show-hands-field").scroll_into_view_if_needed()
    shoot(ana, "laptop-create-show-hands")
    page.click("#create-button")
    page.wait_for_url("**/t/*")
    table_id = page.url.split("/t/")[1].split("?")[0]
    summary = httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()
    assert summary["show_hands"] is True and summary["public"] is False
    # The game starts once Ana agreed that anyone watching sees her cards.
    page.locator("#show-hand-consent").wait_for()
    assert summary["status"] == "waiting"
    page.click("#show-hand-button")
    badge = page.locator("#show-hands-badge .badge")
    badge.wait_for()
    assert badge.inner_text() == "Spectators see every hand"
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert badge.inner_text() == "Les spectateurs voient toutes les mains"
    page.click(".lang button[data-lang='en']")

    # The friend from another address (one of Ana's would be refused the hands: its client holds her seat).
    friend = open_player(browser, f"{server.http}/t/{table_id}", PHONE, headers={"X-Forwarded-For": "198.51.100.5"})
    friend.page.wait_for_selector("#game:not([hidden])")
    # The friend watching sees every card of every hand (the seats' unplayed ones too).
    friend.page.wait_for_function("document.querySelectorAll('.seat [data-card]').length >= 30")
    state = friend.states()[-1]
    assert state["seat"] is None
    assert all(s["card"] for hand in state["view"]["hands"] for s in hand)
    assert friend.page.locator("#show-hands-badge").is_visible()
    shoot(friend, "phone-watching-every-hand")
    ana.page.set_viewport_size(PHONE)
    shoot(ana, "phone-show-hands-badge", full_page=False)

    # Ana plays on: neither what her page received nor what it showed held one of her own unplayed values.
    for _ in range(6):
        kind = next_move(ana, timeout=60)
        if kind == "over":
            break
        move_once(ana, kind)
    shot = ana.picture()
    assert shot["backs"] and all(back["card"] is None for back in shot["backs"])
    checker = Checker(0, Truth(open_store(server.database_url)), table_id)
    for number, frame in ana.frames:
        if "token=" in ana.sockets[number] or "me=1" in ana.sockets[number]:
            checker.feed(frame)
    assert checker.checked_hidden > 5
    for player in (ana, friend):
        assert not player.errors, player.errors
        player.page.context.close()
