// A tournament's page: its players, standings, each round's tables (Watch, or Play at yours), join and leave
// before the start. Read again every few seconds while it is being played.

import { $, ApiError, api, el } from "./common.js";
import { formatDate, onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";
import { paceText } from "./tournament-text.js";

const REFRESH_MS = 10000;
const id = decodeURIComponent(location.pathname.split("/").pop());
let tour = null;

function scoreText(score) {
  return (score > 0 ? "+" : "") + score.toFixed(1);
}

function drawStandings() {
  const rounds = tour.played.filter((r) => r.over).length;
  const head = el(
    "tr",
    {},
    el("th", { scope: "col" }, "#"),
    el("th", { scope: "col" }, t("tour.player")),
    el("th", { scope: "col" }, t("tour.score")),
    el("th", { scope: "col" }, t("tour.points")),
    ...Array.from({ length: rounds }, (_, n) => el("th", { scope: "col" }, t("tour.round_short", { n: n + 1 }))),
  );
  const rows = tour.standings.map((line) =>
    el(
      "tr",
      { class: line.you ? "you" : "" },
      el("td", {}, String(line.rank)),
      el("td", {}, line.name),
      el("td", {}, scoreText(line.score)),
      el("td", {}, String(line.points)),
      ...line.rounds.map((score) => el("td", {}, scoreText(score))),
    ),
  );
  $("#standings").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function drawRounds() {
  const me = tour.players.find((p) => p.you)?.name;
  $("#rounds").replaceChildren(
    ...[...tour.played].reverse().map((round) =>
      el(
        "section",
        {},
        el("h3", {}, `${t("tour.round_n", { n: round.round })} · ${t(round.over ? "tour.round_over" : "tour.round_playing")}`),
        el(
          "div",
          { class: "tour-tables" },
          ...round.tables.map((table) => {
            const mine = tour.you && table.seats.some((s) => !s.bot && s.name === me);
            const [href, label] = round.over
              ? [`/replay/${encodeURIComponent(table.id)}`, "tour.replay"]
              : [`/t/${encodeURIComponent(table.id)}`, mine ? "tour.play" : "lobby.watch"];
            return el(
              "div",
              { class: "tour-table" },
              el("strong", {}, t("tour.table_n", { n: table.no })),
              el(
                "ul",
                {},
                ...table.seats.map((seat) => el("li", { class: seat.bot ? "bot" : "" }, seat.bot ? t("tour.bot") : seat.name)),
              ),
              el("a", { class: "button secondary", href }, t(label)),
            );
          }),
        ),
      ),
    ),
  );
}

function render() {
  if (!tour) return;
  document.title = tour.name;
  $("#tour-title").textContent = tour.name;
  const start = tour.starts_at ? t("tour.starts_at", { time: formatDate(tour.starts_at, "datetime") }) : t("tour.when_full", { n: tour.capacity });
  $("#tour-meta").textContent = [
    t("tour.size_n", { n: tour.size }),
    t("tour.rounds_n", { n: tour.rounds }),
    paceText(tour.time_control),
    t(tour.rated ? "tour.rated_yes" : "tour.rated_no"),
    start,
  ].join(" · ");
  $("#tour-status").textContent =
    tour.status === "playing" ? t("tour.now_round", { n: tour.round, of: tour.rounds }) : t(`tour.status_${tour.status}`);
  $("#tour-join").hidden = tour.status !== "open" || tour.you;
  $("#tour-leave").hidden = tour.status !== "open" || !tour.you;
  $("#players").replaceChildren(...tour.players.map((p) => el("li", { class: p.you ? "you" : "" }, p.name)));
  drawStandings();
  drawRounds();
}

async function load() {
  try {
    tour = await api(`/api/tournaments/${encodeURIComponent(id)}`);
    $("#tour-error").textContent = "";
  } catch (error) {
    $("#tour-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
  render();
}

async function change(what) {
  try {
    tour = await api(`/api/tournaments/${encodeURIComponent(id)}/${what}`, { method: "POST" });
    $("#tour-error").textContent = "";
  } catch (error) {
    $("#tour-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
  render();
}

async function main() {
  await startPage();
  onLanguageChange(render);
  $("#tour-join").addEventListener("click", () => change("join"));
  $("#tour-leave").addEventListener("click", () => change("leave"));
  await load();
  setInterval(() => tour?.status !== "over" && load(), REFRESH_MS);
}

main();
