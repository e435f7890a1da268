// A player's profile: ratings (one card per edition and player count), statistics against humans and against
// bots, and the newest games, each with its result, rating change and replay.

import { $, ApiError, api, botName, editions, el, startPage } from "./common.js";
import { initials } from "./board.js";
import { onLanguageChange, t } from "./i18n.js";
import { ratingBeforeAfter, ratingChange, ratingText } from "./ratings.js";

const playerId = decodeURIComponent(location.pathname.split("/")[2] || "");
let profile = null;
let editionList = {};

const percent = (x) => (x === null ? "–" : `${Math.round(100 * x)} %`);
const decimal = (x) => (x === null ? "–" : x.toFixed(1));
const editionName = (key) => editionList[key]?.name ?? key ?? "";

function drawRatings() {
  $("#ratings").replaceChildren(
    ...profile.ratings.map((rating) =>
      el(
        "li",
        { class: "rating-card" },
        el(
          "a",
          { href: `/leaderboard?edition=${encodeURIComponent(rating.edition)}&players=${rating.players}` },
          el("span", { class: "rating-pool" }, `${editionName(rating.edition)} · ${t("table.players", { n: rating.players })}`),
          el("strong", { class: "rating-value" }, ratingText(rating)),
          el(
            "span",
            { class: "muted" },
            t("rating.games", { n: rating.games }) + (rating.provisional ? ` · ${t("rating.provisional")}` : ""),
          ),
        ),
      ),
    ),
  );
}

function drawStats() {
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
}

function placeBadge(game) {
  const label = game.abandoned ? t("rating.abandoned") : t("player.place", { rank: game.rank });
  return el("span", { class: `place place-${game.abandoned ? "left" : game.rank}` }, label);
}

function drawGames() {
  $("#no-games").hidden = profile.games.length > 0;
  const head = ["date", "edition", "players", "result", "rating"];
  $("#games").replaceChildren(
    el("tr", {}, ...head.map((h) => el("th", { scope: "col", class: h, text: t(`player.col_${h}`) }))),
    ...profile.games.map((game) =>
      el(
        "tr",
        { class: "game-row" },
        el("td", {}, el("a", { href: game.replay, title: t("player.replay") }, new Date(game.finished_at).toLocaleDateString())),
        el("td", { class: "edition", text: editionName(game.edition) }),
        el(
          "td",
          { class: "who-played" },
          ...game.players.map((p, seat) =>
            el(p.player === profile.id ? "strong" : "span", { class: "who-chip" }, playerName(p, seat)),
          ),
        ),
        el("td", {}, placeBadge(game), " ", el("span", { class: "muted" }, t("player.points", { points: game.points }))),
        el("td", { class: "rating-change" }, game.rating ? ratingBeforeAfter(game.rating) : ratingChange(null)),
      ),
    ),
  );
}

/** A player of a past game as the table named them: a person by name, a bot as "Random bot 3" (players come in
 * seat order). */
function playerName(player, seat) {
  return player.kind === "bot" ? t("seat.bot_name", { bot: botName(player.name), n: seat + 1 }) : player.name;
}

function render() {
  if (!profile) return;
  $("#player-name-title").textContent = profile.name;
  $("#player-avatar").textContent = initials(profile.name);
  $("#player-info").textContent = profile.account ? t("player.is_account") : t("player.is_guest");
  drawRatings();
  drawStats();
  drawGames();
}

async function main() {
  await startPage();
  onLanguageChange(render);
  try {
    [profile, editionList] = await Promise.all([api(`/api/players/${encodeURIComponent(playerId)}`), editions()]);
  } catch (error) {
    $("#profile-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    return;
  }
  document.title = profile.name;
  render();
}

main();
