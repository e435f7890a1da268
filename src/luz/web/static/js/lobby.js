// Home and lobby: Play now (one tap to a game against bots, the settings last used), choose a name, create a
// table (edition, players, seats, options), see and join open tables, watch the public games being played
// ("Playing now").

import { initials } from "./board.js";
import { $, ApiError, accountNeeded, api, botLabel, botName, editions, el, fillEditionSelect, fillPlayersSelect, saved } from "./common.js";
import { timeControlText } from "./clock.js";
import { onLanguageChange, t } from "./i18n.js";
import { guestTag } from "./board.js";
import { identity, setName } from "./identity.js";
import { startPage } from "./site.js";

let editionList = {};
let bots = [];
let botLevels = {};
let defaultBot = "heuristic"; // the level of a new bot seat in the form: Play now's
let lobbyTables = [];
let playingTables = null; // "Playing now" (null: not loaded yet)

function playerName() {
  return $("#player-name").value.trim();
}

function needName(errorBox) {
  if (playerName()) return false;
  $(errorBox).textContent = t("join.need_name");
  $("#player-name").focus();
  return true;
}

// -- your name: one name per player, everywhere --------------------------------------------------------------

/** Make the name field's name your identity's, if it is not already; false (the reason shown) when refused. */
async function saveName({ quiet = false } = {}) {
  const status = $("#name-status");
  const name = playerName();
  status.className = "";
  if (!name) {
    status.textContent = t("join.need_name");
    return false;
  }
  const me = await identity;
  if (me && me.name === name) {
    if (!quiet) status.textContent = t("names.unchanged");
    return true;
  }
  try {
    const renamed = await setName(name);
    $("#player-name").value = renamed.name;
    status.textContent = t("names.saved", { name: renamed.name });
    status.className = "ok";
    return true;
  } catch (error) {
    status.textContent = t("names.refused", { detail: error instanceof ApiError ? error.message : t("conn.failed") });
    $("#player-name").focus();
    return false;
  }
}

async function submitName(event) {
  event.preventDefault();
  $("#name-save").disabled = true;
  await saveName();
  $("#name-save").disabled = false;
}

// -- the tutorial ------------------------------------------------------------------------------------------

async function startTutorial() {
  try {
    $("#tutorial-error").textContent = "";
    const answer = await api("/api/tutorial", { method: "POST", body: { name: playerName() } });
    // Your unfinished tutorial comes back without a token: this browser's token if it kept one, else your identity's.
    const key = `seat.${answer.table_id}`;
    if (answer.token || !saved.get(key)) saved.set(key, { seat: answer.seat, token: answer.token });
    location.href = `/t/${encodeURIComponent(answer.table_id)}?tutorial=1`;
  } catch (error) {
    $("#tutorial-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

// -- Play now: a game against bots in one tap ---------------------------------------------------------------

const QUICK_KEY = "quick";

/** The settings of Play now: the last ones used (by Play now or the form), those the server still offers. */
function quickSettings() {
  const remembered = saved.get(QUICK_KEY, {}) ?? {};
  const editionKey = remembered.edition in editionList ? remembered.edition : saved.get("edition", "iello-2024");
  const edition = editionList[editionKey] ?? Object.values(editionList)[0];
  const players = edition.players.includes(remembered.players) ? remembered.players : edition.players.includes(4) ? 4 : edition.players.at(-1);
  const bot = bots.includes(remembered.bot) ? remembered.bot : bots.includes("heuristic") ? "heuristic" : bots[0];
  return { edition: edition.key, players, bot, hints: remembered.hints === true };
}

/** A bot level as the players know it ("Casual"), else its name. */
function levelName(bot) {
  const label = botLevels[bot]?.label;
  return label ? t(`level.${label}`) : botName(bot);
}

/** "LUZ (IELLO, 2024) · 4 players · Casual bots": what Play now will start. */
function showQuickSettings() {
  const quick = quickSettings();
  const parts = [editionList[quick.edition].name, t("table.players", { n: quick.players }), t("play_now.bots", { level: levelName(quick.bot) })];
  if (quick.hints) parts.push(t("table.opt_hints"));
  $("#play-now-settings").textContent = parts.join(" · ");
  $("#play-now-change").setAttribute("aria-label", t("play_now.change_label"));
}

/** An unlisted table: you at the first seat, the settings' bots at the others, no clock. */
function quickSpec(quick) {
  const seats = [{ kind: "human" }, ...Array.from({ length: quick.players - 1 }, () => ({ kind: "bot", bot: quick.bot }))];
  const spec = { edition: quick.edition, players: quick.players, public: false, options: {}, seats };
  if (quick.hints) spec.hints = true;
  return spec;
}

async function playNow() {
  const button = $("#play-now");
  const quick = quickSettings();
  $("#play-now-error").textContent = "";
  if (!playerName()) $("#player-name").value = (await identity)?.name ?? "";
  if (!(await saveName({ quiet: true }))) {
    $("#play-now-error").textContent = $("#name-status").textContent;
    return;
  }
  button.textContent = t("play_now.busy");
  if (await openNewTable(quickSpec(quick), "#play-now-error", button)) {
    saved.set(QUICK_KEY, quick);
    return;
  }
  button.textContent = t("play_now.button");
}

/** Back to this page from the table (the browser's back-forward cache): the buttons usable, the settings new. */
function pageShown(event) {
  if (!event.persisted) return;
  for (const button of [$("#play-now"), $("#create-button")]) {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
  $("#play-now").textContent = t("play_now.button");
  showQuickSettings();
}

/** Change: to the form (its first choice focused), the settings of Play now already chosen in it. */
function changeQuickSettings(event) {
  event.preventDefault();
  $("#create-title").scrollIntoView({ block: "start" });
  $("#edition").focus({ preventScroll: true });
}

/** The form opened with the settings of Play now, so that changing them starts from them. */
function formFromQuick() {
  const quick = quickSettings();
  $("#edition").value = quick.edition;
  fillPlayers();
  $("#players").value = String(quick.players);
  defaultBot = quick.bot;
  fillSeats();
  $("#hints").checked = quick.hints;
}

/** The form's table as settings of Play now: its edition, players, first bot's level and hints. */
function rememberFromForm(spec) {
  const bot = spec.seats.find((seat) => seat.kind === "bot")?.bot ?? quickSettings().bot;
  saved.set(QUICK_KEY, { edition: spec.edition, players: spec.players, bot, hints: spec.hints === true });
}

// -- creating a table ---------------------------------------------------------------------------------------

function fillEditions() {
  fillEditionSelect($("#edition"), editionList);
  fillPlayers();
}

function fillPlayers() {
  const edition = editionList[$("#edition").value];
  fillPlayersSelect($("#players"), edition);
  $("#bid-cap").value = edition.bid_cap ?? "";
  fillSeats();
}

function seatChoices() {
  return [
    el("option", { value: "human", text: t("create.human") }),
    ...bots.map((bot) => el("option", { value: `bot:${bot}`, text: botChoice(bot) })),
  ];
}

/** A bot in the seat chooser: its level and measured rating when it has them (its description: under it). */
function botChoice(bot) {
  const level = botLevels[bot];
  if (level?.rating == null) return t("create.bot", { bot: botName(bot) });
  const rating = level.rating.toLocaleString(document.documentElement.lang || undefined, {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  });
  return t("create.bot_level", { level: t(`level.${level.label}`), rating });
}

/** Under a seat's chooser, the chosen bot's one-line description (nothing for a human seat). */
function describeSeat(select, about) {
  const bot = select.value.startsWith("bot:") ? select.value.slice(4) : null;
  about.textContent = bot ? botLabel(bot) : "";
  about.hidden = !bot;
}

function fillSeats() {
  const players = Number($("#players").value);
  const box = $("#seat-specs");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let seat = 0; seat < players; seat += 1) {
    const about = el("p", { id: `seat-${seat}-about`, class: "hint-text seat-about" });
    const select = el("select", { id: `seat-${seat}`, "aria-describedby": about.id, dataset: { seat } }, ...seatChoices());
    select.value = before[seat] ?? (seat === 0 ? "human" : `bot:${bots.includes(defaultBot) ? defaultBot : bots[0]}`);
    select.addEventListener("change", () => describeSeat(select, about));
    describeSeat(select, about);
    box.append(
      el(
        "div",
        { class: "field seat-choice" },
        el("label", { for: `seat-${seat}`, text: t("create.seat", { n: seat + 1 }) }),
        select,
        about,
      ),
    );
  }
  const first = $("#first-player");
  const chosen = first.value;
  first.replaceChildren(
    el("option", { value: "", text: t("create.first_random") }),
    ...[...Array(players).keys()].map((s) => el("option", { value: s, text: t("create.seat", { n: s + 1 }) })),
  );
  first.value = Number(chosen) < players ? chosen : "";
}

function tableSpec() {
  const edition = editionList[$("#edition").value];
  const seats = [...$("#seat-specs").querySelectorAll("select")].map((select) =>
    select.value === "human" ? { kind: "human" } : { kind: "bot", bot: select.value.slice(4) },
  );
  const options = { trick_history: $("#trick-history").checked };
  const cap = $("#bid-cap").value.trim();
  const wantedCap = cap === "" ? null : Number(cap);
  if (wantedCap !== edition.bid_cap) options.bid_cap = wantedCap;
  if ($("#first-player").value !== "") options.first_player = Number($("#first-player").value);
  const spec = {
    edition: edition.key,
    players: Number($("#players").value),
    name: $("#table-name").value.trim(),
    public: $("#public").checked,
    grace_seconds: Number($("#grace").value || 30),
    options,
    seats,
  };
  if ($("#hints").checked) spec.hints = true;
  if ($("#rated").checked) spec.rated = true;
  if (showHandsOffered() && $("#show-hands").checked) spec.show_hands = true;
  if (turnBased()) {
    const days = Number($("#days-per-move").value);
    spec.time_control = [1, 2, 3, 7].includes(days) ? `${days}d` : { days_per_move: days };
    spec.timeouts_before_bot = Number($("#timeouts-before-bot").value);
    spec.time_bank_hours = Number($("#time-bank").value);
    return spec;
  }
  const clock = timeControl();
  if (clock) spec.time_control = clock;
  return spec;
}

/** "Spectators see every hand" is offered only at an unlisted, unrated table (the server refuses it elsewhere). */
function showHandsOffered() {
  return !$("#public").checked && !$("#rated").checked;
}

function showHandsChoice() {
  const offered = showHandsOffered();
  $("#show-hands-field").hidden = !offered;
  $("#show-hands-explain").hidden = !offered;
  if (!offered) $("#show-hands").checked = false;
}

function turnBased() {
  return $("#pace-turn").checked;
}

/** Live or turn-based: the clocks of the one chosen. */
function showPace() {
  $("#turn-clock").hidden = !turnBased();
  $("#live-clock").hidden = turnBased();
}

/** The chosen time control: a preset's name, a custom {reserve_seconds, increment_seconds}, or none. */
function timeControl() {
  const choice = $("#clock").value;
  if (choice !== "custom") return choice || null;
  return {
    reserve_seconds: Number($("#clock-minutes").value) * 60,
    increment_seconds: Number($("#clock-increment").value || 0),
  };
}

function showCustomClock() {
  for (const field of document.querySelectorAll(".clock-custom")) field.hidden = $("#clock").value !== "custom";
}

/**
 * Make the table of ``spec``, sit at its first human seat and open it; ``button`` busy meanwhile. False, the
 * refusal shown in ``errorBox`` and ``button`` usable again, when the server refused.
 */
async function openNewTable(spec, errorBox, button) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    const answer = await api("/api/tables", { method: "POST", body: spec });
    const id = answer.table.id;
    saved.set("edition", spec.edition);
    saved.set(`invites.${id}`, answer.invites);
    const mine = answer.invites[0];
    if (mine) {
      const joined = await api(`/api/tables/${encodeURIComponent(id)}/seats/${mine.seat}/join`, {
        method: "POST",
        body: { name: playerName(), token: mine.token },
      });
      saved.set(`seat.${id}`, { seat: joined.seat, token: joined.token });
    }
    location.href = `/t/${encodeURIComponent(id)}${location.search}`;
    return true;
  } catch (error) {
    $(errorBox).textContent = error instanceof ApiError ? t("create.refused", { detail: error.message }) : t("conn.failed");
    button.disabled = false;
    button.removeAttribute("aria-busy");
    return false;
  }
}

async function createTable(event) {
  event.preventDefault();
  $("#create-error").textContent = "";
  if (needName("#create-error")) return;
  if (!(await saveName({ quiet: true }))) return;
  const spec = tableSpec();
  if (spec.rated && (await identity)?.guest) {
    // Only accounts sit at rated tables: say so before a table is made that you could not sit at.
    $("#create-error").replaceChildren(...accountNeeded());
    return;
  }
  if (await openNewTable(spec, "#create-error", $("#create-button"))) rememberFromForm(spec);
}

// -- the lobby ----------------------------------------------------------------------------------------------

let lobbyUnreachable = false; // the lobby's error box says so (and a refusal to join stays there)

async function refreshLobby() {
  try {
    [lobbyTables, playingTables] = await Promise.all([api("/api/tables"), api("/api/tables?status=playing")]);
    if (lobbyUnreachable) $("#lobby-error").textContent = "";
    lobbyUnreachable = false;
  } catch {
    $("#lobby-error").textContent = t("conn.failed");
    lobbyUnreachable = true;
    return;
  }
  drawLobby();
  drawPlaying();
}

// -- playing now --------------------------------------------------------------------------------------------

function spectatorsText(n) {
  if (!n) return t("watch.spectators_none");
  return n === 1 ? t("watch.spectators_one") : t("watch.spectators", { n });
}

function seatLabel(seat) {
  return seat.name || (seat.kind === "bot" ? botName(seat.bot || "") : t("seat.default_name", { n: seat.seat + 1 }));
}

function tableTitle(table) {
  const edition = editionList[table.edition];
  return edition && table.name === `${edition.englishName} table` ? t("table.default_name", { edition: edition.name }) : table.name;
}

/** A game being played, as a card: its name and pace, edition and players, who sits where, its spectators, and a
 * Watch link (the table opened without a seat: as a spectator). */
function playingCard(table) {
  const title = tableTitle(table);
  const kind = table.turn_based
    ? el("span", { class: "badge turn-based" }, t("turn.badge"))
    : el("span", { class: "badge live" }, t("games.live"));
  const seats = table.seats.map((seat) =>
    el(
      "li",
      { class: "who-seat", title: seatLabel(seat) },
      el("span", { class: "avatar", "aria-hidden": "true" }, seat.kind === "bot" ? "⚙" : initials(seatLabel(seat))),
      el("span", { class: "who-seat-name" }, seatLabel(seat)),
    ),
  );
  const meta = [editionList[table.edition]?.name ?? table.edition, t("table.players", { n: table.players })];
  if (table.time_control) meta.push(timeControlText(table.time_control));
  return el(
    "li",
    { dataset: { table: table.id } },
    el(
      "article",
      { class: "game-card watch-card", "aria-label": title },
      el(
        "span",
        { class: "game-card-head" },
        el("span", { class: "game-card-name" }, title),
        table.rated ? el("span", { class: "badge rated" }, t("rating.rated")) : kind,
      ),
      el("span", { class: "game-card-meta muted" }, meta.join(" · ")),
      el("ul", { class: "plain who-seats", "aria-label": t("watch.players") }, ...seats),
      el(
        "span",
        { class: "game-card-foot" },
        el(
          "span",
          { class: "watch-count", dataset: { spectators: table.spectators } },
          el("span", { class: "eye-icon", "aria-hidden": "true" }),
          spectatorsText(table.spectators),
        ),
        el("a", {
          class: "button watch-link",
          href: `/t/${encodeURIComponent(table.id)}`,
          "aria-label": t("watch.watch_table", { name: title }),
          text: t("watch.watch"),
        }),
      ),
    ),
  );
}

function drawPlaying() {
  if (playingTables === null) return;
  const list = $("#playing");
  if (!playingTables.length) {
    list.replaceChildren(el("li", { class: "muted watch-empty" }, t("watch.empty")));
    return;
  }
  list.replaceChildren(...playingTables.map(playingCard));
}

function drawLobby() {
  const list = $("#lobby");
  list.replaceChildren();
  if (!lobbyTables.length) list.append(el("li", { class: "muted" }, t("lobby.empty")));
  for (const table of lobbyTables) {
    const taken = table.seats.filter((s) => s.joined).length;
    const item = el(
      "li",
      { class: "panel", dataset: { table: table.id } },
      el(
        "h3",
        {},
        table.name,
        table.rated ? el("span", { class: "badge rated" }, t("rating.rated")) : null,
        table.turn_based ? el("span", { class: "badge turn-based" }, t("turn.badge")) : null,
      ),
      el(
        "p",
        { class: "muted" },
        [
          editionList[table.edition]?.name ?? table.edition,
          t("lobby.seats_taken", { n: taken, count: table.players }),
          table.time_control ? timeControlText(table.time_control) : null,
        ]
          .filter(Boolean)
          .join(" · "),
      ),
      seatedNames(table),
    );
    const buttons = el("div", { class: "row" });
    for (const seat of table.seats) {
      if (seat.kind !== "human" || seat.joined) continue;
      buttons.append(
        el("button", {
          type: "button",
          text: t("lobby.join_seat", { n: seat.seat + 1 }),
          on: { click: () => joinOpenSeat(table.id, seat.seat) },
        }),
      );
    }
    buttons.append(el("a", { class: "button secondary", href: `/t/${encodeURIComponent(table.id)}`, text: t("lobby.watch") }));
    item.append(buttons);
    list.append(item);
  }
}

/** The people seated at a lobby's table, each by name, a guest with its mark (null when nobody sits yet). */
function seatedNames(table) {
  const people = table.seats.filter((seat) => seat.kind === "human" && seat.joined && seat.name);
  if (!people.length) return null;
  return el(
    "p",
    { class: "lobby-players" },
    people.flatMap((seat, index) => [index ? ", " : null, el("span", { class: "who" }, seat.name), ...(seat.guest ? [" ", guestTag()] : [])]),
  );
}

async function joinOpenSeat(tableId, seat) {
  $("#lobby-error").textContent = "";
  if (needName("#lobby-error")) return;
  if (!(await saveName({ quiet: true }))) return;
  try {
    const joined = await api(`/api/tables/${encodeURIComponent(tableId)}/seats/${seat}/join`, {
      method: "POST",
      body: { name: playerName() },
    });
    saved.set(`seat.${tableId}`, { seat: joined.seat, token: joined.token });
    location.href = `/t/${encodeURIComponent(tableId)}${location.search}`;
  } catch (error) {
    if (error instanceof ApiError && error.code === "account_required") $("#lobby-error").replaceChildren(...accountNeeded());
    else $("#lobby-error").textContent = error instanceof ApiError ? t("join.refused", { detail: error.message }) : t("conn.failed");
    lobbyUnreachable = !(error instanceof ApiError);
    refreshLobby();
  }
}

async function start() {
  await startPage();
  $("#player-name").value = (await identity)?.name ?? "";
  $("#tutorial-button").addEventListener("click", startTutorial);
  $("#name-form").addEventListener("submit", submitName);
  let levels;
  [editionList, levels] = await Promise.all([editions(), api("/api/bots?levels=true")]);
  bots = levels.map((level) => level.name);
  botLevels = Object.fromEntries(levels.map((level) => [level.name, level]));
  fillEditions();
  formFromQuick();
  showQuickSettings();
  $("#play-now").addEventListener("click", playNow);
  $("#play-now").disabled = false;
  $("#play-now-change").addEventListener("click", changeQuickSettings);
  window.addEventListener("pageshow", pageShown);
  $("#edition").addEventListener("change", fillPlayers);
  $("#players").addEventListener("change", fillSeats);
  $("#clock").addEventListener("change", showCustomClock);
  for (const radio of document.querySelectorAll("input[name=pace]")) radio.addEventListener("change", showPace);
  showPace();
  $("#create-form").addEventListener("submit", createTable);
  $("#lobby-refresh").addEventListener("click", refreshLobby);
  for (const box of [$("#public"), $("#rated")]) box.addEventListener("change", showHandsChoice);
  showHandsChoice();
  onLanguageChange(() => {
    showQuickSettings();
    fillSeats();
    drawLobby();
    drawPlaying();
  });
  await refreshLobby();
  setInterval(refreshLobby, 5000);
}

start();
