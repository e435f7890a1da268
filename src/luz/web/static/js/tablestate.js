// The table page's state, as chessground's State: one object, made by createState() when the page starts and
// handed to the functions that draw it (table.js, controls.js) and act on it. It changes only through the named
// updates below, and a server's message through apply(state, message): one handler per message type (as the
// server's HANDLERS of api/live.py), which changes the state and names what to draw again.

import { saved, seatName } from "./common.js";
import { t } from "./i18n.js";

/** The state of the page at ``address`` (``location``): its table, the seat this browser holds, the pace. */
export function createState(address) {
  const tableId = decodeURIComponent(address.pathname.split("/")[2] || "");
  const query = new URLSearchParams(address.search);
  const pace = Number(query.get("pace") ?? saved.get("pace", 500));
  if (query.has("pace")) saved.set("pace", pace);
  const me = saved.get(`seat.${tableId}`);
  const link = invitation(address);
  return {
    tableId,
    tutorial: query.has("tutorial"), // the tutorial's table: its coach shows beside the game
    pace, // how long each state is held, in milliseconds
    editions: {},
    me, // {seat, token} once this browser holds a seat here; {seat, token: null}: the seat this browser's
    // identity holds (its cookie), opened with ?me=1 (My games on another device)
    invite: link && !(me && me.token === link.token) ? link : null, // from an invite link, until the seat is taken
    invitations: [], // friends' invitations to this identity (the event stream's list): one here offers its seat
    table: null, // the latest table summary
    gone: false, // the table does not exist
    shown: null, // the state on screen
    queue: [], // states received, not yet shown
    holdUntil: 0, // the state on screen stays until then (performance.now())
    serverOffset: 0, // the server's clock minus this device's (a turn-based deadline is the server's time)
    ids: 0, // the last request id sent
    pending: null, // the id of the action or request awaiting its reply
    notes: null, // this seat's notes on its cards this deal: {deal, notes: {slot: text}} from the server
    premove: null, // this seat's next card, chosen before its turn: {game_no, deal, slot, cancelled} from the server
    noteMode: false, // tapping a hidden card edits its note instead of playing it
    noteSlot: null, // the slot whose note is being edited
    summarised: null, // how many deals were scored when the page first saw the game (older ones get no summary)
    summaryClosed: 0, // the number of scored deals whose summary was closed
    summaryReopened: null, // the number of scored deals when "Last deal" opened the summary again
    ratings: null, // each seat's rating (public), read when a game ends or starts or a seat changes hands
    ratingChanges: null, // this game's rating changes, once it is rated
    ratingsUnrated: null, // why this game was rated for nobody, as the ratings' answer says
    // What the drawing last did (written by the drawing only): the status said, the deal whose safety box was
    // reset (it starts unticked each deal), the rematch offer told, the ratings asked for, its timers.
    drawn: { status: "", safetyDeal: null, rematchSeen: undefined, ratingsKey: null },
    timers: { pump: null, deadline: null, rematch: null },
  };
}

/** The seat and token of an invite link (``address``: ``location``), or ``null``. */
export function invitation(address) {
  const query = new URLSearchParams(address.search);
  const fragment = new URLSearchParams(address.hash.slice(1));
  const token = fragment.get("token") || query.get("token");
  const seat = Number(fragment.get("seat") ?? query.get("seat"));
  return token && Number.isInteger(seat) ? { seat, token } : null;
}

// -- the server's messages --------------------------------------------------------------------------------

/** Each message type's handler: it changes ``state`` and returns the names of what to draw (or do) again. */
const HANDLERS = {
  state(state, message, now) {
    const newest = state.queue.at(-1) || state.shown;
    if (newest && message.version < newest.version) return [];
    message.received = now; // a timed table's clocks count from here (clock.js)
    const serverTime = message.table?.clock?.server_time;
    if (serverTime) state.serverOffset = serverTime - Date.now();
    state.queue.push(message);
    return ["pump"];
  },
  timeout: () => ["timeout"],
  notes(state, message) {
    state.notes = message;
    return ["controls"];
  },
  premove(state, message) {
    state.premove = message;
    return ["controls"];
  },
  ack(state, message) {
    if (message.id === state.pending) state.pending = null;
    return ["refusal", "controls"];
  },
  error(state, message) {
    if (message.id === state.pending || message.id === null) state.pending = null;
    return message.code === "stale" ? ["refusal", "sync", "controls"] : ["refusal", "controls"];
  },
};

/** ``message`` applied to ``state`` (received at ``now``, performance.now()): what to draw again; none for a type
 * the page does not know. */
export function apply(state, message, now) {
  const handler = Object.hasOwn(HANDLERS, message.type) ? HANDLERS[message.type] : null;
  return handler ? handler(state, message, now) : [];
}

// -- named updates ----------------------------------------------------------------------------------------

/** The seat taken (``token``), remembered in this browser. */
export function holdSeat(state, seat, token) {
  state.me = { seat, token };
  saved.set(`seat.${state.tableId}`, state.me);
  state.invite = null;
}

/** The seat of this browser's identity (its cookie), not remembered here. */
export function sitAsIdentity(state, seat) {
  state.me = { seat, token: null };
}

/** No seat here any more; ``forget``: its remembered token too. */
export function leaveSeat(state, { forget }) {
  state.me = null;
  if (forget) saved.remove(`seat.${state.tableId}`);
}

export function setEditions(state, editions) {
  state.editions = editions;
}

export function setTable(state, table) {
  state.table = table;
}

export function markGone(state) {
  state.gone = true;
}

export function setPace(state, pace) {
  state.pace = pace;
  saved.set("pace", pace);
}

/** The next state received, now on screen (after a long absence only the newest matters); the one before. */
export function showNext(state) {
  if (state.queue.length > 30) state.queue.splice(0, state.queue.length - 1);
  const before = state.shown;
  state.shown = state.queue.shift();
  state.table = state.shown.table;
  return before;
}

/** The state on screen stays until ``until`` (performance.now()). */
export function holdUntil(state, until) {
  state.holdUntil = until;
}

/** A new request id, awaited (``awaited``: the reply unblocks acting) or not. */
export function nextRequest(state, { awaited }) {
  state.ids += 1;
  if (awaited) state.pending = state.ids;
  return state.ids;
}

/** An action sent: its reply awaited, and the player's own card shown as soon as it comes back (no pause). */
export function actionSent(state) {
  state.holdUntil = 0;
  return nextRequest(state, { awaited: true });
}

/** Nothing awaited any more (the request could not be sent, or the line closed). */
export function noReply(state) {
  state.pending = null;
}

export function setNoteMode(state, on) {
  state.noteMode = on;
  state.noteSlot = null;
}

export function chooseNoteSlot(state, slot) {
  state.noteSlot = slot;
}

/** The scored deals the page saw on arrival (their summaries are not shown). */
export function summariesSeen(state, scored) {
  state.summarised ??= scored;
}

export function closeSummary(state) {
  state.summaryClosed = state.shown?.view?.results.length ?? 0;
  state.summaryReopened = null;
}

export function reopenSummary(state) {
  state.summaryReopened = state.shown.view.results.length;
}

/** The table's ratings (``GET /api/tables/ID/ratings``), its changes only for game ``gameNo``. */
export function ratingsRead(state, answer, gameNo) {
  state.ratings = answer.seats;
  state.ratingChanges = answer.game === gameNo ? answer.changes : null;
  state.ratingsUnrated = answer.game === gameNo ? answer.unrated : null;
}

// -- read from the state ----------------------------------------------------------------------------------

/** A seat's name at this table. */
export function nameOf(state, seat) {
  return seatName(state.table, seat);
}

/** A seat's name, "You (name)" for this browser's seat. */
export function youOr(state, seat) {
  return state.me?.seat === seat ? t("seat.you", { name: nameOf(state, seat) }) : nameOf(state, seat);
}

/** Whether this browser's seat may choose its next card now: a live (not turn-based) table, the cards being
 * played, another seat to play in the state shown (not at the tutorial's table: its coach asks for each card). */
export function mayPremove(state) {
  const view = state.shown?.view;
  const table = state.shown?.table;
  if (!view || !state.me || !table || table.turn_based || table.tutorial || table.status !== "playing") return false;
  return view.phase === "play" && view.current_player !== null && view.current_player !== state.me.seat;
}

/** The premove the server holds for this seat in the deal shown: its slot (``null``: none), and whether the
 * server has just cancelled it (the card could no longer be played). */
export function premoveShown(state) {
  const view = state.shown?.view;
  const premove = state.premove;
  const current = premove && view && premove.deal === view.deal_number && premove.game_no === state.shown.table.game_no;
  return { slot: current ? premove.slot : null, cancelled: Boolean(current && premove.cancelled) };
}

/** Whether the newest state shown asks this browser's seat to act. */
export function myTurn(state) {
  const view = state.shown?.view;
  const forced = state.shown?.table?.seats?.[state.me?.seat]?.forced; // the server plays the only card
  return Boolean(view && state.me && view.current_player === state.me.seat && view.legal_actions.length && !forced);
}
