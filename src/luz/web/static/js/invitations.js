// Friends' invitations to an open seat (the `invitations` event of /api/me/events: the whole list, newest first,
// told again whenever one comes or is withdrawn), shown on every open page as one compact notice in the page's
// flow under the header (never over what a player taps): the newest with its inviter, table and pace, and how many
// more, which unfold. None for the table this page shows. Join takes the seat (no token needed: the invitation
// stands for it) and opens that very table; Dismiss declines.

import { initials } from "./board.js";
import { timeControlText, turnBasedText } from "./clock.js";
import { $, ApiError, announce, api, el, saved } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";

const notice = { invitations: [], open: false, announced: new Set(), errors: new Map() };

const key = (invitation) => `${invitation.table}.${invitation.seat}.${invitation.at}`;

/** Take the invited seat and open its table; an error text when refused. */
export async function joinInvitation(invitation) {
  const id = encodeURIComponent(invitation.table);
  try {
    const joined = await api(`/api/tables/${id}/seats/${invitation.seat}/join`, { method: "POST", body: {} });
    saved.set(`seat.${invitation.table}`, { seat: joined.seat, token: joined.token });
    location.href = `/t/${id}`;
    return null;
  } catch (error) {
    return error instanceof ApiError ? t("join.refused", { detail: error.message }) : t("conn.failed");
  }
}

/** Decline (or dismiss) an invitation: it leaves every page of yours. */
export async function declineInvitation(invitation) {
  const id = encodeURIComponent(invitation.table);
  await api(`/api/me/invitations/${id}/${invitation.seat}`, { method: "DELETE" }).catch(() => null);
}

/** What an invitation says: "Ana invites you to Friday table (seat 2)". */
export function invitationText(invitation) {
  return t("friends.invited_you", { name: invitation.by.name, table: invitation.name, n: invitation.seat + 1 });
}

/** The invited table's pace: "turn-based, 1 day per move", "live, clock 3+10", "live, no clock". */
export function paceText(invitation) {
  const control = invitation.time_control;
  if (!control) return t("invite.live_untimed");
  return control.days_per_move ? turnBasedText(control) : t("invite.live", { control: timeControlText(control) });
}

/** The table this page shows, if it is a table's page. */
function tableHere() {
  const found = location.pathname.match(/^\/t\/([^/]+)/);
  return found ? decodeURIComponent(found[1]) : null;
}

function row(invitation) {
  const error = el("p", { class: "refusal invitation-error", role: "alert" }, notice.errors.get(key(invitation)) || "");
  const join = el("button", { type: "button", class: "small", text: t("friends.join") });
  const dismiss = el("button", {
    type: "button",
    class: "small secondary",
    text: "×",
    title: t("friends.dismiss"),
    "aria-label": `${t("friends.dismiss")}: ${invitationText(invitation)}`,
  });
  join.addEventListener("click", async () => {
    join.disabled = true;
    const refused = await joinInvitation(invitation);
    if (refused) {
      notice.errors.set(key(invitation), refused);
      error.textContent = refused;
      join.disabled = false;
    }
  });
  dismiss.addEventListener("click", async () => {
    notice.invitations = notice.invitations.filter((one) => key(one) !== key(invitation));
    draw();
    await declineInvitation(invitation);
  });
  return el(
    "li",
    { class: "invitation-row", dataset: { table: invitation.table } },
    el("span", { class: "avatar", "aria-hidden": "true" }, initials(invitation.by.name)),
    el(
      "span",
      { class: "invitation-what" },
      el("span", { class: "invitation-text" }, invitationText(invitation)),
      el("span", { class: "invitation-pace" }, paceText(invitation)),
      error,
    ),
    join,
    dismiss,
  );
}

function draw() {
  const here = tableHere();
  const shown = notice.invitations.filter((invitation) => invitation.table !== here);
  let box = $("#invitation-notice");
  if (!shown.length) {
    box?.remove();
    return;
  }
  if (!box) {
    box = el("section", { id: "invitation-notice", class: "invitation-notice", "aria-live": "polite" });
    const header = $("header.top");
    if (header) header.after(box);
    else document.body.prepend(box);
  }
  box.setAttribute("aria-label", t("friends.invitation"));
  const more = shown.length - 1;
  const rows = notice.open ? shown : shown.slice(0, 1);
  const parts = [el("ul", { class: "invitation-rows" }, ...rows.map(row))];
  if (more) {
    const toggle = el("button", {
      type: "button",
      class: "link invitation-more",
      "aria-expanded": String(notice.open),
      text: notice.open ? t("invite.fewer") : t("invite.more", { n: more }),
    });
    toggle.addEventListener("click", () => {
      notice.open = !notice.open;
      draw();
    });
    parts.unshift(el("p", { class: "invitation-count" }, t("invite.count", { n: shown.length }), toggle));
  }
  box.replaceChildren(...parts);
}

/** Show the live invitations ``invitations`` (newest first) as the one notice, a new one announced once. */
export function showInvitations(invitations) {
  notice.invitations = (invitations || []).filter((invitation) => invitation?.by);
  const live = new Set(notice.invitations.map(key));
  for (const gone of [...notice.errors.keys()].filter((k) => !live.has(k))) notice.errors.delete(gone);
  draw();
  const here = tableHere();
  for (const invitation of notice.invitations) {
    if (notice.announced.has(key(invitation)) || invitation.table === here) continue;
    notice.announced.add(key(invitation));
    announce(invitationText(invitation));
  }
}

onLanguageChange(draw);
