"""The consent notice of a "show all hands" table: each seated player agrees that anyone watching sees their
cards before the game starts, in en, fr and ja, on a phone and a laptop (screenshots in ``LUZ_SHOTS`` or
tests/web/artifacts)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import ServerProcess

SHOTS = Path(os.environ.get("LUZ_SHOTS") or Path(__file__).parent / "artifacts")
VIEWPORTS = {
    "phone": {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": {"width": 1280, "height": 800}},
}
TITLES = {
    "en": "Anyone watching sees your cards",
    "fr": "Quiconque regarde voit vos cartes",
    "ja": "観戦している人には誰でもあなたのカードが見えます",
}
AGREED = {"en": "You agreed", "fr": "Vous avez accepté", "ja": "同意しました"}


@pytest.mark.parametrize("device", VIEWPORTS)
@pytest.mark.parametrize("lang", TITLES)
def test_a_seated_player_agrees_before_the_game_starts(
    browser: Any, server: ServerProcess, device: str, lang: str
) -> None:
    spec = {
        "players": 3,
        "public": False,
        "show_hands": True,
        "name": "Streamed game",
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
    }
    with httpx.Client(base_url=server.http, timeout=30) as http:
        created = http.post("/api/tables", json=spec).json()
    table_id, token = created["table"]["id"], created["invites"][0]["token"]
    context = browser.new_context(**VIEWPORTS[device])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.http}/t/{table_id}?seat=0&token={token}&lang={lang}")
    page.fill("#join-name", "Ana")
    page.click("#join-button")
    notice = page.locator("#show-hand-consent")
    notice.wait_for()
    assert TITLES[lang] in notice.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{device}-{lang}-consent.png"), full_page=True)
    page.click("#show-hand-button")
    page.wait_for_function("!document.querySelector('#show-hand-button').offsetParent")
    assert AGREED[lang] in notice.inner_text()  # the game waits for the second player's agreement
    page.screenshot(path=str(SHOTS / f"{device}-{lang}-agreed.png"), full_page=True)
    with httpx.Client(base_url=server.http, timeout=30) as http:
        table = http.get(f"/api/tables/{table_id}").json()
    assert table["status"] == "waiting" and [s["shows_hand"] for s in table["seats"]][:2] == [True, False]
    assert not errors, errors
    context.close()
