// A page with nothing of its own to do (not found, how to play): the header, translations, and the parts of the
// page written in the chosen language shown (``article[data-lang]``). ``ready``: once they are.

import { language, onLanguageChange } from "./i18n.js";
import { startPage } from "./site.js";

function showLanguage() {
  for (const node of document.querySelectorAll("article[data-lang]")) node.hidden = node.dataset.lang !== language();
}

async function start() {
  const embedded = new URLSearchParams(location.search).has("embed");
  if (embedded) document.body.classList.add("embedded");
  await startPage();
  showLanguage();
  onLanguageChange(showLanguage);
}

export const ready = start();
