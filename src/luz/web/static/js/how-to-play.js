// How to play: the page's own language shown (plain.js), the deck table of every edition and player count drawn
// from the editions endpoint (never written by hand), and the deduction lesson (lesson.js).

import { colourName, editions, el } from "./common.js";
import { t, onLanguageChange } from "./i18n.js";
import { renderLesson } from "./lesson.js";
import { ready } from "./plain.js";

/** One row per edition and player count: values, colours (the trump marked), cards each, cards set aside. */
function deckTable(byKey) {
  const header = ["edition", "players", "values", "colours", "hand", "aside"];
  const rows = Object.values(byKey).flatMap((edition) =>
    edition.players.map((players) => {
      const names = edition.value_names[players];
      // A no-break space: a narrow column never parts a colour's symbol from its name.
      const colours = edition.colours.map((c) => `${c.symbol}\u00a0${colourName(c)}${c.trump ? `\u00a0(${t("howto.trump")})` : ""}`);
      const cells = [edition.name, players, `${names[0]}–${names.at(-1)}`, colours.join(", "), edition.hand_size, edition.aside[players]];
      return el(
        "tr",
        { dataset: { edition: edition.key, players } },
        ...cells.map((cell, i) => el(i === 0 ? "th" : "td", i === 0 ? { scope: "row" } : {}, String(cell))),
      );
    }),
  );
  return el(
    "div",
    { class: "deck-scroll", role: "region", tabindex: 0, "aria-label": t("howto.deck_title") }, // scrolls on a phone
    el(
      "table",
      { class: "deck-table" },
      el("caption", {}, t("howto.deck_caption")),
      el("thead", {}, el("tr", {}, ...header.map((key) => el("th", { scope: "col" }, t(`howto.deck_${key}`))))),
      el("tbody", {}, ...rows),
    ),
  );
}

async function draw() {
  const byKey = await editions();
  for (const box of document.querySelectorAll("article:not([hidden]) [data-deck]")) box.replaceChildren(deckTable(byKey));
  // The lesson in the shown language only: its ids are the page's once.
  for (const box of document.querySelectorAll("article[hidden] [data-lesson]")) box.replaceChildren();
  for (const box of document.querySelectorAll("article:not([hidden]) [data-lesson]")) renderLesson(box);
}

ready.then(() => {
  draw();
  onLanguageChange(draw);
});
