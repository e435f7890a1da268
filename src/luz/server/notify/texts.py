"""Every word a notification says, in English and French, from public facts only: a table's name, its id, a
deadline."""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["turn", "reminder"]
LANGUAGES = ("en", "fr")

_TITLES: dict[str, dict[str, str]] = {
    "en": {"turn": "Your turn at {name}", "reminder": "A quarter of your time is left at {name}"},
    "fr": {"turn": "À vous de jouer à {name}", "reminder": "Il vous reste un quart de votre temps à {name}"},
}
_BODIES: dict[str, dict[str, str]] = {
    "en": {"turn": "Open the table to play your move.", "reminder": "Play your move before the deadline."},
    "fr": {"turn": "Ouvrez la table pour jouer votre coup.", "reminder": "Jouez votre coup avant l'échéance."},
}
_MAIL: dict[str, dict[str, str]] = {
    "en": {
        "digest_subject": "Your turn in {count} game(s) of LUZ",
        "digest_intro": "It is your turn at these tables:",
        "left": "{left} left",
        "no_deadline": "no deadline",
        "unsubscribe": "Stop these emails: {link}",
        "verify_subject": "Confirm your email address for LUZ",
        "verify_body": "Follow this link to receive an email when it is your turn:\n\n{link}\n\n"
        "If you did not ask for it, ignore this message.",
    },
    "fr": {
        "digest_subject": "À vous de jouer dans {count} partie(s) de LUZ",
        "digest_intro": "C'est à vous de jouer à ces tables :",
        "left": "il reste {left}",
        "no_deadline": "sans échéance",
        "unsubscribe": "Ne plus recevoir ces emails : {link}",
        "verify_subject": "Confirmez votre adresse email pour LUZ",
        "verify_body": "Suivez ce lien pour recevoir un email quand c'est à vous de jouer :\n\n{link}\n\n"
        "Si vous ne l'avez pas demandé, ignorez ce message.",
    },
}


def language_of(language: str) -> str:
    return language if language in LANGUAGES else "en"


def push_payload(kind: Kind, table_id: str, name: str, deadline: int | None, language: str) -> dict[str, Any]:
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


def time_left(milliseconds: int) -> str:
    """``2 d 3 h``, ``5 h 10 min``, ``12 min`` (the same in both languages)."""
    minutes = max(0, milliseconds) // 60_000
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {mins} min"
    return f"{mins} min"
