// Your accuracy on the game-over panel (issue 35): the review of your seat when it exists (or once it is computed,
// if it is being computed), with links to it and to your mistakes to retry; else a link that opens the replay and
// asks for it. A review costs the server seconds of search, so it is computed only when someone asks.

import { api, el } from "./common.js";
import { language, t } from "./i18n.js";

const POLL_MS = 2000;
const PUZZLES = ["mistake", "blunder"];

/** What the panel knows of the review of ``seat`` in game ``game`` of ``tableId``, asked for once per game. */
const known = { key: null, status: "none", review: null, timer: null };

async function fetchReview(key, url, redraw) {
  let status = "none";
  let review = null;
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (response.status === 200) [status, review] = ["ready", (await response.json()).review];
    else if (response.status === 202) status = "running";
    else if (response.status !== 404) status = "hidden"; // a game whose records are not open yet
  } catch {
    status = "hidden";
  }
  if (known.key !== key) return;
  Object.assign(known, { status, review });
  if (status === "running") known.timer = setTimeout(() => fetchReview(key, url, redraw), POLL_MS);
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
    Object.assign(known, { key, status: "asking", review: null });
    fetchReview(key, `/api/tables/${table}/games/${game}/review?seat=${seat}`, redraw);
  }
  const reviewLink = `/replay/${table}?game=${game}&review=${seat}`;
  box.hidden = known.status === "asking" || known.status === "hidden";
  box.dataset.state = known.status;
  if (known.status === "running") {
    box.replaceChildren(el("span", { class: "spinner", "aria-hidden": "true" }), t("over.reviewing"));
  } else if (known.status === "none") {
    box.replaceChildren(el("a", { class: "button secondary", href: reviewLink }, t("over.review")));
  } else if (known.status === "ready") {
    const accuracy = known.review.game.accuracy;
    const value = accuracy === null ? "–" : `${new Intl.NumberFormat(language(), { maximumFractionDigits: 0 }).format(accuracy)} %`;
    const puzzles = known.review.decisions.filter((d) => !d.forced && PUZZLES.includes(d.label));
    box.replaceChildren(
      el("strong", { class: "accuracy-value" }, t("over.accuracy", { accuracy: value })),
      " ",
      el("a", { href: reviewLink }, t("over.see_review")),
      ...(puzzles.length
        ? [" · ", el("a", { href: `/puzzle/${table}?game=${game}&seat=${seat}&step=${puzzles[0].step}` }, t("over.retry", { n: puzzles.length }))]
        : []),
    );
  }
}
