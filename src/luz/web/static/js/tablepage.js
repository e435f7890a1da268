// The table page's shared state (table.js draws it, controls.js acts on it): the table's id and the address's
// parameters, what is on screen and queued, this browser's seat, the pace, and the few words every part uses.

import { $, announce, saved, seatName } from "./common.js";
import { t } from "./i18n.js";

export const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
export const query = new URLSearchParams(location.search);
export const fragment = new URLSearchParams(location.hash.slice(1));

export const page = {
  editions: {},
  me: saved.get(`seat.${tableId}`), // {seat, token} once this browser holds a seat here; {seat, token: null}: the
  // seat this browser's identity holds (its cookie), opened with ?me=1 (My games on another device)
  invite: null, // {seat, token} from an invite link, until the seat is taken
  table: null, // the latest table summary
  shown: null, // the state on screen
  queue: [], // states received, not yet shown
  holdUntil: 0,
  timer: null,
  ids: 0,
  pending: null, // the id of the action or request awaiting its reply
  status: "",
  gone: false, // the table does not exist
  safetyDeal: null, // the deal the safety box was last reset for (it starts unticked each deal)
  summarised: null, // how many deals were scored when the page first saw the game (older ones get no summary)
  summaryClosed: 0, // the number of scored deals whose summary was closed
  summaryReopened: null, // the number of scored deals when "Last deal" opened the summary again
  notes: null, // this seat's notes on its cards this deal: {deal, notes: {slot: text}} from the server
  noteMode: false, // tapping a hidden card edits its note instead of playing it
  noteSlot: null,
  serverOffset: 0, // the server's clock minus this device's (a turn-based deadline is the server's time)
  deadlineTimer: null,
  rematchTimer: null, // redraws the rematch offer's countdown each second
  rematchSeen: undefined, // the rematch offer of the last state drawn (its changes are told)
  pace: Number(query.get("pace") ?? saved.get("pace", 500)), // how long each state is held, in milliseconds
};

if (query.has("pace")) saved.set("pace", page.pace);

export const nameOf = (seat) => seatName(page.table, seat);

export function youOr(seat) {
  return page.me?.seat === seat ? t("seat.you", { name: nameOf(seat) }) : nameOf(seat);
}

export function refuse(text) {
  $("#refusal").textContent = text;
  if (text) announce(text, { urgent: true });
}
