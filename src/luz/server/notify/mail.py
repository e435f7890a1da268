"""The email digest and the address's verification, sent with aiosmtplib, and the signed links of each email
(itsdangerous): verify an address, unsubscribe in one click.

Nothing is sent without ``LUZ_SMTP_URL`` and ``LUZ_PUBLIC_URL`` both: every link of an email is made from the
public address, never from a request's ``Host``. An address is one mailbox, parsed and normalised by
email-validator, and each email goes to that one recipient alone. The verification emails are counted in the
database (``verification_mails``), so that every process counts together: one an address a day (UTC), a few an
account a day (``Settings.verification_mails_per_day``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlencode, urlsplit

import aiosmtplib
from email_validator import EmailNotValidError, validate_email
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import delete, func, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..db import VerificationMailRow
from .texts import mail_text, time_left

log = logging.getLogger("luz.server.notify")

DEFAULT_FROM = "luz@localhost"
VERIFY_SECONDS = 3 * 24 * 3600
"""How long a verification link works."""
SEND_TIMEOUT = 20.0


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    username: str | None
    password: str | None
    tls: bool
    """TLS from the start (``smtps://``); else STARTTLS when the server offers it."""


def parse_smtp_url(url: str) -> SmtpServer | None:
    """``smtp://user:pass@host:port`` or ``smtps://...``; ``None`` for an empty or unusable one."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        log.error("LUZ_SMTP_URL must be smtp://host:port or smtps://host:port: no email will be sent")
        return None
    tls = parts.scheme == "smtps"
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return SmtpServer(parts.hostname, parts.port or (465 if tls else 587), username, password, tls)


def mail_off_reason(smtp_url: str, public_url: str) -> str | None:
    """Why this server sends no email (``None``: it sends), as the line it logs at start-up."""
    if not smtp_url:
        return "email is off: LUZ_SMTP_URL is not set"
    if not public_url:
        return "email is off: LUZ_SMTP_URL is set but LUZ_PUBLIC_URL is not (every email's links are made from it)"
    return None


def mail_address(raw: str) -> str:
    """``raw`` as one mailbox's address, normalised (the domain lower-cased, in Unicode); :class:`ValueError` with
    what is wrong when it is not exactly one address (``a@b.org,postmaster``, a display name, a route)."""
    try:
        return str(validate_email(raw, check_deliverability=False).normalized)
    except EmailNotValidError as error:
        raise ValueError(f"not an email address: {error}") from None


class Mailer:
    """Sends emails through the configured SMTP server, their links made from ``public_url`` (either one not
    configured: :attr:`configured` is false and nothing is sent)."""

    def __init__(self, smtp_url: str, mail_from: str, public_url: str, timeout: float = SEND_TIMEOUT) -> None:
        self.server = parse_smtp_url(smtp_url) if public_url else None
        self.sender = mail_from or DEFAULT_FROM
        self.public_url = public_url
        self.timeout = timeout

    @property
    def configured(self) -> bool:
        return self.server is not None

    def message(self, to: str, subject: str, text: str) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=self.sender.rpartition("@")[2] or "localhost")
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(text)
        return message

    async def send(self, message: EmailMessage, to: str) -> bool:
        """Send ``message`` to ``to`` alone (never to the recipients its headers might name); whether the SMTP
        server took it (never raises)."""
        server = self.server
        if server is None:
            return False
        try:
            await aiosmtplib.send(
                message,
                sender=self.sender,
                recipients=[mail_address(to)],
                hostname=server.host,
                port=server.port,
                username=server.username,
                password=server.password,
                use_tls=server.tls,
                timeout=self.timeout,
            )
        except (aiosmtplib.SMTPException, OSError, TimeoutError, ValueError) as error:
            log.warning("email not sent: %s", type(error).__name__)
            return False
        return True


class VerificationRefused(Exception):
    """No verification email now: one went to the address today, or the account had its emails of the day;
    ``retry_after``: seconds until the next UTC day."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Verifications:
    """The verification emails sent, counted in the database for every process."""

    def __init__(self, engine: Engine, per_account: int) -> None:
        self.engine = engine
        self.per_account = per_account

    def claim(self, player_id: str, address: str, at: datetime) -> None:
        """Count a verification email to ``address`` (:func:`mail_address`'s) for ``player_id`` at ``at``, before
        it is sent; :class:`VerificationRefused` when the address had one that UTC day, or the account its
        ``per_account``. Two processes claiming at once: the database's unique keys let one through."""
        day, key = at.astimezone(UTC).date(), address.lower()
        tomorrow = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        retry_after = max(1, int((tomorrow - at).total_seconds()))
        to_address = VerificationRefused(
            "a verification email went to this address today: look for it (spam too), or ask again tomorrow",
            retry_after,
        )
        with Session(self.engine) as session:
            if session.scalar(
                select(func.count()).where(
                    VerificationMailRow.address == key, VerificationMailRow.day == day.isoformat()
                )
            ):
                raise to_address
            sent = (
                session.scalar(
                    select(func.count()).where(
                        VerificationMailRow.player_id == player_id, VerificationMailRow.day == day.isoformat()
                    )
                )
                or 0
            )
        if sent >= self.per_account:
            raise VerificationRefused(
                f"{self.per_account} verification emails a day at most: ask again tomorrow", retry_after
            )
        try:
            with Session(self.engine) as session, session.begin():
                # The days before yesterday count no more: their rows go (a few days' worth are kept at most).
                session.execute(
                    delete(VerificationMailRow).where(VerificationMailRow.day < (day - timedelta(days=1)).isoformat())
                )
                session.add(
                    VerificationMailRow(
                        player_id=player_id, address=key, day=day.isoformat(), slot=sent + 1, sent_at=at
                    )
                )
        except IntegrityError:  # another process sent to this address, or for this account, at the same moment
            raise VerificationRefused("a verification email was just sent: look for it", retry_after) from None


class Tokens:
    """The signed tokens of the emails' links."""

    def __init__(self, secret: str) -> None:
        self.verifying = URLSafeTimedSerializer(secret, salt="luz-email-verify")
        self.unsubscribing = URLSafeTimedSerializer(secret, salt="luz-email-unsubscribe")

    def verify(self, player_id: str, address: str) -> str:
        return self.verifying.dumps([player_id, address])

    def unsubscribe(self, player_id: str, address: str) -> str:
        return self.unsubscribing.dumps([player_id, address])

    def read_verify(self, token: str) -> tuple[str, str] | None:
        """The player and address of a verification token that is valid and recent, else ``None``."""
        return self._read(self.verifying, token, VERIFY_SECONDS)

    def read_unsubscribe(self, token: str) -> tuple[str, str] | None:
        return self._read(self.unsubscribing, token, None)

    @staticmethod
    def _read(serializer: URLSafeTimedSerializer, token: str, max_age: int | None) -> tuple[str, str] | None:
        try:
            value = serializer.loads(token, max_age=max_age)
        except (BadSignature, ValueError, TypeError):
            return None
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
            return value[0], value[1]
        return None


@dataclass(frozen=True)
class TurnGame:
    """A game where it is the reader's turn, as the digest lists it."""

    table_id: str
    name: str
    deadline: int | None


def link(base_url: str, path: str, **query: str) -> str:
    return f"{base_url.rstrip('/')}{path}" + (f"?{urlencode(query)}" if query else "")


def verification_email(mailer: Mailer, tokens: Tokens, player_id: str, to: str, language: str) -> EmailMessage:
    """The email with the link that verifies ``to`` (made from the server's public address alone)."""
    url = link(mailer.public_url, "/api/email/verify", token=tokens.verify(player_id, to))
    return mailer.message(to, mail_text("verify_subject", language), mail_text("verify_body", language, link=url))


def digest_email(
    mailer: Mailer,
    tokens: Tokens,
    base_url: str,
    player_id: str,
    to: str,
    language: str,
    games: list[TurnGame],
    now_ms: int,
) -> EmailMessage:
    """One email listing ``games`` (name, link, time left), with its one-click unsubscribe link and headers."""
    unsubscribe = link(base_url, "/api/email/unsubscribe", token=tokens.unsubscribe(player_id, to))
    lines = [mail_text("digest_intro", language), ""]
    for game in games:
        left = (
            mail_text("left", language, left=time_left(game.deadline - now_ms, language))
            if game.deadline is not None
            else mail_text("no_deadline", language)
        )
        lines.append(f"- {game.name} ({left}): {link(base_url, f'/t/{game.table_id}')}")
    lines += ["", "--", mail_text("unsubscribe", language, link=unsubscribe)]
    message = mailer.message(to, mail_text("digest_subject", language, count=len(games)), "\n".join(lines) + "\n")
    message["List-Unsubscribe"] = f"<{unsubscribe}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return message
