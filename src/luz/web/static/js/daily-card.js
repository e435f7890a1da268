// The home page's daily deal, beside Play now: today's first deal (IELLO), whether you played it, the time left.

import { $, api, el } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";

let today = null;

function draw() {
  const box = $("#daily-card");
  if (!today || !box) return;
  const deal = today.deals[0];
  const attempt = deal.attempt;
  const minutes = Math.max(0, Math.floor(today.seconds_left / 60));
  const left = t("daily.left", { h: Math.floor(minutes / 60), m: minutes % 60 });
  let status = t("daily.not_played");
  let action = t("daily.play_today");
  if (attempt?.status === "playing") [status, action] = [t("daily.status_playing"), t("daily.continue")];
  else if (attempt) [status, action] = [attempt.score !== null ? t("daily.finished", { score: attempt.score }) : t(`daily.status_${attempt.status}`), t("daily.see")];
  box.replaceChildren(
    el("h2", { id: "daily-card-title" }, t("daily.title")),
    el("p", { class: "daily-card-status" }, `${status} · ${left}`),
    el("a", { class: "button", id: "daily-card-link", href: `/daily?edition=${encodeURIComponent(deal.edition)}` }, action),
  );
  box.hidden = false;
}

async function main() {
  try {
    today = await api("/api/daily");
  } catch {
    return; // the home page works without it
  }
  onLanguageChange(draw);
  draw();
}

main();
