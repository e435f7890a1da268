"""The other pages in a real browser: the score-keeper (on a phone), English and French, the lobby, names shown
as text, and what keyboard and screen-reader users rely on (labels, lang, live regions, no sideways scrolling).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import LAPTOP, PHONE, create_table, next_move, open_player, shoot

pytestmark = pytest.mark.browser

STATIC = Path(__file__).parents[2] / "src" / "luz" / "web" / "static"

UNLABELLED = """() => [...document.querySelectorAll('button, input, select, a[href]')]
  .filter(e => e.offsetParent !== null || e.type === 'file')
  .filter(e => {
    const name = (e.getAttribute('aria-label') || e.textContent || '').trim()
      || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e.closest('label');
    return !name;
  }).map(e => e.outerHTML.slice(0, 120))"""

SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"


def enter_deal(page: Any, bids: list[int], tricks: list[int], safety: tuple[int, ...] = ()) -> None:
    for seat, (bid, taken) in enumerate(zip(bids, tricks, strict=True)):
        page.select_option(f"#bid-{seat}", str(bid))
        page.select_option(f"#tricks-{seat}", str(taken))
        page.set_checked(f"#safety-{seat}", seat in safety)
    page.click("#add-deal")


def test_score_keeper_on_a_phone(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/score", viewport=PHONE)
    page = player.page
    page.wait_for_selector("#setup:not([hidden])")
    page.select_option("#edition", "iello-2024")
    page.select_option("#players", "3")
    for seat, name in enumerate(["Ana", "Bo", "Cy"]):
        page.fill(f"#name-{seat}", name)
    page.click("#setup-form button[type=submit]")
    page.wait_for_selector("#playing:not([hidden])")
    assert page.inner_text("#entry-title") == "Deal 1 of 4: Ana bids first"

    enter_deal(page, [2, 1, 3], [2, 2, 5])  # 9 tricks: refused, nothing lost
    page.wait_for_function("document.querySelector('#deal-error').textContent !== ''")
    assert "tricks must sum to 10, not 9" in page.inner_text("#deal-error")
    assert page.input_value("#bid-0") == "2" and page.input_value("#tricks-2") == "5", "the entry is kept"
    page.select_option("#tricks-2", "6")
    page.set_checked("#safety-1", True)
    page.click("#add-deal")
    page.wait_for_function("document.querySelectorAll('#score-sheet tbody tr').length === 1")
    assert page.inner_text("#deal-error") == ""
    totals = page.locator("#score-sheet tfoot td[data-seat]").all_inner_texts()
    assert totals == ["10", "5", "-15"]
    assert page.inner_text("#entry-title").startswith("Deal 2 of 4: Bo")

    page.reload()  # the sheet is kept in the browser
    page.wait_for_selector("#playing:not([hidden])")
    assert page.locator("#score-sheet tbody tr").count() == 1
    enter_deal(page, [0, 4, 2], [1, 4, 5])  # Bo first
    page.wait_for_function("document.querySelectorAll('#score-sheet tbody tr').length === 2")
    enter_deal(page, [3, 3, 3], [3, 3, 4])
    page.wait_for_function("document.querySelectorAll('#score-sheet tbody tr').length === 3")
    # Last deal with three players: the leader on score bids first.
    assert page.locator("#entry-note").is_visible()
    assert "Bo" in page.inner_text("#entry-title") and "leader" in page.inner_text("#entry-note")
    assert page.evaluate(SIDEWAYS) <= 0, "no sideways scrolling at 375 px"
    shoot(player, "score-keeper")
    enter_deal(page, [1, 1, 1], [1, 1, 8])
    page.wait_for_selector("#result:not([hidden])")
    report = httpx.post(
        f"{server.http}/api/score",
        json={
            "edition": "iello-2024",
            "players": 3,
            "first_player": 0,
            "deals": [
                {"bids": [2, 1, 3], "safety": [False, True, False], "tricks": [2, 2, 6]},
                {"bids": [0, 4, 2], "tricks": [1, 4, 5]},
                {"bids": [3, 3, 3], "tricks": [3, 3, 4]},
                {"bids": [1, 1, 1], "tricks": [1, 1, 8]},
            ],
        },
    ).json()
    names = ["Ana", "Bo", "Cy"]
    assert page.inner_text("#result-text").startswith(names[report["winner"]])
    assert page.locator("#result-ranking li").all_inner_texts() == [
        f"{names[s]}: {report['totals'][s]}" for s in report["ranking"]
    ]
    assert page.locator("#entry").is_hidden()
    shoot(player, "score-keeper-over")
    page.click("#undo")
    page.wait_for_selector("#entry:not([hidden])")
    assert page.locator("#score-sheet tbody tr").count() == 3
    refused = "the server responded with a status of 422"  # the deal of 9 tricks
    assert [e for e in player.errors if refused not in e] == [], player.errors


def test_french_and_english(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/", locale="fr-FR")
    page = player.page
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.inner_text("h1") == "Jouer à LUZ", "a French browser gets French"
    assert page.get_attribute(".lang button[data-lang='fr']", "aria-pressed") == "true"
    page.click(".lang button[data-lang='en']")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("h1") == "Play LUZ"
    assert page.inner_text("#create-button") == "Create the table"
    page.reload()
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("h1") == "Play LUZ", "the choice is remembered"
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.inner_text("#create-button") == "Créer la table"
    assert "Robot" in page.inner_text("#seat-1")

    table_id, tokens = create_table(
        server, players=3, seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    )
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "Élise", "token": tokens[0]})
    page.goto(f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    assert next_move(player) == "bid"
    assert page.inner_text("#status") == "À vous : pariez."
    assert page.inner_text("#table-name").startswith("Table "), "the default table name in French"
    names = page.locator("#seats .seat-name").all_inner_texts()
    assert names == ["Hasard 2", "Hasard 3"], "bots named in French, each distinctly"
    assert page.inner_text("#me-title") == "Élise (vous)"
    assert page.get_attribute("#my-hand button.card", "aria-label").startswith("position 1 sur 10 : ")
    assert page.inner_text("#sheet-title") == "Feuille de score"
    shoot(player, "table-french")
    page.click(".lang button[data-lang='en']")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your turn')")
    assert page.inner_text("#me-title") == "Élise (you)"
    assert not player.errors, player.errors


def test_lobby_open_seat_and_names_shown_as_text(browser: Any, server: ServerProcess) -> None:
    table_id, _ = create_table(
        server,
        name="<b>Lobby</b> test",
        players=3,
        options={"first_player": 0},
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
    )
    visitor = open_player(browser, f"{server.http}/?pace=0")
    page = visitor.page
    item = page.locator(f"#lobby li[data-table='{table_id}']")
    item.wait_for()
    assert item.locator("h3").inner_text() == "<b>Lobby</b> test", "a table name is text, never markup"
    # The guest's name fills the field (no form to fill); a player who clears it is asked for one.
    page.wait_for_function("document.querySelector('#player-name').value.trim() !== ''")
    page.fill("#player-name", "")
    item.get_by_role("button", name="Take seat 1").click()
    assert page.inner_text("#lobby-error") == "Please choose a name first."
    hostile = '<img src=x onerror="window.hacked=1">'
    page.fill("#player-name", hostile)
    item.get_by_role("button", name="Take seat 1").click()
    page.wait_for_url(f"**/t/{table_id}?pace=0")
    page.wait_for_selector("#waiting:not([hidden])")
    assert page.inner_text("#waiting-seats li[data-seat='0'] strong") == hostile
    assert "that's you" in page.inner_text("#waiting-seats li[data-seat='0']")

    # A second visitor takes the last open seat from the table page: the game starts.
    other = open_player(browser, f"{server.http}/t/{table_id}?pace=0")
    other.page.wait_for_selector("#take-name-row:not([hidden])")
    other.page.fill("#take-name", "Dee")
    other.page.get_by_role("button", name="Take seat 2").click()
    assert next_move(visitor) == "bid"
    other.page.wait_for_function("document.querySelector('#status').textContent.endsWith('is bidding.')")
    assert other.page.inner_text("#status") == f"{hostile} is bidding."
    assert page.evaluate("window.hacked") is None
    assert page.locator("img").count() == 0
    assert not visitor.errors and not other.errors, visitor.errors + other.errors


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_labels_language_and_live_regions(browser: Any, server: ServerProcess, viewport: dict[str, int]) -> None:
    table_id, tokens = create_table(
        server, players=4, seats=[{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    )
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "Ivy", "token": tokens[0]})
    for path in ("/", "/score", f"/t/{table_id}?pace=0#seat=0&token={tokens[0]}"):
        player = open_player(browser, f"{server.http}{path}", viewport=viewport)
        page = player.page
        page.wait_for_function("document.querySelector('.lang button[aria-pressed=true]') !== null")
        if path.startswith("/t/"):
            next_move(player)
            assert page.get_attribute("#status", "aria-live") == "polite"
            assert page.get_attribute("#refusal", "role") == "alert"
            labels = page.locator("#my-hand button.card").evaluate_all("b => b.map(x => x.getAttribute('aria-label'))")
            assert len(labels) == 10 and all("value hidden" in label for label in labels)
            if viewport is PHONE:
                shoot(player, "phone-table")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert page.evaluate(UNLABELLED) == []
        assert page.locator("#live[aria-live='polite']").count() == 1
        assert page.evaluate(SIDEWAYS) <= 0, f"sideways scrolling on {path}"
        page.keyboard.press("Tab")
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", "focus is visible"
        assert not player.errors, player.errors
        page.context.close()


FIRST_SCREEN = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}

CHECKBOXES_OFF_THEIR_LINE = """() => [...document.querySelectorAll('input[type=checkbox]')]
  .filter(box => box.offsetParent !== null)
  .map(box => {
    const label = box.closest('label') || (box.id && document.querySelector(`label[for="${box.id}"]`));
    const text = label && [...label.children].find(child => child !== box && child.textContent.trim());
    if (!text) return null;  // a checkbox named by aria-label only (the score-keeper's safeties)
    const b = box.getBoundingClientRect(), s = text.getClientRects()[0];
    const middle = (b.top + b.bottom) / 2;
    return middle >= s.top && middle <= s.bottom && b.right <= s.left + 1 ? null : `${box.id}: ${text.textContent}`;
  }).filter(Boolean)"""


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_every_checkbox_sits_beside_its_label(browser: Any, server: ServerProcess, size: str, lang: str) -> None:
    player = open_player(browser, f"{server.http}/?lang={lang}", FIRST_SCREEN[size])
    page = player.page
    seen = 0
    for path in ("/", "/account", "/score", "/games", "/friends", "/leaderboard", "/how-to-play"):
        page.goto(f"{server.http}{path}?lang={lang}")
        page.wait_for_function("document.querySelector('.lang button[aria-pressed=true]') !== null")
        if path == "/":
            page.wait_for_selector("#play-now:not([disabled])")
            page.uncheck("#public")  # "Spectators see every hand" shows at an unlisted table
        seen += page.evaluate("document.querySelectorAll('input[type=checkbox]').length")
        assert page.evaluate(CHECKBOXES_OFF_THEIR_LINE) == [], f"{path} at {size} in {lang}"
    # The table's: the safety of a bid, the alerts of your turn.
    page.goto(f"{server.http}/?lang={lang}")
    page.click("#play-now")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"), wait_until="domcontentloaded")
    assert next_move(player) == "bid"
    assert page.evaluate(CHECKBOXES_OFF_THEIR_LINE) == [], f"the table at {size} in {lang}"
    assert seen >= 8, "the home page's and the account page's checkboxes were measured"


def test_every_page_shows_your_name_and_the_sign_in_link(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2
    table_id, _ = create_table(server, edition="iello-2024", players=3, seats=seats)
    player = open_player(browser, f"{server.http}/", FIRST_SCREEN["phone"])
    page = player.page
    me = page.evaluate("fetch('/api/me').then((r) => r.json())")
    paths = ("/", "/how-to-play", "/account", "/replay", "/score", "/games", "/friends", "/leaderboard")
    for path in (*paths, f"/u/{me['id']}", f"/t/{table_id}", "/no-such-page"):
        page.goto(f"{server.http}{path}")
        # The header is filled once the identity is read and the texts translated: wait for that state.
        page.wait_for_function(
            """(name) => document.querySelector('header.top nav #account-link[href]')?.textContent
                         && document.querySelector('#me-link')?.textContent === name""",
            arg=me["name"],
        )
        header = page.evaluate(
            """() => ({name: document.querySelector('#me-link').textContent,
                       account: document.querySelector('#account-link').getAttribute('href'),
                       text: document.querySelector('#account-link').textContent})"""
        )
        assert header == {"name": me["name"], "account": "/account", "text": "Sign in"}, path
        if path.startswith("/u/"):  # the profile's statistics: every header cell names its row or column
            page.wait_for_selector("#stats th[scope=row]")
            assert page.evaluate("[...document.querySelectorAll('#stats th')].every((th) => th.textContent.trim())")
    assert not [error for error in player.errors if error.startswith("page error")], player.errors


def test_account_buttons_are_busy_while_their_request_runs(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/account", FIRST_SCREEN["phone"])
    page = player.page
    held: list[Any] = []
    page.route(
        "**/api/account/register", lambda route: held.append(route)
    )  # the request waits, as a password's hashing does
    page.wait_for_selector("#register-form")
    page.fill("#register-username", "busy_bee")
    page.fill("#register-password", "correct horse battery")
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#register-form button[aria-busy=true]")
    button = page.locator("#register-form button[type=submit]")
    assert button.is_disabled() and button.inner_text() == "Creating your account…"
    page.locator("#register-form").scroll_into_view_if_needed()
    shoot(player, "account-busy-phone", full_page=False)
    deadline = time.monotonic() + 30
    while not held:  # the route's handler runs as Playwright's events are dispatched
        assert time.monotonic() < deadline, "the register request was never sent"
        page.wait_for_timeout(20)
    held[0].continue_()
    page.wait_for_selector("#signed-in:not([hidden])")
    assert page.get_attribute("#register-form button[type=submit]", "aria-busy") is None
    assert page.inner_text("#register-form button[type=submit]") == "Create the account"


def link_in(page: Any, box: str) -> list[str]:
    """The address and text of the link in ``box``."""
    found: list[str] = page.evaluate(
        "(box) => { const a = document.querySelector(`${box} a`); return [a.href, a.textContent]; }", box
    )
    return found


def test_the_rated_seat_refusal_links_to_the_account_page(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(
        server, edition="iello-2024", players=3, seats=seats, rated=True, public=True, name="Rated one"
    )
    player = open_player(browser, f"{server.http}/", FIRST_SCREEN["laptop"])
    page = player.page
    page.locator("#lobby li", has_text="Rated one").locator("button", has_text="Take seat 1").click()
    page.wait_for_selector("#lobby-error a")
    assert link_in(page, "#lobby-error") == [f"{server.http}/account", "Create an account or sign in"]
    assert "accounts" in page.inner_text("#lobby-error")

    # The same refusal on the table page, joining by an invite link.
    page.goto(f"{server.http}/t/{table_id}#seat=0&token={tokens[0]}")
    page.wait_for_selector("#join:not([hidden])")
    page.click("#join-button")
    page.wait_for_selector("#refusal a")
    link = page.evaluate(
        "(() => { const a = document.querySelector('#refusal a'); return [a.href, a.textContent]; })()"
    )
    assert link == [f"{server.http}/account", "Create an account or sign in"]
    assert "accounts" in page.inner_text("#refusal")


PLURALS = """async (cases) => {
  const { t } = await import('/static/js/i18n.js');
  return cases.map(([key, params]) => t(key, params));
}"""


def test_french_counts_agree_and_a_deal_is_a_donne(browser: Any, server: ServerProcess) -> None:
    french = json.loads((STATIC / "i18n" / "fr.json").read_text())
    assert not [key for key, text in french.items() if re.search(r"\bmanches?\b|\(s\)", text, re.I)]
    player = open_player(browser, f"{server.http}/?lang=fr", FIRST_SCREEN["phone"], locale="fr-FR")
    page = player.page
    page.wait_for_function("document.documentElement.lang === 'fr'")
    cases = [
        ["sheet.detail", {"bid": 1, "tricks": 0}],
        ["sheet.detail", {"bid": 1, "tricks": 1}],
        ["sheet.detail", {"bid": 3, "tricks": 2}],
        ["sheet.points", {"points": 1}],
        ["sheet.points", {"points": 20}],
        ["seat.tricks_short", {"n": 1}],
        ["seat.tricks_short", {"n": 3}],
        ["lobby.seats_taken", {"n": 1, "count": 4}],
        ["chat.unread", {"n": 1}],
    ]
    assert page.evaluate(PLURALS, cases) == [
        "pari 1, 0 pli",
        "pari 1, 1 pli",
        "pari 3, 2 plis",
        "1 point",
        "20 points",
        "1 gagné",
        "3 gagnés",
        "1 place prise sur 4",
        "1 nouveau message",
    ]
    page.click(".lang button[data-lang='en']")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.evaluate(PLURALS, [["sheet.points", {"points": 1}], ["chat.unread", {"n": 2}]]) == [
        "1 point",
        "2 new messages",
    ]


def test_an_unknown_address_is_a_page_for_browsers_and_json_for_the_api(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/no/such/page", locale="fr-FR")
    page = player.page
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.inner_text("h1") == "Page introuvable"
    assert page.locator("main a[href='/']").is_visible()
    answer = httpx.get(f"{server.http}/api/no-such-thing")
    assert answer.status_code == 404 and answer.json() == {"detail": "Not Found"}
    assert httpx.get(f"{server.http}/nope", headers={"Accept": "text/html"}).status_code == 404


CUT_OPTIONS = """(select) => {
  // the options whose text is wider than what the closed select shows (less room for its arrow)
  const style = getComputedStyle(select);
  const context = document.createElement("canvas").getContext("2d");
  context.font = style.font;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
  return [...select.options].map((o) => o.textContent).filter((text) => context.measureText(text).width > room);
}"""


@pytest.mark.parametrize(
    ("size", "viewport"),
    [
        ("phone", {"width": 390, "height": 844}),
        ("small-phone", {"width": 375, "height": 667}),
        ("desktop", {"width": 1280, "height": 800}),
    ],
)
def test_the_bot_chooser_shows_each_level_its_rating_and_the_chosen_ones_description(
    browser: Any, server: ServerProcess, size: str, viewport: dict[str, int]
) -> None:
    from luz.bots.levels import levels

    words = {lang: httpx.get(f"{server.http}/static/i18n/{lang}.json").json() for lang in ("en", "fr")}
    visitor = open_player(browser, f"{server.http}/", viewport=viewport)
    page = visitor.page
    page.wait_for_selector("#seat-1 option", state="attached")
    options = page.eval_on_selector_all("#seat-1 option", "os => os.map(o => [o.value, o.textContent])")
    shown = dict(options)
    for level in levels():
        label = words["en"][f"level.{level['label']}"]
        assert shown[f"bot:{level['name']}"] == f"{label} bot, rating {level['rating']:.1f}"
    assert page.eval_on_selector("#seat-1", CUT_OPTIONS) == [], "the closed chooser shows an option's whole text"

    about = page.locator("#seat-1-about")
    assert page.get_attribute("#seat-1", "aria-describedby") == "seat-1-about"
    assert page.locator("#seat-0-about").is_hidden(), "a human seat has no bot to describe"
    for level in levels():  # the description follows the choice
        page.select_option("#seat-1", f"bot:{level['name']}")
        assert about.is_visible() and about.inner_text() == words["en"][f"bot.{level['name']}"]
    page.select_option("#seat-1", "bot:expert")
    page.focus("#seat-1")
    page.keyboard.press("ArrowUp")  # by keyboard, the option above the expert
    above = options[[value for value, _ in options].index("bot:expert") - 1][0]
    assert above.startswith("bot:") and page.input_value("#seat-1") == above
    assert about.inner_text() == words["en"][f"bot.{above[4:]}"]

    page.select_option("#seat-1", "bot:expert")
    page.select_option("#seat-2", "bot:random")
    page.locator("#seat-specs").scroll_into_view_if_needed()
    assert page.evaluate(SIDEWAYS) <= 0
    assert page.locator("#seat-2-about").inner_text() == words["en"]["bot.random"]
    shoot(visitor, f"{size}-lobby-bot-levels", full_page=False)

    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    expert = next(level for level in levels() if level["name"] == "expert")
    rating = f"{expert['rating']:.1f}".replace(".", ",")
    assert page.locator("#seat-1 option:checked").inner_text() == f"Robot {words['fr']['level.expert']}, cote {rating}"
    assert about.inner_text() == words["fr"]["bot.expert"], "the description in the page's language"
    assert page.eval_on_selector("#seat-1", CUT_OPTIONS) == []
    page.locator("#seat-specs").scroll_into_view_if_needed()
    shoot(visitor, f"{size}-lobby-bot-levels-fr", full_page=False)
    assert not visitor.errors, visitor.errors
