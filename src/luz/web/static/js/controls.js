// The table's controls: acting (a bid, a card, only from the newest state's legal actions), the hand's keys, the
// notes on your own cards, the answer to a rematch offer. What is legal comes from the view, never from here.
// Each function is given the page's state (tablestate.js), read here and changed by its named updates only.

import { drawHand } from "./board.js";
import { $, announce, el } from "./common.js";
import { isOpen, send } from "./connection.js";
import { t } from "./i18n.js";
import { reconcile } from "./render.js";
import { actionSent, chooseNoteSlot, mayPremove, myTurn, nextRequest, noReply, premoveShown, setNoteMode } from "./tablestate.js";

/** The refusal under the controls (an action refused, a card that cannot be played now): shown and said. */
export function refuse(text) {
  $("#refusal").textContent = text;
  if (text) announce(text, { urgent: true });
}

// -- acting -----------------------------------------------------------------------------------------------

/** Whether this browser's seat can act now: its turn in the newest state, nothing awaited, the line open. */
export function canAct(state) {
  return myTurn(state) && state.pending === null && state.queue.length === 0 && isOpen();
}

function act(state, action) {
  if (!canAct(state)) return;
  // The player has seen this state and acted: their own card shows as soon as it comes back, without the pause.
  const id = actionSent(state);
  send({ type: "action", id, version: state.shown.version, action });
  drawControls(state);
}

/** A tap on a hidden card of mine: its note in notes mode, else playing it (read at the tap: a kept card's
 * listener outlives the view it was drawn for). */
function tapSlot(state, slot) {
  if (state.noteMode) editNote(state, slot);
  else if (!canAct(state) && mayPremove(state)) choosePremove(state, slot);
  else act(state, { type: "play", slot });
}

// -- the next card, chosen before your turn (live tables) -------------------------------------------------

/** Choose ``slot`` as the card played when my turn comes; the card already chosen cancels the choice. The server
 * answers with this seat's ``premove`` message, which marks the card. */
function choosePremove(state, slot) {
  const chosen = premoveShown(state).slot;
  const id = `premove-${nextRequest(state, { awaited: false })}`;
  if (!send({ type: "premove", id, slot: chosen === slot ? null : slot })) refuse(t("conn.not_connected"));
}

/** The line under my hand about my next card: chosen, or (on my turn) cancelled by the server; none otherwise,
 * so that nothing under the hand moves at each turn. */
function drawPremove(state, premoving) {
  const { slot, cancelled } = premoveShown(state);
  const key = slot !== null && premoving ? "premove.chosen" : cancelled && myTurn(state) ? "premove.cancelled" : "";
  const line = $("#premove-note");
  line.hidden = !key;
  line.classList.toggle("cancelled", key === "premove.cancelled");
  const text = key ? t(key) : "";
  if (line.textContent !== text) line.textContent = text; // said by its role, status
}

// -- notes on your own cards ------------------------------------------------------------------------------

function switchNoteMode(state, on) {
  setNoteMode(state, on);
  $("#note-mode").setAttribute("aria-pressed", String(on));
  $("#note-editor").hidden = true;
  drawControls(state);
}

function editNote(state, slot) {
  chooseNoteSlot(state, slot);
  $("#note-editor").hidden = false;
  $("#note-label").textContent = t("notes.label", { n: slot + 1 });
  $("#note-text").value = state.notes?.notes?.[slot] || "";
  $("#note-text").focus();
}

function saveNote(state, text) {
  if (state.noteSlot === null) return;
  const id = `note-${nextRequest(state, { awaited: false })}`;
  if (!send({ type: "note", id, slot: state.noteSlot, text })) refuse(t("conn.not_connected"));
  $("#note-editor").hidden = true;
  chooseNoteSlot(state, null);
}

/** Offer or accept (``accept``) a rematch, or decline it; at a table of one human, the next game at once. */
function answerRematch(state, accept) {
  const id = nextRequest(state, { awaited: true });
  if (!send({ type: "rematch", id, accept })) {
    noReply(state);
    refuse(t("conn.not_connected"));
  }
}


/** My hand and the bid buttons: enabled only for the legal actions of the newest state, mine to play. */
export function drawControls(state) {
  const shown = state.shown;
  const view = shown?.view;
  if (!view || !state.me || !view.hands.length) {
    $("#bidding").hidden = true;
    if (view && state.me) $("#my-hand").replaceChildren();
    return;
  }
  const edition = state.editions[shown.table.edition];
  const ready = canAct(state);
  const legal = ready ? view.legal_actions : [];
  const focused = document.activeElement?.dataset?.slot;
  const hadFocus = $("#my-hand").contains(document.activeElement);
  const mine = view.hands[state.me.seat];
  const premoving = !ready && !state.noteMode && mayPremove(state) && isOpen();
  const plays = state.noteMode || premoving
    ? new Set(mine.filter((slot) => !slot.played).map((slot) => slot.slot))
    : new Set(legal.filter((a) => a.type === "play").map((a) => a.slot));
  const notes = state.notes && state.notes.deal === view.deal_number && state.notes.game_no === shown.table.game_no;
  drawHand($("#my-hand"), edition, mine, {
    mine: true,
    legal: plays,
    onPlay: (slot) => tapSlot(state, slot),
    hints: view.hints,
    seat: state.me.seat,
    notes: notes ? state.notes.notes : null,
    premove: premoving ? premoveShown(state).slot : undefined,
  });
  if (hadFocus) focusSlot(focused === undefined ? null : Number(focused));
  drawPremove(state, premoving);
  const keys = premoving ? "hand.keys_premove" : "hand.keys"; // Enter chooses the next card while others play
  if ($("#keys-help").dataset.i18n !== keys) {
    $("#keys-help").dataset.i18n = keys;
    $("#keys-help").textContent = t(keys);
  }
  drawBidding(state, view, legal);
}

/** Numbers in order as runs: "1, 3–10". */
function runsText(numbers) {
  const runs = [];
  for (const n of numbers) {
    const run = runs.at(-1);
    if (run && n === run[1] + 1) run[1] = n;
    else runs.push([n, n]);
  }
  return runs.map(([a, b]) => (a === b ? String(a) : `${a}–${b}`)).join(", ");
}

function drawBidding(state, view, legal) {
  const bids = legal.filter((a) => a.type === "bid");
  const fieldset = $("#bidding");
  const bidding = view.phase === "bid" && view.current_player === state.me.seat;
  fieldset.hidden = !bidding;
  $("#keys-help").hidden = bidding;
  if (!bidding) return;
  const safety = $("#safety").checked;
  // Every bid from 0 to the view's max_bid; one missing from the legal actions is ruled out by the cap, shown
  // disabled with the beads left (public: the view's beads_left and the table's cap).
  const legalCounts = new Set(view.legal_actions.filter((a) => a.type === "bid").map((a) => a.tricks));
  const counts = [...Array(view.max_bid + 1).keys()];
  const capped = counts.filter((tricks) => !legalCounts.has(tricks));
  const cap = { left: view.beads_left, cap: view.options.bid_cap };
  $("#bid-capped").textContent = capped.length ? t("bid.capped", { ...cap, bids: runsText(capped) }) : "";
  // One button a bid, keyed by its count: a kept button (and its focus) is updated in place (render.js).
  reconcile(
    $("#bid-buttons"),
    counts.map((tricks) => {
      const out = capped.includes(tricks);
      const label = t(out ? "bid.button_capped" : safety ? "bid.button_safety" : "bid.button", { ...cap, n: tricks });
      const allowed = bids.some((a) => a.tricks === tricks && a.safety === safety);
      const update = (button) => {
        if (button.getAttribute("aria-label") !== label) button.setAttribute("aria-label", label);
        button.title = label;
        button.disabled = !allowed;
        button.classList.toggle("capped", out);
        return button;
      };
      const key = `bid:${tricks}`;
      const click = () => act(state, { type: "bid", tricks, safety: $("#safety").checked });
      const build = () => update(el("button", { type: "button", text: String(tricks), dataset: { key, tricks }, on: { click } }));
      return { key, build, update };
    }),
  );
}

function enabledSlots() {
  return [...$("#my-hand").querySelectorAll("button.card:not(:disabled)")];
}

function focusSlot(slot) {
  const buttons = enabledSlots();
  if (!buttons.length) {
    $("#my-hand").querySelector("button.card")?.focus();
    return;
  }
  const exact = buttons.find((b) => Number(b.dataset.slot) === slot);
  const after = buttons.find((b) => Number(b.dataset.slot) > (slot ?? -1));
  (exact || after || buttons.at(-1)).focus();
}

function handKeys(event) {
  const buttons = enabledSlots();
  if (!buttons.length) return;
  const index = buttons.indexOf(document.activeElement);
  let target = null;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") target = buttons[(index + 1) % buttons.length];
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") target = buttons[(index - 1 + buttons.length) % buttons.length];
  else if (event.key === "Home") target = buttons[0];
  else if (event.key === "End") target = buttons.at(-1);
  if (target) {
    event.preventDefault();
    target.focus();
  }
}

/** Number keys choose a card anywhere on the page (1 is the first slot, 0 the tenth); Enter then plays it. A key
 * for a card that cannot be played now says so. */
function digitKeys(state, event) {
  if (!/^[0-9]$/.test(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest?.("input, select, textarea")) return;
  const slot = event.key === "0" ? 9 : Number(event.key) - 1;
  const button = $("#my-hand").querySelector(`button.card[data-slot="${slot}"]`);
  event.preventDefault();
  if (button && !button.disabled) {
    button.focus();
    return;
  }
  const reason = !button ? "hand.no_card" : canAct(state) && state.shown.view.phase === "play" ? "hand.not_playable" : "hand.not_now";
  refuse(t(reason, { n: slot + 1 }));
  button?.classList.remove("nope");
  requestAnimationFrame(() => button?.classList.add("nope"));
}

/** The controls' listeners on the page of ``state``, once it is started. */
export function startControls(state) {
  $("#safety").addEventListener("change", () => drawControls(state));
  $("#rematch").addEventListener("click", () => answerRematch(state, true));
  $("#rematch-accept").addEventListener("click", () => answerRematch(state, true));
  $("#rematch-decline").addEventListener("click", () => answerRematch(state, false));
  $("#note-mode").addEventListener("click", () => switchNoteMode(state, !state.noteMode));
  $("#note-save").addEventListener("click", () => saveNote(state, $("#note-text").value));
  $("#note-clear").addEventListener("click", () => saveNote(state, ""));
  $("#my-hand").addEventListener("keydown", handKeys);
  $("#note-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter") saveNote(state, $("#note-text").value);
  });
  document.addEventListener("keydown", (event) => digitKeys(state, event));
}
