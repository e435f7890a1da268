"""Server settings: from command-line options, else the environment, else embedded defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_database_url() -> str:
    """An embedded SQLite database in the user's data folder (``$XDG_DATA_HOME/luz/luz.sqlite3``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'luz' / 'luz.sqlite3'}"


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str | None = None
    """Redis for table events across server processes; ``None``: one process, events stay in memory."""
    bot_workers: int = 1
    """Processes that compute bot moves."""
    bot_seconds: float = 5.0
    """The most time a bot's move may take: the cap on a bot's ``seconds=`` and on any release time."""
    bot_pace: float = 0.0
    """When a quick bot's move is played (``luz serve``: 0.5 s), and the least time of any bot's move."""
    bot_iteration_seconds: float = 0.004
    """Time a search bot is given per iteration of an ``iters=`` budget (its default 64: 0.26 s): its moves are
    played at that fixed time, so that its thinking time, which depends on what its seat sees (the others'
    hidden cards included), tells the players nothing (``luz.server.tables.botpool.release_time``)."""
    bot_max_iters: int = 256
    """The most iterations a table's bot may be given (``strong:iters=N``); more is refused (422)."""
    bot_max_oversample: int = 8
    """The most ``oversample`` a table's bot may be given."""
    review_worlds: int = 400
    """Worlds per decision of a game's review (``LUZ_REVIEW_WORLDS``; luz.bots.review.DEFAULT_WORLDS)."""
    review_queue: int = 4
    """Reviews this process computes at once (``LUZ_REVIEW_QUEUE``); more wait their turn, the clients served in
    turn (server/reviews.py)."""
    review_waiting: int = 100
    """Reviews that may wait their turn in this process (``LUZ_REVIEW_WAITING``); more are refused with 429."""
    reviews_per_client: int = 1_000_000
    """Reviews one client address may have waiting or computed at once, all its identities together
    (``LUZ_REVIEWS_PER_CLIENT``; ``luz serve``: 2): guests are free, so one address cannot hold the whole queue."""
    max_message_bytes: int = 4096
    messages_per_second: float = 20.0
    """Sustained rate of messages a connection may send (with a burst of twice as many)."""
    max_connections_per_seat: int = 4
    """Connections one seat may have open; a new one beyond closes the oldest (code 4409)."""
    max_spectators_per_table: int = 64
    """Spectator connections of one table; more are refused (code 4429)."""
    max_connections_per_client: int = 256
    """WebSocket connections one client address may have open on this process; more are refused (code 4429)."""
    connections_per_second: str = "1000/second"
    """Sockets one client address may open (a ``limits`` rate; ``luz serve``: ``"30/second"``): more are closed
    as they open (from a trusted proxy: the WebSocket connections of each forwarded address, refused with 403)."""
    seat_connections_per_minute: str | None = None
    """New WebSocket connections one seat may get, from any address (a ``limits`` rate, counted by every process
    with Redis; ``luz serve``: ``"30/minute"``): more are refused before the handshake (403), before any other
    work, so churning connections on one seat's token costs the other tables nothing. ``None``: no limit."""
    tables_per_minute: str | None = None
    """Tables one client may create (a ``limits`` rate; ``luz serve``: ``"10/minute"``); more are refused with
    429 and ``Retry-After``. ``None``: no limit."""
    bot_tables_per_client: int = 1_000_000
    """All-bot tables one client may have playing at once on a process (``luz serve``: 3); more are refused with
    429: each plays on without anyone, a few actions a second of the server's time."""
    guests_per_minute: str | None = None
    """New guest identities one client may get (a ``limits`` rate; ``luz serve``: ``"30/minute"``); more are
    refused with 429. ``None``: no limit."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose ``X-Forwarded-For`` names the client; from anyone else it is ignored."""
    ipv6_prefix: int = 64
    """The IPv6 network counted as one client by every limit and seat rule (``LUZ_IPV6_PREFIX``, 32 to 128: an
    IPv6 provider gives a home a /64, some a /56); an IPv4 address is one client (ratelimit.address_key)."""
    waiting_tables_per_client: int = 1_000_000
    """Public tables one client may have waiting for players at once (``LUZ_WAITING_TABLES_PER_CLIENT``; ``luz
    serve``: 3); one more is refused (429, ``waiting_tables_per_client``): one client cannot fill the lobby."""
    waiting_live_seconds: float = 0.0
    """Seconds a real-time table nobody joined waits before it expires (``LUZ_WAITING_LIVE_SECONDS``; ``luz
    serve``: 3600); 0: never."""
    waiting_turn_based_seconds: float = 0.0
    """Seconds a turn-based table nobody joined waits before it expires (``LUZ_WAITING_TURN_BASED_SECONDS``; ``luz
    serve``: 604800, a week); 0: never."""
    header_timeout: float = 10.0
    """Seconds a client has to send a request's headers once connected (slow clients hold sockets)."""
    public_url: str = ""
    """Prefix of invite links and of every email's links (e.g. ``https://luz.example``); empty: relative invite
    links, and no email at all (a link is never made from a request's ``Host``)."""
    secret_key: str = ""
    """Signs the session cookies (``LUZ_SECRET_KEY``); empty: a key stored once in the database for every process."""
    max_turn_based_games: int = 50
    """Unfinished turn-based tables one identity may sit at (``LUZ_MAX_TURN_BASED_GAMES``); joining one more is
    refused (403, ``too_many_games``)."""
    vacation_days_per_year: int = 20
    """Vacation days an account may take in a calendar year (``LUZ_VACATION_DAYS``; guests none): the clocks of
    its turn-based games stop meanwhile (vacation.py)."""
    idle_table_seconds: float = 600.0
    """Seconds a table with nobody connected and nothing to do stays in memory (``LUZ_IDLE_TABLE_SECONDS``);
    then it leaves, and is rebuilt from its record on its next action, connection or deadline."""
    deadline_scan_seconds: float = 1.0
    """How often the database is asked for the turn-based tables whose deadline has passed
    (``LUZ_DEADLINE_SCAN_SECONDS``)."""
    smtp_url: str = ""
    """The mail server of the email digest (``smtp://user:pass@host:587``, ``smtps://`` for TLS); empty: no email."""
    mail_from: str = ""
    """The digest's sender address (and the VAPID contact); empty: ``luz@localhost``."""
    verification_mails_per_day: int = 3
    """Verification emails one account may have sent in a UTC day (and an address gets one a day at most)."""
    vapid_private_key: str = ""
    """The Web Push signing key (PEM, or base64url raw or DER); empty: one stored once in the database for every
    process."""
    notify_seconds: float = 2.0
    """How often the notifier looks for turns to tell (notify/notifier.py)."""
    push_allow_local: bool = False
    """Whether push endpoints may be loopback or private addresses (tests): otherwise refused (SSRF)."""

    seats_per_address: int = 0
    """Seats one client address may hold at a public (listed) or rated table, through any identity
    (``LUZ_SEATS_PER_ADDRESS``; ``luz serve``: 1); 0: no limit. Private unrated tables reached by invite keep
    allowing friends behind one address, and a friend's personal invitation seats them anywhere (a rated table
    then becomes unrated)."""
    rated_min_account_hours: float = 0.0
    """How old an account must be to take a rated seat, unless it has ``rated_min_games`` finished games
    (``LUZ_RATED_MIN_ACCOUNT_HOURS``; ``luz serve``: 24)."""
    rated_min_games: int = 0
    """Games that let a younger account take a rated seat (``LUZ_RATED_MIN_GAMES``; ``luz serve``: 3): finished at
    its seat with another human, not linked to it (links.py), who finished too (``Store.counted_games``)."""
    accounts_per_address: str | None = None
    """New accounts one client address may register (a ``limits`` rate, ``LUZ_ACCOUNTS_PER_ADDRESS``;
    ``luz serve``: ``"3/day"``). ``None``: no limit."""
    renames_per_week: int = 3
    """Display-name changes one identity may make in seven days (``LUZ_RENAMES_PER_WEEK``); the first, from a
    guest's random name, is free."""
    rematch_seconds: float = 120.0
    """How long a rematch offer waits for every human's answer (``LUZ_REMATCH_SECONDS``)."""
    exports_per_minute: str | None = None
    """Pages of ``/api/export`` one client may get (a ``limits`` rate, ``LUZ_EXPORTS_PER_MINUTE``; ``luz serve``:
    ``"10/minute"``: each page replays up to 100 games); more are refused with 429 and ``Retry-After``. ``None``: no
    limit."""
    puzzle_answers_per_minute: str | None = None
    """Puzzle answers one client may send (a ``limits`` rate, ``LUZ_PUZZLE_ANSWERS_PER_MINUTE``; ``luz serve``:
    ``"30/minute"``: each reads a stored review, on SQLite in the event loop's own thread); more are refused with
    429 and ``Retry-After``. ``None``: no limit."""
    invitations_per_invitee: str = "2/minute;6/hour"
    """Invitations one player may send to one other (every rate of the ``;``-separated list holds), beside the 10
    a minute each player may send in all: no player floods another (``LUZ_INVITATIONS_PER_INVITEE``)."""
    guest_days: float = 0.0
    """Days after which a guest nothing uses (no seat, no game, no follow, block or subscription) and not seen
    since is deleted (``LUZ_GUEST_DAYS``; ``luz serve``: 30); 0: guests are kept."""
    chat_per_address: str | None = None
    """Chat messages one client address may send, all its people together (a ``limits`` rate,
    ``LUZ_CHAT_PER_ADDRESS``; ``luz serve``: ``"15/10 seconds"``, three people's worth of the limit per person);
    more are refused (``rate_limited``). ``None``: no limit."""
    metrics_token: str = ""
    """The Bearer token that ``GET /metrics`` asks for (``LUZ_METRICS_TOKEN``); empty: no ``/metrics`` (404)."""
    log_format: str = "text"
    """``luz serve``'s log lines: ``text`` or ``json`` (``LUZ_LOG_FORMAT``; luz.server.logs)."""

    @classmethod
    def from_env(cls, database_url: str | None = None, redis_url: str | None = None) -> Settings:
        return cls(
            database_url=database_url or os.environ.get("LUZ_DATABASE_URL") or default_database_url(),
            redis_url=redis_url or os.environ.get("LUZ_REDIS_URL") or None,
            bot_workers=int(os.environ.get("LUZ_BOT_WORKERS", "1")),
            bot_seconds=float(os.environ.get("LUZ_BOT_SECONDS", "5")),
            bot_pace=float(os.environ.get("LUZ_BOT_PACE", "0.5")),
            review_worlds=int(os.environ.get("LUZ_REVIEW_WORLDS", "400")),
            review_queue=int(os.environ.get("LUZ_REVIEW_QUEUE", "4")),
            review_waiting=int(os.environ.get("LUZ_REVIEW_WAITING", "100")),
            reviews_per_client=int(os.environ.get("LUZ_REVIEWS_PER_CLIENT", "2")),
            tables_per_minute=os.environ.get("LUZ_TABLES_PER_MINUTE", "10/minute") or None,
            guests_per_minute=os.environ.get("LUZ_GUESTS_PER_MINUTE", "30/minute") or None,
            bot_tables_per_client=int(os.environ.get("LUZ_BOT_TABLES_PER_CLIENT", "3")),
            max_connections_per_client=int(os.environ.get("LUZ_CONNECTIONS_PER_CLIENT", "256")),
            connections_per_second=os.environ.get("LUZ_CONNECTIONS_PER_SECOND", "30/second"),
            seat_connections_per_minute=os.environ.get("LUZ_SEAT_CONNECTIONS_PER_MINUTE", "30/minute") or None,
            header_timeout=float(os.environ.get("LUZ_HEADER_TIMEOUT", "10")),
            ipv6_prefix=int(os.environ.get("LUZ_IPV6_PREFIX", "64")),
            waiting_tables_per_client=int(os.environ.get("LUZ_WAITING_TABLES_PER_CLIENT", "3")),
            waiting_live_seconds=float(os.environ.get("LUZ_WAITING_LIVE_SECONDS", "3600")),
            waiting_turn_based_seconds=float(os.environ.get("LUZ_WAITING_TURN_BASED_SECONDS", "604800")),
            trusted_proxies=tuple(p for p in os.environ.get("LUZ_TRUSTED_PROXIES", "").replace(",", " ").split() if p),
            public_url=os.environ.get("LUZ_PUBLIC_URL", ""),
            secret_key=os.environ.get("LUZ_SECRET_KEY", ""),
            max_turn_based_games=int(os.environ.get("LUZ_MAX_TURN_BASED_GAMES", "50")),
            vacation_days_per_year=int(os.environ.get("LUZ_VACATION_DAYS", "20")),
            idle_table_seconds=float(os.environ.get("LUZ_IDLE_TABLE_SECONDS", "600")),
            deadline_scan_seconds=float(os.environ.get("LUZ_DEADLINE_SCAN_SECONDS", "1")),
            smtp_url=os.environ.get("LUZ_SMTP_URL", ""),
            mail_from=os.environ.get("LUZ_MAIL_FROM", ""),
            verification_mails_per_day=int(os.environ.get("LUZ_VERIFICATION_MAILS_PER_DAY", "3")),
            vapid_private_key=os.environ.get("LUZ_VAPID_PRIVATE_KEY", ""),
            notify_seconds=float(os.environ.get("LUZ_NOTIFY_SECONDS", "2")),
            push_allow_local=os.environ.get("LUZ_PUSH_ALLOW_LOCAL", "") == "1",
            seats_per_address=int(os.environ.get("LUZ_SEATS_PER_ADDRESS", "1")),
            rated_min_account_hours=float(os.environ.get("LUZ_RATED_MIN_ACCOUNT_HOURS", "24")),
            rated_min_games=int(os.environ.get("LUZ_RATED_MIN_GAMES", "3")),
            accounts_per_address=os.environ.get("LUZ_ACCOUNTS_PER_ADDRESS", "3/day") or None,
            renames_per_week=int(os.environ.get("LUZ_RENAMES_PER_WEEK", "3")),
            rematch_seconds=float(os.environ.get("LUZ_REMATCH_SECONDS", "120")),
            exports_per_minute=os.environ.get("LUZ_EXPORTS_PER_MINUTE", "10/minute") or None,
            puzzle_answers_per_minute=os.environ.get("LUZ_PUZZLE_ANSWERS_PER_MINUTE", "30/minute") or None,
            invitations_per_invitee=os.environ.get("LUZ_INVITATIONS_PER_INVITEE", "2/minute;6/hour"),
            guest_days=float(os.environ.get("LUZ_GUEST_DAYS", "30")),
            chat_per_address=os.environ.get("LUZ_CHAT_PER_ADDRESS", "15/10 seconds") or None,
            metrics_token=os.environ.get("LUZ_METRICS_TOKEN", ""),
            log_format=os.environ.get("LUZ_LOG_FORMAT", "text"),
        )
