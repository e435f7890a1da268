"""Clocks in a real browser: a timed table made with the lobby's form shows every seat's clock, the mover's ticking;
a player who lets a two-second reserve run out sees the bot's move and the notice, as does the table."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from support.server import ServerProcess
from support.web import Player, create_table, open_player, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
CLOCK_TEXT = r"\d+:\d\d(\.\d)?"


def take_invite(browser: Any, link: str, viewport: dict[str, int]) -> Player:
    player = open_player(browser, link.replace("#", "?pace=0#"), viewport=viewport)
    player.page.wait_for_selector("#join:not([hidden])")
    player.page.wait_for_function("document.querySelector('#join-name').value.length > 0")
    player.page.click("#join-button")
    return player


def clocks(player: Player) -> list[dict[str, Any]]:
    # One evaluation, so that no clock is read after the table was drawn again (it would be detached).
    found: list[dict[str, Any]] = player.page.evaluate(
        "() => [...document.querySelectorAll('.clock[data-seat]')].map(n => ({seat: Number(n.dataset.seat),"
        " text: n.textContent, running: n.classList.contains('running'), mine: Boolean(n.closest('#me'))}))",
    )
    return found


def seconds(text: str) -> float:
    minutes, rest = text.split(":")
    return int(minutes) * 60 + float(rest)


def test_a_timed_table_from_the_form_shows_every_clock(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0", viewport=DESKTOP)
    page = ana.page
    page.wait_for_selector("#edition option", state="attached")
    page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    page.select_option("#players", "3")
    for seat in range(3):
        page.select_option(f"#seat-{seat}", "human")
    assert page.locator(".clock-custom").first.is_hidden()
    page.select_option("#clock", "custom")
    assert page.locator(".clock-custom").first.is_visible()
    page.locator("#clock").scroll_into_view_if_needed()
    shoot(ana, "clocks-form", full_page=False)
    page.select_option("#clock", "3+10")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    page.wait_for_selector("#invites input")
    links = [page.locator("#invites input").nth(n).input_value() for n in range(2)]
    bo = take_invite(browser, links[0], PHONE)
    cy = take_invite(browser, links[1], DESKTOP)
    players = [ana, bo, cy]
    for player in players:
        player.page.wait_for_selector(".clock.running")
    assert "clock 3+10" in page.inner_text("#table-info")
    page.wait_for_selector("#me .clock[data-seat]")  # the own seat's panel may be drawn a frame after the others
    shown = clocks(ana)
    assert sorted(c["seat"] for c in shown) == [0, 1, 2]  # every seat's reserve, near each seat
    assert [c["seat"] for c in shown if c["mine"]] == [0]
    running = [c for c in shown if c["running"]]
    assert len(running) == 1 and all(re.fullmatch(CLOCK_TEXT, c["text"]) for c in shown)
    assert all(c["text"] == "3:00" for c in shown if not c["running"])
    before = seconds(running[0]["text"])
    page.wait_for_timeout(2200)
    after = next(c for c in clocks(ana) if c["running"])
    if after["seat"] == running[0]["seat"]:  # nobody moved: the mover's clock ticked down here
        assert 1.0 <= before - seconds(after["text"]) <= 4.0, (before, after)
    shoot(ana, "clocks-laptop", full_page=False)
    shoot(bo, "clocks-phone", full_page=False)
    assert not any(p.errors for p in players), [p.errors for p in players]
    for player in players:
        player.page.context.close()


def test_a_player_who_lets_time_run_out_sees_the_bot_play_for_them(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(
        server,
        players=3,
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "heuristic"}],
        options={"first_player": 0},
        grace_seconds=600,
        time_control={"reserve_seconds": 2, "increment_seconds": 0},
    )
    link = f"{server.http}/t/{table_id}#seat={{}}&token={{}}"
    bo = take_invite(browser, link.format(1, tokens[1]), PHONE)
    ana = take_invite(browser, link.format(0, tokens[0]), DESKTOP)  # the game starts: Ana is first, and waits
    players = [ana, bo]
    ana.page.wait_for_selector("#missed-notice:not([hidden])", timeout=15_000)
    bo.page.wait_for_selector("#clock-notice:not([hidden])", timeout=15_000)
    said = ana.page.inner_text("#missed-notice")  # her own: which move (a bid: she was first), until she moves
    assert re.fullmatch(r"A bot bid \d+( with the safety)? for you when your time ran out\.", said), said
    assert re.fullmatch(r".+'s time ran out: a bot played that move for them\.", bo.page.inner_text("#clock-notice"))
    shoot(bo, "clocks-timeout-phone", full_page=False)
    shoot(ana, "clocks-timeout-laptop", full_page=False)
    for player in players:
        told = [json.loads(frame) for _, frame in player.frames if '"timeout"' in frame]
        told = [m for m in told if m["type"] == "timeout"]
        assert told and told[0]["seat"] == 0
    # Her reserve is spent (no increment): her clock shows nothing left.
    assert ana.page.locator("#me .clock").inner_text() == "0:00.0"
    assert not any(p.errors for p in players), [p.errors for p in players]
    for player in players:
        player.page.context.close()
