// What every page has around its content: the header (brand, navigation folded behind a menu button on a narrow
// screen, language switch, the badge of your turns), the live regions, friends' invitations as one notice, the
// service worker. Pages start with startPage().

import { $, askedIdentity, el, saved } from "./common.js";
import { languageSwitch, onLanguageChange, startI18n, t, translate } from "./i18n.js";
import { showInvitations } from "./invitations.js";

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
  const menu = $("#menu-button");
  if (menu) {
    menu.classList.toggle("has-turns", count > 0);
    menu.querySelector(".turn-count").textContent = String(count);
    menu.querySelector(".turn-count").hidden = !count;
  }
}

/** Call ``listener({your_turn})`` each time the number of games where it is your turn is told (on connect too). */
export function onTurns(listener) {
  turns.listeners.push(listener);
}

/** Call ``listener(invitations)`` each time the stream tells the list of friends' invitations to a seat (shown as
 * the page's notice too). */
export function onInvitation(listener) {
  turns.invited.push(listener);
}

/**
 * Follow ``GET /api/me/events`` (server-sent events; ``games``: ``{your_turn: n}``, on connect and at each change;
 * ``invitations``: friends' invitations to a seat, shown as one notice) and keep the header's badge right. EventSource reconnects by itself after a network failure; a refusal (no
 * identity) closes it for good, and the badge stays hidden. ``restart``: after a change of identity.
 */
export async function watchTurns({ restart = false } = {}) {
  if (typeof EventSource === "undefined" || document.body.classList.contains("embedded")) return;
  if (turns.source && !restart) return;
  turns.source?.close();
  turns.source = null;
  // A page that asks who you are has done so by now: wait for it, so the stream goes with the cookie it set.
  const asked = askedIdentity();
  const me = asked ? await asked : saved.get("known") ? {} : null;
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
  source.addEventListener("invitations", (event) => {
    let invitations = null;
    try {
      invitations = JSON.parse(event.data)?.invitations;
    } catch {
      return;
    }
    showInvitations(invitations);
    for (const listener of turns.invited) listener(invitations);
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

/** On a narrow screen the navigation folds behind a menu button (its badge: your turns); the button opens it
 * as a list under the header, and Escape, a tap outside or a link closes it. */
function menuButton(header) {
  const button = el(
    "button",
    {
      id: "menu-button",
      type: "button",
      class: "menu-button",
      "aria-expanded": "false",
      "aria-controls": "site-nav",
    },
    el("span", { class: "menu-icon", "aria-hidden": "true" }),
    el("span", { dataset: { i18n: "nav.menu" } }),
    el("span", { class: "turn-count", hidden: true, "aria-hidden": "true" }),
  );
  const open = (opened) => {
    header.classList.toggle("menu-open", opened);
    button.setAttribute("aria-expanded", String(opened));
  };
  button.addEventListener("click", () => open(!header.classList.contains("menu-open")));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && header.classList.contains("menu-open")) {
      open(false);
      button.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!header.contains(event.target)) open(false);
  });
  return button;
}

/** The header (brand, navigation, language switch) and the live regions; then translations. */
export async function startPage() {
  const header = el(
    "header",
    { class: "top" },
    el("a", { class: "brand", href: "/", "aria-label": "LUZ" }, "LUZ"),
    el(
      "nav",
      { id: "site-nav", dataset: { i18nLabel: "nav.label" } },
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
  header.append(menuButton(header));
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
