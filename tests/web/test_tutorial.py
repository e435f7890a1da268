"""The tutorial from the home page to the game's end: a prepared deal against bots, played by the real engine and
server, with the guide's steps appearing at their moments and never pushing the bid controls off the first screen;
its deduction lesson, answered, with the engine's exact probabilities; How to play's deck table and lesson."""

from __future__ import annotations

import json
import re
import time
from fractions import Fraction
from typing import Any

import pytest

from luz.engine import EDITIONS, Game, get_edition, view
from luz.engine.beliefs import Beliefs
from luz.server.api.games import TUTORIAL_SEED
from luz.server.lesson import QUESTION_SLOT, lesson_view
from support.server import ServerProcess
from support.web import ARTIFACTS, check_hidden, move_once, offered, open_player, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
LAPTOP = {"width": 1280, "height": 800}

STEPS = """() => {
  window.steps = [];
  window.stepTexts = {};
  new MutationObserver(() => {
    const coach = document.querySelector('#coach');
    const step = coach && !coach.hidden ? coach.dataset.step : null;
    if (step && window.steps.at(-1) !== step) window.steps.push(step);
    if (step) window.stepTexts[step] = coach.querySelector('p')?.textContent;
  }).observe(document, {subtree: true, attributes: true, childList: true});
}"""

BID_CONTROLS = """() => {
  const boxes = [...document.querySelectorAll('#bid-buttons button'), document.querySelector('.safety-choice')];
  return {
    height: window.innerHeight, width: window.innerWidth,
    boxes: boxes.map(node => { const r = node.getBoundingClientRect();
      return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY, left: r.left, right: r.right}; }),
  };
}"""

TAP_IF_SHOWN = """(selector) => {
  const node = document.querySelector(selector);
  if (!node || !node.checkVisibility()) return false;
  node.click();
  return true;
}"""

LESSON_ODDS = """() => [...document.querySelectorAll('.lesson-odds li')].map(li => ({
  value: Number(li.dataset.value), numerator: Number(li.dataset.numerator), denominator: Number(li.dataset.denominator),
  text: li.textContent,
}))"""


def assert_bid_controls_on_first_screen(page: Any, where: str) -> None:
    seen = page.evaluate(BID_CONTROLS)
    assert seen["boxes"], where
    for box in seen["boxes"]:
        assert box["top"] >= 0 and box["bottom"] <= seen["height"], (where, box, seen["height"])
        assert box["left"] >= 0 and box["right"] <= seen["width"], (where, box, seen["width"])


def tap_if_shown(page: Any, selector: str) -> bool:
    """Tap ``selector`` if it is on screen, looked up and tapped in one step: the bots play on, and a step of the
    guide or the deal's summary may leave by itself between a check and a separate click."""
    return bool(page.evaluate(TAP_IF_SHOWN, selector))


def answer_the_lesson(page: Any) -> None:
    """Answer wrongly (a red seen in another hand), then rightly; each time the feedback and the engine's odds."""
    page.wait_for_selector(".lesson-answers button")
    page.click(".lesson-answers button[data-value='7']")
    page.wait_for_selector(".lesson-result[data-verdict='seen']")
    assert "Cy" in page.inner_text(".lesson-verdict"), "the seat holding the red 7 is named"
    page.click(".lesson-answers button[data-value='8']")
    page.wait_for_selector(".lesson-result[data-verdict='likeliest']")
    odds = page.evaluate(LESSON_ODDS)
    engine = Beliefs(lesson_view()).probabilities(QUESTION_SLOT)
    assert {o["value"]: Fraction(o["numerator"], o["denominator"]) for o in odds} == engine
    assert [o["text"].split()[-2:] for o in odds] == [["·", "25%"], ["·", "75%"]]


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_tutorial_can_be_finished(browser: Any, server: ServerProcess, size: str) -> None:
    viewport = PHONE if size == "phone" else LAPTOP
    player = open_player(browser, f"{server.http}/", viewport)
    page = player.page
    page.add_init_script(f"({STEPS})()")  # every step shown, in order, on the table page
    page.wait_for_selector("#edition option", state="attached")  # the page is ready
    page.evaluate("localStorage.setItem('luz.pace', '0')")  # no pauses between the bots' cards
    page.fill("#player-name", "Ana")
    started, taps = time.monotonic(), 1
    page.click("#tutorial-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+\?tutorial=1"))
    table_id = page.url.split("/t/")[1].split("?")[0]
    page.wait_for_selector("#coach[data-step='welcome']")
    shoot(player, "tutorial" if size == "phone" else f"tutorial-{size}", full_page=False)
    assert page.inner_text("#table-name") == "Tutorial"
    figure: dict[str, Any] = {}
    bids, lesson_done = 0, False
    deadline = time.monotonic() + 240
    while offered(player) != "over":
        assert time.monotonic() < deadline, "the tutorial did not end"
        step = page.get_attribute("#coach", "data-step")
        if step == "deck" and size == "laptop" and not lesson_done:
            page.click("#coach-lesson")  # the puzzle, from its step
            page.wait_for_selector("#lesson-dialog[open]")
            answer_the_lesson(page)
            shoot(player, f"tutorial-lesson-{size}", full_page=False)
            page.click("#lesson-close")
            page.wait_for_selector("#lesson-dialog", state="detached")
            lesson_done = True
        if step in ("welcome", "deck", "safety", "cap") and page.locator("#coach-next").is_visible():
            # These steps wait for your bid, so they stay on screen until tapped.
            shoot(player, f"tutorial-{step}-{size}", full_page=False)
            assert_bid_controls_on_first_screen(page, f"{size}, step {step}")
        if tap_if_shown(page, "#coach-next"):
            taps += bids == 0
            continue
        tap_if_shown(page, "#summary-close")
        kind = offered(player)
        if kind == "bid":
            shoot(player, f"tutorial-bid{bids + 1}-{size}", full_page=False)
            assert_bid_controls_on_first_screen(page, f"{size}, bid {bids + 1}, step {step}")
            if bids == 0:
                figure = {"taps": taps + 1, "seconds": round(time.monotonic() - started, 1)}
            page.locator("#bid-buttons button:not(:disabled)").first.click()
            bids += 1
        elif kind == "play":
            move_once(player, kind)
        else:
            page.wait_for_function(
                "() => document.querySelector('#coach-next') || !document.querySelector('#over').hidden"
                " || document.querySelector('#bid-buttons button:not(:disabled), #my-hand button.card:not(:disabled)')"
            )
    assert bids == 4, "a bid at each deal, each checked"
    seen = page.evaluate("window.steps")
    expected = ["welcome", "deck", "safety", "cap", "bid", "lead", "follow", "trump", "watch", "score", "done"]
    assert seen[: len(expected)] == expected, seen
    texts = page.evaluate("window.stepTexts")
    iello = EDITIONS["iello-2024"]
    assert "1 to 10 with 4 players (1 to 8 with 3, 1 to 12 with 5)" in texts["deck"]
    assert f"the other {iello.aside_size(4)} set aside" in texts["deck"]
    assert "15 bet beads" in texts["cap"] and "15" in texts["cap"].split("“")[1], "the cap as the table counts it"
    assert "half the points" in texts["safety"] and "opponent" in texts["safety"]
    assert "trick 1 is yours: you lead" in texts["lead"]
    # The prepared deal: the hand the engine deals from the tutorial's seed, the player first to bid.
    game = Game(get_edition("iello-2024"), 4, get_edition("iello-2024").options(4, first_player=0), seed=TUTORIAL_SEED)
    prepared = view(game, 0).to_json()
    first = next(state["view"] for state in player.states() if state["view"])
    assert [s["colour"] for s in first["hands"][0]] == [s["colour"] for s in prepared["hands"][0]]
    assert first["hands"][1] == prepared["hands"][1] and first["first_player"] == 0
    assert check_hidden(player, server, table_id, seat=0) > 0
    assert not player.errors, player.errors
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"tutorial-first-bid-{size}.json").write_text(json.dumps(figure))
    print(f"home page to the first bid ({size}): {figure}")


def test_the_french_tutorial_table_is_titled_in_french(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/", PHONE, locale="fr-FR")
    page = player.page
    page.wait_for_selector("#edition option", state="attached")
    page.click("#tutorial-button")
    page.wait_for_selector("#coach[data-step='welcome']")
    assert page.inner_text("#table-name") == "Tutoriel"
    assert not player.errors, player.errors


DECK_ROWS = """() => [...document.querySelectorAll('article:not([hidden]) .deck-table tbody tr')].map(tr => ({
  edition: tr.dataset.edition, players: Number(tr.dataset.players),
  cells: [...tr.children].map(c => c.textContent),
}))"""


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_how_to_play_shows_each_decks_cards_and_the_lesson(browser: Any, server: ServerProcess, size: str) -> None:
    player = open_player(browser, f"{server.http}/how-to-play", PHONE if size == "phone" else LAPTOP)
    page = player.page
    page.wait_for_selector("article:not([hidden]) .deck-table tbody tr")
    rows = page.evaluate(DECK_ROWS)
    expected = [(key, players) for key, edition in EDITIONS.items() for players in edition.player_counts]
    assert [(row["edition"], row["players"]) for row in rows] == expected
    for row in rows:
        edition = EDITIONS[row["edition"]]
        low, high = edition.values[row["players"]]
        name, players, values, colours, hand, aside = row["cells"]
        assert name == edition.name and players == str(row["players"])
        assert values == f"{edition.value_name(low)}–{edition.value_name(high)}"
        assert colours.count(",") == len(edition.colours) - 1 and "(trump)" in colours
        assert hand == "10" and aside == str(edition.aside_size(row["players"]))
    answer_the_lesson(page)
    page.locator("article:not([hidden]) [data-lesson]").scroll_into_view_if_needed()
    shoot(player, f"how-to-play-lesson-{size}", full_page=False)
    assert not player.errors, player.errors
