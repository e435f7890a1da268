// The daily deal (GET /api/daily): today's deals and your attempt at each, playing one (POST /api/daily/{edition}:
// your table), the day's results once your attempt is over (your rank and percentile, the scores' chart, the best
// players and their replays, how everyone bid, the share text), your streak, your dailies and the archive.

import { $, ApiError, api, copy, editions, el, saved } from "./common.js";
import { formatDate, onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";

const state = { today: null, history: null, results: null, editions: {}, shown: null };

function editionName(key) {
  return state.editions[key]?.name ?? key;
}

function query() {
  const params = new URLSearchParams(location.search);
  return { edition: params.get("edition"), day: params.get("day") };
}

/** "5 h 12 min left": the time left in today's deals. */
function leftText(seconds) {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  return t("daily.left", { h: Math.floor(minutes / 60), m: minutes % 60 });
}

function statusText(attempt) {
  if (!attempt) return t("daily.not_played");
  if (attempt.status === "finished") return t("daily.finished", { score: attempt.score });
  return t(`daily.status_${attempt.status}`);
}

async function play(edition, day = null) {
  try {
    $("#daily-error").textContent = "";
    const path = day ? `/api/daily/${edition}/archive/${day}` : `/api/daily/${edition}`;
    const answer = await api(path, { method: "POST", body: {} });
    const key = `seat.${answer.table_id}`;
    if (answer.token || !saved.get(key)) saved.set(key, { seat: answer.seat, token: answer.token });
    location.href = `/t/${encodeURIComponent(answer.table_id)}?daily=${encodeURIComponent(edition)}`;
  } catch (error) {
    $(day ? "#archive-error" : "#daily-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

async function reveal(edition) {
  if (!confirm(t("daily.reveal_confirm"))) return;
  try {
    state.results = await api(`/api/daily/${edition}/reveal`, { method: "POST", body: {} });
    await load(edition);
  } catch (error) {
    $("#daily-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

function dealCard(deal) {
  const attempt = deal.attempt;
  const actions = [];
  if (!attempt) {
    actions.push(
      el("button", { type: "button", class: "daily-play", on: { click: () => play(deal.edition) } }, t("daily.play")),
      el("button", { type: "button", class: "secondary daily-reveal", on: { click: () => reveal(deal.edition) } }, t("daily.reveal")),
    );
  } else if (attempt.status === "playing") {
    const href = `/t/${encodeURIComponent(attempt.table_id)}?daily=${encodeURIComponent(deal.edition)}`;
    actions.push(el("a", { class: "button daily-continue", href }, t("daily.continue")));
  } else {
    actions.push(
      el("button", { type: "button", class: "secondary daily-see", on: { click: () => showResults(deal.edition, state.today.day) } }, t("daily.see")),
    );
  }
  return el(
    "li",
    { class: `panel daily-deal${attempt ? ` ${attempt.status}` : ""}`, dataset: { edition: deal.edition } },
    el("h2", {}, editionName(deal.edition)),
    el("p", { class: "muted" }, t("table.players", { n: deal.players })),
    el("p", { class: "daily-status" }, statusText(attempt)),
    el("div", { class: "row" }, ...actions),
  );
}

function drawToday() {
  const today = state.today;
  if (!today) return;
  $("#daily-day").textContent = `${formatDate(today.day, "day")} · ${leftText(today.seconds_left)}`;
  const parts = [t("daily.streak", { n: today.streak })];
  if (today.best_percentile !== null) parts.push(t("daily.best", { p: today.best_percentile }));
  $("#daily-streak").textContent = parts.join(" · ");
  $("#daily-deals").replaceChildren(...today.deals.map(dealCard));
}

/** The scores' distribution as CSS bars (the one holding your score marked). */
function chart(results) {
  const bars = results.distribution;
  const most = Math.max(1, ...bars.map((bar) => bar.players));
  const score = results.you?.score;
  const box = $("#results-chart");
  box.setAttribute("aria-label", t("daily.chart_label", { n: results.players }));
  box.replaceChildren(
    ...bars.map((bar) => {
      const mine = score !== null && score !== undefined && bar.low <= score && score <= bar.high;
      return el(
        "div",
        { class: `daily-bar${mine ? " mine" : ""}`, title: `${bar.low}…${bar.high}: ${bar.players}` },
        el("span", { class: "daily-bar-fill", style: `height: ${Math.round((100 * bar.players) / most)}%` }),
        el("span", { class: "daily-bar-label" }, String(bar.low)),
      );
    }),
  );
}

function replayLink(entry) {
  return entry.table_id
    ? el("a", { href: `/replay/${encodeURIComponent(entry.table_id)}?game=1` }, t("daily.replay"))
    : "";
}

function drawLeaders(results) {
  $("#results-empty").hidden = results.leaders.length > 0;
  const head = el("tr", {}, ...["daily.rank", "daily.player", "daily.score", "daily.replay"].map((key) => el("th", { scope: "col" }, t(key))));
  $("#results-leaders").replaceChildren(
    el("thead", {}, head),
    el(
      "tbody",
      {},
      ...results.leaders.map((entry) =>
        el("tr", {}, el("td", {}, String(entry.rank)), el("td", {}, entry.name), el("td", {}, String(entry.score)), el("td", {}, replayLink(entry))),
      ),
    ),
  );
  $("#results-guests").replaceChildren(
    ...(results.guests.length
      ? [
          el("h3", {}, t("daily.guests")),
          el(
            "ul",
            { class: "plain stack daily-guests" },
            ...results.guests.map((entry) => el("li", {}, `${entry.name} (${t("names.guest")}) · ${entry.score} · `, replayLink(entry))),
          ),
        ]
      : []),
  );
}

/** How everyone bid: a row per deal, each bid's share of the players (a safety written "+"). */
function drawBids(results) {
  const deals = [...new Set(results.bids.map((row) => row.deal))];
  const head = el("tr", {}, el("th", { scope: "col" }, t("daily.deal")), el("th", { scope: "col" }, t("daily.bids_of")));
  const rows = deals.map((deal) => {
    const bids = results.bids.filter((row) => row.deal === deal);
    const total = bids.reduce((sum, row) => sum + row.players, 0);
    const cells = bids
      .slice()
      .sort((a, b) => b.players - a.players)
      .map((row) => el("span", { class: "daily-bid" }, t("daily.bid_share", { bid: `${row.bid}${row.safety ? "+" : ""}`, p: Math.round((100 * row.players) / total) })));
    return el("tr", {}, el("th", { scope: "row" }, String(deal)), el("td", {}, ...cells));
  });
  $("#results-bids").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function drawResults() {
  const results = state.results;
  $("#daily-results").hidden = !results;
  if (!results) return;
  $("#results-title").textContent = t("daily.results_title", { edition: editionName(results.edition), day: formatDate(results.day, "day") });
  const you = results.you;
  const lines = [];
  if (you?.score !== null && you?.score !== undefined) {
    lines.push(el("p", { class: "daily-score" }, t("daily.your_score", { score: you.score })));
    lines.push(
      el(
        "p",
        { class: "daily-marks", "aria-label": t("daily.marks") },
        ...you.marks.map((mark, deal) => el("span", { class: `daily-mark ${mark}` }, t("daily.deal_mark", { deal: deal + 1, mark: t(`daily.mark_${mark}`) }))),
      ),
    );
    lines.push(
      el(
        "p",
        {},
        you.rank ? t("daily.your_rank", { rank: you.rank, n: results.players, p: you.percentile }) : t("daily.guest_rank", { p: you.percentile }),
      ),
    );
  } else if (you) {
    lines.push(el("p", {}, statusText(you)));
  }
  $("#results-you").replaceChildren(...lines);
  $("#share-box").hidden = !you?.share;
  $("#share-text").textContent = you?.share ?? "";
  chart(results);
  drawLeaders(results);
  drawBids(results);
}

function drawHistory() {
  const history = state.history;
  if (!history) return;
  const days = $("#archive-day");
  const chosen = days.value;
  days.replaceChildren(...history.archive.map((day) => el("option", { value: day, text: formatDate(day, "day") })));
  if (chosen) days.value = chosen;
  const select = $("#archive-edition");
  const edition = select.value;
  select.replaceChildren(...(state.today?.deals ?? []).map((deal) => el("option", { value: deal.edition, text: editionName(deal.edition) })));
  if (edition) select.value = edition;
  if (!history.attempts.length) {
    $("#daily-history").replaceChildren(el("li", { class: "muted" }, t("daily.none")));
    return;
  }
  $("#daily-history").replaceChildren(
    ...history.attempts.map((attempt) =>
      el(
        "li",
        {},
        el(
          "a",
          { href: `/daily?edition=${encodeURIComponent(attempt.edition)}&day=${attempt.day}` },
          `${formatDate(attempt.day, "day")} · ${editionName(attempt.edition)}`,
        ),
        " · ",
        statusText(attempt),
        attempt.percentile !== undefined ? ` · ${t("daily.percentile", { p: attempt.percentile })}` : "",
      ),
    ),
  );
}

function draw() {
  drawToday();
  drawResults();
  drawHistory();
}

async function showResults(edition, day) {
  try {
    $("#daily-error").textContent = "";
    state.results = await api(`/api/daily/${encodeURIComponent(edition)}/results?day=${encodeURIComponent(day)}`);
    history.replaceState(null, "", `/daily?edition=${encodeURIComponent(edition)}&day=${encodeURIComponent(day)}`);
    drawResults();
    $("#daily-results").scrollIntoView({ block: "start" });
  } catch (error) {
    $("#daily-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

async function load(edition = null) {
  try {
    [state.today, state.history] = await Promise.all([api("/api/daily"), api("/api/daily/history")]);
  } catch (error) {
    $("#daily-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    return;
  }
  draw();
  const asked = query();
  const wanted = edition ?? asked.edition;
  const day = asked.day ?? state.today.day;
  const attempt = state.today.deals.find((deal) => deal.edition === wanted)?.attempt;
  if (wanted && (day !== state.today.day || (attempt && attempt.status !== "playing"))) await showResults(wanted, day);
}

async function main() {
  await startPage();
  onLanguageChange(draw);
  state.editions = await editions();
  $("#share-copy").addEventListener("click", (event) => copy($("#share-text").textContent, event.currentTarget));
  $("#archive-form").addEventListener("submit", (event) => {
    event.preventDefault();
    play($("#archive-edition").value, $("#archive-day").value);
  });
  $("#archive-results").addEventListener("click", () => showResults($("#archive-edition").value, $("#archive-day").value));
  await load();
  setInterval(() => {
    if (state.today) state.today.seconds_left -= 30;
    drawToday();
  }, 30_000);
}

main();
