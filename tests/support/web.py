"""Helpers of the browser tests: a page that records what it receives and shows, play by clicking, the
hidden-information checks against the true hands, screenshots.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from support.server import Checker, ServerProcess, Truth, open_store

ARTIFACTS = Path(__file__).parents[1] / "web" / "artifacts"
GUIDE_IMAGES = Path(__file__).parents[2] / "docs" / "images"
PHONE = {"width": 375, "height": 740}
LAPTOP = {"width": 1280, "height": 860}

DOM_PICTURE = """() => ({
  version: Number(document.querySelector('#main').dataset.version || -1),
  cards: [...document.querySelectorAll('[data-card]')]
    .filter(e => !e.closest('[data-previous-deal]')).map(e => e.dataset.card),
  previous: [...document.querySelectorAll('[data-previous-deal] [data-card]')].map(e => e.dataset.card),
  backs: [...document.querySelectorAll('#my-hand .card.back')].map(e => ({
    slot: Number(e.dataset.slot), text: e.textContent, label: e.getAttribute('aria-label'),
    card: e.dataset.card || null,
  })),
})"""

PLAYABLE = "#my-hand button.card:not(:disabled):not([aria-pressed])"
"""The cards of my hand I may play now (not those offered as my next card while another seat plays: premoves)."""

NEXT_MOVE = """() => {
  if (!document.querySelector('#over').hidden) return 'over';
  const bidding = !document.querySelector('#bidding').hidden;
  if (bidding && document.querySelector('#bid-buttons button:not(:disabled)')) return 'bid';
  if (document.querySelector('#my-hand button.card:not(:disabled):not([aria-pressed])')) return 'play';
  return null;
}"""


@dataclass
class Player:
    """One browser page at a table (or elsewhere): the WebSocket frames it received, what its DOM showed."""

    page: Any
    frames: list[tuple[int, str]] = field(default_factory=list)
    """Every frame received, with the number of the connection it came on."""
    sockets: list[str] = field(default_factory=list)
    """The URL of each connection the page opened."""
    pictures: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def picture(self) -> dict[str, Any]:
        """What the page shows now, kept for the hidden-information check after the game."""
        shot: dict[str, Any] = self.page.evaluate(DOM_PICTURE)
        self.pictures.append(shot)
        return shot

    def listen(self, socket: Any) -> None:
        number = len(self.sockets)
        self.sockets.append(socket.url)
        socket.on("framereceived", lambda payload: self.frames.append((number, str(payload))))

    def states(self) -> list[dict[str, Any]]:
        messages = [json.loads(frame) for _, frame in self.frames]
        return [m for m in messages if m.get("type") == "state"]


def console_error(player: Player, message: Any) -> None:
    """Keep a console error, with where it came from (a failed request's URL is only there)."""
    if message.type == "error":
        where = message.location.get("url") or ""
        player.errors.append(f"console: {message.text} ({where})" if where else f"console: {message.text}")


HOMES = itertools.count(1)
"""Each browser context's own client address (a trusted proxy's ``X-Forwarded-For``: tests/web/conftest.py)."""


def open_player(
    browser: Any,
    url: str,
    viewport: dict[str, int] = LAPTOP,
    locale: str = "en-GB",
    timezone: str | None = None,
    address: str | None = None,
    touch: bool = False,
    headers: dict[str, str] | None = None,
) -> Player:
    """A page in a browser context of its own (its own storage: another player's browser), from ``address`` (by
    default one of its own: another home); ``touch``: a phone's touch screen; ``headers`` sent with each of its
    requests (an ``X-Forwarded-For`` there replaces the address)."""
    home = next(HOMES)
    forwarded = address or f"198.18.{home // 250}.{home % 250 + 1}"
    context = browser.new_context(
        viewport=viewport,
        locale=locale,
        timezone_id=timezone,
        extra_http_headers={"X-Forwarded-For": forwarded, **(headers or {})},
        has_touch=touch,
        is_mobile=touch,
    )
    page = context.new_page()
    player = Player(page)
    page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    page.on("console", lambda m: console_error(player, m))
    page.on("websocket", player.listen)
    page.goto(url)
    return player


def open_installed(browser: Any, folder: Path, url: str, viewport: dict[str, int] = PHONE) -> Player:
    """A page in a persistent browser profile in ``folder``: not the incognito-like context of
    :func:`open_player`, where Chromium never offers to install a site. Close with ``player.page.context.close()``."""
    executable = os.environ.get("LUZ_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    context = browser.browser_type.launch_persistent_context(
        str(folder), executable_path=executable, args=["--no-sandbox"], viewport=viewport, locale="en-GB"
    )
    page = context.pages[0] if context.pages else context.new_page()
    player = Player(page)
    page.on("pageerror", lambda error: player.errors.append(f"page error: {error}"))
    page.on("console", lambda m: console_error(player, m))
    page.goto(url)
    return player


def offered(player: Player) -> str | None:
    """What the page offers now: ``bid``, ``play``, ``over``, or ``None`` (nothing to do)."""
    kind: str | None = player.page.evaluate(NEXT_MOVE)
    return kind


def next_move(player: Player, timeout: float = 30.0) -> str:
    """Wait until the page offers a move (``bid`` or ``play``) or shows the game over."""
    handle = player.page.wait_for_function(NEXT_MOVE, timeout=timeout * 1000)
    return str(handle.json_value())


def move_once(player: Player, kind: str) -> None:
    """Make one move by clicking: the first enabled bid, or the first playable card."""
    page = player.page
    player.picture()
    if kind == "bid":
        page.locator("#bid-buttons button:not(:disabled)").first.click()
    else:
        page.locator(PLAYABLE).first.click()


def play_to_end(player: Player, timeout: float = 120.0) -> int:
    """Play the page's seat by clicking until the game is over; returns the number of moves made."""
    deadline = time.monotonic() + timeout
    moves = 0
    while (kind := next_move(player)) != "over":
        move_once(player, kind)
        moves += 1
        assert time.monotonic() < deadline, "the game took too long"
    player.picture()
    return moves


def play_together_to_end(players: list[Player]) -> None:
    """Play several seats of one table, each on its own page, by clicking until every page shows the game over."""
    while True:
        kinds = [offered(player) for player in players]
        for player, kind in zip(players, kinds, strict=True):
            if kind in ("bid", "play"):
                move_once(player, kind)
        if all(kind == "over" for kind in kinds):
            return
        players[0].page.wait_for_timeout(20)


def record_of(server: ServerProcess, table_id: str, game: int = 1) -> dict[str, Any]:
    response = httpx.get(f"{server.http}/api/tables/{table_id}/record", params={"game": game}, timeout=10)
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def check_hidden(player: Player, server: ServerProcess, table_id: str, seat: int) -> int:
    """Neither the messages this seat's page received nor its DOM ever held one of its own unplayed values.

    Messages: every frame goes through the server tests' :class:`Checker` (the truth replayed from the
    database). DOM: each picture is compared with the true hands of the record, fetched after the game, at
    the state the page showed. Returns how many pictures were checked.
    """
    truth = Truth(open_store(server.database_url))
    checkers = [Checker(seat if "token=" in url else None, truth, table_id) for url in player.sockets]
    for number, frame in player.frames:
        checkers[number].feed(frame)
    assert sum(c.checked_hidden for c in checkers if c.seat == seat) > 0, "no state with a deal was received"
    by_version = {state["version"]: state for state in player.states()}
    records: dict[int, dict[str, Any]] = {}
    checked = 0
    for shot in player.pictures:
        state = by_version.get(shot["version"])
        if state is None or state["view"] is None:
            continue
        view, game_no = state["view"], state["table"]["game_no"]
        if game_no not in records:
            records[game_no] = record_of(server, table_id, game_no)
        deal = records[game_no]["deals"][view["deal_number"] - 1]
        mine = view["hands"][seat]
        hidden = {deal["hands"][seat][s["slot"]] for s in mine if not s["played"]} | set(deal["aside"])
        shown = set(shot["cards"])
        assert not shown & hidden, f"seat {seat}'s page showed hidden cards {sorted(shown & hidden)}"
        if shot["previous"]:  # the previous deal's last trick, shown as it was
            closing = view["closing_trick"]
            assert closing is not None and shot["previous"] == [play["card"] for play in closing["plays"]]
        for back in shot["backs"]:
            assert back["card"] is None and not any(ch.isdigit() for ch in back["text"]), back
        # Not vacuous: the other hands' unplayed cards, face up in the view, are on the page.
        others = {s["card"] for holder, hand in enumerate(view["hands"]) if holder != seat for s in hand}
        assert others <= shown, f"cards of the others missing from the page: {sorted(others - shown)}"
        checked += 1
    return checked


GUIDE = {
    "home",
    "waiting-invites",
    "tutorial",
    "notes",
    "chat-phone",
    "chat-laptop",
    "hints",
    "reconnecting",
    "replay",
    "score-keeper",
    "table-french",
    "table-bidding-phone-ja",
    "clocks-laptop",
    "clocks-phone",
    "clocks-timeout-phone",
    "my-games-phone",
    "my-games-laptop",
    "turn-based-table-phone",
    "notifications-phone",
    *(f"{page}-{size}" for size in ("phone", "laptop") for page in ("friends", "invitation-notice")),
    *(f"{size}-{part}" for size in ("phone", "laptop") for part in ("how-to-play", "4-summary", "4-game-over")),
    *(f"{size}-4-bidding" for size in ("phone", "laptop")),
    *(f"{size}-{n}-playing" for size in ("phone", "laptop") for n in (3, 4, 5)),
    *(f"{size}-{page}" for size in ("phone", "laptop") for page in ("leaderboard", "profile")),
    *(f"{page}-{size}" for size in ("phone", "laptop") for page in ("home-play-now", "how-to-play-lesson")),
    *(f"how-to-play-deck-{size}-ja" for size in ("phone", "laptop")),
    "tutorial-deck-phone",
    "tutorial-lesson-laptop",
    "phone-5-last-deal",
    "laptop-cap-disabled-bid",
    "home-laptop-ja",
    "review-laptop-screen",
    "review-phone-screen",
}
"""The screenshots docs/USER_GUIDE.md shows."""


def shoot(player: Player, name: str, full_page: bool = True) -> Path:
    """A screenshot in tests/web/artifacts; with LUZ_GUIDE_IMAGES=1 the guide's are copied to docs/images."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    player.page.screenshot(path=str(path), full_page=full_page)
    if os.environ.get("LUZ_GUIDE_IMAGES") == "1" and name in GUIDE:
        GUIDE_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, GUIDE_IMAGES / path.name)
    return path


PASSWORD = "correct horse battery"


def register(player: Player, username: str) -> str:
    """Register this browser's guest as an account (from its open page); the account's id."""
    made: dict[str, Any] = player.page.evaluate(
        """async ([username, password]) => {
          const r = await fetch('/api/account/register', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({username, password})});
          return r.json();
        }""",
        [username, PASSWORD],
    )
    assert made.get("guest") is False, made
    return str(made["id"])


def submit_account_form(player: Player, base: str, form: str, username: str) -> None:
    """Submit the account page's ``form`` ("register" or "login") with ``username`` and :data:`PASSWORD`."""
    page = player.page
    page.goto(f"{base}/account")
    page.wait_for_selector(f"#{form}-form")
    page.fill(f"#{form}-username", username)
    page.fill(f"#{form}-password", PASSWORD)
    page.click(f"#{form}-form button[type=submit]")


def register_on_account_page(player: Player, base: str, username: str) -> None:
    """Register this browser's guest as an account through the account page's form."""
    submit_account_form(player, base, "register", username)
    player.page.wait_for_selector("#signed-in:not([hidden])")


def follow_from_profile(player: Player, server: ServerProcess, other: str, label: str) -> None:
    """Click ``label`` (Follow, Follow back) on the profile of the player ``other``; wait until it is followed."""
    page = player.page
    page.goto(f"{server.http}/u/{other}")
    button = page.locator("#player-relation button", has_text=re.compile(f"^{label}$"))
    button.click()
    page.locator("#player-relation button", has_text="Unfollow").wait_for()


def create_table(server: ServerProcess, **spec: Any) -> tuple[str, dict[int, str]]:
    """A table made over HTTP; returns its id and the human seats' tokens."""
    response = httpx.post(f"{server.http}/api/tables", json=spec, timeout=10)
    assert response.status_code == 201, response.text
    answer = response.json()
    return answer["table"]["id"], {invite["seat"]: invite["token"] for invite in answer["invites"]}


def seated_against_random_bots(browser: Any, server: ServerProcess, table: str, name: str) -> Player:
    """``name`` at seat 0 of a new 3-player table ``table`` against two random bots, seat 0 first, the table
    open at ``?pace=0``."""
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    table_id, tokens = create_table(server, players=3, seats=seats, name=table, options={"first_player": 0})
    joined = httpx.post(f"{server.http}/api/tables/{table_id}/seats/0/join", json={"name": name, "token": tokens[0]})
    assert joined.status_code == 200, joined.text
    return open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}")
