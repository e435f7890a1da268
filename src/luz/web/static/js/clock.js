// Clocks of a timed table (docs/PROTOCOL.md, "Clocks"): each seat's time left beside its name, the mover's ticking
// down. The server sends the time left as it sends the state; the count runs from when this page received it, so a
// wrong clock on this device changes nothing.

import { $, colourOf, el, valueText } from "./common.js";
import { language, t } from "./i18n.js";

const LOW_MS = 10_000;
const NOTICE_MS = 8_000;
const TICK_MS = 200;

let current = null; // {clock, received, low}: the clock on screen
let ticker = null;
let noticeTimer = null;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A time control as people write it: "3+10" (minutes + seconds per move); "0:30+2" for a reserve of 30 s; a
 * turn-based table's "turn-based, 2 days per move". */
export function timeControlText(control) {
  if (control.days_per_move) return turnBasedText(control);
  const reserve = Math.round(control.reserve_ms / 1000);
  const minutes = reserve % 60 === 0 ? String(reserve / 60) : `${Math.floor(reserve / 60)}:${String(reserve % 60).padStart(2, "0")}`;
  return t("clock.control", { control: `${minutes}+${control.increment_ms / 1000}` });
}

/** "turn-based, 2 days per move". */
export function turnBasedText(control) {
  const days = control.days_per_move;
  return t(days === 1 ? "turn.control_one" : "turn.control", { n: days });
}

/** Time left of a turn-based move, in words: "2 d 4 h left", under a day "5 h 12 min left", then "12 min left". */
export function timeLeftText(ms) {
  if (ms <= 0) return t("turn.time_up");
  if (ms >= DAY) return t("turn.left_days", { d: Math.floor(ms / DAY), h: Math.floor((ms % DAY) / HOUR) });
  if (ms >= HOUR) return t("turn.left_hours", { h: Math.floor(ms / HOUR), m: Math.floor((ms % HOUR) / MINUTE) });
  return t("turn.left_minutes", { m: Math.max(1, Math.ceil(ms / MINUTE)) });
}

/** A date as the player's language writes a day: "12 December", "12 décembre", "12月12日". */
export function dayText(ms) {
  return new Date(ms).toLocaleDateString(language(), { day: "numeric", month: "long" });
}

/** "Ana is on vacation until 12 Dec": said to everyone at a turn-based table instead of her countdown. */
export function vacationText(name, until) {
  return t("turn.vacation", { name, date: dayText(until) });
}

/** The same, short, for a seat's clock: "2 d 4 h", "5 h 12 min", "12 min". */
export function timeLeftShort(ms) {
  const left = Math.max(0, ms);
  if (left >= DAY) return t("turn.short_days", { d: Math.floor(left / DAY), h: Math.floor((left % DAY) / HOUR) });
  if (left >= HOUR) return t("turn.short_hours", { h: Math.floor(left / HOUR), m: Math.floor((left % HOUR) / MINUTE) });
  return t("turn.short_minutes", { m: Math.ceil(left / MINUTE) });
}

/** Time left as a clock shows it: 4:05, and tenths under ten seconds (0:07.3). */
export function clockText(ms) {
  const left = Math.max(0, ms);
  if (left < LOW_MS) return `0:0${(Math.floor(left / 100) / 10).toFixed(1)}`;
  const seconds = Math.ceil(left / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function timeLeft(seat) {
  const { clock, received } = current;
  const left = clock.remaining_ms[seat];
  return clock.running === seat ? left - (performance.now() - received) : left;
}

function tick() {
  if (!current) return;
  for (const node of document.querySelectorAll(".clock[data-seat]")) {
    const seat = Number(node.dataset.seat);
    const left = timeLeft(seat);
    node.textContent = current.turnBased ? timeLeftShort(left) : clockText(left);
    node.classList.toggle("low", left <= current.low);
    node.classList.toggle("out", left <= 0);
  }
}

/** Put each timed seat's clock beside its name (``mine``: this page's seat, shown in its own area), and keep the
 * mover's ticking. ``received``: when the state's message arrived (performance.now()). */
export function drawClocks(state, mine, received) {
  for (const node of document.querySelectorAll(".clock[data-seat]")) node.remove();
  const clock = state.table.clock;
  if (!clock || !state.view || state.view.phase === "game_over") {
    current = null;
    clearInterval(ticker);
    ticker = null;
    return;
  }
  const turnBased = Boolean(state.table.turn_based);
  // A turn-based move's last hour shows in red; a live clock's last ten seconds.
  const low = turnBased ? HOUR : Math.min(LOW_MS, state.table.time_control.reserve_ms / 4);
  current = { clock, received, low, turnBased };
  clock.remaining_ms.forEach((left, seat) => {
    if (left === null) return; // a bot's seat is not timed
    const head = seat === mine ? $("#me .seat-head") : document.querySelector(`#seats .seat[data-seat="${seat}"] .seat-head`);
    if (!head) return;
    const running = clock.running === seat;
    head.append(
      el("span", {
        class: `clock${running ? " running" : ""}`,
        dataset: { seat },
        role: running ? "timer" : null,
        title: t(running ? "clock.running" : "clock.reserve"),
      }),
    );
  });
  tick();
  if (!ticker) ticker = setInterval(tick, turnBased ? 10_000 : TICK_MS);
}

/** Tell the table that a seat's time ran out and the bot played that move for it. ``replaced``: that was the
 * seat's ``timeouts``-th timeout in a row, and a bot plays it for the rest of the game (the notice stays). */
export function showTimeout(seat, mine, name, { replaced = false, timeouts = 0 } = {}) {
  if (seat === mine && !replaced) return; // your own: the lasting line names the move (drawMissed)
  let notice = $("#clock-notice");
  if (!notice) {
    notice = el("p", { id: "clock-notice", class: "clock-notice", role: "status" });
    $("#status").after(notice);
  }
  if (replaced) {
    notice.textContent =
      seat === mine ? t("clock.replaced_you", { n: timeouts }) : t("clock.replaced", { name, seat: seat + 1, n: timeouts });
  } else {
    notice.textContent = seat === mine ? t("clock.timeout_you") : t("clock.timeout", { name });
  }
  notice.classList.toggle("lasting", replaced);
  notice.hidden = false;
  clearTimeout(noticeTimer);
  if (!replaced) {
    noticeTimer = setTimeout(() => {
      notice.hidden = true;
    }, NOTICE_MS);
  }
}

/** The move the timeout bot played for you (the clock's ``missed`` entry of your seat), in words: "A bot played your
 * 7♥ when your time ran out", "A bot bid 2 for you when your time ran out". The card is face up since it was
 * played: nothing still hidden is named. ``edition``: the table's edition (its colours), if known. */
export function missedText(missed, edition) {
  const [kind, argument] = String(missed.action || "").split(":");
  if (kind === "bid") {
    const safety = argument.endsWith("+");
    return t(safety ? "clock.missed_bid_safety" : "clock.missed_bid", { n: parseInt(argument, 10) });
  }
  const colour = missed.card && edition ? colourOf(edition, missed.card.colour) : null;
  if (!colour) return t("clock.missed_move");
  return t("clock.missed_play", { card: `${valueText(missed.card)}${colour.symbol}` });
}

/** The lasting line under the table's status while the timeout bot's move for your seat is the last it made. */
export function drawMissed(state, mine, edition) {
  const missed = mine === undefined || mine === null ? null : state.table.clock?.missed?.[mine];
  let line = $("#missed-notice");
  if (!missed || state.view?.phase === "game_over") {
    if (line) line.hidden = true;
    return;
  }
  if (!line) {
    line = el("p", { id: "missed-notice", class: "clock-notice lasting", role: "status" });
    $("#status").after(line);
  }
  line.textContent = missedText(missed, edition);
  line.hidden = false;
}
