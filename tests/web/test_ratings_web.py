"""Ratings in a real browser: two people register, play a rated table (a bot in the third seat), see both
ratings change at the table, the game with its rating change in both profiles, and both on the leaderboard."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import insert

from luz.server.db import PlayerRow, RatingRow, make_engine
from support.server import ServerProcess
from support.web import open_player, play_together_to_end, register_on_account_page, shoot

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
OTHERS = ["Mireille", "Kasimir", "Odile", "Tarek", "Yuki", "Bruno", "Ines", "Lotte", "Sven", "Aurore"]


def seed_other_players(database_url: str) -> None:
    """Other rated players of the pool (established and provisional), so the leaderboard is a real one."""
    engine = make_engine(database_url)
    try:
        with engine.begin() as connection:
            for number, name in enumerate(OTHERS):
                player = secrets.token_hex(8)
                stamp = datetime.now(UTC)
                connection.execute(
                    insert(PlayerRow).values(id=player, name=name, username=name.lower(), created_at=stamp)
                )
                connection.execute(
                    insert(RatingRow).values(
                        player_id=player,
                        edition="iello-2024",
                        players=3,
                        mu=29.5 - 0.9 * number,
                        sigma=2.5 + 0.3 * number,
                        games=60 - 4 * number,
                        updated_at=stamp,
                    )
                )
    finally:
        engine.dispose()


def badge_texts(player: Any) -> list[str]:
    return [text.strip() for text in player.page.locator(".badge.rating").all_inner_texts()]


def test_two_accounts_play_a_rated_game_and_see_their_ratings_change(browser: Any, server: ServerProcess) -> None:
    base = server.http
    ana = open_player(browser, f"{base}/account", viewport=DESKTOP)
    bo = open_player(browser, f"{base}/account", viewport=DESKTOP)
    # As a guest, the lobby says a rated table needs an account (and makes none).
    ana.page.goto(f"{base}/?pace=0")
    ana.page.wait_for_selector("#edition option", state="attached")
    ana.page.wait_for_function("document.querySelector('#player-name').value.length > 0")
    ana.page.check("#rated")
    ana.page.click("#create-button")
    ana.page.wait_for_selector("#create-error a[href='/account']")
    assert "account" in ana.page.inner_text("#create-error") and "/t/" not in ana.page.url
    register_on_account_page(ana, base, "anarated")
    register_on_account_page(bo, base, "borated")

    page = ana.page
    page.goto(f"{base}/?pace=0")
    page.wait_for_selector("#edition option", state="attached")
    page.select_option("#players", "3")
    for seat, spec in enumerate(["human", "human", "bot:random"]):
        page.select_option(f"#seat-{seat}", spec)
    page.check("#rated")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/t/[^/?#]+"))
    page.wait_for_selector("#invites input")
    link = page.locator("#invites input").first.input_value()
    bo.page.goto(link.replace("#", "?pace=0#"))
    bo.page.wait_for_selector("#join:not([hidden])")
    bo.page.click("#join-button")

    # Before the game's end both accounts show the starting, provisional rating beside their names.
    page.wait_for_function("document.querySelectorAll('.badge.rating').length === 2")
    assert badge_texts(ana) == ["1,500?", "1,500?"]
    assert "Rated" in page.inner_text("#table-info")
    players = [ana, bo]
    play_together_to_end(players)
    for player in players:
        player.page.wait_for_function(
            "[...document.querySelectorAll('.badge.rating')].every(b => b.textContent !== '1,500?')"
        )
        assert len(badge_texts(player)) == 2, "both accounts' ratings shown, none for the bot"
    shoot(ana, "laptop-rated-table", full_page=False)

    changes, shown_names = [], set()
    for player in players:
        player.page.click("#me-link")
        player.page.wait_for_url(re.compile(r"/u/[0-9a-f]+"))
        player.page.wait_for_selector("#games .game-row .delta")
        assert player.page.locator("#games .game-row").count() == 1
        shown_names.add(player.page.inner_text("#player-name-title"))
        changes.append(player.page.inner_text("#games .game-row .delta"))
        [card] = player.page.locator(".rating-card .rating-value").all_inner_texts()
        assert re.fullmatch(r"1,\d{3}\?", card) and card != "1,500?"
    assert sorted(change[0] for change in changes) == ["+", "−"], changes

    seed_other_players(server.database_url)
    page.goto(f"{base}/leaderboard?edition=iello-2024&players=3")
    page.wait_for_selector(".ladder-row")
    names = page.locator(".ladder-row .ladder-name").all_inner_texts()
    assert shown_names <= set(names) and len(names) == 12
    assert page.locator(".podium-step").count() == 3
    # The two new accounts are provisional: listed after the established players.
    assert set(names[-2:]) == shown_names
    profile_url = f"{base}/u/" + page.get_attribute(".ladder-row:last-child .ladder-name", "href").split("/")[-1]

    for size, viewport in (("laptop", DESKTOP), ("phone", PHONE)):
        viewer = open_player(browser, f"{base}/leaderboard?edition=iello-2024&players=3", viewport=viewport)
        viewer.page.wait_for_selector(".ladder-row")
        viewer.page.wait_for_selector(".podium-step")
        shoot(viewer, f"{size}-leaderboard")
        viewer.page.goto(profile_url)
        viewer.page.wait_for_selector("#games .game-row .delta")
        shoot(viewer, f"{size}-profile")
        assert not viewer.errors, viewer.errors
        viewer.page.context.close()
    assert not ana.errors and not bo.errors, (ana.errors, bo.errors)
