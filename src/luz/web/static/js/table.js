// The table: a seat's live game over the WebSocket (docs/PROTOCOL.md), or a spectator's.
//
// States are shown in order, each held for a moment ("pace") so that bots' cards appear one by one and a
// completed trick stays visible; actions are sent only from the newest state, with its version.

import { alertsStart, turnAlert } from "./alerts.js";
import {
  beadsText,
  guestTag,
  ledColour,
  outcomeText,
  placeOf,
  rematchPanel,
  rematchStatus,
  renderBid,
  renderDealSummary,
  renderHints,
  renderRanking,
  renderSeat,
  renderSheet,
  renderTrick,
  trickOnTable,
} from "./board.js";
import { chatReceive, startChat } from "./chat.js";
import { drawClocks, showTimeout, timeControlText, timeLeftShort, timeLeftText } from "./clock.js";
import { connect, hasSocket, openConnection, reconnect, retryNow, send } from "./connection.js";
import { drawControls, myTurn, startControls } from "./controls.js";
import { animateFrom, boxesOf } from "./motion.js";
import {
  $,
  ApiError,
  accountNeeded,
  announce,
  api,
  botName,
  colourName,
  copy,
  editions,
  el,
  identity,
  inviteLink,
  saved,
  tableName,
} from "./common.js";
import { language, onLanguageChange, t } from "./i18n.js";
import { ratingBadge, ratingBeforeAfter } from "./ratings.js";
import { morph } from "./render.js";
import { startPage } from "./site.js";
import { fragment, nameOf, page, query, refuse, tableId, youOr } from "./tablepage.js";

// -- seats and invites ------------------------------------------------------------------------------------

function takeInviteFromUrl() {
  const token = fragment.get("token") || query.get("token");
  const seat = Number(fragment.get("seat") ?? query.get("seat"));
  if (!token || !Number.isInteger(seat)) return;
  if (!(page.me && page.me.token === token)) page.invite = { seat, token };
  // The token leaves the address bar (and the history): it is the seat's secret.
  query.delete("token");
  query.delete("seat");
  const rest = query.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : ""));
}

function holdSeat(seat, token) {
  page.me = { seat, token };
  saved.set(`seat.${tableId}`, page.me);
  page.invite = null;
}

function forgetSeat() {
  page.me = null;
  saved.remove(`seat.${tableId}`);
}

async function join(seat, token, name) {
  const trimmed = name.trim();
  if (!trimmed) {
    refuse(t("join.need_name"));
    return;
  }
  saved.set("name", trimmed);
  try {
    const answer = await api(`/api/tables/${encodeURIComponent(tableId)}/seats/${seat}/join`, {
      method: "POST",
      body: token ? { name: trimmed, token } : { name: trimmed },
    });
    holdSeat(answer.seat, answer.token);
    refuse("");
    reconnect();
  } catch (error) {
    if (error instanceof ApiError && error.code === "account_required") {
      refuse(t("rating.need_account"));
      $("#refusal").replaceChildren(...accountNeeded()); // with the link to the account page
      return;
    }
    refuse(error instanceof ApiError ? t("join.refused", { detail: error.message }) : t("conn.failed"));
  }
}

// -- the connection: the address, the messages, the closes the page handles ------------------------------

function address() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let token = "";
  if (page.me?.token) token = `?token=${encodeURIComponent(page.me.token)}`;
  else if (page.me) token = "?me=1"; // the seat of the identity's cookie
  return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(tableId)}${token}`;
}

/** A close the page handles (true), or one to retry later (false). */
function closed(code) {
  page.pending = null;
  if (code === 4404) {
    notFound();
    return true;
  }
  if (code === 4401) {
    if (page.me && !page.me.token) {
      // The identity holds no seat here any more: watch.
      page.me = null;
      connect();
      return true;
    }
    forgetSeat();
    refuse(t("conn.seat_lost"));
    connect();
    return true;
  }
  return false;
}


function receive(message) {
  if (chatReceive(message)) return; // the chat's own messages (chat.js)
  if (message.type === "state") {
    const newest = page.queue.at(-1) || page.shown;
    if (newest && message.version < newest.version) return;
    message.received = performance.now(); // a timed table's clocks count from here (clock.js)
    const serverTime = message.table?.clock?.server_time;
    if (serverTime) page.serverOffset = serverTime - Date.now();
    page.queue.push(message);
    pump();
  } else if (message.type === "timeout") {
    const replaced = Boolean(message.replaced);
    showTimeout(message.seat, page.me?.seat, nameOf(message.seat), { replaced, timeouts: message.timeouts });
    if (replaced) announce($("#clock-notice").textContent, { urgent: true });
  } else if (message.type === "notes") {
    page.notes = message;
    drawControls();
  } else if (message.type === "ack") {
    if (message.id === page.pending) page.pending = null;
    refuse("");
    drawControls();
  } else if (message.type === "error") {
    if (message.id === page.pending || message.id === null) page.pending = null;
    refuse(t(`error.${message.code}`, { detail: message.message }));
    if (message.code === "stale") send({ type: "sync" });
    drawControls();
  }
}

// -- pacing: states in order, each held a moment --------------------------------------------------------

function completedTrickShown(view) {
  return Boolean(view?.trick && view.trick.plays.length === 0 && (view.last_trick || view.closing_trick));
}

function holdAfter(state) {
  const view = state.view;
  if (!page.pace || !view || !["bid", "play", "game_over"].includes(view.phase)) return 0;
  return completedTrickShown(view) ? page.pace * 3 : page.pace;
}

function pump() {
  clearTimeout(page.timer);
  while (page.queue.length) {
    const wait = page.holdUntil - performance.now();
    if (wait > 0) {
      page.timer = setTimeout(pump, wait);
      return;
    }
    // After a long absence only the newest state matters.
    if (page.queue.length > 30) page.queue.splice(0, page.queue.length - 1);
    const state = page.queue.shift();
    const before = page.shown;
    page.shown = state;
    page.table = state.table;
    draw();
    // Held from when it is on screen: a slow drawing does not shorten the moment it stays.
    page.holdUntil = before && state.version !== before.version ? performance.now() + holdAfter(state) : 0;
  }
}

// -- drawing ----------------------------------------------------------------------------------------------

function setStatus(text, mine) {
  const box = $("#status");
  box.classList.toggle("mine", mine);
  if (text !== page.status) {
    box.textContent = text;
    page.status = text;
  }
}

function statusText(view) {
  if (view.phase === "game_over") return t("status.over");
  const current = view.current_player;
  if (current === null || current === undefined) return "";
  const replaced = page.table.seats[current]?.replaced;
  const taken = page.table.seats[current]?.bot_playing || replaced;
  if (page.me?.seat === current) {
    if (replaced) return t("status.bot_replaced_you");
    if (taken) return t("status.bot_for_you");
    return t(view.phase === "bid" ? "status.your_bid" : "status.your_play");
  }
  const key = view.phase === "bid" ? "status.their_bid" : "status.their_play";
  const why = replaced ? t("status.bot_replaced") : taken ? t("status.bot_playing") : "";
  return t(key, { name: nameOf(current) }) + (why ? ` ${why}` : "");
}

function draw() {
  const state = page.shown;
  if (!state) return;
  const table = state.table;
  const edition = page.editions[table.edition];
  $("#main").dataset.version = state.version;
  watchRatings(table);
  tellRematch(table);
  $("#table-name").textContent = tableName(table, edition);
  const view = state.view;
  const info = [];
  if (view) info.push(t("table.deal", { n: view.deal_number, count: view.deal_count }));
  info.push(t("table.game", { n: table.game_no || 1 }), edition?.name, t("table.players", { n: table.players }));
  if (table.options?.trick_history) info.push(t("table.opt_history"));
  if (table.hints) info.push(t("table.opt_hints"));
  if (table.rated) info.push(t(table.unrated ? "fair.friendly" : "rating.rated"));
  if (table.time_control) info.push(timeControlText(table.time_control));
  $("#table-info").textContent = info.filter(Boolean).join(" · ");
  $("#show-hands-badge").hidden = !table.show_hands;
  $("#main").classList.toggle("turn-based", Boolean(table.turn_based));
  drawDeadline();
  drawJoin(table);
  drawTurnNote(table, view);
  drawUnrated(table);
  $("#waiting").hidden = Boolean(view);
  $("#game").hidden = !view;
  if (!view) {
    drawWaiting(table);
    setStatus(t("status.waiting"), false);
    turnAlert(false, tableName(table, edition));
    return;
  }
  if (page.safetyDeal !== view.deal_number) {
    page.safetyDeal = view.deal_number;
    $("#safety").checked = false;
  }
  const before = boxesOf($("#game"));
  setStatus(statusText(view), myTurn());
  $("#felt").dataset.players = String(view.players);
  drawSeats(edition, view);
  drawTrick(edition, view);
  drawMe(edition, view);
  drawClocks(state, page.me?.seat, state.received);
  drawControls();
  drawSummary(view);
  morph($("#sheet"), renderSheet(view, nameOf, youOr));
  drawHistory(edition, view);
  drawOver(view);
  animateFrom(before, $("#game"), motionTime());
  turnAlert(myTurn() && !page.queue.length, tableName(table, edition));
  if (page.me && query.has("tutorial")) import("./tutorial.js").then(({ coach }) => coach(view, page.me.seat, edition));
}

/** A turn-based table: the seat to move and the time it has left ("Bo to move: 2 d 4 h left"), kept current. */
function drawDeadline() {
  const table = page.table;
  const box = $("#deadline");
  const over = page.shown?.view?.phase === "game_over";
  // The summary's seat to move and deadline; else the clock's (the mover's reserve left when it was sent).
  const clock = table?.clock;
  const mover = table?.to_move ?? clock?.running ?? null;
  let deadline = table?.deadline ?? null;
  if (deadline === null && mover !== null && clock?.server_time && clock.remaining_ms?.[mover] != null) {
    deadline = clock.server_time + clock.remaining_ms[mover];
  }
  const due = table?.turn_based && deadline && mover !== null && !over;
  box.hidden = !due;
  clearTimeout(page.deadlineTimer);
  if (!due) return;
  const left = deadline - (Date.now() + page.serverOffset);
  const key = page.me?.seat === mover ? "turn.deadline_you" : "turn.deadline";
  $("#deadline-text").textContent = t(key, { name: nameOf(mover), left: timeLeftText(left) });
  box.classList.toggle("low", left < 3_600_000);
  box.classList.toggle("mine", page.me?.seat === mover);
  // Minutes are shown under a day: the words change at most once a minute.
  page.deadlineTimer = setTimeout(drawDeadline, Math.max(1000, Math.min(60_000, left % 60_000 || 60_000)));
}

/** How long a card's flight lasts: part of the pace, none when motion is off. */
function motionTime() {
  if (!page.pace || matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
  return Math.min(450, Math.round(page.pace * 0.6));
}

function drawJoin(table) {
  const invite = page.invite;
  const open = invite && table.seats[invite.seat] && !table.seats[invite.seat].joined;
  $("#join").hidden = !open;
  if (open) {
    $("#join-title").textContent = t("join.title_seat", { n: invite.seat + 1 });
    const field = $("#join-name");
    if (!field.value) field.value = saved.get("name", "");
  }
}

/** Before a turn-based game starts (joining, waiting for players): what turn-based means here. */
/** A rated game a player left, or lost to the clock, in its first deal: rated for nobody, and everyone is told. */
function unratedText(table) {
  const why = table.rated ? table.unrated : null;
  if (!why) return "";
  return t(why.reason === "timeout" ? "fair.unrated_timeout" : "fair.unrated_left", { name: nameOf(why.seat) });
}

function drawUnrated(table) {
  const text = unratedText(table);
  $("#unrated-note").hidden = !text;
  $("#unrated-note").textContent = text;
}

function drawTurnNote(table, view) {
  const note = $("#turn-note");
  note.hidden = !table.turn_based || Boolean(view);
  if (note.hidden) return;
  const control = table.time_control || {};
  const days = control.days_per_move || 1;
  note.replaceChildren(
    el("strong", {}, timeControlText(control)),
    " ",
    t(days === 1 ? "turn.explain_one" : "turn.explain", { n: days }),
    " ",
    t("turn.explain_bot", { k: control.timeouts_before_bot ?? 2 }),
  );
}

function drawWaiting(table) {
  const list = $("#waiting-seats");
  list.replaceChildren();
  const canTake = !page.me && !page.invite && table.public;
  $("#take-name-row").hidden = !canTake;
  if (canTake && !$("#take-name").value) $("#take-name").value = saved.get("name", "");
  for (const seat of table.seats) {
    let what;
    if (seat.kind === "bot") what = t("waiting.bot", { bot: botName(seat.bot) });
    else if (seat.joined) what = page.me?.seat === seat.seat ? t("waiting.you") : t("waiting.joined");
    else what = t("waiting.open");
    const guest = seat.kind === "human" && seat.guest ? [" ", guestTag()] : [];
    const item = el("li", { class: "row", dataset: { seat: seat.seat } }, el("strong", {}, nameOf(seat.seat)), ...guest, " ", what);
    if (canTake && seat.kind === "human" && !seat.joined) {
      item.append(
        el("button", {
          type: "button",
          text: t("waiting.take"),
          "aria-label": t("waiting.take_seat", { n: seat.seat + 1 }),
          on: { click: () => join(seat.seat, null, $("#take-name").value) },
        }),
      );
    }
    list.append(item);
  }
  const invites = (saved.get(`invites.${tableId}`) || []).filter(
    (invite) => invite.seat !== page.me?.seat && !table.seats[invite.seat]?.joined,
  );
  const box = $("#invites");
  box.replaceChildren();
  if (!invites.length) return;
  box.append(el("h3", {}, t("invite.title")), el("p", { class: "muted" }, t("invite.explain")));
  for (const invite of invites) {
    const link = inviteLink(tableId, invite);
    const label = t("invite.seat", { n: invite.seat + 1 });
    const field = el("input", { value: link, readonly: true, "aria-label": label });
    const button = el("button", { type: "button", class: "secondary", text: t("common.copy"), "aria-label": label });
    button.addEventListener("click", () => copy(link, button));
    box.append(el("div", { class: "invite" }, el("span", {}, label), field, button));
  }
}

function seatOrder(view) {
  const first = page.me ? page.me.seat + 1 : 0;
  return [...Array(view.players).keys()].map((i) => (first + i) % view.players);
}

const placeAt = (view) => (seat) => placeOf(view.players, page.me?.seat ?? 0, seat);

function seatBadges(view, seat) {
  const info = page.table.seats[seat] || {};
  const badges = [];
  if (view.current_player === seat) badges.push(el("span", { class: "badge turn" }, t(view.phase === "bid" ? "seat.turn_bid" : "seat.turn")));
  if (view.first_player === seat && view.phase !== "game_over") badges.push(el("span", { class: "badge first" }, t("seat.first")));
  if (info.kind === "bot") return badges;
  if (info.guest) badges.push(guestTag());
  if (page.ratings?.[seat]) badges.push(ratingBadge(page.ratings[seat]));
  if (info.replaced) badges.push(el("span", { class: "badge away", title: t("seat.replaced_explain") }, t("seat.replaced")));
  else if (info.bot_playing) badges.push(el("span", { class: "badge away" }, t("seat.bot_playing")));
  else if (info.joined && !info.connected) badges.push(el("span", { class: "badge away" }, t("seat.away")));
  return badges;
}

// Ratings are public (as on the leaderboard): each account's, beside its name, read again when a game ends or
// starts or a seat changes hands.
let ratingsKey = null;
function watchRatings(table) {
  const key = [table.status, table.game_no, ...table.seats.map((s) => s.player)].join(":");
  if (key === ratingsKey) return;
  ratingsKey = key;
  api(`/api/tables/${encodeURIComponent(tableId)}/ratings`)
    .then((answer) => {
      page.ratings = answer.seats;
      page.ratingChanges = answer.game === table.game_no ? answer.changes : null;
      draw();
    })
    .catch(() => {});
}

function drawSeats(edition, view) {
  // Seated: the others around the table; watching: every seat, the first at the bottom.
  const shown = page.me ? seatOrder(view).filter((seat) => page.me.seat !== seat) : seatOrder(view);
  const place = placeAt(view);
  morph(
    $("#seats"),
    ...shown.map((seat) => renderSeat(edition, view, seat, nameOf(seat), seatBadges(view, seat), { place: place(seat) })),
  );
}

function drawTrick(edition, view) {
  const { trick, title, previousDeal } = trickOnTable(view, youOr);
  const led = trick && !previousDeal ? ledColour(edition, trick) : null;
  $("#trick-title").textContent = led ? `${title} · ${t("trick.led", { colour: colourName(led), symbol: led.symbol })}` : title;
  const done = view.tricks_won.reduce((a, b) => a + b, 0);
  const number = trick === view.trick ? done + 1 : done;
  const key = previousDeal ? `${view.deal_number - 1}:last` : `${view.deal_number}:${number}`;
  const area = renderTrick(edition, trick, nameOf, previousDeal, { place: placeAt(view), key });
  area.dataset.players = String(view.players);
  morph($("#trick-cards"), area);
  $("#beads").textContent = beadsText(view);
}

function drawMe(edition, view) {
  const seat = page.me?.seat;
  $("#me").hidden = seat === undefined || seat === null;
  if ($("#me").hidden) {
    return;
  }
  const section = $("#me");
  section.classList.toggle("turn", view.current_player === seat);
  $("#me-title").textContent = t("seat.you", { name: nameOf(seat) });
  morph($("#me-badges"), ...seatBadges(view, seat));
  morph($("#me-bid"), renderBid(view.bids[seat]));
  $("#me-tricks").textContent = t("seat.tricks", { n: view.tricks_won[seat] });
  const hints = view.hints;
  $("#hints").hidden = !hints;
  if (hints) morph($("#hints-list"), renderHints(edition, view.hands[seat], hints));
}

/** The summary of the deal just scored, in the trick's place (the hands stay in sight), until it is closed or the
 * next deal's first card is played; while the deal is bid, "Last deal" opens it again. */
function drawSummary(view) {
  const scored = view.results.length;
  if (page.summarised === null) page.summarised = scored;
  const started = view.tricks_won.some(Boolean) || Boolean(view.trick?.plays.length);
  const fresh = scored > page.summarised && scored > page.summaryClosed;
  const open = (fresh || page.summaryReopened === scored) && !(started && view.phase !== "game_over");
  $("#summary").hidden = !open;
  $("#summary-open").hidden = open || !scored || view.phase !== "bid";
  if (!open) return;
  const result = view.results.at(-1);
  $("#summary-title").textContent = t("summary.title", { n: scored });
  morph($("#summary-body"), renderDealSummary(view, result, nameOf, youOr));
  let next = "";
  if (view.phase !== "game_over") {
    // The view is the next deal's already: its first player, and whether the leader on score opens it.
    const opener = youOr(view.first_player);
    const leader = view.first_player_is_leader;
    next = t(leader ? "summary.next_leader" : "summary.next", { name: opener, n: view.deal_number, before: youOr(result.first_player) });
  }
  $("#summary-next").textContent = next;
}


function drawHistory(edition, view) {
  const history = view.trick_history;
  $("#history").hidden = !history;
  if (!history) return;
  const tricks = history.flatMap((trick, index) => [
    el("h3", {}, t("history.trick", { n: index + 1, name: youOr(trick.winner) })),
    renderTrick(edition, trick, nameOf, false, { labelOf: youOr }),
  ]);
  morph($("#history-list"), history.length ? tricks : el("p", { class: "muted" }, t("history.none")));
}

function drawOver(view) {
  const outcome = view.outcome;
  $("#over").hidden = !outcome;
  if (!outcome) return;
  const last = view.results.at(-1)?.scores;
  $("#over-text").textContent = outcomeText(outcome, last, youOr);
  morph($("#ranking"), renderRanking(outcome, youOr));
  drawRematch();
  drawRatingChanges(outcome);
  const game = page.table.game_no;
  $("#replay-link").href = `/replay/${encodeURIComponent(tableId)}?game=${game}`;
  const record = $("#record-link");
  record.href = `/api/tables/${encodeURIComponent(tableId)}/record?game=${game}`;
  record.setAttribute("download", `luz-${tableId}-game-${game}.json`);
}

function rematchLeft() {
  const offer = page.shown?.table?.rematch;
  return offer ? offer.ends_in_ms - (performance.now() - page.shown.received) : 0;
}

function countdownText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds >= 3600 ? timeLeftShort(ms) : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The game-over panel's rematch: the offer, who accepted and who is awaited with its countdown, the buttons. */
function drawRematch() {
  clearTimeout(page.rematchTimer);
  const table = page.shown?.table;
  if (!table || !page.shown.view?.outcome) return;
  const left = rematchLeft();
  const panel = rematchPanel(table, page.me?.seat, youOr, left, countdownText(left));
  const offerButton = $("#rematch");
  offerButton.hidden = !panel.offer;
  offerButton.textContent = t(panel.solo ? "outcome.rematch" : "rematch.offer");
  $("#rematch-text").textContent = panel.text;
  $("#rematch-text").hidden = !panel.text;
  $("#rematch-accepted").textContent = panel.accepted;
  $("#rematch-waiting").textContent = panel.waiting;
  $("#rematch-progress").hidden = panel.status !== "open";
  $("#rematch-answer").hidden = !panel.answer;
  if (panel.status === "open") page.rematchTimer = setTimeout(drawRematch, 1000);
}

/** Tell the table's change of rematch offer, once: who offered, who accepted, who declined, its expiry. */
function tellRematch(table) {
  const before = page.rematchSeen;
  const offer = table.rematch ?? null;
  page.rematchSeen = offer;
  if (!offer) $("#rematch-notice").textContent = "";
  if (before === undefined || !offer) return; // the page's first state, or no offer: nothing new to tell
  const mine = page.me?.seat;
  let notice = "";
  let accepted = ""; // the panel's own sentence says the rest (the offer, its decline, its expiry)
  if (!before || before.expires_at !== offer.expires_at || before.by !== offer.by) {
    if (offer.by !== mine) notice = t("rematch.offered", { name: nameOf(offer.by) });
  } else if (rematchStatus(offer, 1) === "declined" && rematchStatus(before, 1) !== "declined") {
    notice = t("rematch.declined", { name: youOr(offer.declined) });
  } else if (offer.expired && !before.expired) {
    notice = t("rematch.expired");
  } else {
    const joined = offer.accepted.filter((seat) => !before.accepted.includes(seat) && seat !== mine);
    if (joined.length) notice = accepted = t("rematch.notice_accepted", { name: joined.map(nameOf).join(", ") });
  }
  if (notice) {
    $("#rematch-notice").textContent = accepted;
    announce(notice);
  }
}

/** Under a rated game's ranking: each player's rating before and after it (or why it was not rated). */
function drawRatingChanges(outcome) {
  const box = $("#over-ratings");
  const changes = page.ratingChanges || [];
  const lines = outcome.ranking
    .filter((seat) => changes[seat])
    .map((seat) => el("li", { dataset: { seat } }, `${youOr(seat)}: `, ratingBeforeAfter(changes[seat])));
  const unrated = unratedText(page.table);
  box.hidden = !page.table.rated || (!lines.length && !unrated);
  box.replaceChildren(
    el("h3", {}, t("fair.changes_title")),
    ...(unrated ? [el("p", { class: "muted" }, unrated)] : []),
    ...(lines.length ? [el("ul", { class: "plain stack" }, ...lines)] : []),
  );
}

function openHelp() {
  const frame = $("#help-frame");
  const edition = page.table?.edition ? `&edition=${encodeURIComponent(page.table.edition)}` : "";
  frame.title = t("help.title");
  frame.src = `/how-to-play?embed=1&lang=${language()}${edition}`;
  $("#help").showModal();
}

function notFound() {
  page.gone = true;
  $("#table-name").textContent = t("table.not_found");
  $("#game").hidden = true;
  $("#waiting").hidden = true;
  setStatus("", false);
  refuse(t("table.not_found_explain"));
}

// -- start ------------------------------------------------------------------------------------------------

async function start() {
  await startPage();
  takeInviteFromUrl();
  $("#pace").value = String([900, 500, 150, 0].includes(page.pace) ? page.pace : 500);
  $("#pace").addEventListener("change", (event) => {
    page.pace = Number(event.target.value);
    saved.set("pace", page.pace);
  });
  $("#summary-close").addEventListener("click", () => {
    page.summaryClosed = page.shown?.view?.results.length ?? 0;
    page.summaryReopened = null;
    if (page.shown?.view) drawSummary(page.shown.view);
  });
  $("#summary-open").addEventListener("click", () => {
    if (!page.shown?.view) return;
    page.summaryReopened = page.shown.view.results.length;
    drawSummary(page.shown.view);
    $("#summary-close").focus();
  });
  $("#help-button").addEventListener("click", openHelp);
  $("#help-close").addEventListener("click", () => $("#help").close());
  startControls();
  alertsStart();
  startChat(send);
  $("#reconnect-now").addEventListener("click", retryNow);
  $("#join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (page.invite) join(page.invite.seat, page.invite.token, $("#join-name").value);
  });
  window.addEventListener("online", () => {
    if (!hasSocket() && !page.gone) retryNow();
  });
  onLanguageChange(() => {
    page.status = "";
    draw();
  });
  page.editions = await editions();
  try {
    page.table = await api(`/api/tables/${encodeURIComponent(tableId)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      notFound();
      return;
    }
  }
  // An invite to a seat already taken is the player's own link, on another device: the token is the seat.
  if (page.invite && page.table?.seats[page.invite.seat]?.joined) holdSeat(page.invite.seat, page.invite.token);
  // No seat saved in this browser, but this identity sits here (My games, on another device): that seat.
  if (!page.me && !page.invite && page.table) {
    const me = await identity();
    const mine = me && page.table.seats.find((seat) => seat.kind === "human" && seat.joined && seat.player === me.id);
    if (mine) page.me = { seat: mine.seat, token: null };
  }
  openConnection({ address, receive, closed });
}

start();