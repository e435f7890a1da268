"""Display names that cannot pass for another: what a name may hold, and its skeleton, the form two names that look
alike share (Unicode UTS #39), unique among accounts.

The skeleton is the name in NFKC (fullwidth ``Ａ`` is ``A``), case-folded, without default-ignorable characters (the
invisible ones), each character then replaced by the prototype it is confusable with (Cyrillic ``а`` is ``a``). The
confusables come from Unicode's ``confusables.txt`` as the ``confusable-homoglyphs`` package ships it, a table of
pairs in both directions: each pair's prototype is the character the others of its group map to.

Case is folded before the confusables, so ``ALICE`` is ``Alice``, but a capital ``I`` then passes for an ``i``,
not for the ``l`` it looks like in some fonts.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib.resources import files

SKELETON_LENGTH = 255
"""The longest skeleton stored (the column's size): a 40-character name's is far shorter but for a few ligatures."""

_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters shown as nothing at all."""

_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u17b4\u17b5\u2800")
"""Letters and symbols drawn as nothing (the Hangul fillers, Khmer inherent vowels, the blank Braille pattern)."""

_VARIATION_SELECTORS = frozenset(chr(c) for c in range(0xFE00, 0xFE10))
ZWJ = "\u200d"


def default_ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


def _emoji(char: str) -> bool:
    return unicodedata.category(char) == "So"


def invisible_problem(name: str) -> str | None:
    """Why ``name`` holds a character that shows as nothing or changes how the others show (``None``: it does
    not): control, format (bidi controls, zero-width characters), private-use, unassigned or blank characters.
    The zero-width joiner stays between two emoji, where it joins them into one (``👩‍💻``)."""
    for index, char in enumerate(name):
        if char == ZWJ:
            before = name[:index].rstrip("".join(_VARIATION_SELECTORS))[-1:]
            after = name[index + 1 : index + 2]
            if before and after and _emoji(before) and _emoji(after):
                continue
            return (
                "a name cannot hold invisible or control characters (U+200D: a zero-width joiner only joins two emoji)"
            )
        if char in _VARIATION_SELECTORS and index > 0:
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or char in _BLANK_LETTERS or default_ignorable(char):
            return f"a name cannot hold invisible or control characters (U+{ord(char):04X})"
    return None


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype. The package's table lists, for each character, those it can be
    confused with: a prototype lists its group, each other character its prototype alone; a group of two is
    given the smaller character (either maps the pair to one skeleton)."""
    table: dict[str, list[dict[str, str]]] = json.loads(
        files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8")
    )

    def clean(text: str) -> str:  # the table keeps the direction marks that show right-to-left characters
        return text.replace("\u200e", "").replace("\u200f", "")

    peers = {clean(char): [clean(peer["c"]) for peer in entries] for char, entries in table.items()}
    prototypes: dict[str, str] = {}
    for char, found in peers.items():
        if len(char) != 1 or len(found) != 1:
            continue  # a prototype: it stays itself
        other = found[0]
        if len(other) > 1 or len(peers.get(other, ())) > 1 or other < char:
            prototypes[char] = other
    return prototypes


def skeleton(name: str) -> str:
    """The form ``name`` shares with every name that looks like it (see the module)."""
    prototypes, form = _prototypes(), name
    for _ in range(3):  # a prototype may be a capital (``0`` looks like ``O``): folded and mapped again
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", form).casefold())
        visible = unicodedata.normalize("NFD", "".join(c for c in folded if not default_ignorable(c)))
        mapped = unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in visible))
        if mapped == form:
            break
        form = mapped
    return form
