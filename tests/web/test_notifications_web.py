"""The account page's notifications in a real browser against a real server (with a local SMTP server): the
browser asked for its permission only after the click, this browser's push subscription posted and withdrawn,
email for accounts with the "check your inbox" of a new address (its verification email received), quiet hours,
the browser's time zone and the page's language stored.

Headless Chromium has no push service: ``pushManager.subscribe`` is replaced, before the page's scripts run, by
one that returns a subscription of a real P-256 key (what a browser gives), recording the server key it was given.
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.server import ServerProcess, free_port
from support.web import LAPTOP, PHONE, open_player, shoot

pytestmark = pytest.mark.browser

FAKE_PUSH = """
(() => {
  window.asked = 0;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.asked += 1; return ask(...args); };
  let current = null;
  PushManager.prototype.subscribe = async function (options) {
    window.serverKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)));
    window.visibleOnly = options.userVisibleOnly;
    const json = {endpoint: 'https://push.example.com/send/browser-1', expirationTime: null,
                  keys: {p256dh: '%(p256dh)s', auth: '%(auth)s'}};
    current = {endpoint: json.endpoint, toJSON: () => json, unsubscribe: async () => { current = null; return true; }};
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
})();
"""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def browser_keys() -> dict[str, str]:
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    point = (
        ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64url(point), "auth": b64url(os.urandom(16))}


class Inbox:
    """The emails the local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.changed:
            self.messages.append(envelope)
            self.changed.notify_all()
        return "250 OK"

    def wait(self, address: str, timeout: float = 30.0) -> Any:
        """The first email to ``address`` (the module's tests may run in any order, or on other workers)."""

        def to_address() -> Any:
            return next((m for m in self.messages if address in m.rcpt_tos), None)

        with self.changed:
            assert self.changed.wait_for(to_address, timeout), f"no email came to {address}"
            return to_address()


@pytest.fixture(scope="module")
def inbox() -> Iterator[tuple[Inbox, int]]:
    from aiosmtpd.controller import Controller

    box, port = Inbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


@pytest.fixture(scope="module")
def mail_server(
    tmp_path_factory: pytest.TempPathFactory, inbox: tuple[Inbox, int], browser: Any
) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("notify")
    port = free_port()
    env = {"LUZ_SMTP_URL": f"smtp://127.0.0.1:{inbox[1]}", "LUZ_MAIL_FROM": "luz@example.org"}
    env["LUZ_PUBLIC_URL"] = f"http://127.0.0.1:{port}"  # no email without it
    process = ServerProcess(f"sqlite:///{folder}/luz.sqlite3", folder / "server.log", port=port, env=env).start()
    yield process
    process.stop()


def settings(page: Any) -> dict[str, Any]:
    answer: dict[str, Any] = page.evaluate("fetch('/api/me/notifications').then((r) => r.json())")
    return answer


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_notifications_from_the_account_page(
    browser: Any, mail_server: ServerProcess, inbox: tuple[Inbox, int], size: str
) -> None:
    keys = browser_keys()
    viewport = PHONE if size == "phone" else LAPTOP
    player = open_player(browser, "about:blank", viewport=viewport, timezone="Europe/Paris")
    page = player.page
    page.context.add_init_script(FAKE_PUSH % keys)
    page.context.grant_permissions(["notifications"], origin=mail_server.http)
    page.goto(f"{mail_server.http}/account")
    page.wait_for_selector("#notify-form:not([hidden])")
    page.wait_for_function("document.querySelector('#push-state').textContent !== ''")
    assert page.inner_text("#push-state") == "This browser is not notified."
    assert page.evaluate("window.asked") == 0, "no question before the click"
    assert page.is_disabled("#notify-email") and "for accounts" in page.inner_text("#email-state")

    with page.expect_response(lambda r: r.url.endswith("/api/me/push") and r.request.method == "POST") as posted:
        page.click("#push-enable")
    assert posted.value.status == 201, posted.value.text()
    page.wait_for_selector("#push-state.on")
    assert page.evaluate("window.asked") == 1 and page.evaluate("window.visibleOnly") is True
    key = httpx.get(f"{mail_server.http}/api/push/key", timeout=10).json()["key"]
    sent = base64.b64decode(page.evaluate("window.serverKey"))
    assert b64url(sent) == key.rstrip("="), "the server's key, decoded from base64url"
    stored = settings(page)
    assert stored["push"] is True and stored["timezone"] == "Europe/Paris" and stored["language"] == "en"

    # An account: email too, with quiet hours, in French.
    page.fill("#register-username", f"notify_{size}")
    page.fill("#register-password", "correct horse battery")
    page.click("#register-form button[type=submit]")
    page.wait_for_function("!document.querySelector('#notify-email').disabled")
    page.click(".lang button[data-lang='fr']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    address = f"ana.{size}@example.org"
    page.fill("#notify-address", address)
    page.check("#notify-email")
    page.check("#quiet-on")
    page.fill("#quiet-start", "22:30")
    page.fill("#quiet-end", "07:15")
    page.click("#notify-save")
    page.wait_for_function("document.querySelector('#notify-message').textContent === 'Notifications enregistrées.'")
    assert (
        page.inner_text("#email-state")
        == f"Vérifiez votre boîte de réception : un lien a été envoyé à {address} pour la confirmer."
    )
    inbox[0].wait(address)  # fails unless the confirmation email came
    stored = settings(page)
    assert stored["email"] is True and stored["email_address"] == address and not stored["email_verified"]
    assert stored["quiet_hours"] == {"start": "22:30", "end": "07:15"} and stored["language"] == "fr"
    page.locator("#notifications").scroll_into_view_if_needed()
    shoot(player, f"notifications-{size}", full_page=False)

    page.click("#push-disable")
    page.wait_for_function("!document.querySelector('#push-state').classList.contains('on')")
    assert page.inner_text("#push-state") == "Ce navigateur n'est pas prévenu."
    assert not player.errors, player.errors
    page.context.close()
