"""The rematch in a real browser: two players and a bot play a game to the end; one offers a rematch, the other
declines it (both are told), then offers one that the first accepts, and the next game starts on both pages."""

from __future__ import annotations

from typing import Any

import pytest

from support.server import ServerProcess
from support.web import PHONE, Player, check_hidden, create_table, open_player, play_together_to_end, shoot

pytestmark = pytest.mark.browser

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]


def seated(browser: Any, server: ServerProcess, table_id: str, seat: int, token: str, name: str, **kw: Any) -> Player:
    """A player's page that took ``seat`` from its invite link."""
    player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat={seat}&token={token}", **kw)
    player.page.wait_for_selector("#join:not([hidden])")
    player.page.fill("#join-name", name)
    player.page.click("#join-button")
    player.page.wait_for_selector("#join", state="hidden")
    return player


def text_of(player: Player, selector: str) -> str:
    return player.page.inner_text(selector)


def test_offer_decline_then_accept(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(server, players=3, seats=SEATS)
    ana = seated(browser, server, table_id, 0, tokens[0], "Ana")
    bo = seated(browser, server, table_id, 1, tokens[1], "Bo", viewport=PHONE)
    play_together_to_end([ana, bo])
    for player in (ana, bo):
        player.page.wait_for_selector("#over:not([hidden])")
        assert text_of(player, "#rematch") == "Offer a rematch", "two humans: an offer, not a new game at once"
        assert player.page.locator("#rematch-answer").is_hidden()

    # Ana offers; Bo is told and may accept or decline, seeing who accepted and the time left.
    ana.page.click("#rematch")
    bo.page.wait_for_selector("#rematch-answer:not([hidden])")
    assert "Ana offers a rematch." in text_of(bo, "#rematch-text")
    bo.page.wait_for_function("() => document.querySelector('#live').textContent.includes('Ana offers a rematch')")
    assert "Accepted: Ana" in text_of(bo, "#rematch-accepted")
    assert "Waiting for Bo (you)" in text_of(bo, "#rematch-waiting")
    assert bo.page.locator("#rematch").is_hidden()
    ana.page.wait_for_selector("#rematch-progress:not([hidden])")
    assert "You offered a rematch." in text_of(ana, "#rematch-text")
    assert "Waiting for Bo" in text_of(ana, "#rematch-waiting")
    assert ana.page.locator("#rematch-answer").is_hidden() and ana.page.locator("#rematch").is_hidden()
    before = text_of(ana, "#rematch-waiting")
    ana.page.wait_for_function("t => document.querySelector('#rematch-waiting').textContent !== t", arg=before)
    bo.page.locator("#over").scroll_into_view_if_needed()
    shoot(bo, "phone-rematch-offered")
    ana.page.locator("#over").scroll_into_view_if_needed()
    shoot(ana, "laptop-rematch-waiting")

    # Bo declines: both are told, and the offer is over (either may offer again).
    bo.page.click("#rematch-decline")
    for player in (ana, bo):
        player.page.wait_for_function(
            "() => document.querySelector('#rematch-text').textContent.includes('declined: no rematch')"
        )
        assert text_of(player, "#rematch") == "Offer a rematch"
        assert player.page.locator("#rematch-progress").is_hidden()
    assert "Bo declined: no rematch." in text_of(ana, "#rematch-text")
    shoot(ana, "laptop-rematch-declined")

    # Bo offers after all; Ana accepts: the next game starts on both pages.
    bo.page.click("#rematch")
    ana.page.wait_for_selector("#rematch-answer:not([hidden])")
    assert "Bo offers a rematch." in text_of(ana, "#rematch-text")
    ana.page.click("#rematch-accept")
    for player in (ana, bo):
        player.page.wait_for_function("document.querySelector('#table-info').textContent.includes('game 2')")
        player.page.wait_for_selector("#over", state="hidden")
    assert check_hidden(ana, server, table_id, seat=0) > 0
    assert check_hidden(bo, server, table_id, seat=1) > 0
    assert not ana.errors and not bo.errors, ana.errors + bo.errors


def test_the_panel_in_french(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(server, players=3, seats=SEATS)
    ana = seated(browser, server, table_id, 0, tokens[0], "Ana", locale="fr-FR", viewport=PHONE)
    bo = seated(browser, server, table_id, 1, tokens[1], "Bo", locale="fr-FR")
    play_together_to_end([ana, bo])
    bo.page.wait_for_selector("#over:not([hidden])")
    assert text_of(bo, "#rematch") == "Proposer une revanche"
    bo.page.click("#rematch")
    ana.page.wait_for_selector("#rematch-answer:not([hidden])")
    assert "Bo propose une revanche." in text_of(ana, "#rematch-text")
    assert text_of(ana, "#rematch-accept") == "Accepter" and text_of(ana, "#rematch-decline") == "Refuser"
    ana.page.locator("#over").scroll_into_view_if_needed()
    shoot(ana, "phone-rematch-offered-fr")
    ana.page.click("#rematch-accept")
    bo.page.wait_for_selector("#over", state="hidden")
    assert not ana.errors and not bo.errors, ana.errors + bo.errors


def test_three_players_see_who_accepted(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(server, players=3, seats=[{"kind": "human"}] * 3)
    names = ["Ana", "Bo", "Cy"]
    players = [seated(browser, server, table_id, n, tokens[n], names[n]) for n in range(3)]
    ana, bo, cy = players
    play_together_to_end(players)
    ana.page.wait_for_selector("#rematch:not([hidden])")
    ana.page.click("#rematch")
    bo.page.wait_for_selector("#rematch-answer:not([hidden])")
    bo.page.click("#rematch-accept")
    for player in (ana, cy):
        player.page.wait_for_function(
            "() => document.querySelector('#rematch-notice').textContent.includes('Bo accepted the rematch.')"
        )
    assert "Accepted: Ana, Bo" in text_of(cy, "#rematch-accepted")
    assert "Waiting for Cy (you)" in text_of(cy, "#rematch-waiting")
    assert bo.page.locator("#rematch-answer").is_hidden(), "answered: nothing more to press"
    cy.page.locator("#over").scroll_into_view_if_needed()
    shoot(cy, "laptop-rematch-three")
    cy.page.click("#rematch-accept")
    for player in players:
        player.page.wait_for_function("document.querySelector('#table-info').textContent.includes('game 2')")
    assert not any(player.errors for player in players), [p.errors for p in players]
