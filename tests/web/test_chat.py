"""Table chat in the browser: two players talk (a side panel on a laptop, a drawer on a phone, with the count of
unread messages), a spectator's chat never reaches them, HTML and script are shown as text, a muted speaker is
hidden on the muter's screen only, and the replay shows the game's chat afterwards."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import check_hidden, create_table, move_once, offered, open_player, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
HTML = '<img src=x onerror="window.owned=1"><script>window.owned=2</script><b>bold?</b> & gl'
NICE = "Nice to meet you, Bo. Let's see those tricks!"
SECRET = "kibitz zq: bid two"
"""The spectator's words: in no frame nor page of a player."""

ELEMENTS_IN_LINES = "() => [...document.querySelectorAll('#chat-lines .chat-text *')].length"


def lines(player: Any) -> list[str]:
    texts: list[str] = player.page.locator("#chat-lines .chat-text").all_text_contents()
    return texts


def say(player: Any, text: str) -> None:
    player.page.fill("#chat-text", text)
    player.page.press("#chat-text", "Enter")


def test_players_chat_spectators_apart_html_as_text_mute_and_replay(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, name="Chat")
    for seat, name in ((0, "Ana"), (1, "Bo")):
        httpx.post(f"{server.http}/api/tables/{table_id}/seats/{seat}/join", json={"name": name, "token": tokens[seat]})
    ana = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    bo = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=1&token={tokens[1]}", viewport=PHONE)
    watcher = open_player(browser, f"{server.http}/t/{table_id}?pace=0")
    for player in (ana, bo, watcher):
        player.page.wait_for_selector("#game:not([hidden]) .side-column #chat", state="attached")

    # Ana (laptop: the side panel) writes HTML; Bo (phone: the drawer, closed) sees the count, then the text.
    say(ana, HTML)
    ana.page.wait_for_selector("#chat-lines .chat-line.own")
    bo.page.wait_for_selector("#chat-toggle .chat-unread:not([hidden])")
    assert bo.page.text_content("#chat-toggle .chat-unread") == "1"
    assert not bo.page.is_visible("#chat-text"), "the phone's drawer starts closed"
    shoot(bo, "chat-phone-unread", full_page=False)
    bo.page.click("#chat-toggle")
    bo.page.wait_for_selector("#chat.open #chat-text")
    assert lines(bo) == [HTML]
    for player in (ana, bo):  # shown as text: no element made of it, no script run
        assert player.page.evaluate(ELEMENTS_IN_LINES) == 0
        assert player.page.evaluate("window.owned") is None
    assert bo.page.is_hidden("#chat-toggle .chat-unread")
    bo.page.click("#chat-presets [data-preset='good_luck']")
    ana.page.wait_for_selector("#chat-lines .chat-text:text('Good luck!')")
    bo.page.wait_for_selector("#chat-lines .chat-line.own .chat-text:text('Good luck!')")
    say(ana, NICE)
    bo.page.wait_for_selector(f'#chat-lines .chat-text:text("{NICE}")')
    shoot(bo, "chat-phone", full_page=False)
    shoot(ana, "chat-laptop", full_page=False)

    # The spectator's words go to spectators only; the spectator reads the players.
    watcher.page.wait_for_selector("#chat-lines .chat-text:text('Good luck!')")
    say(watcher, SECRET)
    watcher.page.wait_for_selector(f"#chat-lines .chat-line.own.from-spectator .chat-text:text('{SECRET}')")
    assert lines(watcher) == [HTML, "Good luck!", NICE, SECRET]
    ana.page.fill("#chat-text", "x" * 281)  # the field stops at the limit...
    assert len(ana.page.input_value("#chat-text")) == 280
    ana.page.evaluate("document.querySelector('#chat-text').removeAttribute('maxlength')")
    say(ana, "x" * 281)  # ...and the page refuses more, with the reason (the server does too: tests/server)
    assert "280" in ana.page.text_content("#chat-error")
    ana.page.fill("#chat-text", "")
    shoot(watcher, "chat-spectator", full_page=False)

    # Ana mutes Bo on her screen (kept by her browser), and shows him again.
    ana.page.click("#chat-lines .chat-line:not(.own) .chat-mute")
    assert lines(ana) == [HTML, NICE]
    ana.page.reload()
    ana.page.wait_for_selector("#chat-muted:not([hidden])")
    ana.page.wait_for_selector("#chat-lines .chat-line")  # the history, sent on connecting
    assert lines(ana) == [HTML, NICE], "muted after a reload"
    ana.page.click("#chat-muted button")
    assert lines(ana) == [HTML, "Good luck!", NICE]
    assert lines(bo) == [HTML, "Good luck!", NICE], "muting is the muter's own business"

    # Play the game out (the bot plays its seat), then the replay shows both channels.
    bo.page.click("#chat-close")
    deadline = time.monotonic() + 120
    while not all(offered(player) == "over" for player in (ana, bo)):
        assert time.monotonic() < deadline, f"the game took too long: {[offered(p) for p in (ana, bo)]}"
        for player in (ana, bo):
            if (kind := offered(player)) in ("bid", "play"):
                move_once(player, kind)
        ana.page.wait_for_timeout(20)
    for player in (ana, bo):
        assert not any(SECRET in frame for _, frame in player.frames), "spectators' chat reached a player"
        assert SECRET not in player.page.content()
    for seat, player in ((0, ana), (1, bo)):
        assert check_hidden(player, server, table_id, seat) > 0
    ana.page.goto(f"{server.http}/replay/{table_id}?game=1")
    ana.page.wait_for_selector("#replay-chat:not([hidden]) .chat-line")
    replayed = ana.page.locator("#replay-chat-lines .chat-text").all_text_contents()
    assert replayed == [HTML, "Good luck!", NICE, SECRET]
    assert ana.page.locator("#replay-chat-lines .from-spectator").count() == 1
    assert ana.page.evaluate("() => document.querySelectorAll('#replay-chat-lines .chat-text *').length") == 0
    assert ana.page.evaluate("window.owned") is None
    shoot(ana, "chat-replay")
    assert not ana.errors and not bo.errors and not watcher.errors, ana.errors + bo.errors + watcher.errors
