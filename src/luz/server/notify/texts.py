"""Every word a notification says, in English, French and Japanese, from public facts only: a table's name, its id, a
deadline."""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["turn", "reminder"]
"""What the notifier finds due at a turn-based table."""
PushKind = Literal["turn", "reminder", "round"]
"""A push about a table: a turn, a reminder, or a tournament's new round seating the player there."""
LANGUAGES = ("en", "fr", "ja")

_TITLES: dict[str, dict[str, str]] = {
    "en": {
        "turn": "Your turn at {name}",
        "reminder": "A quarter of your time is left at {name}",
        "round": "A new round starts: {name}",
    },
    "fr": {
        "turn": "À vous de jouer à {name}",
        "reminder": "Il vous reste un quart de votre temps à {name}",
        "round": "Une nouvelle ronde commence : {name}",
    },
    "ja": {
        "turn": "{name} であなたの番です",
        "reminder": "{name} の持ち時間が残り4分の1です",
        "round": "新しいラウンドが始まります：{name}",
    },
}
_BODIES: dict[str, dict[str, str]] = {
    "en": {
        "turn": "Open the table to play your move.",
        "reminder": "Play your move before the deadline.",
        "round": "Your table is ready: open it to play.",
    },
    "fr": {
        "turn": "Ouvrez la table pour jouer votre coup.",
        "reminder": "Jouez votre coup avant l'échéance.",
        "round": "Votre table est prête : ouvrez-la pour jouer.",
    },
    "ja": {
        "turn": "テーブルを開いて手を指してください。",
        "reminder": "期限までに手を指してください。",
        "round": "あなたのテーブルの準備ができました。開いてプレイしてください。",
    },
}
_MAIL: dict[str, dict[str, str]] = {
    "en": {
        "digest_subject": "Your turn at LUZ: {count} to play",
        "digest_intro": "It is your turn at these tables:",
        "left": "{left} left",
        "no_deadline": "no deadline",
        "unsubscribe": "Stop these emails: {link}",
        "verify_subject": "Confirm your email address for LUZ",
        "verify_body": "Follow this link to receive an email when it is your turn:\n\n{link}\n\n"
        "If you did not ask for it, ignore this message.",
    },
    "fr": {
        "digest_subject": "À vous de jouer sur LUZ : {count} en attente",
        "digest_intro": "C'est à vous de jouer à ces tables :",
        "left": "il reste {left}",
        "no_deadline": "sans échéance",
        "unsubscribe": "Ne plus recevoir ces emails : {link}",
        "verify_subject": "Confirmez votre adresse email pour LUZ",
        "verify_body": "Suivez ce lien pour recevoir un email quand c'est à vous de jouer :\n\n{link}\n\n"
        "Si vous ne l'avez pas demandé, ignorez ce message.",
    },
    "ja": {
        "digest_subject": "LUZ であなたの番です（{count} 件）",
        "digest_intro": "次のテーブルであなたの番です：",
        "left": "残り {left}",
        "no_deadline": "期限なし",
        "unsubscribe": "このメールの配信を停止：{link}",
        "verify_subject": "LUZ のメールアドレスの確認",
        "verify_body": "手番が来たときにメールを受け取るには、次のリンクを開いてください：\n\n{link}\n\n"
        "お心当たりのない場合は、このメールを無視してください。",
    },
}


def language_of(language: str) -> str:
    return language if language in LANGUAGES else "en"


def push_payload(kind: PushKind, table_id: str, name: str, deadline: int | None, language: str) -> dict[str, Any]:
    """A push's content: exactly these keys, all public."""
    lang = language_of(language)
    return {
        "kind": kind,
        "title": _TITLES[lang][kind].format(name=name),
        "body": _BODIES[lang][kind],
        "url": f"/t/{table_id}",
        "table": table_id,
        "deadline": deadline,
    }


_INVITATION = {
    "en": ("{by} invites you to {name}", "Seat {seat} is yours if you join now."),
    "fr": ("{by} vous invite à {name}", "La place {seat} est à vous si vous la prenez maintenant."),
    "ja": ("{by} が {name} にあなたを招待しています", "今参加すれば {seat} 番席に座れます。"),
}


def invitation_payload(table_id: str, name: str, seat: int, by: str, language: str) -> dict[str, Any]:
    """A friend's invitation to an open seat, as a push (public facts only: the table, the seat, who invites)."""
    title, body = _INVITATION[language_of(language)]
    return {
        "kind": "invitation",
        "title": title.format(by=by, name=name),
        "body": body.format(seat=seat + 1),
        "url": "/friends",
        "table": table_id,
        "deadline": None,
    }


def mail_text(key: str, language: str, **values: Any) -> str:
    return _MAIL[language_of(language)][key].format(**values)


_DURATIONS = {
    "en": ("{days} d {hours} h", "{hours} h {mins} min", "{mins} min"),
    "fr": ("{days} d {hours} h", "{hours} h {mins} min", "{mins} min"),
    "ja": ("{days}日{hours}時間", "{hours}時間{mins}分", "{mins}分"),
}


def time_left(milliseconds: int, language: str = "en") -> str:
    """``2 d 3 h``, ``5 h 10 min``, ``12 min`` (the same in English and French; ``2日3時間`` in Japanese)."""
    minutes = max(0, milliseconds) // 60_000
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
    with_days, with_hours, only_minutes = _DURATIONS[language_of(language)]
    if days:
        return with_days.format(days=days, hours=hours)
    if hours:
        return with_hours.format(hours=hours, mins=mins)
    return only_minutes.format(mins=mins)
