"""Checks of a page in the browser that several test modules make: axe-core in every language, no English left on
a Japanese page."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from luz.web import STATIC

LANGUAGES = ("en", "fr", "ja")


def violations(page: Any, where: str, found: Counter[str]) -> list[str]:
    """The violations of ``page`` in each language, at any impact; rules passed and violations counted in ``found``
    by language."""
    from axe_playwright_python.sync_playwright import Axe

    bad = []
    for lang in LANGUAGES:
        page.click(f".lang button[data-lang='{lang}']")
        # Pressed once the page is translated (the static HTML's lang="en" holds before its texts are filled).
        page.wait_for_selector(f".lang button[data-lang='{lang}'][aria-pressed='true']")
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        response = Axe().run(page).response
        found[f"{lang} checks"] += 1
        found[f"{lang} rules passed"] += len(response["passes"])
        for violation in response["violations"]:
            found[f"{lang} {violation['impact']}"] += 1
            targets = [node["target"] for node in violation["nodes"]][:3]
            bad.append(f"{where} ({lang}, {violation['impact']}): {violation['id']} {targets}")
    return bad


def english_phrases() -> list[str]:
    """The English texts of en.json that Japanese says otherwise, cut at their placeholders: pieces of two words or
    more, which a Japanese page never shows."""
    english = json.loads((STATIC / "i18n" / "en.json").read_text())
    japanese = json.loads((STATIC / "i18n" / "ja.json").read_text())
    pieces = {
        piece.strip()
        for key, text in english.items()
        if text != japanese[key]
        for piece in re.split(r"\{\w+\}", text)
        if re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", piece)
    }
    return sorted(pieces)


# The visible text nodes and the accessible names (aria-label, title, placeholder) that hold English: a phrase of
# en.json, or a common English word (player and table names here have none).
ENGLISH_LEFT = """(phrases) => {
  const word = /\\b(the|your|you|and|with|of|to|is|a)\\b/; // lower case: the 2014 token "AND 1" is its name
  const english = (text) => word.test(text) || phrases.some((phrase) => text.includes(phrase));
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const parent = walker.currentNode.parentElement;
    const text = walker.currentNode.textContent.trim();
    if (text && parent.checkVisibility() && !parent.closest('[lang]:not([lang=ja])') && english(text)) found.push(text);
  }
  for (const node of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (node.closest('[lang]:not([lang=ja])') || !node.checkVisibility()) continue;
    for (const name of ['aria-label', 'title', 'placeholder']) {
      const text = node.getAttribute(name);
      if (text && english(text)) found.push(`${name}: ${text}`);
    }
  }
  return found;
}"""


def english_left(page: Any) -> list[str]:
    page.wait_for_function("document.documentElement.lang === 'ja'")
    found: list[str] = page.evaluate(ENGLISH_LEFT, english_phrases())
    return found
