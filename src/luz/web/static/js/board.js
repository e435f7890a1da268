// Drawing a view (the engine's JSON) for the table and the replay: hands, bids, tricks, the score sheet, the
// outcome. Display only: what may be played comes from the view's legal actions, never from rules in here.

import { colourName, colourOf, el, valueText } from "./common.js";
import { t } from "./i18n.js";
import { reconcile, setAttributes, setText, steadyAll } from "./render.js";

function colourClass(colour) {
  return `c-${colour.name}${colour.trump ? " trump" : ""}`;
}

/** A face-up card (anyone may see it), as the view gives it ({card, colour, rank}): its colour symbol and value
 * as printed; ``data-card`` names it (the edition's notation) for the tests. */
export function cardFace(edition, card, options = {}) {
  const node = el("span", {}, el("span", { class: "sym", "aria-hidden": "true" }), el("span", { "aria-hidden": "true" }));
  return paintFace(node, edition, card, options);
}

/** ``node`` (a :func:`cardFace`) made the face of ``card``, in place. */
function paintFace(node, edition, card, { mini = true, played = false, label = null } = {}) {
  const colour = colourOf(edition, card.colour);
  const value = valueText(card);
  const text = t(played ? "card.played" : "card.face", { colour: colourName(colour), symbol: colour.symbol, value });
  setAttributes(node, {
    class: `card ${played ? "gap" : "face"} ${mini ? "mini" : ""} ${colourClass(colour)}`,
    role: "img",
    "aria-label": label ? label(text) : text,
    "data-card": card.card,
  });
  setText(node.firstChild, colour.symbol);
  setText(setAttributes(node.lastChild, { class: played ? "val face-text" : "val" }), value);
  return node;
}

/** The probabilities of one hidden slot as text: "7 (50%), 8 (50%)". */
function oddsText(slotHints) {
  return slotHints.possible
    .map((value, i) => `${value} (${Math.round(slotHints.probabilities[i] * 100)}%)`)
    .join(", ");
}

/**
 * A hand in slot order, colour groups apart, the high end marked with "+", played slots as gaps.
 * ``mine``: the viewer's own hand (card backs, as buttons when ``onPlay`` is given; ``legal`` the slots that
 * may be played now). ``hints``: the view's hints, shown under each hidden slot.
 */
export function renderHand(edition, hand, options = {}) {
  const box = el("div");
  drawHand(box, edition, hand, options);
  return box.firstChild;
}

/**
 * ``hand`` drawn in ``container`` (its one child, the hand's box), by key (render.js): each colour group and each
 * slot ("seat:slot", a position, never a value) keeps its element and is updated in place, so that a card's focus,
 * listener and place for the screen reader outlive a new view; a slot whose kind changed (a card back played
 * becomes a gap) is drawn anew in its place. Options as :func:`renderHand`'s.
 */
export function drawHand(container, edition, hand, options = {}) {
  reconcile(container, [handItem(edition, hand, options)]);
}

/** The item (render.js) of a hand's box, keyed "hand": see :func:`drawHand`. */
function handItem(
  edition,
  hand,
  { mine = false, legal = new Set(), onPlay = null, hints = null, seat = null, notes = null, premove = undefined } = {},
) {
  const chosen = premove !== undefined && premove !== null; // room above the hand for the chosen card's label
  const hintBySlot = new Map((hints?.slots || []).map((h) => [h.slot, h]));
  const groups = [];
  for (const slot of hand) {
    if (slot.colour !== groups.at(-1)?.colour) groups.push({ colour: slot.colour, slots: [] });
    groups.at(-1).slots.push(slot);
  }
  const context = { edition, count: hand.length, mine, legal, onPlay, hintBySlot, seat, notes, premove };
  const high = t("card.high_end");
  const paint = (box) => {
    setAttributes(box, { class: `hand${mine ? " mine" : ""}${legal.size ? " playing" : ""}${chosen ? " has-premove" : ""}` });
    reconcile(box, [
      ...groups.map((group) => groupItem(context, group)),
      {
        key: "high-end",
        build: () => el("span", { class: "high-end", title: high, "aria-label": high, dataset: { key: "high-end" } }, "+"),
        update: (node) => setAttributes(node, { title: high, "aria-label": high }),
      },
    ]);
    return box;
  };
  return { key: "hand", build: () => paint(el("div", { dataset: { key: "hand" } })), update: paint };
}

/** A colour group of a hand, keyed by its colour and its first slot (a hand's groups never share both). */
function groupItem(context, group) {
  const key = `group:${group.colour}:${group.slots[0].slot}`;
  const name = colourName(colourOf(context.edition, group.colour));
  const paint = (node) => {
    setAttributes(node, { "aria-label": name });
    reconcile(node, group.slots.map((slot) => slotItem(context, slot)));
    return node;
  };
  return { key, build: () => paint(el("div", { class: "group", role: "group", dataset: { key } })), update: paint };
}

/** One slot of a hand: its card (a gap once played, a face where the view shows it, else a back, a button in my
 * own hand) and, under a hidden card, its hint and its note. Keyed "seat:slot". */
function slotItem(context, slot) {
  const { edition, mine, onPlay, hintBySlot, notes, premove } = context;
  const key = context.seat !== null ? `${context.seat}:${slot.slot}` : `slot:${slot.slot}`;
  const kind = slot.played ? "gap" : slot.card ? "face" : onPlay ? "button" : "back";
  const odds = kind === "button" || kind === "back" ? hintBySlot.get(slot.slot) : undefined;
  const note = slot.played ? undefined : notes?.[slot.slot] || undefined;
  const shape = `${kind}${odds ? "+hint" : ""}${note ? "+note" : ""}`; // the elements it is made of
  const wrapped = Boolean(odds || note);
  const build = () => {
    let card;
    if (kind === "gap" || kind === "face") card = cardFace(edition, slot);
    else {
      const symbol = el("span", { class: "sym", "aria-hidden": "true" });
      card = kind === "button" ? el("button", { type: "button" }, symbol) : el("span", { role: "img" }, symbol);
      if (onPlay) card.addEventListener("click", () => onPlay(slot.slot));
    }
    const node = wrapped
      ? el(
          "span",
          { class: "slot" },
          card,
          odds ? el("span", { class: "slot-hint", "aria-hidden": "true" }) : null,
          note ? el("span", { class: "note" }) : null,
        )
      : card;
    node.dataset.shape = shape;
    node.dataset.key = key;
    return paint(node);
  };
  const paint = (node) => {
    const card = wrapped ? node.firstChild : node;
    const position = t("card.position", { n: slot.slot + 1, count: context.count });
    if (kind === "gap") paintFace(card, edition, slot, { mini: !mine, played: true, label: (text) => `${position}: ${text}` });
    else if (kind === "face") paintFace(card, edition, slot, { mini: !mine });
    else paintBack(card, context, slot, position, odds);
    if (odds) setText(node.querySelector(".slot-hint"), odds.most_likely.join("/"));
    if (note) setAttributes(setText(node.querySelector(".note"), note), { title: t("notes.on_card", { text: note }) });
    return node;
  };
  return { key, build, update: (node) => (node.dataset.shape === shape ? paint(node) : build()) };
}

/** A hidden card's back, in place: its colour, its label, and in my hand whether it may be played now and whether
 * it is my next card (chosen before my turn: raised, pressed). Nothing of its value: the view has none. */
function paintBack(card, { edition, mine, legal, onPlay, premove }, slot, position, odds) {
  const colour = colourOf(edition, slot.colour);
  const label = t("card.hidden", { position, colour: colourName(colour), symbol: colour.symbol });
  const next = Boolean(onPlay) && premove === slot.slot;
  setText(card.firstChild, colour.symbol);
  setAttributes(card, {
    class: `card back ${mine ? "" : "mini "}${colourClass(colour)}${next ? " premove" : ""}`,
    "aria-label": next ? `${label} (${t("premove.label")})` : label,
    "data-slot": slot.slot,
    "data-colour": slot.colour,
    title: odds ? oddsText(odds) : null,
  });
  if (!onPlay) return;
  const playable = legal.has(slot.slot);
  setAttributes(card, {
    disabled: !playable,
    "aria-disabled": String(!playable),
    "aria-pressed": premove !== undefined ? String(next) : null, // choosing: toggles
  });
  let tag = card.querySelector(".premove-tag");
  if (next && !tag) card.append((tag = el("span", { class: "premove-tag", "aria-hidden": "true" })));
  else if (!next) tag?.remove();
  if (tag) setText(tag, t("premove.label"));
}

/** The hints as a list a screen reader can read: each hidden slot's possible values and their odds. */
export function renderHints(edition, hand, hints) {
  const list = el("ul", { class: "hints-list plain" });
  for (const odds of hints?.slots || []) {
    const slot = hand[odds.slot];
    const colour = colourOf(edition, slot.colour);
    list.append(
      el(
        "li",
        { dataset: { slot: odds.slot } },
        t("hints.slot", {
          position: t("card.position", { n: odds.slot + 1, count: hand.length }),
          colour: colourName(colour),
          likely: odds.most_likely.join(t("common.or")),
          odds: oddsText(odds),
        }),
      ),
    );
  }
  return list;
}

/** A bid as beads (one a trick) and the safety bead, with its text. */
export function renderBid(bid) {
  if (!bid) return el("span", { class: "muted" }, t("bid.none"));
  const beads = el("span", { class: "beads", "aria-hidden": "true" });
  for (let i = 0; i < bid.tricks; i += 1) beads.append(el("span", { class: "bead" }));
  if (bid.safety) beads.append(el("span", { class: "bead safety" }));
  const text = t(bid.safety ? "bid.with_safety" : "bid.plain", { n: bid.tricks });
  const short = el("span", { class: "badge bid-short", "aria-hidden": "true" }, `${t("bid.short")} ${bid.tricks}${bid.safety ? "+" : ""}`);
  return el("span", { class: "bid" }, el("span", { class: "bid-text" }, text), short, " ", beads);
}

/** Where each seat sits around the table, by its place after the viewer's (0: the viewer, at the bottom). */
const PLACES = {
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

/** The place of ``seat`` at a table of ``players`` seen from ``viewer`` (seat 0 at the bottom for spectators). */
export function placeOf(players, viewer, seat) {
  const places = PLACES[players] || PLACES[4];
  return places[(seat - (viewer ?? 0) + players) % players] || "top";
}

/** Up to two initials of a name, for its round badge: from the person's name alone (pass the name, never a label
 * such as "Ada (you)"). */
export function initials(name) {
  const words = String(name ?? "").trim().split(/\s+/).filter(Boolean);
  // Each word's first letter or digit ("(Bob)" gives B), else its first character (an emoji).
  const first = (word) => word.match(/[\p{L}\p{N}]/u)?.[0] ?? [...word][0];
  if (words.length > 1) return (first(words[0]) + first(words.at(-1))).toUpperCase();
  const word = words[0] || "?";
  const letters = [...word].filter((c) => /[\p{L}\p{N}]/u.test(c));
  return (letters.length ? letters.slice(0, 2).join("") : [...word][0]).toUpperCase();
}

/** The small "guest" mark beside a guest's name (a person without an account). */
export function guestTag() {
  return el("span", { class: "badge guest-tag", title: t("names.guest_explain") }, t("names.guest"));
}

/** A name short enough for a narrow column: itself up to ``longest`` characters, else its initials ("R2"), the
 * whole label in the column's tooltip and accessible name (``name``: the person's name, for the initials). */
export function shortName(label, name = label, longest = 10) {
  return label.length <= longest ? label : el("abbr", { title: label, "aria-label": label }, initials(name));
}

/** A seat's panel: avatar, name and badges, bid, tricks won, and the hand (face up where the view shows values). */
export function renderSeat(edition, view, seat, name, badges = [], options = {}) {
  return seatItem(edition, view, seat, name, badges, options).build();
}

/** The item (render.js) of a seat's panel, keyed "seat:N": the panel, its head and its hand are kept and updated
 * in place; the head's avatar, name, badges and bid each stay while they read the same. */
export function seatItem(edition, view, seat, name, badges = [], { place = null, notes = null } = {}) {
  const key = `seat:${seat}`;
  const tricks = view.tricks_won[seat];
  const head = () =>
    steadyAll(
      el("span", { class: "avatar", "aria-hidden": "true" }, initials(name)),
      el("h3", { class: "seat-name", title: name }, name),
      ...badges,
      renderBid(view.bids[seat]),
      el("span", { class: "badge tricks", title: t("seat.tricks", { n: tricks }) }, t("seat.tricks_short", { n: tricks })),
    );
  const paintHead = (node) => {
    reconcile(node, head());
    return node;
  };
  const paint = (section) => {
    setAttributes(section, {
      class: `seat${view.current_player === seat ? " turn" : ""}${place ? ` pos-${place}` : ""}`,
      "data-seat": seat,
      "aria-label": name,
    });
    reconcile(section, [
      { key: "head", build: () => paintHead(el("div", { class: "seat-head", dataset: { key: "head" } })), update: paintHead },
      ...(view.hands.length ? [handItem(edition, view.hands[seat], { seat, notes })] : []),
    ]);
    return section;
  };
  return { key, build: () => paint(el("section", { dataset: { key } })), update: paint };
}

/** The cards of a trick, each under its player's name; the winner's card ringed once the trick is complete.
 * ``previousDeal``: the trick closed the deal before (its cards say nothing of this deal's hands).
 * ``place``: a seat's place at the table, to lay each card in front of its player; ``key``: the trick's key
 * (deal and trick number), so that each card is known by (trick, seat) and where it came from by (seat, slot). */
export function renderTrick(edition, trick, nameOf, previousDeal = false, options = {}) {
  const box = el("div");
  drawTrick(box, edition, trick, nameOf, previousDeal, options);
  return box.firstChild;
}

/** :func:`renderTrick`'s trick drawn in ``container`` (its one child, the trick's area) by key: each card played
 * keeps its element while it stays on the table, updated in place (its winner's ring, its names). */
export function drawTrick(container, edition, trick, nameOf, previousDeal = false, { place = null, key = null, labelOf = nameOf } = {}) {
  const winner = trick?.winner ?? null;
  const plays = (trick?.plays || []).map((play, index) => {
    const wins = winner === play.seat;
    const name = nameOf(play.seat);
    const label = labelOf(play.seat);
    const playKey = key ? `${key}:${play.seat}` : `play:${play.seat}`;
    const paint = (node) => {
      setAttributes(node, {
        class: `trick-play${wins ? " winner" : ""}${index === 0 ? " led" : ""}${place ? ` pos-${place(play.seat)}` : ""}`,
        "data-seat": play.seat,
        "data-from": key ? `${play.seat}:${play.slot}` : null,
      });
      const [who, card] = node.children;
      setAttributes(who, { title: label });
      setText(who.children[0], initials(name));
      setText(who.children[1], label);
      // On the name's line, never over a card: no card's value is ever hidden by it.
      const badge = who.querySelector(".wins");
      if (wins && !badge) who.append(el("span", { class: "badge turn wins" }, t("trick.wins")));
      else if (!wins) badge?.remove();
      if (wins) setText(who.querySelector(".wins"), t("trick.wins"));
      paintFace(card, edition, play, { mini: false });
      return node;
    };
    const build = () => {
      const who = el("span", { class: "who" }, el("span", { class: "avatar", "aria-hidden": "true" }), el("span", { class: "who-name" }));
      return paint(el("div", { dataset: { key: playKey } }, who, cardFace(edition, play, { mini: false })));
    };
    return { key: playKey, build, update: paint };
  });
  const paint = (area) => {
    setAttributes(area, {
      class: `trick-area${place ? " around" : ""}`,
      "data-previous-deal": previousDeal ? "true" : null,
      "data-winner": winner,
    });
    reconcile(area, plays);
    return area;
  };
  reconcile(container, [{ key: "trick", build: () => paint(el("div", { dataset: { key: "trick" } })), update: paint }]);
}

/** The colour led in ``trick`` (its first card's), for the trick's title; null before the first card. */
export function ledColour(edition, trick) {
  const first = trick?.plays?.[0];
  if (!first) return null;
  return colourOf(edition, first.colour);
}

/** The trick to show and its title: the one being played, else the one just completed (it stays until the next
 * card is led), else the previous deal's last one (until the first card of this deal). */
export function trickOnTable(view, nameOf) {
  const trick = view.trick;
  if (trick && trick.plays.length) {
    const number = view.tricks_won.reduce((a, b) => a + b, 0) + 1;
    return { trick, title: t("trick.current", { n: number }) };
  }
  if (view.last_trick) return { trick: view.last_trick, title: t("trick.last", { name: nameOf(view.last_trick.winner) }) };
  if (view.closing_trick) {
    const params = { name: nameOf(view.closing_trick.winner), n: view.deal_number - 1 };
    return { trick: view.closing_trick, title: t("trick.closing", params), previousDeal: true };
  }
  return { trick: null, title: t(view.phase === "bid" ? "trick.bidding" : "trick.none") };
}

/** The bet beads left under the table's cap, as text ("" without a cap). */
export function beadsText(view) {
  if (view.beads_left === null || view.beads_left === undefined) return "";
  return t("beads.left", { n: view.beads_left, cap: view.options.bid_cap });
}

/** The score sheet: one row a deal (each player's points, bid and tricks; who bid first marked), then the totals.
 * Narrow enough for a phone: no column of its own for the first player, two short lines a cell. */
export function renderSheet(view, nameOf, labelOf = nameOf) {
  const seats = [...Array(view.players).keys()];
  const head = el("tr", {}, el("th", { scope: "col" }, t("sheet.deal")));
  const longest = view.players > 4 ? 6 : 10; // five columns fit a phone with short names
  for (const seat of seats) head.append(el("th", { scope: "col", title: labelOf(seat) }, shortName(labelOf(seat), nameOf(seat), longest)));
  const body = el("tbody");
  view.results.forEach((result, index) => {
    const row = el("tr", { dataset: { key: `deal:${index + 1}` } }, el("th", { scope: "row" }, String(index + 1)));
    for (const seat of seats) {
      const bid = `${result.bids[seat]}${result.safety[seat] ? "+" : ""}`;
      const detail = t("sheet.detail", { bid, tricks: result.tricks[seat] });
      const points = result.scores[seat];
      const first = result.first_player === seat;
      const label = `${t("sheet.points", { points })}, ${detail}${first ? `, ${t("seat.first")}` : ""}`;
      row.append(
        el(
          "td",
          { title: label, "aria-label": label, class: first ? "first" : null },
          el("strong", {}, points > 0 ? `+${points}` : String(points)),
          el("span", { class: "muted detail" }, `${first ? "▸" : ""}${bid}/${result.tricks[seat]}`),
        ),
      );
    }
    body.append(row);
  });
  const totals = el("tr", {}, el("th", { scope: "row" }, t("sheet.total")));
  for (const seat of seats) totals.append(el("td", { dataset: { seat } }, String(view.totals[seat])));
  return el(
    "div",
    { class: "scroll" },
    el(
      "table",
      { class: "sheet" },
      el("caption", { class: "visually-hidden" }, t("sheet.caption")),
      el("thead", {}, head),
      body,
      el("tfoot", {}, totals),
    ),
    view.results.length ? el("p", { class: "hint-text" }, t("sheet.legend")) : null,
  );
}

/** The summary of a deal just scored: each player's bid and safety, tricks, made or missed, points, total. */
export function renderDealSummary(view, result, nameOf, labelOf = nameOf) {
  const seats = [...Array(view.players).keys()];
  const head = el(
    "tr",
    {},
    ...["summary.player", "summary.bid", "summary.tricks", "summary.points", "summary.total"].map((key) =>
      el("th", { scope: "col" }, t(key)),
    ),
  );
  const body = el("tbody");
  for (const seat of seats) {
    const points = result.scores[seat];
    const made = points >= 0;
    const bid = result.safety[seat] ? t("bid.with_safety", { n: result.bids[seat] }) : String(result.bids[seat]);
    body.append(
      el(
        "tr",
        { dataset: { seat }, class: made ? "made" : "missed" },
        el("th", { scope: "row", title: labelOf(seat) }, el("span", { class: "avatar", "aria-hidden": "true" }, initials(nameOf(seat))), " ", el("span", { class: "who" }, labelOf(seat))),
        el("td", { title: bid }, `${result.bids[seat]}${result.safety[seat] ? "+" : ""}`),
        el("td", {}, String(result.tricks[seat])),
        el(
          "td",
          {},
          el("span", { class: `verdict ${made ? "made" : "missed"}`, title: t(made ? "summary.made" : "summary.missed") },
            el("span", { "aria-hidden": "true" }, made ? "✓" : "✗"),
            el("span", { class: "visually-hidden" }, t(made ? "summary.made" : "summary.missed")),
          ),
          " ",
          el("strong", {}, points > 0 ? `+${points}` : String(points)),
        ),
        el("td", {}, String(view.totals[seat])),
      ),
    );
  }
  return el("table", { class: "sheet summary-table" }, el("thead", {}, head), body);
}

/** Why the winner won, as a sentence: highest total, most points in the last deal, or the seat order. */
export function outcomeText(outcome, lastScores, nameOf) {
  const winner = outcome.winner;
  const { tied, decided_by: decided, reference_seat: reference } = outcome.tie_break;
  const params = {
    winner: nameOf(winner),
    points: outcome.totals[winner],
    others: tied.filter((s) => s !== winner).map(nameOf).join(", "),
    last: lastScores?.[winner] ?? 0,
    reference: nameOf(reference),
  };
  return t(`outcome.${decided}`, params);
}

/** The final ranking, best first, with totals. */
export function renderRanking(outcome, nameOf) {
  const list = el("ol", { class: "ranking" });
  for (const seat of outcome.ranking) {
    list.append(el("li", { dataset: { seat } }, t("outcome.rank_line", { name: nameOf(seat), points: outcome.totals[seat] })));
  }
  return list;
}

/** An action in words: "Ana bids 2 with the safety", "Bo plays R7". */
export function actionText(edition, text, seat, view, nameOf) {
  const [kind, argument] = text.split(":");
  if (kind === "bid") {
    const safety = argument.endsWith("+");
    return t(safety ? "action.bid_safety" : "action.bid", { name: nameOf(seat), n: parseInt(argument, 10) });
  }
  const slot = parseInt(argument, 10);
  const hand = view?.hands?.[seat];
  const card = hand?.[slot];
  if (!card?.card) return t("action.play_slot", { name: nameOf(seat), n: slot + 1 });
  const colour = colourOf(edition, card.colour);
  return t("action.play", { name: nameOf(seat), colour: colourName(colour), value: valueText(card) });
}

/** The rematch part of the game-over panel (tables/rematch.py's offer in the table): its sentence, who has
 * accepted and who is awaited, and which buttons the viewer gets (answer the offer, or make one). ``left``: the
 * offer's time left in milliseconds; ``leftText``: the same in words. */
export function rematchPanel(table, mySeat, nameOf, left, leftText) {
  const humans = table.seats.filter((s) => s.kind === "human" && s.joined).map((s) => s.seat);
  const seated = humans.includes(mySeat);
  const offer = table.rematch;
  const status = rematchStatus(offer, left);
  if (status === "open") {
    const waiting = humans.filter((seat) => !offer.accepted.includes(seat));
    return {
      status,
      text: offer.by === mySeat ? t("rematch.you_offered") : t("rematch.offered", { name: nameOf(offer.by) }),
      accepted: t("rematch.accepted_so_far", { names: offer.accepted.map(nameOf).join(", ") }),
      waiting: waiting.length ? t("rematch.waiting", { names: waiting.map(nameOf).join(", "), time: leftText }) : "",
      answer: seated && !offer.accepted.includes(mySeat),
      offer: false,
    };
  }
  let text = "";
  if (status === "declined") text = t("rematch.declined", { name: nameOf(offer.declined) });
  else if (status === "expired") text = t("rematch.expired");
  return { status, text, accepted: "", waiting: "", answer: false, offer: seated, solo: humans.length <= 1 };
}

/** Where a rematch offer stands: ``open``, ``declined``, ``expired``, or ``null`` (none). */
export function rematchStatus(offer, left) {
  if (!offer) return null;
  if (offer.declined !== null && offer.declined !== undefined) return "declined";
  return offer.expired || left <= 0 ? "expired" : "open";
}
