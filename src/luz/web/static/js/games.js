// My games (GET /api/me/games): the games this identity sits at, those where it is your turn first, each a card
// that opens its table; kept current by the identity's event stream (the header's badge) and the time left ticking.

import { initials } from "./board.js";
import { missedText, timeLeftText, turnBasedText, vacationText } from "./clock.js";
import { $, ApiError, api, editions, el } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";
import { onTurns, startPage } from "./site.js";

const state = { games: null, editions: {}, offset: 0, timer: null, loading: null };

function editionName(key) {
  return state.editions[key]?.name ?? key;
}

function tableTitle(game) {
  const daily = /^Daily deal (\d{4}-\d{2}-\d{2})$/.exec(game.name); // a daily deal's attempt (daily.js)
  if (daily) return t("daily.table_name", { day: daily[1] });
  const edition = state.editions[game.edition];
  return edition && game.name === `${edition.englishName} table` ? t("table.default_name", { edition: edition.name }) : game.name;
}

function seatLabel(game, seat) {
  const info = game.seats?.find((s) => s.seat === seat);
  if (!info) return t("seat.default_name", { n: seat + 1 });
  return info.name || (info.kind === "bot" ? t("games.bot") : t("seat.default_name", { n: seat + 1 }));
}

/** Whose turn, in words: "Your turn", "Bo to play", "Waiting for players", "Game over". */
function turnText(game) {
  if (game.your_turn) return t("games.your_move");
  if (game.status === "waiting") return t("games.waiting_players");
  if (game.status === "over" || game.status === "finished") return t("status.over");
  if (game.to_move === null || game.to_move === undefined) return t("games.between");
  return t("games.their_move", { name: seatLabel(game, game.to_move) });
}

function leftText(game) {
  const away = game.to_move != null ? game.vacation?.[game.to_move] : null;
  if (away) return vacationText(seatLabel(game, game.to_move), away);
  if (!game.deadline) return "";
  return timeLeftText(game.deadline - (Date.now() + state.offset));
}

function card(game) {
  const left = leftText(game);
  const late = game.deadline && game.deadline - (Date.now() + state.offset) < 3_600_000;
  const kind = game.turn_based
    ? el("span", { class: "badge turn-based" }, t("turn.badge"))
    : el("span", { class: "badge live" }, t("games.live"));
  const seats = (game.seats || []).map((seat) =>
    el(
      "li",
      {
        class: ["who-seat", seat.seat === game.to_move ? "to-move" : "", seat.seat === game.seat ? "me" : ""].filter(Boolean).join(" "),
        title: seatLabel(game, seat.seat),
      },
      el("span", { class: "avatar", "aria-hidden": "true" }, seat.kind === "bot" ? "⚙" : initials(seatLabel(game, seat.seat))),
      el("span", { class: "who-seat-name" }, seat.seat === game.seat ? t("games.you") : seatLabel(game, seat.seat)),
    ),
  );
  const missed = game.missed ? missedText(game.missed, state.editions[game.edition]) : "";
  const label = [tableTitle(game), turnText(game), left, missed].filter(Boolean).join(", ");
  return el(
    "li",
    { dataset: { table: game.table } },
    el(
      "a",
      { class: `game-card${game.your_turn ? " mine" : ""}`, href: game.url || `/t/${encodeURIComponent(game.table)}`, "aria-label": label },
      el(
        "span",
        { class: "game-card-head" },
        el("span", { class: "game-card-name" }, tableTitle(game)),
        kind,
      ),
      el(
        "span",
        { class: "game-card-meta muted" },
        [editionName(game.edition), t("table.players", { n: game.players })].join(" · "),
      ),
      el("ul", { class: "plain who-seats", "aria-hidden": "true" }, ...seats),
      missed ? el("span", { class: "game-card-missed" }, missed) : null,
      el(
        "span",
        { class: "game-card-foot" },
        el("span", { class: `game-card-turn${game.your_turn ? " mine" : ""}` }, turnText(game)),
        left ? el("span", { class: `game-card-left${late ? " low" : ""}` }, el("span", { class: "time-icon", "aria-hidden": "true" }), left) : null,
      ),
    ),
  );
}

function draw() {
  const games = state.games;
  if (!games) return;
  const mine = games.filter((g) => g.your_turn);
  const theirs = games.filter((g) => !g.your_turn);
  $("#mine").replaceChildren(...mine.map(card));
  $("#theirs").replaceChildren(...theirs.map(card));
  $("#mine-section").hidden = !mine.length;
  $("#theirs-section").hidden = !theirs.length;
  $("#no-games").hidden = Boolean(games.length);
  $("#games-summary").textContent = games.length
    ? t(mine.length === 1 ? "games.summary_one" : "games.summary", { n: mine.length, count: games.length })
    : "";
  clearTimeout(state.timer);
  if (games.some((g) => g.deadline)) state.timer = setTimeout(draw, 30_000);
}

async function load() {
  // One request at a time; a change told while one is under way asks again after it.
  if (state.loading) {
    state.again = true;
    return;
  }
  state.loading = (async () => {
    try {
      const answer = await api("/api/me/games");
      state.games = answer.games || [];
      state.offset = answer.server_time ? answer.server_time - Date.now() : 0;
      $("#games-error").textContent = "";
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) state.games = [];
      else $("#games-error").textContent = t("conn.failed");
    }
    draw();
  })();
  await state.loading;
  state.loading = null;
  if (state.again) {
    state.again = false;
    await load();
  }
}

async function start() {
  await startPage();
  state.editions = await editions().catch(() => ({}));
  const notify = $("#games-notify");
  notify.hidden = !("PushManager" in window) || (typeof Notification !== "undefined" && Notification.permission === "granted");
  onLanguageChange(draw);
  onTurns(() => load());
  // Back to this page (from a table, or the app brought to the front): the list may have changed.
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) load();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) load();
  });
  await load();
}

start();
