"""The tutorial from the home page to its last step: a prepared deal against bots, played by the real engine and
server, with the guide's steps appearing at their moments."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from luz.engine import Game, get_edition, view
from luz.server.api.games import TUTORIAL_SEED
from support.server import ServerProcess
from support.web import check_hidden, move_once, offered, open_player, play_to_end, shoot

pytestmark = pytest.mark.browser

STEPS = """() => {
  window.steps = [];
  new MutationObserver(() => {
    const coach = document.querySelector('#coach');
    const step = coach && !coach.hidden ? coach.dataset.step : null;
    if (step && window.steps.at(-1) !== step) window.steps.push(step);
  }).observe(document, {subtree: true, attributes: true, childList: true});
}"""


def test_the_tutorial_can_be_finished(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/", {"width": 375, "height": 667})
    page = player.page
    page.add_init_script(f"({STEPS})()")  # every step shown, in order, on the table page
    page.wait_for_selector("#edition option", state="attached")  # the page is ready
    page.evaluate("localStorage.setItem('luz.pace', '0')")  # no pauses between the bots' cards
    page.fill("#player-name", "Ana")
    page.click("#tutorial-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+\?tutorial=1"))
    table_id = page.url.split("/t/")[1].split("?")[0]
    page.wait_for_selector("#coach[data-step='welcome']")
    shoot(player, "tutorial", full_page=False)
    page.click("#coach-next")
    page.wait_for_selector("#coach[data-step='bid']")
    assert "2" in page.inner_text("#coach"), "the guide counts the two trumps of the prepared hand"
    deadline = time.monotonic() + 120
    while page.get_attribute("#coach", "data-step") != "done":
        assert time.monotonic() < deadline, "the tutorial did not end"
        if page.locator("#coach-next").is_visible():
            page.click("#coach-next")
            continue
        if page.locator("#summary").is_visible():
            page.click("#summary-close")
        kind = offered(player)
        if kind in ("bid", "play"):
            if kind == "bid":
                page.locator("#bid-buttons button[data-tricks='2']").click()
            else:
                move_once(player, kind)
        else:
            page.wait_for_timeout(50)
    seen = page.evaluate("window.steps")
    assert seen == ["welcome", "bid", "follow", "trump", "watch", "score", "done"], seen
    # The prepared deal: the hand the engine deals from the tutorial's seed, the player first to bid.
    game = Game(get_edition("iello-2024"), 4, get_edition("iello-2024").options(4, first_player=0), seed=TUTORIAL_SEED)
    prepared = view(game, 0).to_json()
    first = next(state["view"] for state in player.states() if state["view"])
    assert [s["colour"] for s in first["hands"][0]] == [s["colour"] for s in prepared["hands"][0]]
    assert first["hands"][1] == prepared["hands"][1] and first["first_player"] == 0
    play_to_end(player)  # the rest of the game, for the record the hidden-information check compares with
    assert check_hidden(player, server, table_id, seat=0) > 0
    assert not player.errors, player.errors
