// A player's profile: ratings (one card per edition and player count), statistics against humans and against
// bots, and the newest games, each with its result, rating change and replay.

import { $, ApiError, api, botName, editions, el, identity } from "./common.js";
import { guestTag, initials } from "./board.js";
import { formatDate, language, onLanguageChange, t, tWith } from "./i18n.js";
import { ratingBeforeAfter, ratingChange, ratingText } from "./ratings.js";
import { startPage } from "./site.js";

const playerId = decodeURIComponent(location.pathname.split("/")[2] || "");
let profile = null;
let editionList = {};
let retry = null; // your own mistakes to retry (only on your own profile)

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
    el("tr", {}, el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, t("player.stat"))), ...columns.map((c) => el("th", { scope: "col", text: t(`player.${c}`) }))),
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
        el("td", {}, el("a", { href: game.replay, title: t("player.replay") }, formatDate(game.finished_at))),
        el("td", { class: "edition", text: editionName(game.edition) }),
        el(
          "td",
          { class: "who-played" },
          ...game.players.map((p, seat) =>
            el(p.player === profile.id ? "strong" : "span", { class: "who-chip" }, playerName(p, seat), p.guest ? [" ", guestTag()] : null),
          ),
        ),
        el("td", {}, placeBadge(game), " ", el("span", { class: "muted" }, t("player.points", { points: game.points }))),
        el("td", { class: "rating-change" }, game.rating ? ratingBeforeAfter(game.rating) : ratingChange(null)),
      ),
    ),
  );
}

/** A player of a past game as the table named them: a person by name, a bot as "Random 3" (players come in
 * seat order). */
function playerName(player, seat) {
  return player.kind === "bot" ? t("seat.bot_name", { bot: botName(player.name), n: seat + 1 }) : player.name;
}

/** The mean accuracy of the player's last reviewed games, and over how many. */
function drawAccuracy() {
  const found = profile.review_accuracy;
  const box = $("#player-accuracy");
  box.hidden = !found?.games;
  if (!found?.games) return;
  const value = new Intl.NumberFormat(language(), { maximumFractionDigits: 0 }).format(found.accuracy);
  const figure = el("span", { class: "nowrap" }, `${value} %`); // on one line
  box.replaceChildren(
    el("strong", {}, ...tWith("player.accuracy", {}, "accuracy", figure)),
    " ",
    el("span", { class: "muted" }, `(${t("player.accuracy_games", { n: found.games })})`),
  );
}

/** Your mistakes to retry: each a link to its puzzle, where it was and what the review called it. */
function drawRetry() {
  $("#retry").hidden = retry === null;
  if (retry === null) return;
  const where = (p) => (p.kind === "bid" ? t("review.where_bid", { deal: p.deal }) : t("puzzle.where_card", { deal: p.deal }));
  $("#retry-list").replaceChildren(
    ...(retry.length
      ? retry.map((p) =>
          el(
            "li",
            { dataset: { step: p.step, table: p.table } },
            el("a", { href: p.url }, `${formatDate(p.finished_at)} · ${editionName(p.edition)} · ${where(p)}`),
            " ",
            el("span", { class: `badge g-${p.label}` }, t(`review.grade_${p.label}`)),
          ),
        )
      : [el("li", { class: "muted" }, t("player.retry_none"))]),
  );
}

function render() {
  if (!profile) return;
  $("#player-name-title").replaceChildren(profile.name, ...(profile.guest ? [" ", guestTag()] : []));
  $("#player-avatar").textContent = initials(profile.name);
  // The names this player left: a rename hides no record.
  const former = profile.former_names || [];
  $("#former-names").hidden = !former.length;
  $("#former-names").textContent = former.length ? t("names.formerly", { names: former.map((n) => n.name).join(", ") }) : "";
  $("#player-info").textContent = profile.account ? t("player.is_account") : "";
  $("#player-info").hidden = !profile.account; // a guest: the mark beside the name says it
  drawRatings();
  drawAccuracy();
  drawRetry();
  drawStats();
  drawGames();
}

/** Follow / Unfollow and Block / Unblock (not on your own profile); a guest who follows is asked to register. */
async function drawRelation() {
  const box = $("#player-relation");
  const relation = await api(`/api/players/${encodeURIComponent(playerId)}/relation`).catch(() => null);
  box.hidden = !relation || relation.self;
  if (!relation || relation.self) return;
  const note = el("span", { class: "friend-note", role: "status" });
  const act = async (what, method) => {
    try {
      await api(`/api/players/${encodeURIComponent(playerId)}/${what}`, { method });
      await drawRelation();
    } catch (error) {
      if (error instanceof ApiError && error.status === 403 && what === "follow") {
        note.replaceChildren(t("friends.register_to_follow"), " ", el("a", { href: "/account" }, t("friends.register")));
      } else note.textContent = error instanceof ApiError ? error.message : t("conn.failed");
    }
  };
  const follow = profile?.account
    ? el(
        "button",
        { type: "button", class: relation.following ? "small secondary" : "small" },
        t(relation.following ? "friends.unfollow" : relation.follower ? "friends.follow_back" : "friends.follow"),
      )
    : null;
  follow?.addEventListener("click", () => act("follow", relation.following ? "DELETE" : "PUT"));
  const block = el(
    "button",
    { type: "button", class: "small secondary danger" },
    t(relation.blocked ? "friends.unblock" : "friends.block"),
  );
  block.addEventListener("click", () => act("block", relation.blocked ? "DELETE" : "PUT"));
  const status = relation.follower ? el("span", { class: "badge" }, t("friends.follows_you")) : null;
  box.replaceChildren(...[follow, block, status, note].filter(Boolean));
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
  const me = await identity();
  if (me?.id === profile.id) retry = (await api("/api/me/puzzles").catch(() => null))?.puzzles ?? null;
  render();
  onLanguageChange(drawRelation);
  await drawRelation();
}

main();
