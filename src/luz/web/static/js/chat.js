// Table chat (docs/PROTOCOL.md, "chat"): the seated players' channel, and the spectators' own, which the players
// never see during the game. Every text is put on the page as text (el() and textContent), never as HTML.
//
// A side panel on wide screens (foldable), a drawer opened from a round button in the table's head on phones; both count the messages
// not yet seen. Muting a speaker hides them on this screen only; the choice is kept by this browser.

import { initials } from "./board.js";
import { $, announce, el, saved } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";

const PRESETS = ["good_luck", "good_game", "well_played", "thanks"];
const LENGTH = 280;
const WIDE = matchMedia("(min-width: 760px)");
const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");

const chat = {
  send: () => false,
  messages: new Map(), // by id: history and live messages, shown in id order
  unread: 0,
  open: false, // the drawer (phones)
  folded: saved.get("chat.folded", false), // the side panel (wide screens)
  me: null, // this browser's identity
  muted: saved.get("chat.muted", {}), // speaker key -> name
  ids: 0,
  pending: new Map(), // id of a message sent -> its text, until acknowledged
  drawnSeat: null, // the seat of the latest state (null: watching)
};

/** Who said a message, for muting: the identity, else the seat of this table. */
const speakerOf = (message) => message.player || `seat:${tableId}:${message.seat}`;

function mine(message) {
  if (chat.me && message.player === chat.me.id) return true;
  return message.channel === "players" && message.seat !== null && message.seat === chat.drawnSeat;
}

/** A message's words in the reader's language: a quick message is translated, anything else shown as written. */
export function chatText(message) {
  return message.preset ? t(`chat.preset.${message.preset}`) : message.text;
}

/** One message as a line: avatar, name (and "spectator"), the words, and a mute button for other people's. */
export function chatLine(message, { own = false, onMute = null } = {}) {
  const spectator = message.channel === "spectators";
  const name = message.name || t("seat.default_name", { n: (message.seat ?? 0) + 1 });
  const line = el(
    "li",
    {
      class: `chat-line${own ? " own" : ""}${spectator ? " from-spectator" : ""}${message.preset ? " quick" : ""}`,
      dataset: { id: message.id, channel: message.channel, speaker: speakerOf(message) },
    },
    el("span", { class: "avatar", "aria-hidden": "true" }, initials(name)),
    el(
      "span",
      { class: "chat-body" },
      el(
        "span",
        { class: "chat-who" },
        el("span", { class: "chat-name" }, own ? t("seat.you", { name }) : name),
        spectator ? el("span", { class: "badge chat-tag" }, t("chat.spectator")) : null,
      ),
      el("span", { class: "chat-text" }, chatText(message)),
    ),
  );
  if (onMute && !own) {
    line.append(
      el("button", {
        type: "button",
        class: "chat-mute",
        title: t("chat.mute", { name }),
        "aria-label": t("chat.mute", { name }),
        text: t("chat.mute_short"),
        on: { click: () => onMute(message) },
      }),
    );
  }
  return line;
}

// -- the panel ----------------------------------------------------------------------------------------------

function bubbleIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", "M4 4h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z");
  svg.append(path);
  return svg;
}

function build() {
  const toggle = el(
    "button",
    { type: "button", id: "chat-toggle", class: "chat-toggle", "aria-controls": "chat", "aria-expanded": "false" },
    bubbleIcon(),
    el("span", { class: "chat-unread", hidden: true }),
  );
  const panel = el(
    "section",
    { id: "chat", class: "chat", "aria-labelledby": "chat-title" },
    el(
      "div",
      { class: "chat-head" },
      el("h2", { id: "chat-title" }),
      el("span", { class: "chat-unread", hidden: true }),
      el("button", { type: "button", id: "chat-fold", class: "chat-fold", "aria-expanded": "true" }),
      el("button", { type: "button", id: "chat-close", class: "chat-close" }, "×"),
    ),
    el(
      "div",
      { class: "chat-inside" },
      el("ol", { id: "chat-lines", class: "chat-lines", tabindex: "0", "aria-labelledby": "chat-title" }),
      el("p", { id: "chat-note", class: "chat-note" }),
      el("p", { id: "chat-muted", class: "chat-muted", hidden: true }),
      el("div", { id: "chat-presets", class: "chat-presets", role: "group" }),
      el(
        "form",
        { id: "chat-form", class: "chat-form" },
        el("input", { id: "chat-text", maxlength: LENGTH, autocomplete: "off", enterkeyhint: "send" }),
        el("button", { type: "submit", id: "chat-send", class: "chat-send" }),
      ),
      el("p", { id: "chat-error", class: "chat-error", role: "alert" }),
    ),
  );
  // In the table's head line, not floating over the page: a fixed button would cover a control somewhere.
  ($(".table-head") || document.body).append(toggle);
  return panel;
}

/** The panel goes into the side column during a game, under the waiting room before it (phones: a drawer). */
function place(panel) {
  const game = $("#game");
  const column = $(".side-column");
  if (game && column && !game.hidden) {
    if (panel.parentElement !== column) column.prepend(panel);
  } else if (panel.parentElement !== $("main")) {
    $("main").append(panel);
  }
}

function seen() {
  return WIDE.matches ? !chat.folded : chat.open;
}

function toEnd() {
  const list = $("#chat-lines");
  list.scrollTop = list.scrollHeight;
}

function drawUnread() {
  if (seen()) chat.unread = 0;
  for (const badge of document.querySelectorAll(".chat-unread")) {
    badge.hidden = !chat.unread;
    badge.textContent = chat.unread > 99 ? "99+" : String(chat.unread);
    badge.setAttribute("aria-label", t("chat.unread", { n: chat.unread }));
  }
}

function drawFrame() {
  const panel = $("#chat");
  const seated = chat.drawnSeat !== null;
  $("#chat-title").textContent = t("chat.title");
  panel.classList.toggle("open", chat.open);
  panel.classList.toggle("folded", chat.folded);
  $("#chat-toggle").setAttribute("aria-expanded", String(chat.open));
  $("#chat-toggle").setAttribute("aria-label", t(chat.open ? "chat.close" : "chat.open"));
  $("#chat-fold").setAttribute("aria-expanded", String(!chat.folded));
  $("#chat-fold").setAttribute("aria-label", t(chat.folded ? "chat.unfold" : "chat.fold"));
  $("#chat-fold").textContent = chat.folded ? "▸" : "▾";
  $("#chat-close").setAttribute("aria-label", t("chat.close"));
  $("#chat-text").setAttribute("placeholder", t(seated ? "chat.placeholder_player" : "chat.placeholder_spectator"));
  $("#chat-text").setAttribute("aria-label", t(seated ? "chat.placeholder_player" : "chat.placeholder_spectator"));
  $("#chat-send").textContent = t("chat.send");
  $("#chat-note").textContent = t(seated ? "chat.note_player" : "chat.note_spectator");
  $("#chat-presets").setAttribute("aria-label", t("chat.quick"));
  $("#chat-presets").replaceChildren(
    ...PRESETS.map((key) =>
      el("button", { type: "button", class: "chat-chip", dataset: { preset: key }, on: { click: () => say(null, key) } }, t(`chat.preset.${key}`)),
    ),
  );
  drawUnread();
}

function drawLines() {
  const list = $("#chat-lines");
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  const shown = [...chat.messages.values()].filter((m) => !(speakerOf(m) in chat.muted));
  list.replaceChildren(...shown.map((m) => chatLine(m, { own: mine(m), onMute: mute })));
  if (!shown.length) list.append(el("li", { class: "chat-empty" }, t("chat.empty")));
  if (atEnd || (shown.length && mine(shown.at(-1)))) list.scrollTop = list.scrollHeight;
  const muted = Object.entries(chat.muted);
  const box = $("#chat-muted");
  box.hidden = !muted.length;
  box.replaceChildren(
    t("chat.muted"),
    ...muted.map(([key, name]) =>
      el("button", { type: "button", class: "chat-chip muted", title: t("chat.unmute", { name }), on: { click: () => unmute(key) } }, `${name} ↺`),
    ),
  );
}

function mute(message) {
  chat.muted[speakerOf(message)] = message.name;
  saved.set("chat.muted", chat.muted);
  drawLines();
}

function unmute(key) {
  delete chat.muted[key];
  saved.set("chat.muted", chat.muted);
  drawLines();
}

function showError(text) {
  $("#chat-error").textContent = text;
}

function say(text, preset = null) {
  const id = `chat-${++chat.ids}`;
  if (text !== null) {
    text = text.trim();
    if (!text) return;
    if (text.length > LENGTH) {
      showError(t("chat.error.too_long", { n: LENGTH }));
      return;
    }
  }
  const message = preset ? { type: "chat", id, preset } : { type: "chat", id, text };
  if (!chat.send(message)) {
    showError(t("conn.not_connected"));
    return;
  }
  chat.pending.set(id, text);
  showError("");
  if (text !== null) $("#chat-text").value = "";
}

/** Take in a message from the server if it is the chat's (a chat event, or the reply to a chat message). */
export function chatReceive(message) {
  if (message.type === "state" && message.seat !== chat.drawnSeat) {
    // A seat taken (or lost): a player's screen keeps no spectators' message.
    chat.drawnSeat = message.seat;
    if (message.seat !== null) for (const [id, said] of chat.messages) if (said.channel !== "players") chat.messages.delete(id);
    drawFrame();
    drawLines();
    return false;
  }
  if (message.type === "chat") {
    for (const said of message.messages) {
      if (chat.messages.has(said.id)) continue;
      chat.messages.set(said.id, said);
      if (!message.history && !mine(said) && !(speakerOf(said) in chat.muted)) {
        chat.unread += 1;
        announce(`${said.name}: ${chatText(said)}`); // the new message only (the list is redrawn whole)
      }
    }
    chat.messages = new Map([...chat.messages.entries()].sort((a, b) => a[0] - b[0]));
    drawLines();
    drawUnread();
    return true;
  }
  const id = typeof message.id === "string" && message.id.startsWith("chat-") ? message.id : null;
  if (!id || !["ack", "error"].includes(message.type)) return false;
  const text = chat.pending.get(id);
  chat.pending.delete(id);
  if (message.type === "error") {
    const known = t(`chat.error.${message.code}`, { n: LENGTH });
    showError(known === `chat.error.${message.code}` ? message.message : known);
    if (text && !$("#chat-text").value) $("#chat-text").value = text; // the words are not lost
  }
  return true;
}

/** The chat of a table page: ``send`` sends a message on the table's connection (false when not connected). */
export function startChat(send) {
  chat.send = send;
  const panel = build();
  place(panel);
  const game = $("#game");
  if (game) new MutationObserver(() => place(panel)).observe(game, { attributes: true, attributeFilter: ["hidden"] });
  $("#chat-toggle").addEventListener("click", () => {
    chat.open = !chat.open;
    drawFrame();
    toEnd();
    if (chat.open) $("#chat-text").focus();
  });
  $("#chat-close").addEventListener("click", () => {
    chat.open = false;
    drawFrame();
    $("#chat-toggle").focus();
  });
  $("#chat-fold").addEventListener("click", () => {
    chat.folded = !chat.folded;
    saved.set("chat.folded", chat.folded);
    drawFrame();
    toEnd();
  });
  $("#chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    say($("#chat-text").value);
  });
  WIDE.addEventListener("change", drawFrame);
  onLanguageChange(() => {
    drawFrame();
    drawLines();
  });
  // Imported here: the replay page uses this module's lines without an identity of its own.
  import("./identity.js").then(async ({ identity }) => {
    chat.me = await identity;
    drawLines();
  });
  drawFrame();
  drawLines();
}

