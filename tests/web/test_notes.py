"""Notes on your own cards: kept by the server for that seat, back after a reload, never in another seat's or a
spectator's messages or page while the game runs, shown in the replay afterwards; bad notes refused by type."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import check_hidden, create_table, move_once, offered, open_player, shoot

pytestmark = pytest.mark.browser

BAD_NOTE = """([table, token]) => new Promise(done => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${table}?token=${token}`);
  ws.onopen = () => ws.send(JSON.stringify({type: 'note', id: 'bad', slot: 0, text: 'x'.repeat(40)}));
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.id === 'bad') { window.refused = m; ws.close(); done(); }
  };
})"""

NOTE = "low?zq"
"""A note no view, name or message would hold by chance."""
LONG_NOTE = "maybe7zqhigh"
"""The longest note (12 characters), with no space to wrap at."""

NOTES_SHOWN = """() => [...document.querySelectorAll('#my-hand .slot')].filter(s => s.querySelector('.note')).map(s => {
  const note = s.querySelector('.note'), card = s.querySelector('.card').getBoundingClientRect();
  const box = note.getBoundingClientRect();
  return {text: note.textContent, cut: note.scrollWidth > note.clientWidth + 0.5,
          inside: box.left >= card.left - 1 && box.right <= card.right + 1};
})"""


def test_notes_reach_their_seat_alone_and_the_replay(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, name="Notes")
    for seat, name in ((0, "Ana"), (1, "Bo")):
        httpx.post(f"{server.http}/api/tables/{table_id}/seats/{seat}/join", json={"name": name, "token": tokens[seat]})
    ana = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    bo = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=1&token={tokens[1]}")
    watcher = open_player(browser, f"{server.http}/t/{table_id}?pace=0")
    page = ana.page
    page.wait_for_selector("#my-hand .card.back")

    page.click("#note-mode")
    page.locator("#my-hand button.card").nth(2).click()
    page.fill("#note-text", NOTE)
    page.click("#note-save")
    page.wait_for_selector(f"#my-hand .note:text('{NOTE}')")
    shoot(ana, "notes", full_page=False)
    page.reload()  # kept by the server: back after a reload
    page.wait_for_selector(f"#my-hand .note:text('{NOTE}')")

    # On a phone the longest note is shown whole, wrapped under its narrow card.
    page.set_viewport_size({"width": 375, "height": 667})
    page.click("#note-mode")
    page.locator("#my-hand button.card").nth(5).click()
    page.fill("#note-text", LONG_NOTE)
    page.click("#note-save")
    page.wait_for_selector(f"#my-hand .note:text('{LONG_NOTE}')")
    page.click("#note-mode")
    shown = page.evaluate(NOTES_SHOWN)
    assert sorted(note["text"] for note in shown) == sorted([NOTE, LONG_NOTE])
    assert all(not note["cut"] and note["inside"] for note in shown), shown
    shoot(ana, "notes-phone", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 860})

    # A bad note is refused with a typed error, nothing kept.
    page.evaluate(BAD_NOTE, [table_id, tokens[0]])
    refused = page.evaluate("window.refused")
    assert refused["type"] == "error" and refused["code"] == "malformed" and "12" in refused["message"]

    # Play the game out, both humans by clicking (the note stays Ana's; the reload left the notes mode).
    assert page.get_attribute("#note-mode", "aria-pressed") == "false"
    deadline = time.monotonic() + 120
    while not all(offered(player) == "over" for player in (ana, bo)):
        if time.monotonic() > deadline:
            shoot(ana, "notes-stuck-ana")
            shoot(bo, "notes-stuck-bo")
            raise AssertionError(f"the game took too long: {[offered(p) for p in (ana, bo)]}")
        for player in (ana, bo):
            if (kind := offered(player)) in ("bid", "play"):
                move_once(player, kind)
        page.wait_for_timeout(20)
    assert any(NOTE in frame for _, frame in ana.frames), "the seat's own messages hold its note"
    for other in (bo, watcher):
        assert not any(NOTE in frame for _, frame in other.frames), "a note reached another seat or a spectator"
        assert NOTE not in other.page.content()
    notes = httpx.get(f"{server.http}/api/tables/{table_id}/notes").json()["notes"]
    assert notes == [
        {"deal": 1, "seat": 0, "slot": 2, "text": NOTE},
        {"deal": 1, "seat": 0, "slot": 5, "text": LONG_NOTE},
    ]
    for seat, player in ((0, ana), (1, bo)):
        assert check_hidden(player, server, table_id, seat) > 0

    page.goto(f"{server.http}/replay/{table_id}?game=1")
    page.wait_for_selector("#board:not([hidden])")
    page.click("#next")
    assert page.locator(f".seat[data-seat='0'] .note:text('{NOTE}')").count() == 1, "the replay shows the note"
    assert not ana.errors and not bo.errors, ana.errors + bo.errors
