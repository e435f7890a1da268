"""Turn-based play in real browsers: a table made with the lobby's form (turn-based, days per move), two players
in two browser contexts who close their tab between moves and come back from My games, the header's badge
counting the games where it is your turn (the identity's event stream), and the same account on a new browser
opening its seat from My games with no token (``?me=1``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from support.server import ServerProcess
from support.web import LAPTOP, PHONE, Player, next_move, open_player, shoot

pytestmark = pytest.mark.browser

BADGE = "#games-link .turn-count"


def badge(player: Player, count: int) -> None:
    """Wait until the header's badge says ``count`` (hidden at 0)."""
    shown = """([selector, count]) => {
      const badge = document.querySelector(selector);
      return Boolean(badge) && (count === '0' ? badge.hidden : !badge.hidden && badge.textContent === count);
    }"""
    player.page.wait_for_function(shown, arg=[BADGE, str(count)])


def move(page: Any) -> None:
    """The first enabled bid or card."""
    if page.locator("#bid-buttons button:not(:disabled)").count():
        page.locator("#bid-buttons button:not(:disabled)").first.click()
    else:
        page.locator("#my-hand button.card:not(:disabled):not([aria-pressed])").first.click()


def without_forced_moves(page: Any) -> None:
    """This browser's player plays every card themselves (the account setting): a forced card of one player could
    bring the turn straight back to another, and the badges below follow each move."""
    done = page.evaluate(
        "() => fetch('/api/me/play', {method: 'PUT', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({forced_moves: false})}).then((answer) => answer.json())"
    )
    assert done == {"forced_moves": False}


def my_games(player: Player) -> list[dict[str, Any]]:
    player.page.wait_for_selector(".game-card")
    # One evaluation reads the cards and their contents: the list may be drawn again between two (a change told
    # by the event stream), and a card read after that would be detached.
    cards: list[dict[str, Any]] = player.page.evaluate(
        "() => [...document.querySelectorAll('.game-card')].map(c => ({mine: c.classList.contains('mine'),"
        " href: c.getAttribute('href'), turn: c.querySelector('.game-card-turn').textContent,"
        " left: c.querySelector('.game-card-left')?.textContent || '', group: c.closest('section').id}))",
    )
    return cards


def test_a_turn_based_game_with_the_tab_closed_between_moves(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0", viewport=LAPTOP)
    page = ana.page
    page.wait_for_selector("#edition option", state="attached")
    page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    without_forced_moves(page)
    page.fill("#player-name", "Ana")
    page.fill("#table-name", "Slow Sunday")
    page.select_option("#players", "3")
    page.select_option("#seat-0", "human")
    page.select_option("#seat-1", "human")
    page.select_option("#seat-2", "bot:heuristic")
    assert page.locator("#turn-clock").is_hidden() and page.locator("#live-clock").is_visible()
    page.check("#pace-turn")
    assert page.locator("#turn-clock").is_visible() and page.locator("#live-clock").is_hidden()
    page.select_option("#days-per-move", "2")
    page.select_option("#timeouts-before-bot", "3")
    assert page.locator("#time-bank").input_value() == "12"  # a small time bank unless chosen
    page.click("summary")  # more options: Ana opens the game
    page.select_option("#first-player", "0")
    page.locator("#pace-turn").scroll_into_view_if_needed()
    shoot(ana, "turn-based-form", full_page=False)
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    table_url = page.url.split("?")[0]
    page.wait_for_selector("#invites input")
    assert "turn-based, 2 days per move" in page.inner_text("#table-info")
    assert page.locator("#turn-note").is_visible()
    assert "3 in a row" in page.inner_text("#turn-note")
    link = page.locator("#invites input").first.input_value()

    bo = open_player(browser, link.replace("#", "?pace=0#"), viewport=PHONE)
    bo.page.wait_for_selector("#join:not([hidden])")
    assert bo.page.locator("#turn-note").is_visible(), "the invited player is told it is turn-based"
    shoot(bo, "turn-based-invite-phone", full_page=False)
    without_forced_moves(bo.page)
    bo.page.fill("#join-name", "Bo")
    bo.page.click("#join-button")

    # Ana's move first: her deadline, her badge.
    assert next_move(ana) == "bid"
    page.wait_for_selector("#deadline:not([hidden])")
    assert page.inner_text("#deadline-text") == "Your move: 1 d 23 h left · time bank 12\u00a0h"
    badge(ana, 1)
    badge(bo, 0)
    bo.page.wait_for_selector("#deadline:not([hidden])")
    assert bo.page.inner_text("#deadline-text") == "Ana to move: 1 d 23 h left · time bank 12\u00a0h"
    shoot(ana, "turn-based-table-laptop", full_page=False)
    shoot(bo, "turn-based-table-phone", full_page=False)
    move(page)
    badge(ana, 0)
    page.close()  # Ana leaves; the bot bids, then it is Bo's turn

    assert next_move(bo) == "bid"
    badge(bo, 1)
    bo.page.goto(f"{server.http}/games")  # Bo looks at his games, then plays from there
    (card,) = my_games(bo)
    assert card["mine"] and card["group"] == "mine-section" and card["turn"] == "Your turn"
    assert card["left"] == "1 d 23 h left", card
    shoot(bo, "my-games-phone", full_page=False)
    bo.page.click(".game-card")
    bo.page.wait_for_url(table_url)
    assert next_move(bo) == "bid"
    move(bo.page)
    badge(bo, 0)
    bo.page.goto(f"{server.http}/games")
    (card,) = my_games(bo)
    assert not card["mine"] and card["group"] == "theirs-section" and card["turn"] == "Ana to play"

    # Ana comes back from My games in a new tab of her browser: her turn to play a card.
    again = ana.page.context.new_page()
    ana.page = again
    again.on("websocket", ana.listen)
    again.goto(f"{server.http}/games")
    badge(ana, 1)
    (card,) = my_games(ana)
    assert card["mine"] and card["href"] == table_url.removeprefix(server.http)
    assert again.get_attribute("#games-link", "aria-label") == "My games: 1 game where it is your turn"
    shoot(ana, "my-games-laptop", full_page=False)
    again.click(".game-card")
    again.wait_for_url(table_url)
    assert next_move(ana) == "play"
    move(again)
    badge(ana, 0)

    # The same identity on a new browser (its cookie, no saved seat): My games opens the table at its seat.
    other = open_player(browser, f"{server.http}/", viewport=PHONE)
    other.page.context.add_cookies(ana.page.context.cookies())
    other.page.goto(f"{server.http}/games")
    my_games(other)
    other.page.click(".game-card")
    other.page.wait_for_url(table_url)
    other.page.wait_for_selector("#me:not([hidden])")
    assert "Ana (you)" in other.page.inner_text("#me-title")
    assert any("me=1" in url for url in other.sockets), other.sockets
    assert other.page.locator("#my-hand .card").count() == 10

    for player in (ana, bo, other):
        assert not player.errors, player.errors
        player.page.context.close()
