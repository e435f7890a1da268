// A player's profile: statistics against humans and against bots, and the newest games, each with its replay.

import { $, ApiError, api, el, startPage } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";

const playerId = decodeURIComponent(location.pathname.split("/")[2] || "");
let profile = null;

const percent = (x) => (x === null ? "–" : `${Math.round(100 * x)} %`);
const decimal = (x) => (x === null ? "–" : x.toFixed(1));

function render() {
  if (!profile) return;
  $("#player-name-title").textContent = profile.name;
  $("#player-info").textContent = profile.account ? t("player.is_account") : t("player.is_guest");
  const columns = ["all", "against_humans", "against_bots"];
  const rows = [
    ["games", (s) => String(s.games)],
    ["win_rate", (s) => percent(s.win_rate)],
    ["points_per_deal", (s) => decimal(s.points_per_deal)],
    ["exact_bid_rate", (s) => percent(s.exact_bid_rate)],
    ["safety_rate", (s) => percent(s.safety_rate)],
  ];
  $("#stats").replaceChildren(
    el("tr", {}, el("th", {}), ...columns.map((c) => el("th", { scope: "col", text: t(`player.${c}`) }))),
    ...rows.map(([key, show]) =>
      el(
        "tr",
        {},
        el("th", { scope: "row", text: t(`player.${key}`) }),
        ...columns.map((c) => el("td", { text: show(profile.stats[c]) })),
      ),
    ),
  );
  $("#no-games").hidden = profile.games.length > 0;
  const head = ["date", "edition", "players", "result", "replay"];
  $("#games").replaceChildren(
    el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: t(`player.col_${h}`) }))),
    ...profile.games.map((game) =>
      el(
        "tr",
        { class: "game-row" },
        el("td", { text: new Date(game.finished_at).toLocaleString() }),
        el("td", { text: game.edition ?? "" }),
        el("td", { text: game.players.map((p) => p.name).join(", ") }),
        el("td", { text: t("player.result", { rank: game.rank, points: game.points }) }),
        el("td", {}, el("a", { href: game.replay, text: t("player.replay") })),
      ),
    ),
  );
}

async function main() {
  await startPage();
  onLanguageChange(render);
  try {
    profile = await api(`/api/players/${encodeURIComponent(playerId)}`);
  } catch (error) {
    $("#profile-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    return;
  }
  document.title = profile.name;
  render();
}

main();
