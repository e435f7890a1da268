"""The review on the replay page (issue 27): a game played at a real server table, its replay, a seat's review asked
for and waited for, the evaluation strip (one mark a decision of the seat), previous and next mistake moving the
replay, the options of a decision (every legal action, the chosen and the best marked), at a phone's and a laptop's
size, axe in the three languages, no English left in Japanese, French; the first deal shown while the rest is computed
(issue 35); a record file's replay has no review."""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from luz.engine import replay
from support.pages import english_left, violations
from support.server import ServerProcess
from support.web import create_table, open_player, play_to_end, record_of, seated_against_random_bots, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}
WORLDS = "50"
"""Worlds per decision in these tests: one batch, for speed (the figures are noisy, the page the same)."""

# The review as the server gives it, and the strip as the page shows it, read in one step.
REVIEW_AND_STRIP = """async (url) => {
  const answer = await (await fetch(url)).json();
  const marks = [...document.querySelectorAll('#review-strip .review-mark')].map((mark) => ({
    step: Number(mark.dataset.step), grade: mark.dataset.grade, text: mark.textContent,
    label: mark.getAttribute('aria-label'),
  }));
  return {answer, marks};
}"""

OPTIONS = """() => {
  const table = document.querySelector('#review-options table');
  if (!table) return null;
  return {
    step: Number(table.dataset.step),
    rows: [...table.querySelectorAll('tbody tr')].map((row) => ({
      action: row.dataset.action, chosen: row.classList.contains('chosen'), best: row.classList.contains('best'),
      card: row.querySelector('[data-card]')?.dataset.card ?? null, text: row.textContent,
    })),
  };
}"""

STATES = """() => {
  window.reviewStates = [];
  const section = document.querySelector('#review');
  new MutationObserver(() => window.reviewStates.push(section.dataset.state))
    .observe(section, {attributes: true, attributeFilter: ['data-state']});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[ServerProcess]:
    """``luz serve`` with a bot process (where reviews are computed) and few worlds per review."""
    folder = tmp_path_factory.mktemp("review")
    env = {"LUZ_REVIEW_WORLDS": WORLDS}
    database = f"sqlite:///{folder}/luz.sqlite3"
    process = ServerProcess(database, folder / "server.log", bot_workers=1, env=env).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def played(browser: Any, server: ServerProcess) -> tuple[str, dict[str, Any]]:
    """A finished 3-player game: Ana (by clicking) against two random bots; its table id and record."""
    ana = seated_against_random_bots(browser, server, "Review", "Ana")
    play_to_end(ana)
    table_id = ana.page.url.split("/t/")[1].split("?")[0]
    ana.page.context.close()
    return table_id, record_of(server, table_id)


def current_decision(decisions: list[dict[str, Any]], step: int) -> dict[str, Any] | None:
    """The decision the page shows at ``step``: the one decided there, else the one just made."""
    return next((d for d in decisions if d["step"] == step), None) or next(
        (d for d in decisions if d["step"] + 1 == step), None
    )


def mistake(decisions: list[dict[str, Any]], step: int, direction: int) -> dict[str, Any] | None:
    """The labelled decision that next (``direction`` +1) or previous mistake (-1) goes to from ``step``."""
    here = current_decision(decisions, step)
    at = here["step"] if here else step - 0.5
    labelled = [d for d in decisions if d["label"] and (d["step"] > at if direction > 0 else d["step"] < at)]
    if not labelled:
        return None
    return labelled[0] if direction > 0 else labelled[-1]


def last_step(record: dict[str, Any]) -> int:
    """The replay's last step: the game's number of actions (step 0 is the deal before the first)."""
    return sum(len(deal["actions"]) for deal in record["deals"])


def wait_step(page: Any, step: int) -> None:
    page.wait_for_function(f"document.querySelector('#main').dataset.step === '{step}'")


def check_options(page: Any, record: dict[str, Any], seat: int, decision: dict[str, Any]) -> None:
    """The options table of ``decision``: every legal action once (the engine's, at the decision's step), the
    chosen row and the best row marked, a card shown as the card it was."""
    page.wait_for_selector(f"#review-options table[data-step='{decision['step']}']")
    shown = page.evaluate(OPTIONS)
    words = page.inner_text("#review-options")
    assert not re.search(r"\b(null|undefined|NaN)\b", words), f"a value left out is not written out: {words}"
    legal = {str(action) for action in replay(record, upto=decision["step"]).legal_actions()}
    actions = [row["action"] for row in shown["rows"]]
    assert sorted(actions) == sorted(legal), "every legal action, once"
    assert actions == [option["action"] for option in decision["options"]], "best first, as the review gives them"
    assert [row["action"] for row in shown["rows"] if row["chosen"]] == [decision["action"]]
    assert [row["action"] for row in shown["rows"] if row["best"]] == [decision["best"]]
    if decision["kind"] == "play":
        hand = record["deals"][decision["deal"] - 1]["hands"][seat]
        for row in shown["rows"]:
            assert row["card"] == hand[int(row["action"].split(":")[1])], row
    else:
        for row in shown["rows"]:
            tricks = row["action"].split(":")[1].rstrip("+")
            assert row["card"] is None and row["text"].startswith(tricks), row
            assert ("safety" in row["text"]) == row["action"].endswith("+"), row


QUEUED = {
    "en": "waiting its turn: number 1 in the queue",
    "fr": "en attente de son tour : n° 1 dans la file",
    "ja": "計算待ちの検討のうち 1 番目",
}
"""The words of a review waiting its turn, first in the queue."""


def test_a_review_waits_its_turn_and_one_at_a_time_is_said_in_words(browser: Any, tmp_path: Path) -> None:
    """The server computes one review at a time: while another player's is computed, the page's waits its turn,
    and says its place in the queue (in each language). A second seat asked meanwhile: the server's 429, shown as a
    sentence. The server reviews with so many worlds that the first review is still being computed whatever the
    machine's speed."""
    env = {"LUZ_REVIEW_WORLDS": "100000", "LUZ_REVIEW_QUEUE": "1"}
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log", bot_workers=1, env=env)
    server.start()
    try:
        bots = [{"kind": "bot", "bot": "random"}] * 3
        table_id, _ = create_table(server, players=3, seats=bots)
        deadline = time.monotonic() + 60
        while httpx.get(f"{server.http}/api/tables/{table_id}", timeout=10).json()["status"] != "over":
            assert time.monotonic() < deadline, "the bots' game did not end"
            time.sleep(0.05)
        with httpx.Client(base_url=server.http, timeout=10) as other:  # another player's review takes the place
            session = other.post("/api/me/guest").json()["session"]
            asked = other.post(f"/api/tables/{table_id}/games/1/review?seat=1", headers={"X-Luz-Session": session})
            assert asked.status_code == 202, asked.text
        player = open_player(browser, f"{server.http}/replay/{table_id}?game=1", SIZES["phone"])
        page = player.page
        page.wait_for_selector("#review:not([hidden]) #review-seats button")
        with page.expect_response(lambda r: r.request.method == "POST" and "seat=2" in r.url) as first:
            page.click("#review-seats button[data-seat='2']")
        assert first.value.status == 202, "computed, not stored yet"
        assert first.value.json() == {"status": "queued", "position": 1}
        page.wait_for_selector("#review[data-state='queued'] #review-status:not([hidden])")
        for lang in ("fr", "ja", "en"):
            page.click(f".lang button[data-lang='{lang}']")
            page.wait_for_function(f"document.documentElement.lang === '{lang}'")
            shows = "([selector, words]) => document.querySelector(selector).innerText.includes(words)"
            page.wait_for_function(shows, arg=["#review-status", QUEUED[lang]])
            page.locator("#review-status").scroll_into_view_if_needed()
            shoot(player, f"review-phone-queued-{lang}", full_page=False)
        page.set_viewport_size(SIZES["laptop"])
        shoot(player, "review-laptop-queued-en", full_page=False)
        page.set_viewport_size(SIZES["phone"])
        with page.expect_response(lambda r: r.request.method == "POST" and "seat=0" in r.url) as second:
            page.click("#review-seats button[data-seat='0']")
        assert second.value.status == 429
        page.wait_for_selector("#review[data-state='error']")
        assert page.inner_text("#review-error").startswith("One review at a time")
        assert page.get_attribute("#review-seats button[data-seat='0']", "aria-pressed") == "true"
        assert page.locator("#review-result").is_hidden()
        page.locator("#review").scroll_into_view_if_needed()
        shoot(player, "review-phone-refused", full_page=False)
        assert [e for e in player.errors if "429" not in e] == [], player.errors
        page.context.close()
    finally:
        server.stop()


@pytest.mark.parametrize(("size", "seat"), [("phone", 0), ("laptop", 1)])
def test_a_seat_review_on_the_replay(
    browser: Any, server: ServerProcess, played: tuple[str, dict[str, Any]], size: str, seat: int
) -> None:
    table_id, record = played
    player = open_player(browser, f"{server.http}/replay/{table_id}?game=1", SIZES[size])
    page = player.page
    page.wait_for_selector("#review:not([hidden]) #review-seats button")
    names = page.evaluate("[...document.querySelectorAll('#review-seats button')].map((b) => b.textContent)")
    assert names == ["Ana", "Random 2", "Random 3"], "a Review for each seat, named as the replay names it"
    page.evaluate(STATES)
    page.click(f"#review-seats button[data-seat='{seat}']")
    page.wait_for_selector("#review[data-state='ready']", timeout=180_000)
    states = page.evaluate("window.reviewStates")
    assert states[0] == "queued" and states[-1] == "ready", states
    assert page.get_attribute(f"#review-seats button[data-seat='{seat}']", "aria-pressed") == "true"

    url = f"/api/tables/{table_id}/games/1/review?seat={seat}"
    read = page.evaluate(REVIEW_AND_STRIP, url)
    assert read["answer"]["status"] == "ready"
    review = read["answer"]["review"]
    decisions = review["decisions"]
    assert review["seat"] == seat and decisions
    marks = read["marks"]
    assert [mark["step"] for mark in marks] == [d["step"] for d in decisions], "one mark a decision of the seat"
    symbols = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
    for mark, decision in zip(marks, decisions, strict=True):
        unlabelled = "best" if decision["best_within_noise"] else "ok"
        grade = "forced" if decision["forced"] else decision["label"] or unlabelled
        assert mark["grade"] == grade, (mark, decision)
        if decision["label"]:
            assert mark["text"] == symbols[decision["label"]], "not colour alone"
        assert mark["label"].startswith(f"Deal {decision['deal']}")
    figures = page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('.review-figure')].map((f) => [f.dataset.figure, "
        "f.querySelector('dd').textContent]))"
    )
    assert figures["points"] == str(review["game"]["points"])
    assert figures["best-share"] == f"{math.floor(review['game']['best_share'] * 100 + 0.5)}%"
    assert figures["accuracy"] == f"{math.floor(review['game']['accuracy'] + 0.5)}%"
    assert float(figures["luck"].replace("\u2212", "-")) == pytest.approx(review["game"]["luck"], abs=0.051)
    identity = page.inner_text("[data-figure='identity']")
    assert identity.startswith(f"Points {review['game']['points']} = worth at the start"), identity
    deal_rows = page.locator("#review-deals tbody tr").count()
    assert deal_rows == len(record["deals"]) == len(review["deals"])

    # Next mistake from the first step (where the replay opens), else previous mistake from the last; then the
    # mistake after it and back (or the button disabled where there is none).
    wait_step(page, 0)
    assert any(d["label"] for d in decisions), "a seat that plays its first legal card or bids at random errs"
    target = mistake(decisions, 0, +1)
    if target is not None:
        page.click("#review-next")
    else:
        last = last_step(record)
        page.click("#last")
        wait_step(page, last)
        target = mistake(decisions, last, -1)
        assert target is not None
        page.click("#review-prev")
    wait_step(page, target["step"])
    assert page.get_attribute("#review-strip .review-mark[aria-current]", "data-step") == str(target["step"])
    check_options(page, record, seat, target)
    following = mistake(decisions, target["step"], +1)
    if following is not None:
        page.click("#review-next")
        wait_step(page, following["step"])
        check_options(page, record, seat, following)
        page.click("#review-prev")
        wait_step(page, target["step"])
    else:
        assert page.is_disabled("#review-next")
    assert page.is_disabled("#review-prev") == (mistake(decisions, target["step"], -1) is None)

    # A mark clicked: the replay at its decision (the seat's first card), its options open.
    first_play = next(d for d in decisions if d["kind"] == "play")
    page.click(f"#review-strip .review-mark[data-step='{first_play['step']}']")
    wait_step(page, first_play["step"])
    check_options(page, record, seat, first_play)
    bid = next(d for d in decisions if d["kind"] == "bid")
    page.click(f"#review-strip .review-mark[data-step='{bid['step']}']")
    check_options(page, record, seat, bid)

    page.click(f"#review-strip .review-mark[data-step='{target['step']}']")
    wait_step(page, target["step"])
    wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"nothing scrolls sideways at {size}: {wide}"
    shoot(player, f"review-{size}")
    shoot(player, f"review-{size}-screen", full_page=False)

    found: Counter[str] = Counter()
    bad = violations(page, "review", found)
    assert not bad, bad
    assert english_left(page) == [], "the review in Japanese"  # violations() leaves the page in Japanese
    page.locator("#review-options").scroll_into_view_if_needed()
    shoot(player, f"review-{size}-ja", full_page=False)
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.inner_text("#review-next").strip().startswith("Erreur suivante")
    assert page.inner_text("#review-options .review-verdict").split(" ")[0] in {
        "Imprécision",
        "Erreur",
        "Gaffe",
    }, "the decision's verdict in French"
    page.locator("#review-options").scroll_into_view_if_needed()
    shoot(player, f"review-{size}-fr", full_page=False)
    assert not player.errors, player.errors


def test_a_record_file_replay_has_no_review(
    browser: Any, server: ServerProcess, played: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    _, record = played
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    player = open_player(browser, f"{server.http}/replay", SIZES["phone"])
    page = player.page
    page.wait_for_selector(".lang button")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#board:not([hidden])")
    assert page.locator("#review").is_hidden(), "no review for an uploaded record"
    assert not player.errors, player.errors


RUNNING = {
    "en": "Reviewing Random 3… this takes a few seconds ({done} of {total} decisions).",
    "fr": "Analyse de Hasard 3… cela prend quelques secondes ({done} décisions sur {total}).",
    "ja": "ランダム 3 を検討中… 数秒かかります（判断 {total} 回のうち {done} 回）。",
}
"""The progress line while the review is computed, in each language."""

FIRST_DEAL = """() => ({
  marks: [...document.querySelectorAll('#review-strip .review-mark')].map((mark) => Number(mark.dataset.step)),
  strip: document.querySelector('#review-strip li').outerHTML,
  row: document.querySelector("#review-deals tbody tr[data-deal='1']").outerHTML,
  rows: document.querySelectorAll('#review-deals tbody tr').length,
})"""


STRIP_TOP = "() => document.querySelector('#review-strip').getBoundingClientRect().top + window.scrollY"
"""Where the evaluation strip starts on the page."""


def held_at_the_first_deal(page: Any, table_id: str, seat: int) -> dict[str, bool]:
    """Route the page's review answers through the server, but until ``released`` hold them at the first deal: a
    running status that carries more deals, or the ready review, is answered with the running status the server
    gives once the first deal is reviewed (that deal's summary and decisions, as the server sent them), so that the
    page is seen while the rest is computed whatever the machine's speed (the server's own running status is
    checked in tests/server/test_reviews.py)."""
    gate = {"released": False}

    def answer(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        if gate["released"] or not (body["status"] == "ready" or body.get("deals")):
            route.fulfill(response=response)
            return
        if body["status"] == "ready":
            review = body["review"]
            decisions = [d for d in review["decisions"] if d["deal"] == 1]
            first = {"deal": 1, "summary": review["deals"][0], "decisions": decisions}
            total = len(review["decisions"])
        else:
            first, total = body["deals"][0], body["total"]
        status = {"status": "running", "done": len(first["decisions"]), "total": total, "deals": [first]}
        route.fulfill(status=202, json=status)

    page.route(lambda url: f"/games/1/review?seat={seat}" in url and f"/tables/{table_id}/" in url, answer)
    return gate


def test_the_first_deal_is_shown_while_the_rest_is_computed(
    browser: Any, server: ServerProcess, played: tuple[str, dict[str, Any]]
) -> None:
    """While the review is computed, the deals reviewed so far are shown: the strip's marks of the first deal and
    its row, the game's figures as "…", the progress line still counting the decisions, in each language at a
    phone's and a laptop's size; then the whole review replaces it, the first deal's marks and row the same markup
    and the strip where it was."""
    table_id, record = played
    seat = 2
    for size in ("phone", "laptop"):
        player = open_player(browser, f"{server.http}/replay/{table_id}?game=1", SIZES[size], touch=size == "phone")
        page = player.page
        gate = held_at_the_first_deal(page, table_id, seat)
        page.wait_for_selector("#review:not([hidden]) #review-seats button")
        page.click(f"#review-seats button[data-seat='{seat}']")
        page.wait_for_selector("#review[data-state='running'] #review-strip .review-mark")
        running = page.evaluate(FIRST_DEAL)
        assert running["rows"] == 1, "the first deal only"
        assert page.inner_text("#review-summary [data-figure='points'] dd") == "…", "the figures wait for the review"
        strip_top = page.evaluate(STRIP_TOP)
        assert page.locator("#review-options table, #review-options p").count() == 1, "the options box drawn"
        said = {}
        for lang in ("fr", "ja", "en"):
            page.click(f".lang button[data-lang='{lang}']")
            page.wait_for_function(f"document.documentElement.lang === '{lang}'")
            said[lang] = page.inner_text("#review-account [data-figure='progress']")
            if lang == "ja":
                assert english_left(page) == [], "the review so far in Japanese"
            page.locator("#review").scroll_into_view_if_needed()
            shoot(player, f"review-{size}-first-deal-{lang}", full_page=False)

        gate["released"] = True
        page.wait_for_selector("#review[data-state='ready']", timeout=180_000)
        review = page.evaluate(REVIEW_AND_STRIP, f"/api/tables/{table_id}/games/1/review?seat={seat}")["answer"]
        first = [d["step"] for d in review["review"]["decisions"] if d["deal"] == 1]
        assert running["marks"] == first, "the first deal's decisions, one mark each"
        decisions = review["review"]["decisions"]
        counts = {"done": len(first), "total": len(decisions)}
        assert said == {lang: words.format(**counts) for lang, words in RUNNING.items()}, "decisions left, in words"
        ready = page.evaluate(FIRST_DEAL)
        assert ready["rows"] == len(record["deals"])
        assert (ready["strip"], ready["row"]) == (running["strip"], running["row"]), "the first deal as it was shown"
        assert page.locator("#review-summary").is_visible()
        assert page.inner_text("#review-summary [data-figure='points'] dd") == str(review["review"]["game"]["points"])
        assert page.evaluate(STRIP_TOP) == strip_top, "nothing shown moved when the whole review came"
        assert not player.errors, player.errors
        page.context.close()
