// What every page shares: building elements safely, requests, remembered settings, announcements, who you are.
// It imports no other script of the site but i18n.js (site.js builds the header around each page).

import { t } from "./i18n.js";

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

/** The identity if this page asked for it already (``null``: it has not asked). */
export function askedIdentity() {
  return mePromise;
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
