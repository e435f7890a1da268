"""The email digest and the address's verification, sent with aiosmtplib (``LUZ_SMTP_URL``: nothing is sent
without it), and the signed links of each email (itsdangerous): verify an address, unsubscribe in one click."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlencode, urlsplit

import aiosmtplib
from itsdangerous import BadSignature, URLSafeTimedSerializer

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


class Mailer:
    """Sends emails through the configured SMTP server (none configured: :attr:`configured` is false)."""

    def __init__(self, smtp_url: str, mail_from: str, timeout: float = SEND_TIMEOUT) -> None:
        self.server = parse_smtp_url(smtp_url)
        self.sender = mail_from or DEFAULT_FROM
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

    async def send(self, message: EmailMessage) -> bool:
        """Send ``message``; whether the SMTP server took it (never raises)."""
        server = self.server
        if server is None:
            return False
        try:
            await aiosmtplib.send(
                message,
                hostname=server.host,
                port=server.port,
                username=server.username,
                password=server.password,
                use_tls=server.tls,
                timeout=self.timeout,
            )
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
            log.warning("email not sent: %s", type(error).__name__)
            return False
        return True


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


def verification_email(
    mailer: Mailer, tokens: Tokens, base_url: str, player_id: str, to: str, language: str
) -> EmailMessage:
    url = link(base_url, "/api/email/verify", token=tokens.verify(player_id, to))
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
