// Who you are: this browser's guest or account identity (a signed, HttpOnly cookie set by the server on the
// first visit). Its name (one name per player, shown everywhere) fills the name fields of the join forms, so
// there is nothing to fill in before playing, and the header links to your profile and account.

import { api, el, identity as whoAmI, saved } from "./common.js";
import { t } from "./i18n.js";

/** The identity (``{id, name, username, guest}``), or ``null`` when the server cannot be reached. */
export const identity = whoAmI();

const NAME_FIELDS = ["#player-name", "#join-name", "#take-name"];
const typed = new WeakSet(); // fields the person typed in: left as they are

function fillNames(me) {
  if (saved.get("name") !== me.name) saved.set("name", me.name); // the pages read it: the identity's name
  for (const selector of NAME_FIELDS) {
    const field = document.querySelector(selector);
    if (!field || typed.has(field)) continue;
    if (!field.dataset.identity) {
      field.dataset.identity = "1";
      field.addEventListener("input", () => typed.add(field));
    }
    if (!field.value.trim()) field.value = me.name;
  }
}

function placeLinks(me) {
  const nav = document.querySelector("header.top nav");
  if (!nav) return false;
  if (!nav.querySelector("#me-link")) {
    const key = me.guest ? "player.sign_in" : "player.account";
    // data-i18n: translated when the translations arrive or the language changes; until then it is empty, as
    // the header's other links are (never the key itself).
    const text = t(key) === key ? "" : t(key);
    nav.append(
      el("a", { id: "me-link", href: `/u/${encodeURIComponent(me.id)}`, text: me.name }),
      el("a", { id: "account-link", href: "/account", dataset: { i18n: key }, text }),
    );
  }
  return true;
}

/** Rename your identity (``POST /api/me/name``: at every table you sit at too); the identity as it now is, or
 * the ``ApiError`` thrown (a name taken, too many renames). The header's link shows the new name. */
export async function setName(name) {
  const me = await identity;
  const renamed = await api("/api/me/name", { method: "POST", body: { name } });
  if (me) Object.assign(me, renamed);
  saved.set("name", renamed.name);
  const link = document.querySelector("#me-link");
  if (link) link.textContent = renamed.name;
  return renamed;
}

async function start() {
  const me = await identity;
  if (!me) return;
  const apply = () => {
    fillNames(me);
    return placeLinks(me);
  };
  apply();
  // The header and some forms are built after this script runs: fill them when they appear.
  new MutationObserver(apply).observe(document.body, { childList: true, subtree: true });
  for (const delay of [100, 500, 1500]) setTimeout(apply, delay);
}

start();
