"""The table in a real browser: whole games by clicking, two players at one table, hidden information in the DOM
and in every message, reload and reconnection, keyboard play, hints, the replay.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import httpx
import pytest

from support.server import ServerProcess
from support.web import (
    PHONE,
    PLAYABLE,
    Player,
    check_hidden,
    create_table,
    move_once,
    next_move,
    offered,
    open_player,
    play_to_end,
    record_of,
    shoot,
)

pytestmark = pytest.mark.browser


def create_in_lobby(player: Player, name: str, seats: list[str], edition: str = "iello-2024", players: int = 4) -> str:
    """Create a table with the home page's form (seat specs: ``human`` or ``bot:NAME``); returns its id."""
    page = player.page
    page.wait_for_selector("#edition option", state="attached")
    page.fill("#player-name", name)
    page.select_option("#edition", edition)
    page.select_option("#players", str(players))
    for seat, spec in enumerate(seats):
        page.select_option(f"#seat-{seat}", spec)
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    return page.url.split("/t/")[1].split("?")[0].split("#")[0]


def test_a_whole_game_against_bots_by_clicking(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/?pace=0")
    player.page.wait_for_selector(
        "#seat-0 option", state="attached"
    )  # the lobby as a player sees it: editions and seats filled in
    shoot(player, "home")
    table_id = create_in_lobby(player, "Ana", ["human", "bot:random", "bot:random", "bot:random"])
    assert next_move(player) == "bid"
    shoot(player, "table-bidding")
    move_once(player, "bid")
    assert next_move(player) == "play"
    shoot(player, "table-playing")
    moves = 1 + play_to_end(player)
    assert moves == 4 * 11, "a bid and ten cards in each of the four deals"
    page = player.page
    record = record_of(server, table_id)
    outcome = record["outcome"]
    ranking = page.locator("#ranking li")
    assert ranking.count() == 4
    # Bots are named as at the table, in the ranking and in the replay: "Random 2" (their level and seat).
    names = ["Ana"] + [f"{level.capitalize()} {seat + 1}" for seat, level in enumerate(record["names"]) if seat]
    assert ranking.first.inner_text().startswith(names[outcome["winner"]])
    for seat, total in enumerate(outcome["totals"]):
        assert page.locator(f"#sheet tfoot td[data-seat='{seat}']").inner_text() == str(total)
    assert page.locator("#sheet tbody tr").count() == 4
    assert names[outcome["winner"]] in page.inner_text("#over-text")
    assert page.locator("#rematch").is_visible()
    shoot(player, "game-over")
    assert check_hidden(player, server, table_id, seat=0) >= 40
    assert not player.errors, player.errors

    # Rematch: the same table deals a new game.
    page.click("#rematch")
    page.wait_for_function("document.querySelector('#table-info').textContent.includes('game 2')")
    assert next_move(player) == "bid"

    # The replay of game 1: every step, all hands face up, the record to download.
    page.goto(f"{server.http}/replay/{table_id}?game=1")
    page.wait_for_selector("#board:not([hidden])")
    steps = sum(len(deal["actions"]) for deal in record["deals"])
    assert page.get_attribute("#step", "max") == str(steps)
    first_hand = record["deals"][0]["hands"][1]
    shown = page.locator("#seats .seat[data-seat='1'] [data-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )
    assert shown == first_hand
    page.click("#next")
    assert page.get_attribute("#main", "data-step") == "1"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#main", "data-step") == "2"
    assert page.inner_text("#action-text").startswith(names[(record["first_player"] + 1) % 4]), "the second bid"
    page.click("#last")
    assert page.locator("#over").is_visible()
    shoot(player, "replay")
    with page.expect_download() as download:
        page.click("#download")
    assert download.value.suggested_filename.endswith(".json")
    assert httpx.get(f"{server.http}{page.get_attribute('#download', 'href')}").json() == record
    assert not player.errors, player.errors


def test_two_players_see_one_consistent_game_and_never_their_own_values(browser: Any, server: ServerProcess) -> None:
    ana = open_player(browser, f"{server.http}/?pace=0")
    table_id = create_in_lobby(ana, "Ana", ["human", "human", "bot:random", "bot:random"])
    ana.page.wait_for_selector("#invites input")
    shoot(ana, "waiting-invites")
    link = ana.page.locator("#invites input").first.input_value()
    assert "#seat=1&token=" in link

    bo = open_player(browser, link.replace("#", "?pace=0#"), viewport=PHONE)
    bo.page.wait_for_selector("#join:not([hidden])")
    assert "token" not in bo.page.url, "the invite token leaves the address bar"
    bo.page.fill("#join-name", "Bo")
    bo.page.click("#join-button")
    players = [ana, bo]
    moves = [0, 0]
    while True:
        kinds = []
        for index, player in enumerate(players):
            kind = offered(player)
            kinds.append(kind)
            if kind in ("bid", "play"):
                move_once(player, kind)
                moves[index] += 1
                player.picture()
        if kinds == ["over", "over"]:
            break
        players[0].page.wait_for_timeout(20)
    assert moves == [44, 44]
    for player in players:
        player.picture()
    shoot(bo, "phone-game-over")
    # One game: the same final totals and version on both pages, equal to the record's outcome.
    record = record_of(server, table_id)
    for player in players:
        totals = [int(player.page.inner_text(f"#sheet tfoot td[data-seat='{s}']")) for s in range(4)]
        assert totals == record["outcome"]["totals"]
    assert ana.page.get_attribute("#main", "data-version") == bo.page.get_attribute("#main", "data-version")
    assert check_hidden(ana, server, table_id, seat=0) >= 44
    assert check_hidden(bo, server, table_id, seat=1) >= 44
    assert not ana.errors and not bo.errors, ana.errors + bo.errors


def test_reload_and_a_network_drop_keep_the_seat(browser: Any, tmp_path: Any) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path}/luz.sqlite3", tmp_path / "server.log").start()
    try:
        table_id, tokens = create_table(
            server,
            edition="standard-deck",
            players=3,
            grace_seconds=600,
            seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
        )
        player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
        page = player.page
        page.wait_for_selector("#join:not([hidden])")
        page.fill("#join-name", "Cy")
        page.click("#join-button")
        for _ in range(3):
            move_once(player, next_move(player))
        assert next_move(player) == "play"
        before = page.locator("#my-hand .card.gap").count()
        assert before == 2

        page.reload()
        assert next_move(player) == "play"
        assert page.locator("#my-hand .card.gap").count() == before, "the same seat and game after a reload"
        assert page.inner_text("#me-title").startswith("Cy")

        server.kill9()
        page.wait_for_selector("#banner:not([hidden])")
        assert "Reconnecting" in page.inner_text("#banner")
        shoot(player, "reconnecting", full_page=False)
        server.start()
        # "Reconnect now" (clicked from script: the page may have reconnected by itself meanwhile).
        page.evaluate("document.querySelector('#reconnect-now').click()")
        page.wait_for_selector("#banner", state="hidden", timeout=30000)
        assert next_move(player) == "play"
        assert page.locator("#my-hand .card.gap").count() == before
        move_once(player, "play")
        page.wait_for_function(f"document.querySelectorAll('#my-hand .card.gap').length > {before}")
        play_to_end(player)
        assert check_hidden(player, server, table_id, seat=0) >= 40
        assert not [e for e in player.errors if "WebSocket" not in e and "Failed to load" not in e], player.errors
    finally:
        server.stop()


def test_keyboard_play_and_clear_refusals(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(
        server,
        players=3,
        seats=[{"kind": "human", "name": "Kay"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
        options={"first_player": 0, "trick_history": True},
    )
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "Kay", "token": tokens[0]})
    player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    page = player.page
    assert next_move(player) == "bid"
    page.check("#safety")
    page.locator("#bid-buttons button[data-tricks='1']").focus()
    page.keyboard.press("Enter")
    assert next_move(player) == "play"
    legal = page.locator(PLAYABLE).evaluate_all("b => b.map(x => Number(x.dataset.slot))")
    page.locator("body").focus()
    slot = legal[-1]
    page.keyboard.press("0" if slot == 9 else str(slot + 1))
    assert page.evaluate("document.activeElement.dataset.slot") == str(slot)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#my-hand .card.gap') !== null")
    states = player.states()
    assert states[-1]["view"]["bids"][0] == {"tricks": 1, "safety": True}
    assert states[-1]["view"]["hands"][0][slot]["played"]
    # The table shows the deal's completed tricks (the trick_history option).
    page.wait_for_selector("#history-list h3")
    history = player.states()[-1]["view"]["trick_history"]
    assert len(history) == 1
    cards = page.locator("#history-list [data-card]").evaluate_all("c => c.map(x => x.dataset.card)")
    assert cards == [play["card"] for play in history[0]["plays"]]
    assert not player.errors, player.errors


SHOWN = """() => {
  window.shown = [];
  window.clicks = [];
  document.addEventListener('click', () => window.clicks.push(performance.now()), true);
  new MutationObserver(() => {
    const main = document.querySelector('#main');
    const title = document.querySelector('#trick-title');
    if (main && main.dataset.version !== String(window.shown.at(-1)?.version)) {
      window.shown.push({version: main.dataset.version, at: performance.now(), title: title?.textContent || ''});
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def test_bots_cards_come_one_by_one_and_a_completed_trick_stays_a_moment(browser: Any, server: ServerProcess) -> None:
    pace = 100
    table_id, tokens = create_table(
        server,
        players=3,
        seats=[{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2,
        options={"first_player": 1},
    )
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "Pat", "token": tokens[0]})
    player = open_player(browser, "about:blank")
    player.page.add_init_script(f"({SHOWN})()")
    player.page.goto(f"{server.http}/t/{table_id}?pace={pace}#seat=0&token={tokens[0]}")
    for _ in range(11):  # the first deal
        move_once(player, next_move(player))
    next_move(player)
    shown = player.page.evaluate("window.shown.filter(s => s.version !== '')")
    versions = [int(s["version"]) for s in shown]
    assert versions == list(range(versions[0], versions[-1] + 1)), "every state is shown, in order"
    # The pauses are for the bots' cards: the player's own card shows as soon as it comes back.
    clicks = player.page.evaluate("window.clicks")
    pairs = [
        (earlier, later)
        for earlier, later in itertools.pairwise(shown)
        if not any(earlier["at"] <= click <= later["at"] for click in clicks)
    ]
    held = [
        later["at"] - earlier["at"]
        for earlier, later in pairs
        if earlier["title"].startswith("Last trick") and not later["title"].startswith("Last trick")
    ]
    assert held, "a completed trick was followed by a bot's card"
    assert min(held) >= 3 * pace * 0.9, held
    moves = [later["at"] - earlier["at"] for earlier, later in pairs if later["title"].startswith("Trick")]
    assert moves and min(moves) >= pace * 0.9 - 20, moves
    assert not player.errors, player.errors


def test_a_refused_action_is_explained_and_loses_nothing(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(
        server,
        players=3,
        options={"first_player": 0},
        seats=[{"kind": "human", "name": "Rae"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
    )
    httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": "Rae", "token": tokens[0]})
    player = open_player(browser, "about:blank")
    page = player.page
    tampered: list[dict[str, Any]] = []

    def route(socket: Any) -> None:
        """Between the page and the server: the page's first action names a version the table has left."""
        upstream = socket.connect_to_server()

        def to_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "action" and not tampered:
                data["version"] -= 1
                tampered.append(data)
            upstream.send(json.dumps(data))

        socket.on_message(to_server)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    page.goto(f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    assert next_move(player) == "bid"
    move_once(player, "bid")
    page.wait_for_function("document.querySelector('#refusal').textContent !== ''")
    assert "moved on" in page.inner_text("#refusal")
    assert tampered, "the action went through the route"
    assert next_move(player) == "bid", "the bid is offered again"
    move_once(player, "bid")
    assert next_move(player) == "play"
    assert page.inner_text("#refusal") == ""
    assert not player.errors, player.errors


def test_hints_show_the_odds_of_each_hidden_slot(browser: Any, server: ServerProcess) -> None:
    table_id, tokens = create_table(
        server,
        players=3,
        hints=True,
        seats=[{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
    )
    player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
    page = player.page
    page.fill("#join-name", "Hal")
    page.click("#join-button")
    move_once(player, next_move(player))
    assert next_move(player) == "play"
    page.click("#hints summary")
    view = player.states()[-1]["view"]
    hints = view["hints"]["slots"]
    items = page.locator("#hints-list li")
    assert items.count() == len(hints) == sum(not s["played"] for s in view["hands"][0])
    likely = page.locator("#my-hand .slot-hint").all_inner_texts()
    assert likely == ["/".join(map(str, slot["most_likely"])) for slot in hints]
    for item, slot in zip(items.all(), hints, strict=True):
        text = item.inner_text()
        for value, probability in zip(slot["possible"], slot["probabilities"], strict=True):
            assert f"{value} ({round(probability * 100)}%)" in text
    shoot(player, "hints")
    assert not player.errors, player.errors


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_bid_the_cap_rules_out_is_shown_disabled_with_the_reason(
    browser: Any, server: ServerProcess, size: str
) -> None:
    """Under a cap of 3 beads the bids over the beads left stay on the row, disabled, and say why (from the view's
    max_bid, legal actions and beads left: the page holds no rule); the others can be bid."""
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, options={"bid_cap": 3})
    viewport = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}[size]
    player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}", viewport)
    page = player.page
    page.fill("#join-name", "Cy")
    page.click("#join-button")
    assert next_move(player) == "bid"
    view = player.states()[-1]["view"]
    left = view["beads_left"]
    buttons = page.evaluate(
        """() => [...document.querySelectorAll('#bid-buttons button')].map(b => ({n: Number(b.dataset.tricks),
             disabled: b.disabled, capped: b.classList.contains('capped'), label: b.getAttribute('aria-label')}))"""
    )
    assert [b["n"] for b in buttons] == list(range(view["max_bid"] + 1)), "every bid is on the row"
    capped = [b for b in buttons if b["capped"]]
    assert [b["n"] for b in capped] == list(range(left + 1, 11)) and all(b["disabled"] for b in capped)
    assert all(f"the cap leaves {left} of 3 bet beads" in b["label"] for b in capped)
    assert not any(b["disabled"] for b in buttons if not b["capped"]), "the bids under the cap can be made"
    note = page.inner_text("#bid-capped")
    assert note == f"{left + 1}–10 ruled out: the cap leaves {left} of 3 bet beads."
    shoot(player, f"{size}-cap-disabled-bid", full_page=False)
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.querySelector('#bid-capped').textContent.includes('plafond')")
    page.click(".lang button[data-lang='en']")
    page.locator("#bid-buttons button:not(:disabled)").first.click()
    assert next_move(player) == "play"
    assert page.locator("#bid-capped").is_hidden()
    assert not player.errors, player.errors
