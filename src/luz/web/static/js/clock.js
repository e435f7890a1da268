// Clocks of a timed table (docs/PROTOCOL.md, "Clocks"): each seat's time left beside its name, the mover's ticking
// down. The server sends the time left as it sends the state; the count runs from when this page received it, so a
// wrong clock on this device changes nothing.

import { $, el } from "./common.js";
import { t } from "./i18n.js";

const LOW_MS = 10_000;
const NOTICE_MS = 8_000;
const TICK_MS = 200;

let current = null; // {clock, received, low}: the clock on screen
let ticker = null;
let noticeTimer = null;

/** A time control as people write it: "3+10" (minutes + seconds per move); "0:30+2" for a reserve of 30 s. */
export function timeControlText(control) {
  const reserve = Math.round(control.reserve_ms / 1000);
  const minutes = reserve % 60 === 0 ? String(reserve / 60) : `${Math.floor(reserve / 60)}:${String(reserve % 60).padStart(2, "0")}`;
  return t("clock.control", { control: `${minutes}+${control.increment_ms / 1000}` });
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
    node.textContent = clockText(left);
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
  current = { clock, received, low: Math.min(LOW_MS, state.table.time_control.reserve_ms / 4) };
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
  if (!ticker) ticker = setInterval(tick, TICK_MS);
}

/** Tell the table that a seat's time ran out and the bot played that move for it. */
export function showTimeout(seat, mine, name) {
  let notice = $("#clock-notice");
  if (!notice) {
    notice = el("p", { id: "clock-notice", class: "clock-notice", role: "status" });
    $("#status").after(notice);
  }
  notice.textContent = seat === mine ? t("clock.timeout_you") : t("clock.timeout", { name });
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    notice.hidden = true;
  }, NOTICE_MS);
}
