// The table's controls: acting (a bid, a card, only from the newest state's legal actions), the hand's keys, the
// notes on your own cards, the answer to a rematch offer. What is legal comes from the view, never from here.

import { renderHand } from "./board.js";
import { $, el } from "./common.js";
import { isOpen, send } from "./connection.js";
import { t } from "./i18n.js";
import { morph } from "./render.js";
import { page, refuse } from "./tablepage.js";

// -- acting -----------------------------------------------------------------------------------------------

export function myTurn() {
  const state = page.shown;
  return Boolean(state?.view && page.me && state.view.current_player === page.me.seat && state.view.legal_actions.length);
}

export function canAct() {
  return myTurn() && page.pending === null && page.queue.length === 0 && isOpen();
}

function act(action) {
  if (!canAct()) return;
  const id = ++page.ids;
  page.pending = id;
  // The player has seen this state and acted: their own card shows as soon as it comes back, without the pause.
  page.holdUntil = 0;
  send({ type: "action", id, version: page.shown.version, action });
  drawControls();
}

function playSlot(slot) {
  act({ type: "play", slot });
}

/** A tap on a hidden card of mine: its note in notes mode, else playing it (read at the tap: a kept card's
 * listener outlives the view it was drawn for). */
function tapSlot(slot) {
  if (page.noteMode) chooseNoteSlot(slot);
  else playSlot(slot);
}

// -- notes on your own cards ------------------------------------------------------------------------------

function setNoteMode(on) {
  page.noteMode = on;
  page.noteSlot = null;
  $("#note-mode").setAttribute("aria-pressed", String(on));
  $("#note-editor").hidden = true;
  drawControls();
}

function chooseNoteSlot(slot) {
  page.noteSlot = slot;
  $("#note-editor").hidden = false;
  $("#note-label").textContent = t("notes.label", { n: slot + 1 });
  $("#note-text").value = page.notes?.notes?.[slot] || "";
  $("#note-text").focus();
}

function saveNote(text) {
  if (page.noteSlot === null) return;
  if (!send({ type: "note", id: `note-${++page.ids}`, slot: page.noteSlot, text })) refuse(t("conn.not_connected"));
  $("#note-editor").hidden = true;
  page.noteSlot = null;
}

/** Offer or accept (``accept``) a rematch, or decline it; at a table of one human, the next game at once. */
function answerRematch(accept) {
  const id = ++page.ids;
  page.pending = id;
  if (!send({ type: "rematch", id, accept })) {
    page.pending = null;
    refuse(t("conn.not_connected"));
  }
}


/** My hand and the bid buttons: enabled only for the legal actions of the newest state, mine to play. */
export function drawControls() {
  const state = page.shown;
  const view = state?.view;
  if (!view || !page.me || !view.hands.length) {
    $("#bidding").hidden = true;
    if (view && page.me) $("#my-hand").replaceChildren();
    return;
  }
  const edition = page.editions[state.table.edition];
  const ready = canAct();
  const legal = ready ? view.legal_actions : [];
  const focused = document.activeElement?.dataset?.slot;
  const hadFocus = $("#my-hand").contains(document.activeElement);
  const mine = view.hands[page.me.seat];
  const plays = page.noteMode
    ? new Set(mine.filter((slot) => !slot.played).map((slot) => slot.slot))
    : new Set(legal.filter((a) => a.type === "play").map((a) => a.slot));
  const notes = page.notes && page.notes.deal === view.deal_number && page.notes.game_no === state.table.game_no;
  const hand = renderHand(edition, mine, {
    mine: true,
    legal: plays,
    onPlay: tapSlot,
    hints: view.hints,
    seat: page.me.seat,
    notes: notes ? page.notes.notes : null,
  });
  hand.addEventListener("keydown", handKeys);
  morph($("#my-hand"), hand);
  if (hadFocus) focusSlot(focused === undefined ? null : Number(focused));
  drawBidding(view, legal);
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

function drawBidding(view, legal) {
  const bids = legal.filter((a) => a.type === "bid");
  const fieldset = $("#bidding");
  const bidding = view.phase === "bid" && view.current_player === page.me.seat;
  fieldset.hidden = !bidding;
  $("#keys-help").hidden = bidding;
  if (!bidding) return;
  const safety = $("#safety").checked;
  const hadFocus = fieldset.contains(document.activeElement) ? document.activeElement.dataset.tricks : undefined;
  // Every bid from 0 to the view's max_bid; one missing from the legal actions is ruled out by the cap, shown
  // disabled with the beads left (public: the view's beads_left and the table's cap).
  const legalCounts = new Set(view.legal_actions.filter((a) => a.type === "bid").map((a) => a.tricks));
  const counts = [...Array(view.max_bid + 1).keys()];
  const capped = counts.filter((tricks) => !legalCounts.has(tricks));
  const cap = { left: view.beads_left, cap: view.options.bid_cap };
  $("#bid-capped").textContent = capped.length ? t("bid.capped", { ...cap, bids: runsText(capped) }) : "";
  const box = $("#bid-buttons");
  box.replaceChildren();
  for (const tricks of counts) {
    const allowed = bids.some((a) => a.tricks === tricks && a.safety === safety);
    const out = capped.includes(tricks);
    const label = t(out ? "bid.button_capped" : safety ? "bid.button_safety" : "bid.button", { ...cap, n: tricks });
    const button = el("button", {
      type: "button",
      text: String(tricks),
      "aria-label": label,
      title: label,
      disabled: !allowed,
      class: out ? "capped" : null,
      dataset: { tricks },
      on: { click: () => act({ type: "bid", tricks, safety: $("#safety").checked }) },
    });
    box.append(button);
  }
  if (hadFocus !== undefined) box.querySelector(`[data-tricks="${hadFocus}"]`)?.focus();
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
function digitKeys(event) {
  if (!/^[0-9]$/.test(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest?.("input, select, textarea")) return;
  const slot = event.key === "0" ? 9 : Number(event.key) - 1;
  const button = $("#my-hand").querySelector(`button.card[data-slot="${slot}"]`);
  event.preventDefault();
  if (button && !button.disabled) {
    button.focus();
    return;
  }
  const reason = !button ? "hand.no_card" : canAct() && page.shown.view.phase === "play" ? "hand.not_playable" : "hand.not_now";
  refuse(t(reason, { n: slot + 1 }));
  button?.classList.remove("nope");
  requestAnimationFrame(() => button?.classList.add("nope"));
}

/** The controls' listeners, once the page is started. */
export function startControls() {
  $("#safety").addEventListener("change", drawControls);
  $("#rematch").addEventListener("click", () => answerRematch(true));
  $("#rematch-accept").addEventListener("click", () => answerRematch(true));
  $("#rematch-decline").addEventListener("click", () => answerRematch(false));
  $("#note-mode").addEventListener("click", () => setNoteMode(!page.noteMode));
  $("#note-save").addEventListener("click", () => saveNote($("#note-text").value));
  $("#note-clear").addEventListener("click", () => saveNote(""));
  $("#note-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter") saveNote($("#note-text").value);
  });
  document.addEventListener("keydown", digitKeys);
}
