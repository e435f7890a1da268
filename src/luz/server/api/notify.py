"""Notifications' routes: the VAPID key, the browsers' push subscriptions, each player's notification settings, and
the emails' links (verify an address, unsubscribe) (docs/PROTOCOL.md, "Notifications"); the notifier's start and
stop are ``notifications.py``'s."""

from __future__ import annotations

import asyncio
import html
import zoneinfo
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..notify.mail import VerificationRefused, mail_address, verification_email
from ..notify.preferences import Recipient
from ..notify.push import Subscription, endpoint_problem, keys_problem
from .deps import identities_of, notify_of
from .guards import OverLimit

B64URL = r"^[A-Za-z0-9_-]+={0,2}$"
HH_MM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
TIMEZONE = r"^[A-Za-z0-9_+\-/]{1,64}$"


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    p256dh: str = Field(..., min_length=80, max_length=100, pattern=B64URL)
    auth: str = Field(..., min_length=16, max_length=32, pattern=B64URL)


class PushSubscribe(BaseModel):
    model_config = ConfigDict(extra="ignore")  # browsers' subscriptions carry expirationTime too
    endpoint: str = Field(..., min_length=12, max_length=1000)
    keys: PushKeys


class PushUnsubscribe(BaseModel):
    model_config = ConfigDict(extra="forbid")
    endpoint: str = Field(..., min_length=1, max_length=1000)


class QuietHours(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: str = Field(..., pattern=HH_MM, description="HH:MM, in your timezone")
    end: str = Field(..., pattern=HH_MM)


class NotificationChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    push: bool | None = None
    email: bool | None = None
    email_address: str | None = Field(None, max_length=254)
    quiet_hours: QuietHours | None = None
    timezone: str | None = Field(None, pattern=TIMEZONE)
    language: Literal["en", "fr", "ja"] | None = None

    @field_validator("email_address")
    @classmethod
    def one_address(cls, raw: str | None) -> str | None:
        """Exactly one mailbox, normalised by email-validator."""
        return None if raw is None else mail_address(raw.strip())


def minute_of(hh_mm: str) -> int:
    hours, minutes = hh_mm.split(":")
    return int(hours) * 60 + int(minutes)


def hh_mm(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def described(recipient: Recipient, smtp: bool) -> dict[str, Any]:
    quiet = None
    if recipient.quiet_start is not None and recipient.quiet_end is not None:
        quiet = {"start": hh_mm(recipient.quiet_start), "end": hh_mm(recipient.quiet_end)}
    return {
        "push": recipient.push_on,
        "email": recipient.email_on,
        "email_address": recipient.email,
        "email_verified": recipient.email_verified,
        "quiet_hours": quiet,
        "timezone": recipient.timezone,
        "language": recipient.language,
        "smtp": smtp,
    }


router = APIRouter()


@router.get("/api/push/key")
async def push_key(request: Request) -> dict[str, str]:
    """The server's VAPID public key: a browser's ``pushManager.subscribe({applicationServerKey})``."""
    return {"key": notify_of(request).key}


@router.post("/api/me/push", status_code=201)
async def subscribe(request: Request, response: Response, body: PushSubscribe) -> dict[str, str]:
    """Store this browser's push subscription (a player keeps the newest 10)."""
    notifications = notify_of(request)
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    problem = endpoint_problem(body.endpoint, notifications.settings.push_allow_local) or keys_problem(
        body.keys.p256dh, body.keys.auth
    )
    if problem is not None:
        raise HTTPException(422, problem)
    subscription = Subscription(body.endpoint, identity.player_id, body.keys.p256dh, body.keys.auth)
    await asyncio.to_thread(notifications.subscriptions.add, subscription)
    return {"status": "subscribed"}


@router.delete("/api/me/push", status_code=204)
async def unsubscribe_push(request: Request, response: Response, body: PushUnsubscribe) -> Response:
    """Forget one of your push subscriptions (404 when you have none with that endpoint)."""
    notifications = notify_of(request)
    identity = await identities_of(request).require(request, response, create=False, changes=True)
    if not await asyncio.to_thread(notifications.subscriptions.remove, body.endpoint, identity.player_id):
        raise HTTPException(404, "no such subscription of yours")
    return Response(status_code=204)


@router.get("/api/me/notifications")
async def notification_settings(request: Request, response: Response) -> dict[str, Any]:
    """How you are told it is your turn."""
    notifications = notify_of(request)
    identity = await identities_of(request).require(request, response, create=True, changes=False)
    recipient = await asyncio.to_thread(notifications.preferences.of, identity.player_id)
    assert recipient is not None
    return described(recipient, notifications.mailer.configured)


@router.put("/api/me/notifications")
async def change_notifications(request: Request, response: Response, body: NotificationChange) -> dict[str, Any]:
    """Change any of the settings; a new email address is sent a verification link (nothing else is sent to it
    until it is followed). Email is for accounts (403 for a guest)."""
    notifications = notify_of(request)
    preferences = notifications.preferences
    identity = await identities_of(request).require(request, response, create=True, changes=True)
    given = body.model_fields_set
    for name in ("push", "email", "timezone", "language"):
        if name in given and getattr(body, name) is None:
            raise HTTPException(422, f"{name} may not be null")
    if given & {"email", "email_address"} and identity.guest:
        raise HTTPException(403, "email is for accounts: register (or sign in) first")
    if body.timezone is not None:
        try:
            zoneinfo.ZoneInfo(body.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise HTTPException(422, "timezone is not an IANA time zone (e.g. Europe/Paris)") from None
    current = await asyncio.to_thread(preferences.of, identity.player_id)
    assert current is not None
    address = body.email_address
    new_address = "email_address" in given and address != current.email
    verify = address is not None and (new_address or not current.email_verified) and notifications.mailer.configured
    if body.email and not (address if "email_address" in given else current.email):
        raise HTTPException(409, "give an email address first")
    if verify and address is not None:
        try:
            await asyncio.to_thread(
                notifications.verifications.claim,
                identity.player_id,
                address,
                datetime.fromtimestamp(notifications.clock.now(), UTC),
            )
        except VerificationRefused as refused:
            raise OverLimit("verification_mails_per_day", str(refused), refused.retry_after) from None
    changes: dict[str, Any] = {}
    if body.push is not None:
        changes["push_on"] = body.push
    if body.timezone is not None:
        changes["timezone"] = body.timezone
    if body.language is not None:
        changes["language"] = body.language
    if "quiet_hours" in given:
        quiet = body.quiet_hours
        changes["quiet_start"] = minute_of(quiet.start) if quiet else None
        changes["quiet_end"] = minute_of(quiet.end) if quiet else None
    if new_address:
        await asyncio.to_thread(preferences.set_email, identity.player_id, address)
    if body.email is not None:
        changes["email_on"] = body.email
    await asyncio.to_thread(lambda: preferences.change(identity.player_id, **changes))
    changed = await asyncio.to_thread(preferences.of, identity.player_id)
    assert changed is not None
    if verify and address is not None:
        notifications.send_in_background(
            verification_email(
                notifications.mailer, notifications.tokens, identity.player_id, address, changed.language
            ),
            address,
        )
    return described(changed, notifications.mailer.configured)


# -- the emails' links ---------------------------------------------------------------------------------------------

PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; form-action 'self'", "Referrer-Policy": "no-referrer"}


def page(title: str, text: str, status: int = 200, form: str = "") -> HTMLResponse:
    """A small plain page (the token of a link never echoed but in a form's own address)."""
    body = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} - LUZ</title>'
        f'<meta name="viewport" content="width=device-width"></head><body><h1>{html.escape(title)}</h1>'
        f'<p>{html.escape(text)}</p>{form}<p><a href="/account">Your account</a></p></body></html>'
    )
    return HTMLResponse(body, status_code=status, headers=PAGE_HEADERS)


BAD_LINK = "This link is not valid (or no longer): ask for a new one from your account's page."


@router.get("/api/email/verify", response_class=HTMLResponse)
async def verify_email(request: Request, token: str = "") -> HTMLResponse:
    """Follow an address's verification link."""
    notifications = notify_of(request)
    read = notifications.tokens.read_verify(token[:1000])
    if read is None or not await asyncio.to_thread(notifications.preferences.verify, *read):
        return page("Invalid link", BAD_LINK, 400)
    return page("Email address verified", "You will get an email (at most one an hour) when it is your turn.")


@router.get("/api/email/unsubscribe", response_class=HTMLResponse)
async def unsubscribe_page(request: Request, token: str = "") -> HTMLResponse:
    """The unsubscribe link's page: a button (its POST turns the email off)."""
    if notify_of(request).tokens.read_unsubscribe(token[:1000]) is None:
        return page("Invalid link", BAD_LINK, 400)
    action = html.escape(f"/api/email/unsubscribe?token={token}", quote=True)
    form = f'<form method="post" action="{action}"><button type="submit">Unsubscribe</button></form>'
    return page("Stop the emails", "No more email when it is your turn at a table.", form=form)


@router.post("/api/email/unsubscribe", response_class=HTMLResponse)
async def unsubscribe_email(request: Request, token: str = "") -> HTMLResponse:
    """Turn the email off (the page's button, or a mail client's one-click ``List-Unsubscribe-Post``)."""
    notifications = notify_of(request)
    read = notifications.tokens.read_unsubscribe(token[:1000])
    if read is None:
        return page("Invalid link", BAD_LINK, 400)
    await asyncio.to_thread(notifications.preferences.unsubscribe, *read)
    return page("Unsubscribed", "You will get no more email from LUZ. Turn it back on from your account's page.")
