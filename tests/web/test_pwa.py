"""The installable app: the manifest and its icons, the service worker at the root (registered by every page, the
site installable by Chromium's own checks), the offline page, and a push message shown as a notification whose
click opens its table."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from luz.web import STATIC
from support.server import ServerProcess
from support.web import LAPTOP, PHONE, create_table, open_installed, open_player, shoot

pytestmark = pytest.mark.browser

READY = """async () => {
  const registration = await navigator.serviceWorker.ready;
  const worker = registration.active;
  if (worker.state !== 'activated') {
    await new Promise((done) => worker.addEventListener('statechange', () => worker.state === 'activated' && done()));
  }
  return registration.scope;
}"""
CONTROLLED = "() => Boolean(navigator.serviceWorker.controller)"


def test_the_manifest_and_its_icons(server: ServerProcess) -> None:
    from PIL import Image

    answer = httpx.get(f"{server.http}/manifest.webmanifest", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["name"] == "luz" and manifest["short_name"] and manifest["description"]
    assert manifest["start_url"] in ("/", "/games") and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    css = (STATIC / "css" / "luz.css").read_text()
    for key in ("theme_color", "background_color"):
        assert manifest[key].lower() in css.lower(), f"{key} is one of the site's colours"
    found = set()
    for icon in manifest["icons"]:
        image = httpx.get(f"{server.http}{icon['src']}", timeout=10)
        assert image.status_code == 200 and image.headers["content-type"] == "image/png", icon
        picture = Image.open(io.BytesIO(image.content))
        assert f"{picture.width}x{picture.height}" == icon["sizes"], icon
        found.add((icon["sizes"], icon.get("purpose", "any")))
        if icon.get("purpose") == "maskable":  # full bleed: the corners are painted
            assert picture.convert("RGBA").getpixel((0, 0))[3] == 255
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= found
    for page in ("/", "/games", "/account", "/t/x", "/score", "/how-to-play", "/offline", "/no-such-page"):
        html = httpx.get(f"{server.http}{page}", headers={"accept": "text/html"}, timeout=10).text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, page
        assert '<meta name="theme-color"' in html and 'rel="apple-touch-icon"' in html, page


def test_the_service_worker_is_served_at_the_root_and_caches_the_whole_shell(server: ServerProcess) -> None:
    answer = httpx.get(f"{server.http}/sw.js", timeout=10)
    assert answer.status_code == 200
    assert "javascript" in answer.headers["content-type"]
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["service-worker-allowed"] == "/"
    source = answer.text
    # Every script, style sheet, translation and icon the pages use is in the shell cached at install.
    names = set(re.findall(r'"([a-z0-9-]+)"', source[source.index("...[") :]))
    for script in (STATIC / "js").glob("*.js"):
        assert script.stem in names, f"{script.name} is missing from the service worker's shell"
    for folder in ("css", "i18n", "icons"):
        for path in (STATIC / folder).iterdir():
            assert f'"/static/{folder}/{path.name}"' in source, path
    assert 'const OFFLINE = "/offline"' in source
    assert 'startsWith("/api/")' in source and 'startsWith("/ws/")' in source


def ready(page: Any) -> str:
    """Wait for the page's service worker to be registered and active; its scope."""
    scope: str = page.evaluate(READY)
    return scope


def until(page: Any, script: str, timeout: float = 20.0) -> Any:
    """The first truthy value of the async ``script`` (evaluated again every 100 ms; wait_for_function does not
    wait for a promise)."""
    for _ in range(int(timeout * 10)):
        value = page.evaluate(script)
        if value:
            return value
        page.wait_for_timeout(100)
    raise AssertionError(f"never true: {script}")


SHOWN = """async () => {
  const found = await (await navigator.serviceWorker.ready).getNotifications();
  const shown = found.map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}));
  return shown.length && shown;
}"""


def push(page: Any, cdp: Any, origin: str, registration: str, payload: dict[str, Any], shown: str) -> Any:
    """Deliver ``payload`` as a push message to the service worker and wait for its notification. A delivery that
    shows nothing in 5 s is made again (on a loaded machine CDP's delivery to a worker still starting is at times
    lost; the tag makes a second one replace the first)."""
    before = page.evaluate(shown) or []
    for _ in range(4):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": origin, "registrationId": registration, "data": json.dumps(payload)},
        )
        try:
            return until(
                page,
                f"async () => {{ const s = await ({shown})(); return s && s.some((n) => n.body === "
                f"{json.dumps(payload['body'])}) && s; }}",
                timeout=5,
            )
        except AssertionError:
            continue
    raise AssertionError(f"no notification for {payload}; before: {before}")


def registration_id(cdp: Any, page: Any, origin: str) -> str:
    """The service worker registration's id, from the events of CDP's ServiceWorker domain."""
    registrations: dict[str, str] = {}

    def seen(event: dict[str, Any]) -> None:
        for registration in event["registrations"]:
            if not registration.get("isDeleted"):
                registrations[registration["scopeURL"]] = registration["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", seen)
    cdp.send("ServiceWorker.enable")
    for _ in range(200):  # CDP's events arrive while Playwright waits; at most 10 s
        if f"{origin}/" in registrations:
            break
        page.wait_for_timeout(50)
    return registrations[f"{origin}/"]


def test_the_service_worker_registers_and_the_site_is_installable(
    browser: Any, server: ServerProcess, tmp_path: Path
) -> None:
    player = open_installed(browser, tmp_path / "profile", f"{server.http}/", viewport=PHONE)
    page = player.page
    scope = ready(page)
    assert scope == f"{server.http}/"
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert errors == [], errors
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{server.http}/manifest.webmanifest" and not manifest["errors"], manifest
    assert not player.errors, player.errors
    page.context.close()


def test_the_offline_page_shows_without_network(browser: Any, server: ServerProcess) -> None:
    player = open_player(browser, f"{server.http}/games", viewport=PHONE)
    page = player.page
    ready(page)
    page.reload()
    page.wait_for_function(CONTROLLED)
    context = page.context
    context.set_offline(True)
    page.goto(f"{server.http}/games")
    page.wait_for_selector("#offline-title")
    page.wait_for_function("document.querySelector('#offline-title').textContent === 'You are offline'")
    assert page.url == f"{server.http}/games", "the address asked stays: trying again loads it"
    shoot(player, "offline-phone", full_page=False)
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.querySelector('#offline-title').textContent === 'Vous êtes hors ligne'")
    assert page.inner_text("#retry") == "Réessayer"
    page.evaluate("window.before = true")
    page.click("#retry")  # still offline: the page asked again, and the offline page again
    again = (
        "!window.before && document.querySelector('#offline-title')?.textContent === 'Vous êtes hors ligne'"
        " && document.body.dataset.listening === 'online'"
    )
    page.wait_for_function(again)
    context.set_offline(False)  # back online: the page asked comes by itself
    page.wait_for_function("document.querySelector('h1').textContent === 'Mes parties'")
    assert not [e for e in player.errors if "ERR_INTERNET_DISCONNECTED" not in e and "/api/" not in e], player.errors
    context.close()


def test_a_push_shows_a_notification_whose_click_opens_the_table(browser: Any, server: ServerProcess) -> None:
    table_id, _ = create_table(server, players=3, seats=[{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 2)
    player = open_player(browser, f"{server.http}/", viewport=LAPTOP)
    page = player.page
    context = page.context
    context.grant_permissions(["notifications"], origin=server.http)
    ready(page)
    page.reload()
    page.wait_for_function(CONTROLLED)
    cdp = context.new_cdp_session(page)
    registration = registration_id(cdp, page, server.http)
    payload = {"title": "LUZ: your turn", "body": "Axe table: your turn to bid", "data": {"url": f"/t/{table_id}"}}
    shown = push(page, cdp, server.http, registration, payload, SHOWN)
    assert shown == [
        {
            "title": payload["title"],
            "body": payload["body"],
            "tag": f"luz-/t/{table_id}",
            "url": f"{server.http}/t/{table_id}",
        }
    ]
    # A second push for the same table replaces the first (one notification per table).
    again = push(page, cdp, server.http, registration, {**payload, "body": "again"}, SHOWN)
    assert [n["body"] for n in again] == ["again"]
    # The click: the service worker's own notificationclick handler, given the notification shown (headless
    # Chromium has no notification to click). It closes the notification and brings a tab to the table.
    (worker,) = [w for w in context.service_workers if w.url.endswith("/sw.js")]
    worker.evaluate(
        """async () => {
          const [notification] = await self.registration.getNotifications();
          self.dispatchEvent(new NotificationEvent('notificationclick', {notification}));
        }"""
    )
    page.wait_for_url(f"{server.http}/t/{table_id}")
    page.wait_for_selector("#table-name:not(:empty)")
    left = page.evaluate("navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((n) => n.length)")
    assert left == 0, "the notification clicked is closed"
    context.close()
