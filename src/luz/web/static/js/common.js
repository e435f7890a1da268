// What every page shares: building elements safely, requests, remembered settings, the header, announcements.

import { languageSwitch, onLanguageChange, startI18n, t, translate } from "./i18n.js";
import { showInvitation } from "./invitations.js";

/**
 * A new element. ``props``: ``class``, ``text``, ``on`` ({event: handler}), ``dataset``, any attribute
 * (``aria-label``, ``disabled``: true/false...). Children are nodes or strings (always inserted as text).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** A refusal from the server: its HTTP status, its message and, for some, its code ("account_required"). */
export class ApiError extends Error {
  constructor(status, detail, code = null) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

function detailText(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  return JSON.stringify(detail);
}

/**
 * A JSON request; an :class:`ApiError` for an answer that is not 2xx (a network failure rejects as usual).
 * ``body`` is sent as JSON; ``text``, already JSON, is sent as it is (a record's 62-bit seed would not survive
 * a trip through JavaScript numbers). ``asText``: the answer's text rather than its parsed JSON.
 */
export async function api(path, { method = "GET", body, text, token, asText = false } = {}) {
  const headers = {};
  const payload = text ?? (body === undefined ? undefined : JSON.stringify(body));
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: payload });
  const answer = await response.text();
  let data = null;
  try {
    data = JSON.parse(answer);
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, detailText(data?.detail ?? response.statusText), data?.code ?? null);
  return asText ? answer : data;
}

/** Remembered settings and seats (localStorage, as JSON); works, without remembering, where storage is off. */
export const saved = {
  get(key, fallback = null) {
    try {
      const text = localStorage.getItem(`luz.${key}`);
      return text === null ? fallback : JSON.parse(text);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(`luz.${key}`, JSON.stringify(value));
    } catch {
      // storage full or disabled
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(`luz.${key}`);
    } catch {
      // storage disabled
    }
  },
};

/** Say ``text`` to screen readers (and show it in the page's live region). */
export function announce(text, { urgent = false } = {}) {
  const region = $(urgent ? "#alert" : "#live");
  if (!region) return;
  region.textContent = "";
  // A change of text after the clear is what screen readers announce.
  requestAnimationFrame(() => {
    region.textContent = text;
  });
}

let editionsPromise = null;

/** The editions (``GET /api/editions``), by key, each ``name`` in the page's language. */
export function editions() {
  editionsPromise ??= api("/api/editions").then((list) => Object.fromEntries(list.map((e) => [e.key, translatedEdition(e)])));
  return editionsPromise;
}

/** ``edition`` with a ``name`` read in the current language at each use (the server's English one kept as
 * ``englishName``: a table's default name, "LUZ (IELLO, 2024) table", is made from it). */
function translatedEdition(edition) {
  const key = `edition.${edition.key}`;
  const translated = { ...edition, englishName: edition.name };
  Object.defineProperty(translated, "name", { enumerable: true, get: () => (t(key) === key ? edition.name : t(key)) });
  return translated;
}

/** Fill an edition ``select`` (keeping its choice, else the saved one). */
export function fillEditionSelect(select, editionList) {
  const chosen = select.value || saved.get("edition", "iello-2024");
  select.replaceChildren(...Object.values(editionList).map((e) => el("option", { value: e.key, text: e.name })));
  select.value = chosen in editionList ? chosen : Object.keys(editionList)[0];
}

/** Fill a player-count ``select`` with ``edition``'s counts, keeping its choice where the edition allows it. */
export function fillPlayersSelect(select, edition) {
  const chosen = Number(select.value) || 4;
  select.replaceChildren(...edition.players.map((n) => el("option", { value: n, text: String(n) })));
  select.value = String(edition.players.includes(chosen) ? chosen : edition.players.at(-1));
}

/** The colour named by ``letter`` in ``edition``: {letter, name, symbol, trump}. */
export function colourOf(edition, letter) {
  return edition.colours.find((c) => c.letter === letter);
}

export function colourName(colour) {
  return t(`colour.${colour.name}`);
}

/** A card's value as printed on it (the standard deck's court cards by their letter): the view's ``rank``. */
export function valueText(card) {
  return card?.rank ?? "";
}

/** A seat's display name: the player's name, else the bot's level, else "Seat N". */
export function seatName(table, seat) {
  const info = table?.seats?.[seat];
  if (info?.name) return info.name;
  if (info?.kind === "bot") return t("seat.bot_name", { bot: botName(info.bot), n: seat + 1 });
  return t("seat.default_name", { n: seat + 1 });
}

/** A bot level's short name in the page's language ("Heuristic"), or the level itself when it has none. */
export function botName(bot) {
  const level = String(bot || "bot").split(":")[0];
  const name = t(`botname.${level}`);
  return name === `botname.${level}` ? level : name;
}

/** A table's name: the server's default name ("IELLO 2024 table") in the page's language. */
export function tableName(table, edition) {
  if (table.tutorial) return t("tutorial.table_name"); // stored as "Tutorial", shown in the reader's language
  return edition && table.name === `${edition.englishName} table` ? t("table.default_name", { edition: edition.name }) : table.name;
}

/** A bot level in words ("Heuristic: plays to make its bid."), or its name when it has no description. */
export function botLabel(bot) {
  const label = t(`bot.${bot}`);
  return label === `bot.${bot}` ? bot : label;
}

// -- who you are ------------------------------------------------------------------------------------------

let mePromise = null;

/**
 * This browser's identity (``GET /api/me``: ``{id, name, username, guest}``; the first visit makes a guest and its
 * cookie), asked once per page, or ``null`` when the server cannot be reached. ``fresh``: ask again (after signing
 * in or out).
 */
export function identity({ fresh = false } = {}) {
  if (!mePromise || fresh) {
    mePromise = api("/api/me")
      .then((me) => {
        saved.set("known", true); // this browser has an identity: other pages may ask for its games
        return me;
      })
      .catch(() => null);
  }
  return mePromise;
}

// -- your turns: the header's badge, from the identity's event stream -------------------------------------

const turns = { count: 0, source: null, listeners: [], invited: [] };

function showTurns() {
  const link = $("#games-link");
  if (!link) return;
  const count = turns.count;
  const badge = link.querySelector(".turn-count");
  badge.textContent = String(count);
  badge.hidden = !count;
  link.classList.toggle("has-turns", count > 0);
  if (count) link.setAttribute("aria-label", `${t("nav.games")}: ${t(count === 1 ? "games.badge_one" : "games.badge_many", { n: count })}`);
  else link.removeAttribute("aria-label");
  link.title = count ? link.getAttribute("aria-label") : "";
}

/** Call ``listener({your_turn})`` each time the number of games where it is your turn is told (on connect too). */
export function onTurns(listener) {
  turns.listeners.push(listener);
}

/** Call ``listener(invitation)`` for each friend's invitation to a seat told by the stream (shown as a toast too). */
export function onInvitation(listener) {
  turns.invited.push(listener);
}

/**
 * Follow ``GET /api/me/events`` (server-sent events; ``games``: ``{your_turn: n}``, on connect and at each change;
 * ``invitation``: a friend's invitation to a seat, shown as a toast) and keep the header's badge right. EventSource reconnects by itself after a network failure; a refusal (no
 * identity) closes it for good, and the badge stays hidden. ``restart``: after a change of identity.
 */
export async function watchTurns({ restart = false } = {}) {
  if (typeof EventSource === "undefined" || document.body.classList.contains("embedded")) return;
  if (turns.source && !restart) return;
  turns.source?.close();
  turns.source = null;
  // A page that asks who you are has done so by now: wait for it, so the stream goes with the cookie it set.
  const me = mePromise ? await mePromise : saved.get("known") ? {} : null;
  if (!me) {
    turns.count = 0;
    showTurns();
    return;
  }
  const source = new EventSource("/api/me/events");
  turns.source = source;
  source.addEventListener("games", (event) => {
    let data = null;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    turns.count = Math.max(0, Number(data?.your_turn) || 0);
    showTurns();
    for (const listener of turns.listeners) listener(data);
  });
  source.addEventListener("invitation", (event) => {
    let invitation = null;
    try {
      invitation = JSON.parse(event.data);
    } catch {
      return;
    }
    showInvitation(invitation);
    for (const listener of turns.invited) listener(invitation);
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED && turns.source === source) {
      turns.count = 0;
      showTurns();
    }
  });
}

// -- the installable app ----------------------------------------------------------------------------------

/** The service worker (/sw.js, the whole site its scope): the offline page, and notifications of your turn. */
function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
  // After the page's own loading, which it would slow down otherwise.
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

/** The header (brand, navigation, language switch) and the live regions; then translations. */
export async function startPage() {
  const header = el(
    "header",
    { class: "top" },
    el("a", { class: "brand", href: "/", "aria-label": "LUZ" }, "LUZ"),
    el(
      "nav",
      { dataset: { i18nLabel: "nav.label" } },
      el("a", { href: "/", dataset: { i18n: "nav.home" } }),
      el(
        "a",
        { id: "games-link", href: "/games", class: "games-link" },
        el("span", { dataset: { i18n: "nav.games" } }),
        el("span", { class: "turn-count", hidden: true, "aria-hidden": "true" }),
      ),
      el("a", { id: "friends-link", href: "/friends", dataset: { i18n: "nav.friends" } }),
      el("a", { href: "/leaderboard", dataset: { i18n: "nav.leaderboard" } }),
      el("a", { href: "/score", dataset: { i18n: "nav.score" } }),
      el("a", { href: "/how-to-play", dataset: { i18n: "nav.rules" } }),
    ),
    languageSwitch(),
  );
  document.body.prepend(header);
  document.body.append(
    el("div", { id: "live", class: "visually-hidden", "aria-live": "polite", role: "status" }),
    el("div", { id: "alert", class: "visually-hidden", "aria-live": "assertive", role: "alert" }),
  );
  await startI18n();
  translate();
  onLanguageChange(showTurns);
  if (location.pathname === "/games") $("#games-link").setAttribute("aria-current", "page");
  if (location.pathname === "/friends") $("#friends-link").setAttribute("aria-current", "page");
  registerServiceWorker();
  watchTurns();
}

/** Why a guest cannot sit at a rated table, with the link to the account page where that changes. */
export function accountNeeded() {
  return [t("rating.need_account"), " ", el("a", { href: "/account", text: t("rating.register_link") })];
}

/** The invite link of a seat: the token travels after "#", so it never reaches a server's logs. */
export function inviteLink(tableId, invite) {
  const token = encodeURIComponent(invite.token);
  return `${location.origin}/t/${encodeURIComponent(tableId)}#seat=${invite.seat}&token=${token}`;
}

/** Copy ``text`` to the clipboard; ``button`` says it was copied. */
export async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const field = button.parentElement?.querySelector("input");
    field?.select();
    document.execCommand?.("copy");
  }
  button.textContent = t("common.copied");
  setTimeout(() => {
    button.textContent = t("common.copy");
  }, 1500);
}
