// Your accuracy on the game-over panel (issue 35): the review of your seat when it exists (or once it is computed,
// if it is being computed), with links to it and to your mistakes to retry; else a link that opens the replay and
// asks for it. A review costs the server seconds of search, so it is computed only when someone asks.

import { api, el } from "./common.js";
import { language, t, tWith } from "./i18n.js";

const POLL_MS = 2000;

/** What the panel knows of the review of ``seat`` in game ``game`` of ``tableId``, asked for once per game. */
const known = { key: null, status: "none", accuracy: null, puzzles: [], timer: null };

async function fetchAccuracy(key, url, redraw) {
  let answer = { status: "hidden" }; // a game whose records are not open yet, or the server away
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (response.ok) answer = await response.json();
  } catch {
    // hidden
  }
  if (known.key !== key) return;
  Object.assign(known, { status: answer.status, accuracy: answer.accuracy ?? null, puzzles: answer.puzzles ?? [] });
  if (known.status === "running") known.timer = setTimeout(() => fetchAccuracy(key, url, redraw), POLL_MS);
  redraw();
}

/** Draw ``box`` (the game-over panel's accuracy line) for ``seat`` (``null``: a spectator, nothing shown). */
export function drawOverAccuracy(box, { tableId, game, seat, tournament, redraw }) {
  if (seat === null || seat === undefined || tournament) {
    box.hidden = true;
    return;
  }
  const key = `${tableId}:${game}:${seat}`;
  const table = encodeURIComponent(tableId);
  if (known.key !== key) {
    clearTimeout(known.timer);
    Object.assign(known, { key, status: "asking", accuracy: null, puzzles: [] });
    fetchAccuracy(key, `/api/tables/${table}/games/${game}/accuracy?seat=${seat}`, redraw);
  }
  const reviewLink = `/replay/${table}?game=${game}&review=${seat}`;
  box.hidden = known.status === "asking" || known.status === "hidden";
  box.dataset.state = known.status;
  if (known.status === "running") {
    box.replaceChildren(el("span", { class: "spinner", "aria-hidden": "true" }), t("over.reviewing"));
  } else if (known.status === "none") {
    box.replaceChildren(el("a", { class: "button secondary", href: reviewLink }, t("over.review")));
  } else if (known.status === "ready") {
    const accuracy = known.accuracy;
    const value = accuracy === null ? "–" : `${new Intl.NumberFormat(language(), { maximumFractionDigits: 0 }).format(accuracy)} %`;
    const puzzles = known.puzzles;
    const figure = el("span", { class: "nowrap" }, value); // "83 %" on one line
    box.replaceChildren(
      el("strong", { class: "accuracy-value" }, ...tWith("over.accuracy", {}, "accuracy", figure)),
      " ",
      el("a", { href: reviewLink }, t("over.see_review")),
      ...(puzzles.length
        ? [" · ", el("a", { href: `/puzzle/${table}?game=${game}&seat=${seat}&step=${puzzles[0]}` }, t("over.retry", { n: puzzles.length }))]
        : []),
    );
  }
}
