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
  seatItem,
  renderSheet,
  drawTrick as drawTrickCards,
  renderTrick,
  trickOnTable,
} from "./board.js";
import { chatReceive, startChat } from "./chat.js";
import { showOtherScores } from "./deal.js";
import { drawOverAccuracy } from "./over-accuracy.js";
import {
  drawClocks,
  drawMissed,
  showTimeout,
  timeControlText,
  timeLeftShort,
  timeLeftText,
  vacationText,
} from "./clock.js";
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
import { connect, hasSocket, openConnection, reconnect, retryNow, send } from "./connection.js";
import { drawControls, refuse, startControls } from "./controls.js";
import { language, onLanguageChange, t } from "./i18n.js";
import { animateFrom, boxesOf } from "./motion.js";
import { ratingBadge, ratingBeforeAfter } from "./ratings.js";
import { keptAll, reconcile, steadyAll } from "./render.js";
import { onInvitation, startPage } from "./site.js";
import {
  apply,
  closeSummary,
  createState,
  holdSeat,
  holdUntil,
  invitation,
  leaveSeat,
  markGone,
  myTurn,
  nameOf,
  noReply,
  ratingsRead,
  reopenSummary,
  setEditions,
  setPace,
  setTable,
  showNext,
  sitAsIdentity,
  summariesSeen,
  youOr,
} from "./tablestate.js";

/** A seat's name at the table of ``state``, as a function of the seat. */
const named = (state) => (seat) => nameOf(state, seat);

/** A seat's name, "You (name)" for this browser's seat, as a function of the seat. */
const yours = (state) => (seat) => youOr(state, seat);

// -- seats and invites ------------------------------------------------------------------------------------

/** An invite link's token leaves the address bar (and the history): it is the seat's secret. */
function cleanAddress() {
  if (!invitation(location)) return;
  const query = new URLSearchParams(location.search);
  query.delete("token");
  query.delete("seat");
  const rest = query.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : ""));
}

async function join(state, seat, token, name) {
  const trimmed = name.trim();
  if (!trimmed) {
    refuse(t("join.need_name"));
    return;
  }
  saved.set("name", trimmed);
  try {
    const answer = await api(`/api/tables/${encodeURIComponent(state.tableId)}/seats/${seat}/join`, {
      method: "POST",
      body: token ? { name: trimmed, token } : { name: trimmed },
    });
    holdSeat(state, answer.seat, answer.token);
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

function address(state) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let token = "";
  if (state.me?.token) token = `?token=${encodeURIComponent(state.me.token)}`;
  else if (state.me) token = "?me=1"; // the seat of the identity's cookie
  return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(state.tableId)}${token}`;
}

/** A close the page handles (true), or one to retry later (false). */
function closed(state, code) {
  noReply(state);
  if (code === 4404) {
    notFound(state);
    return true;
  }
  if (code === 4401) {
    if (state.me && !state.me.token) {
      // The identity holds no seat here any more: watch.
      leaveSeat(state, { forget: false });
      connect();
      return true;
    }
    leaveSeat(state, { forget: true });
    refuse(t("conn.seat_lost"));
    connect();
    return true;
  }
  return false;
}

/** What each name that apply() returns draws (or does) again after ``message``. */
const EFFECTS = {
  pump: (state) => pump(state),
  controls: (state) => drawControls(state),
  refusal: (state, message) => refuse(message.type === "error" ? t(`error.${message.code}`, { detail: message.message }) : ""),
  sync: () => send({ type: "sync" }),
  timeout(state, message) {
    const replaced = Boolean(message.replaced);
    showTimeout(message.seat, state.me?.seat, nameOf(state, message.seat), { replaced, timeouts: message.timeouts });
    if (replaced) announce($("#clock-notice").textContent, { urgent: true });
  },
};

function receive(state, message) {
  if (chatReceive(message)) return; // the chat's own messages (chat.js)
  for (const effect of apply(state, message, performance.now())) EFFECTS[effect](state, message);
}

// -- pacing: states in order, each held a moment --------------------------------------------------------

function completedTrickShown(view) {
  return Boolean(view?.trick && view.trick.plays.length === 0 && (view.last_trick || view.closing_trick));
}

function holdAfter(state, shown) {
  const view = shown.view;
  if (!state.pace || !view || !["bid", "play", "game_over"].includes(view.phase)) return 0;
  return completedTrickShown(view) ? state.pace * 3 : state.pace;
}

function pump(state) {
  clearTimeout(state.timers.pump);
  while (state.queue.length) {
    const wait = state.holdUntil - performance.now();
    if (wait > 0) {
      state.timers.pump = setTimeout(() => pump(state), wait);
      return;
    }
    const before = showNext(state);
    draw(state);
    // Held from when it is on screen: a slow drawing does not shorten the moment it stays.
    const shown = state.shown;
    holdUntil(state, before && shown.version !== before.version ? performance.now() + holdAfter(state, shown) : 0);
  }
}

// -- drawing ----------------------------------------------------------------------------------------------

function setStatus(state, text, mine) {
  const box = $("#status");
  box.classList.toggle("mine", mine);
  if (text !== state.drawn.status) {
    box.textContent = text;
    state.drawn.status = text;
  }
}

function statusText(state, view) {
  if (view.phase === "game_over") return t("status.over");
  const current = view.current_player;
  if (current === null || current === undefined) return "";
  const replaced = state.table.seats[current]?.replaced;
  const taken = state.table.seats[current]?.bot_playing || replaced;
  const forced = state.table.seats[current]?.forced;
  if (state.me?.seat === current) {
    if (forced) return t("forced.now_you");
    if (replaced) return t("status.bot_replaced_you");
    if (taken) return t("status.bot_for_you");
    return t(view.phase === "bid" ? "status.your_bid" : "status.your_play");
  }
  if (forced) return t("forced.now", { name: nameOf(state, current) });
  const key = view.phase === "bid" ? "status.their_bid" : "status.their_play";
  const why = replaced ? t("status.bot_replaced") : taken ? t("status.bot_playing") : "";
  return t(key, { name: nameOf(state, current) }) + (why ? ` ${why}` : "");
}

function draw(state) {
  const shown = state.shown;
  if (!shown) return;
  const table = shown.table;
  const edition = state.editions[table.edition];
  $("#main").dataset.version = shown.version;
  watchRatings(state, table);
  tellRematch(state, table);
  $("#table-name").textContent = tableName(table, edition);
  const view = shown.view;
  const info = [];
  info.push(t("table.game", { n: table.game_no || 1 }), edition?.name, t("table.players", { n: table.players }));
  if (table.options?.trick_history) info.push(t("table.opt_history"));
  if (table.hints) info.push(t("table.opt_hints"));
  if (table.rated) info.push(t(table.unrated ? "fair.friendly" : "rating.rated"));
  if (table.shared_deal) info.push(t("deal.shared"));
  if (table.time_control) info.push(timeControlText(table.time_control));
  // The deal counter is never cut; the rest gives way (whole in its title).
  const more = info.filter(Boolean).join(" · ");
  $("#table-info").replaceChildren(
    view ? el("span", { class: "deal-count" }, t("table.deal", { n: view.deal_number, count: view.deal_count })) : "",
    el("span", { class: "table-more", title: more }, more),
  );
  $("#show-hands-badge").hidden = !table.show_hands;
  $("#shared-deal-note").hidden = !table.shared_deal || Boolean(view?.outcome);
  $("#main").classList.toggle("turn-based", Boolean(table.turn_based));
  drawDeadline(state);
  drawJoin(state, table);
  drawTurnNote(table, view);
  drawUnrated(state, table);
  drawForced(state, table);
  $("#waiting").hidden = Boolean(view);
  $("#game").hidden = !view;
  if (!view) {
    drawWaiting(state, table);
    drawConsent(state, table);
    setStatus(state, t(table.status === "expired" ? "status.expired" : "status.waiting"), false);
    turnAlert(false, tableName(table, edition));
    return;
  }
  if (state.drawn.safetyDeal !== view.deal_number) {
    state.drawn.safetyDeal = view.deal_number;
    $("#safety").checked = false;
  }
  const before = boxesOf($("#game"));
  setStatus(state, statusText(state, view), myTurn(state));
  $("#felt").dataset.players = String(view.players);
  drawSeats(state, edition, view);
  drawTrick(state, edition, view);
  drawMe(state, edition, view);
  drawClocks(shown, state.me?.seat, shown.received);
  drawMissed(shown, state.me?.seat, edition);
  drawControls(state);
  drawSummary(state, view);
  reconcile($("#sheet"), keptAll(renderSheet(view, named(state), yours(state))));
  drawHistory(state, edition, view);
  drawOver(state, view);
  animateFrom(before, $("#game"), motionTime(state));
  turnAlert(myTurn(state) && !state.queue.length, tableName(table, edition));
  if (state.me && state.tutorial) import("./tutorial.js").then(({ coach }) => coach(view, state.me.seat, edition));
}

/** A turn-based table: the seat to move and the time it has left ("Bo to move: 2 d 4 h left"), with its time
 * bank, kept current; the players on vacation ("Ana is on vacation until 12 Dec": her clock is paused). */
function drawDeadline(state) {
  const table = state.table;
  const box = $("#deadline");
  const over = state.shown?.view?.phase === "game_over";
  // The summary's seat to move and deadline; else the clock's (the mover's reserve left when it was sent).
  const clock = table?.clock;
  const mover = table?.to_move ?? clock?.running ?? null;
  const away = table?.turn_based && !over ? (clock?.vacation ?? []) : [];
  const note = $("#vacation-note");
  const vacations = away.flatMap((until, seat) => (until ? [vacationText(nameOf(state, seat), until)] : []));
  note.textContent = vacations.join(" ");
  note.hidden = !vacations.length;
  if (mover !== null && away[mover]) {
    box.hidden = true;
    clearTimeout(state.timers.deadline);
    return;
  }
  let deadline = table?.deadline ?? null;
  if (deadline === null && mover !== null && clock?.server_time && clock.remaining_ms?.[mover] != null) {
    deadline = clock.server_time + clock.remaining_ms[mover];
  }
  const due = table?.turn_based && deadline && mover !== null && !over;
  box.hidden = !due;
  clearTimeout(state.timers.deadline);
  if (!due) return;
  const left = deadline - (Date.now() + state.serverOffset);
  const key = state.me?.seat === mover ? "turn.deadline_you" : "turn.deadline";
  const bank = clock?.banks?.[mover];
  const text = t(key, { name: nameOf(state, mover), left: timeLeftText(left) });
  $("#deadline-text").textContent = bank ? `${text} · ${t("turn.bank", { h: Math.round(bank / 3_600_000) })}` : text;
  box.classList.toggle("low", left < 3_600_000);
  box.classList.toggle("mine", state.me?.seat === mover);
  // Minutes are shown under a day: the words change at most once a minute.
  state.timers.deadline = setTimeout(() => drawDeadline(state), Math.max(1000, Math.min(60_000, left % 60_000 || 60_000)));
}

/** How long a card's flight lasts: part of the pace, none when motion is off. */
function motionTime(state) {
  if (!state.pace || matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
  return Math.min(450, Math.round(state.pace * 0.6));
}

function drawJoin(state, table) {
  const invite = state.invite;
  const open = invite && table.seats[invite.seat] && !table.seats[invite.seat].joined;
  $("#join").hidden = !open;
  if (open) {
    $("#join-title").textContent = t("join.title_seat", { n: invite.seat + 1 });
    const field = $("#join-name");
    if (!field.value) field.value = saved.get("name", "");
  }
}

/** Before a turn-based game starts (joining, waiting for players): what turn-based means here. */
const UNRATED = { timeout: "fair.unrated_timeout", left: "fair.unrated_left", alone: "fair.unrated_alone", linked: "fair.unrated_linked" };

/** Why a rated game is rated for nobody, and everyone is told: a player left, or lost to the clock, in its first
 * deal; every other player left it; its players share a connection or device (the ratings' answer says so). */
function unratedText(state, table) {
  const why = table.rated ? table.unrated || state.ratingsUnrated : null;
  if (!why || !UNRATED[why.reason]) return "";
  return t(UNRATED[why.reason], { name: why.seat === null ? "" : nameOf(state, why.seat) });
}

function drawUnrated(state, table) {
  const text = unratedText(state, table);
  $("#unrated-note").hidden = !text;
  $("#unrated-note").textContent = text;
}

/** A line for each seat whose last card, its only legal one, was played for it (the clock's ``forced``). */
function drawForced(state, table) {
  const seats = table.clock?.forced ?? [];
  const note = $("#forced-note");
  note.hidden = !seats.length;
  note.textContent = seats
    .map((seat) => (seat === state.me?.seat ? t("forced.done_you") : t("forced.done", { name: nameOf(state, seat) })))
    .join(" ");
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

/** A "show all hands" table waiting for players: each seated player agrees that anyone watching sees their cards
 * before the game starts. */
function drawConsent(state, table) {
  const mine = state.me ? table.seats[state.me.seat] : null;
  const box = $("#show-hand-consent");
  box.hidden = !(table.show_hands && table.status === "waiting" && mine?.joined);
  if (box.hidden) return;
  const others = table.seats.filter((seat) => seat.kind === "human" && !seat.shows_hand).length;
  $("#show-hand-text").textContent = mine.shows_hand ? t("consent.agreed", { n: others }) : t("consent.explain");
  $("#show-hand-button").hidden = mine.shows_hand;
}

function agreeToShowHand() {
  if (!send({ type: "show_hand", id: "show-hand" })) refuse(t("conn.not_connected"));
}

function drawWaiting(state, table) {
  const expired = table.status === "expired";
  $("#expired-note").hidden = !expired;
  $("#waiting-explain").hidden = expired;
  // A friend's invitation here is not in the page's notice: its seat is taken from the list below instead.
  const invited = new Set(state.invitations.filter((one) => one.table === state.tableId).map((one) => one.seat));
  const canTake = !state.me && !state.invite && (table.public || invited.size > 0) && !expired;
  $("#take-name-row").hidden = !canTake;
  if (canTake && !$("#take-name").value) $("#take-name").value = saved.get("name", "");
  // One row a seat, keyed by it: a kept row, its button and its focus stay (render.js).
  const rows = table.seats.map((seat) => {
    let what;
    if (seat.kind === "bot") what = t("waiting.bot", { bot: botName(seat.bot) });
    else if (seat.joined) what = state.me?.seat === seat.seat ? t("waiting.you") : t("waiting.joined");
    else what = t("waiting.open");
    const guest = seat.kind === "human" && seat.guest ? [" ", guestTag()] : [];
    const name = el("strong", {}, nameOf(state, seat.seat));
    const item = el("li", { class: "row", dataset: { seat: seat.seat, key: `seat:${seat.seat}` } }, name, ...guest, " ", what);
    if (canTake && seat.kind === "human" && !seat.joined && (table.public || invited.has(seat.seat))) {
      item.append(
        el("button", {
          type: "button",
          text: t("waiting.take"),
          "aria-label": t("waiting.take_seat", { n: seat.seat + 1 }),
          on: { click: () => join(state, seat.seat, null, $("#take-name").value) },
        }),
      );
    }
    return item;
  });
  reconcile($("#waiting-seats"), steadyAll(rows));
  const invites = (saved.get(`invites.${state.tableId}`) || []).filter(
    (invite) => invite.seat !== state.me?.seat && !table.seats[invite.seat]?.joined,
  );
  const box = $("#invites");
  box.replaceChildren();
  if (!invites.length) return;
  box.append(el("h3", {}, t("invite.title")), el("p", { class: "muted" }, t("invite.explain")));
  if (table.rated) box.append(el("p", { class: "muted", id: "invite-rated" }, t("invite.rated_home")));
  for (const invite of invites) {
    const link = inviteLink(state.tableId, invite);
    const label = t("invite.seat", { n: invite.seat + 1 });
    const field = el("input", { value: link, readonly: true, "aria-label": label });
    const button = el("button", { type: "button", class: "secondary", text: t("common.copy"), "aria-label": label });
    button.addEventListener("click", () => copy(link, button));
    box.append(el("div", { class: "invite" }, el("span", {}, label), field, button));
  }
}

function seatOrder(state, view) {
  const first = state.me ? state.me.seat + 1 : 0;
  return [...Array(view.players).keys()].map((i) => (first + i) % view.players);
}

const placeAt = (state, view) => (seat) => placeOf(view.players, state.me?.seat ?? 0, seat);

function seatBadges(state, view, seat) {
  const info = state.table.seats[seat] || {};
  const badges = [];
  if (view.current_player === seat) badges.push(el("span", { class: "badge turn" }, t(view.phase === "bid" ? "seat.turn_bid" : "seat.turn")));
  if (view.first_player === seat && view.phase !== "game_over") badges.push(el("span", { class: "badge first" }, t("seat.first")));
  if (info.kind === "bot") return badges;
  if (info.guest) badges.push(guestTag());
  if (state.ratings?.[seat]) badges.push(ratingBadge(state.ratings[seat]));
  if (info.replaced) badges.push(el("span", { class: "badge away", title: t("seat.replaced_explain") }, t("seat.replaced")));
  else if (info.bot_playing) badges.push(el("span", { class: "badge away" }, t("seat.bot_playing")));
  else if (info.joined && !info.connected) badges.push(awayBadge(state, info));
  return badges;
}

/** A seated player with no page open: at a live table a red "disconnected"; at a turn-based one, where being away
 * is the rule, a quiet "last seen 2 h ago" (or "not here now" when this server did not see them leave). */
function awayBadge(state, info) {
  if (!state.table.turn_based) return el("span", { class: "badge away" }, t("seat.away"));
  const ago = info.away_ms;
  if (ago === null || ago === undefined) return el("span", { class: "badge seen" }, t("seat.not_here"));
  const minutes = Math.floor(ago / 60_000);
  const text =
    minutes < 1 ? t("seat.seen_now") : minutes < 60 ? t("seat.seen_minutes", { n: minutes }) : minutes < 48 * 60
      ? t("seat.seen_hours", { n: Math.floor(minutes / 60) }) : t("seat.seen_days", { n: Math.floor(minutes / 1440) });
  return el("span", { class: "badge seen" }, text);
}

// Ratings are public (as on the leaderboard): each account's, beside its name, read again when a game ends or
// starts or a seat changes hands.
function watchRatings(state, table) {
  const key = [table.status, table.game_no, ...table.seats.map((s) => s.player)].join(":");
  if (key === state.drawn.ratingsKey) return;
  state.drawn.ratingsKey = key;
  api(`/api/tables/${encodeURIComponent(state.tableId)}/ratings`)
    .then((answer) => {
      ratingsRead(state, answer, table.game_no);
      draw(state);
    })
    .catch(() => {});
}

function drawSeats(state, edition, view) {
  // Seated: the others around the table; watching: every seat, the first at the bottom.
  const shown = state.me ? seatOrder(state, view).filter((seat) => state.me.seat !== seat) : seatOrder(state, view);
  const place = placeAt(state, view);
  reconcile(
    $("#seats"),
    shown.map((seat) => seatItem(edition, view, seat, nameOf(state, seat), seatBadges(state, view, seat), { place: place(seat) })),
  );
}

function drawTrick(state, edition, view) {
  const { trick, title, previousDeal } = trickOnTable(view, yours(state));
  const led = trick && !previousDeal ? ledColour(edition, trick) : null;
  $("#trick-title").textContent = led ? `${title} · ${t("trick.led", { colour: colourName(led), symbol: led.symbol })}` : title;
  const done = view.tricks_won.reduce((a, b) => a + b, 0);
  const number = trick === view.trick ? done + 1 : done;
  const key = previousDeal ? `${view.deal_number - 1}:last` : `${view.deal_number}:${number}`;
  drawTrickCards($("#trick-cards"), edition, trick, named(state), previousDeal, { place: placeAt(state, view), key });
  $("#trick-cards .trick-area").dataset.players = String(view.players);
  $("#beads").textContent = beadsText(view);
}

function drawMe(state, edition, view) {
  const seat = state.me?.seat;
  $("#me").hidden = seat === undefined || seat === null;
  if ($("#me").hidden) {
    return;
  }
  const section = $("#me");
  section.classList.toggle("turn", view.current_player === seat);
  $("#me-title").textContent = t("seat.you", { name: nameOf(state, seat) });
  reconcile($("#me-badges"), steadyAll(seatBadges(state, view, seat)));
  reconcile($("#me-bid"), steadyAll(renderBid(view.bids[seat])));
  $("#me-tricks").textContent = t("seat.tricks", { n: view.tricks_won[seat] });
  const hints = view.hints;
  $("#hints").hidden = !hints;
  if (hints) reconcile($("#hints-list"), keptAll(renderHints(edition, view.hands[seat], hints)));
}

/** The summary of the deal just scored, in the trick's place (the hands stay in sight), until it is closed or the
 * next deal's first card is played; while the deal is bid, "Last deal" opens it again. */
function drawSummary(state, view) {
  const scored = view.results.length;
  summariesSeen(state, scored);
  const started = view.tricks_won.some(Boolean) || Boolean(view.trick?.plays.length);
  const fresh = scored > state.summarised && scored > state.summaryClosed;
  const open = (fresh || state.summaryReopened === scored) && !(started && view.phase !== "game_over");
  $("#summary").hidden = !open;
  $("#summary-open").hidden = open || !scored || view.phase !== "bid";
  if (!open) return;
  const result = view.results.at(-1);
  $("#summary-title").textContent = t("summary.title", { n: scored });
  reconcile($("#summary-body"), keptAll(renderDealSummary(view, result, named(state), yours(state))));
  let next = "";
  if (view.phase !== "game_over") {
    // The view is the next deal's already: its first player, and whether the leader on score opens it.
    const opener = youOr(state, view.first_player);
    const leader = view.first_player_is_leader;
    next = t(leader ? "summary.next_leader" : "summary.next", { name: opener, n: view.deal_number, before: youOr(state, result.first_player) });
  }
  $("#summary-next").textContent = next;
  // The summary lies over the trick's foot: the bet beads left under the cap are said in it too, while bidding.
  let beads = $("#summary-beads");
  if (!beads) {
    beads = el("p", { id: "summary-beads", class: "summary-beads" });
    $("#summary-next").after(beads);
  }
  beads.textContent = view.phase === "bid" ? beadsText(view) : "";
  beads.hidden = !beads.textContent;
}


function drawHistory(state, edition, view) {
  const history = view.trick_history;
  $("#history").hidden = !history;
  if (!history) return;
  const tricks = history.flatMap((trick, index) => {
    const area = renderTrick(edition, trick, named(state), false, { labelOf: yours(state) });
    area.dataset.key = `history:${index}`; // each trick kept while it reads the same
    return [el("h3", {}, t("history.trick", { n: index + 1, name: youOr(state, trick.winner) })), area];
  });
  reconcile($("#history-list"), steadyAll(history.length ? tricks : el("p", { class: "muted" }, t("history.none"))));
}

function drawOver(state, view) {
  const outcome = view.outcome;
  $("#over").hidden = !outcome;
  if (!outcome) return;
  const last = view.results.at(-1)?.scores;
  $("#over-text").textContent = outcomeText(outcome, last, yours(state));
  reconcile($("#ranking"), keptAll(renderRanking(outcome, yours(state))));
  drawRematch(state);
  drawRatingChanges(state, outcome);
  const game = state.table.game_no;
  const daily = new URLSearchParams(location.search).get("daily"); // a daily deal's table (daily.js)
  $("#daily-over").hidden = !daily;
  if (daily) $("#daily-link").href = `/daily?edition=${encodeURIComponent(daily)}`;
  // A tournament's table: one game, no rematch; its records open when the round ends (on the tournament's page).
  const tournament = state.table.tournament;
  $("#tournament-over").hidden = !tournament;
  if (tournament) $("#tournament-link").href = `/tournaments/${encodeURIComponent(tournament)}`;
  for (const id of ["#replay-link", "#record-link"]) $(id).hidden = Boolean(tournament);
  drawOverAccuracy($("#over-accuracy"), {
    tableId: state.tableId,
    game,
    seat: state.me?.seat,
    tournament,
    redraw: () => state.shown?.view?.outcome && drawOver(state, state.shown.view),
  });
  showOtherScores(state.tableId, game, $("#other-scores"), state.table.shared_deal && game === 1);
  $("#replay-link").href = `/replay/${encodeURIComponent(state.tableId)}?game=${game}`;
  const record = $("#record-link");
  record.href = `/api/tables/${encodeURIComponent(state.tableId)}/record?game=${game}`;
  record.setAttribute("download", `luz-${state.tableId}-game-${game}.json`);
}

function rematchLeft(state) {
  const offer = state.shown?.table?.rematch;
  return offer ? offer.ends_in_ms - (performance.now() - state.shown.received) : 0;
}

function countdownText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds >= 3600 ? timeLeftShort(ms) : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The game-over panel's rematch: the offer, who accepted and who is awaited with its countdown, the buttons. */
function drawRematch(state) {
  clearTimeout(state.timers.rematch);
  const table = state.shown?.table;
  if (!table || !state.shown.view?.outcome) return;
  const left = rematchLeft(state);
  const panel = rematchPanel(table, state.me?.seat, yours(state), left, countdownText(left));
  const offerButton = $("#rematch");
  offerButton.hidden = !panel.offer || Boolean(table.tournament);
  offerButton.textContent = t(panel.solo ? "outcome.rematch" : "rematch.offer");
  $("#rematch-text").textContent = panel.text;
  $("#rematch-text").hidden = !panel.text;
  $("#rematch-accepted").textContent = panel.accepted;
  $("#rematch-waiting").textContent = panel.waiting;
  $("#rematch-progress").hidden = panel.status !== "open";
  $("#rematch-answer").hidden = !panel.answer;
  if (panel.status === "open") state.timers.rematch = setTimeout(() => drawRematch(state), 1000);
}

/** Tell the table's change of rematch offer, once: who offered, who accepted, who declined, its expiry. */
function tellRematch(state, table) {
  const before = state.drawn.rematchSeen;
  const offer = table.rematch ?? null;
  state.drawn.rematchSeen = offer;
  if (!offer) $("#rematch-notice").textContent = "";
  if (before === undefined || !offer) return; // the page's first state, or no offer: nothing new to tell
  const mine = state.me?.seat;
  let notice = "";
  let accepted = ""; // the panel's own sentence says the rest (the offer, its decline, its expiry)
  if (!before || before.expires_at !== offer.expires_at || before.by !== offer.by) {
    if (offer.by !== mine) notice = t("rematch.offered", { name: nameOf(state, offer.by) });
  } else if (rematchStatus(offer, 1) === "declined" && rematchStatus(before, 1) !== "declined") {
    notice = t("rematch.declined", { name: youOr(state, offer.declined) });
  } else if (offer.expired && !before.expired) {
    notice = t("rematch.expired");
  } else {
    const joined = offer.accepted.filter((seat) => !before.accepted.includes(seat) && seat !== mine);
    if (joined.length) notice = accepted = t("rematch.notice_accepted", { name: joined.map(named(state)).join(", ") });
  }
  if (notice) {
    $("#rematch-notice").textContent = accepted;
    announce(notice);
  }
}

/** Under a rated game's ranking: each player's rating before and after it (or why it was not rated). */
function drawRatingChanges(state, outcome) {
  const box = $("#over-ratings");
  const changes = state.ratingChanges || [];
  const lines = outcome.ranking
    .filter((seat) => changes[seat])
    .map((seat) => el("li", { dataset: { seat } }, `${youOr(state, seat)}: `, ratingBeforeAfter(changes[seat])));
  const unrated = unratedText(state, state.table);
  box.hidden = !state.table.rated || (!lines.length && !unrated);
  box.replaceChildren(
    el("h3", {}, t("fair.changes_title")),
    ...(unrated ? [el("p", { class: "muted" }, unrated)] : []),
    ...(lines.length ? [el("ul", { class: "plain stack" }, ...lines)] : []),
  );
}

function openHelp(state) {
  const frame = $("#help-frame");
  const edition = state.table?.edition ? `&edition=${encodeURIComponent(state.table.edition)}` : "";
  frame.title = t("help.title");
  frame.src = `/how-to-play?embed=1&lang=${language()}${edition}`;
  $("#help").showModal();
}

function notFound(state) {
  markGone(state);
  $("#table-name").textContent = t("table.not_found");
  $("#game").hidden = true;
  $("#waiting").hidden = true;
  setStatus(state, "", false);
  refuse(t("table.not_found_explain"));
}

// -- start ------------------------------------------------------------------------------------------------

async function start() {
  const state = createState(location);
  cleanAddress();
  await startPage();
  onInvitation((invitations) => {
    state.invitations = invitations;
    draw(state);
  });
  $("#pace").value = String([900, 500, 150, 0].includes(state.pace) ? state.pace : 500);
  $("#pace").addEventListener("change", (event) => {
    setPace(state, Number(event.target.value));
  });
  $("#summary-close").addEventListener("click", () => {
    closeSummary(state);
    if (state.shown?.view) drawSummary(state, state.shown.view);
  });
  $("#summary-open").addEventListener("click", () => {
    if (!state.shown?.view) return;
    reopenSummary(state);
    drawSummary(state, state.shown.view);
    $("#summary-close").focus();
  });
  $("#help-button").addEventListener("click", () => openHelp(state));
  $("#show-hand-button").addEventListener("click", agreeToShowHand);
  $("#help-close").addEventListener("click", () => $("#help").close());
  startControls(state);
  alertsStart();
  startChat(send);
  $("#reconnect-now").addEventListener("click", retryNow);
  $("#join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.invite) join(state, state.invite.seat, state.invite.token, $("#join-name").value);
  });
  window.addEventListener("online", () => {
    if (!hasSocket() && !state.gone) retryNow();
  });
  onLanguageChange(() => {
    state.drawn.status = "";
    draw(state);
  });
  setEditions(state, await editions());
  try {
    setTable(state, await api(`/api/tables/${encodeURIComponent(state.tableId)}`));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      notFound(state);
      return;
    }
  }
  // An invite to a seat already taken is the player's own link, on another device: the token is the seat.
  if (state.invite && state.table?.seats[state.invite.seat]?.joined) holdSeat(state, state.invite.seat, state.invite.token);
  // No seat saved in this browser, but this identity sits here (My games, on another device): that seat.
  if (!state.me && !state.invite && state.table) {
    const me = await identity();
    const mine = me && state.table.seats.find((seat) => seat.kind === "human" && seat.joined && seat.player === me.id);
    if (mine) sitAsIdentity(state, mine.seat);
  }
  openConnection({
    address: () => address(state),
    receive: (message) => receive(state, message),
    closed: (code) => closed(state, code),
  });
}

start();