// A friend's invitation to an open seat (the `invitation` event of /api/me/events), shown on every open page as a
// toast: Join takes the seat (no token needed: the invitation stands for it) and opens the table; Dismiss declines.

import { initials } from "./board.js";
import { $, ApiError, announce, api, el, saved } from "./common.js";
import { t } from "./i18n.js";

const shown = new Set();

const key = (invitation) => `${invitation.table}.${invitation.seat}`;

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

function toasts() {
  let box = $("#toasts");
  if (!box) {
    box = el("div", { id: "toasts", class: "toasts" });
    document.body.append(box);
  }
  return box;
}

/** Show ``invitation`` as a toast (once per seat on this page). */
export function showInvitation(invitation) {
  if (shown.has(key(invitation)) || !invitation?.by) return;
  shown.add(key(invitation));
  const error = el("p", { class: "refusal toast-error", role: "alert" });
  const close = () => toast.remove();
  const join = el("button", { type: "button", class: "small", text: t("friends.join") });
  const dismiss = el("button", { type: "button", class: "small secondary", text: t("friends.dismiss") });
  const toast = el(
    "section",
    { class: "toast invitation-toast", role: "dialog", "aria-label": t("friends.invitation"), dataset: { table: invitation.table } },
    el("span", { class: "avatar big", "aria-hidden": "true" }, initials(invitation.by.name)),
    el("div", { class: "toast-body" }, el("p", { class: "toast-text" }, invitationText(invitation)), error),
    el("div", { class: "toast-actions" }, join, dismiss),
  );
  join.addEventListener("click", async () => {
    join.disabled = true;
    const refused = await joinInvitation(invitation);
    if (refused) {
      error.textContent = refused;
      join.disabled = false;
    }
  });
  dismiss.addEventListener("click", async () => {
    close();
    await declineInvitation(invitation);
  });
  toasts().append(toast);
  announce(invitationText(invitation));
}
