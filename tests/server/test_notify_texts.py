"""The notifications' words in every language: the same texts and placeholders as English, Japanese as a Japanese
player reads it, and English for a language the server does not speak."""

from __future__ import annotations

import re

import pytest

from luz.server.notify import texts
from luz.server.notify.texts import LANGUAGES, invitation_payload, mail_text, push_payload, time_left


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{\w+\}", text))


def as_dict(texts_of_one_language: dict[str, str] | tuple[str, ...]) -> dict[str, str]:
    """A language's texts keyed by name (a tuple's by position)."""
    if isinstance(texts_of_one_language, dict):
        return texts_of_one_language
    return {str(position): text for position, text in enumerate(texts_of_one_language)}


@pytest.mark.parametrize("table", ["_TITLES", "_BODIES", "_MAIL", "_DURATIONS", "_INVITATION"])
def test_every_language_has_every_text_of_english_with_its_placeholders(table: str) -> None:
    texts_of = getattr(texts, table)
    assert set(texts_of) == set(LANGUAGES) == {"en", "fr", "ja"}
    english = as_dict(texts_of["en"])
    for language in LANGUAGES:
        theirs = as_dict(texts_of[language])
        assert set(theirs) == set(english), language
        for key, ours in english.items():
            assert placeholders(ours) == placeholders(theirs[key]), (language, key)


def test_a_japanese_player_is_told_in_japanese() -> None:
    push = push_payload("turn", "t1", "ルースの卓", None, "ja")
    assert push["title"] == "ルースの卓 であなたの番です" and push["url"] == "/t/t1"
    invitation = invitation_payload("t1", "金曜の卓", 2, "ハナ", "ja")
    assert invitation["title"] == "ハナ が 金曜の卓 にあなたを招待しています" and "3 番席" in invitation["body"]
    assert mail_text("digest_subject", "ja", count=2) == "LUZ であなたの番です（2 件）"
    assert mail_text("left", "ja", left=time_left((2 * 1440 + 3 * 60) * 60_000, "ja")) == "残り 2日3時間"
    assert time_left(70 * 60_000, "ja") == "1時間10分" and time_left(12 * 60_000, "ja") == "12分"


def test_english_and_french_durations_stay_short_and_an_unknown_language_is_english() -> None:
    assert time_left((1440 + 60) * 60_000) == time_left((1440 + 60) * 60_000, "fr") == "1 d 1 h"
    assert time_left(-5) == "0 min"
    assert push_payload("reminder", "t1", "Luz", None, "de")["title"] == "A quarter of your time is left at Luz"


def test_the_digest_subject_needs_no_plural_in_brackets() -> None:
    subjects = [mail_text("digest_subject", lang, count=n) for lang in ("en", "fr", "ja") for n in (1, 3)]
    assert subjects[:2] == ["Your turn at LUZ: 1 to play", "Your turn at LUZ: 3 to play"]
    assert not [s for s in subjects if "(s)" in s or "game" in s or "partie" in s]


def test_a_new_round_is_told_as_a_round_not_as_a_turn() -> None:
    for language in LANGUAGES:
        round_push = push_payload("round", "t1", "Sunday · 2.1", None, language)
        turn_push = push_payload("turn", "t1", "Sunday · 2.1", None, language)
        assert "Sunday · 2.1" in round_push["title"] and round_push["url"] == "/t/t1"
        assert (round_push["title"], round_push["body"]) != (turn_push["title"], turn_push["body"])
    assert push_payload("round", "t1", "Sunday · 2.1", None, "en")["title"] == "A new round starts: Sunday · 2.1"
