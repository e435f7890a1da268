"""The community, end to end in real browsers: two friends register and follow each other from their profiles;
one makes a rated public table and invites the other from the Friends page; he joins from the invitation's notice;
a third person watches the game from the lobby's "Playing now"; at game over both see their rating before and
after; one offers a rematch, the other accepts, and the next game starts on every page, the spectator's too."""

from __future__ import annotations

import re
from typing import Any

import pytest

from support.server import ServerProcess
from support.web import (
    LAPTOP,
    PHONE,
    check_hidden,
    follow_from_profile,
    open_player,
    play_together_to_end,
    register,
    shoot,
)

pytestmark = pytest.mark.browser

BEFORE_AFTER = re.compile(r"^.+: 1,500 → 1,\d{3}\? \([+−±]\d+\)$")

MAKE_TABLE = """async () => {
  const post = (url, body) => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                          body: JSON.stringify(body)}).then((r) => r.json());
  const seats = [{kind: 'human'}, {kind: 'human'}, {kind: 'bot', bot: 'random'}];
  const made = await post('/api/tables', {players: 3, seats, public: true, rated: true, name: 'Friends night',
                                          grace_seconds: 600});
  const joined = await post(`/api/tables/${made.table.id}/seats/0/join`, {token: made.invites[0].token});
  localStorage.setItem(`luz.seat.${made.table.id}`, JSON.stringify({seat: 0, token: joined.token}));
  return made.table.id;
}"""


def test_friends_play_a_rated_game_watched_from_the_lobby_and_a_rematch(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/", viewport=LAPTOP)
    bo = open_player(browser, f"{server.http}/", viewport=PHONE)
    for player in (ana, bo):
        player.page.wait_for_selector(".lang button")
    ana_id, bo_id = register(ana, "anafriend"), register(bo, "bofriend")
    follow_from_profile(ana, server, bo_id, "Follow")
    follow_from_profile(bo, server, ana_id, "Follow back")

    # Ana's rated table, listed in the lobby: she sits first; she invites Bo, who has a page open, to the second seat.
    table_id: str = ana.page.evaluate(MAKE_TABLE)
    bo.page.goto(f"{server.http}/games")
    bo.page.wait_for_selector("#games-link", state="attached")
    ana.page.goto(f"{server.http}/friends")
    row = ana.page.locator(f'#following .friend[data-player="{bo_id}"]')
    row.locator("button", has_text="Invite").click()  # a rated table: the button first says what home friends do
    assert "will make it unrated" in row.locator(".friend-warning").inner_text()
    row.locator("button", has_text="Invite anyway").click()
    toast = bo.page.locator(".invitation-notice")
    toast.wait_for()
    assert "Friends night" in toast.inner_text()
    toast.locator("button", has_text="Join").click()
    bo.page.wait_for_url(re.compile(rf"/t/{table_id}"))
    ana.page.goto(f"{server.http}/t/{table_id}?pace=0")
    ana.page.wait_for_selector("#game:not([hidden])")

    # A third person finds the game in the lobby's "Playing now" and watches it: the hands stay hidden.
    cy = open_player(browser, f"{server.http}/", viewport=PHONE)
    card = cy.page.locator(f"#playing li[data-table='{table_id}']")
    card.wait_for()
    assert "Friends night" in card.inner_text()
    shoot(cy, "phone-community-playing-now", full_page=False)
    card.locator("a.watch-link").click()
    cy.page.wait_for_url(f"**/t/{table_id}")
    cy.page.wait_for_selector("#game:not([hidden])")
    assert cy.page.locator("#me").is_hidden(), "a spectator has no hand of its own"

    play_together_to_end([ana, bo])
    for player, size in ((ana, "laptop"), (bo, "phone")):
        player.page.wait_for_selector("#over-ratings:not([hidden]) li")
        lines = player.page.locator("#over-ratings li").all_inner_texts()
        assert len(lines) == 2 and all(BEFORE_AFTER.match(line.strip()) for line in lines), lines
        player.page.locator("#over").scroll_into_view_if_needed()
        shoot(player, f"{size}-community-game-over", full_page=False)
    state = cy.states()[-1]
    assert state["seat"] is None and state["view"]["outcome"] is not None, "the spectator saw the game end"

    # Ana offers a rematch, Bo accepts: game 2 starts for the players and for the spectator.
    ana.page.click("#rematch")
    bo.page.wait_for_selector("#rematch-answer:not([hidden])")
    assert "offers a rematch" in bo.page.inner_text("#rematch-text")
    bo.page.click("#rematch-accept")
    for player in (ana, bo, cy):
        player.page.wait_for_function("document.querySelector('#table-info').textContent.includes('game 2')")
    shoot(cy, "phone-community-rematch-watched", full_page=False)
    assert check_hidden(ana, server, table_id, seat=0) > 0
    assert check_hidden(bo, server, table_id, seat=1) > 0
    for player in (ana, bo, cy):
        assert not player.errors, player.errors
        player.page.context.close()
