// Friends (GET /api/me/friends): those you follow, online first, each with the public table they sit at (Watch)
// once they follow you back, and, when you sit at a table with an open seat, Invite; those following you (Follow
// back); those you blocked; your invitations (Join, Decline). Kept current by the identity's event stream and a
// refresh each minute.

import { initials } from "./board.js";
import { $, ApiError, announce, api, el } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";
import { declineInvitation, invitationText, joinInvitation } from "./invitations.js";
import { onInvitation, startPage } from "./site.js";

const state = { friends: null, followers: new Set(), invitations: [], guest: false, timer: null };

const profileLink = (player) => `/u/${encodeURIComponent(player.id)}`;

function avatar(player, online) {
  return el(
    "span",
    { class: "friend-avatar" },
    el("span", { class: "avatar big", "aria-hidden": "true" }, initials(player.name)),
    online === undefined ? null : el("span", { class: `presence${online ? " online" : ""}`, "aria-hidden": "true" }),
  );
}

function who(player, detail) {
  return el(
    "span",
    { class: "friend-who" },
    el("a", { class: "friend-name", href: profileLink(player) }, player.name),
    detail ? el("span", { class: "friend-detail" }, ...detail) : null,
  );
}

/** Where a friend is: "Online", "Playing at <table>" or "Offline"; only once they follow you back. */
function whereabouts(friend) {
  if (!friend.mutual) return [el("span", { class: "friend-status" }, t("friends.presence_hidden"))];
  const mutual = state.followers.has(friend.id) ? el("span", { class: "friend-status" }, ` · ${t("friends.follows_you")}`) : null;
  if (friend.table) {
    const key = friend.table.status === "playing" ? "friends.playing_at" : "friends.waiting_at";
    return [el("span", { class: "friend-status online" }, t(key, { table: friend.table.name })), mutual];
  }
  const presence = t(friend.online ? "friends.online" : "friends.offline");
  return [el("span", { class: `friend-status${friend.online ? " online" : ""}` }, presence), mutual];
}

function inviteButtons(friend) {
  const seats = state.friends.open_seats;
  if (!seats.length) return [];
  return seats.map((seat) => {
    const invited = friend.invited.some((i) => i.table === seat.table && i.seat === seat.seat);
    const label =
      seats.length > 1
        ? t("friends.invite_to", { table: seat.name, n: seat.seat + 1 })
        : t("friends.invite");
    const button = el("button", {
      type: "button",
      class: "small",
      disabled: invited,
      "aria-label": `${label}: ${friend.name}`,
      text: invited ? t("friends.invited") : label,
    });
    const warning = el("span", { class: "friend-warning muted", role: "note", hidden: true }, t("friends.invite_rated", { table: seat.name }));
    button.addEventListener("click", async () => {
      if (seat.rated && warning.hidden) {  // a rated table: say what a friend from your address does to it first
        warning.hidden = false;
        button.textContent = t("friends.invite_anyway");
        return;
      }
      button.disabled = true;
      try {
        await api(`/api/tables/${encodeURIComponent(seat.table)}/seats/${seat.seat}/invite`, {
          method: "POST",
          body: { player: friend.id },
        });
        button.textContent = t("friends.invited");
        warning.hidden = true;
        announce(t("friends.invite_sent", { name: friend.name }));
        await load();
      } catch (error) {
        button.disabled = false;
        $("#friends-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
      }
    });
    return seat.rated ? el("span", { class: "friend-invite" }, button, warning) : button;
  });
}

function friendRow(friend) {
  const watch = friend.table
    ? el("a", { class: "button small secondary", href: `/t/${encodeURIComponent(friend.table.id)}`, "aria-label": `${t("friends.watch")}: ${friend.table.name}` }, t("friends.watch"))
    : null;
  return el(
    "li",
    { class: `friend${friend.online ? " is-online" : ""}`, dataset: { player: friend.id } },
    avatar(friend, friend.mutual ? friend.online : undefined),
    who(friend, whereabouts(friend)),
    el("span", { class: "friend-actions" }, watch, ...inviteButtons(friend)),
  );
}

async function change(path, method) {
  try {
    await api(path, { method });
    await load();
  } catch (error) {
    $("#friends-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

function followerRow(follower) {
  const back = el(
    "button",
    { type: "button", class: "small", on: { click: () => change(`/api/players/${encodeURIComponent(follower.id)}/follow`, "PUT") }, "aria-label": `${t("friends.follow_back")}: ${follower.name}` },
    t("friends.follow_back"),
  );
  return el("li", { class: "friend" }, avatar(follower), who(follower, [el("span", { class: "friend-status" }, t("friends.follows_you"))]), el("span", { class: "friend-actions" }, back));
}

function blockedRow(player) {
  const unblock = el(
    "button",
    { type: "button", class: "small secondary", on: { click: () => change(`/api/players/${encodeURIComponent(player.id)}/block`, "DELETE") }, "aria-label": `${t("friends.unblock")}: ${player.name}` },
    t("friends.unblock"),
  );
  return el("li", { class: "friend" }, avatar(player), who(player), el("span", { class: "friend-actions" }, unblock));
}

function invitationRow(invitation) {
  const error = el("span", { class: "refusal", role: "alert" });
  const join = el("button", { type: "button", class: "small" }, t("friends.join"));
  join.addEventListener("click", async () => {
    join.disabled = true;
    error.textContent = (await joinInvitation(invitation)) || "";
    join.disabled = false;
  });
  const decline = el("button", { type: "button", class: "small secondary" }, t("friends.decline"));
  decline.addEventListener("click", async () => {
    await declineInvitation(invitation);
    await load();
  });
  return el(
    "li",
    { class: "friend invitation" },
    avatar(invitation.by),
    el("span", { class: "friend-who" }, el("span", { class: "friend-name" }, invitationText(invitation)), error),
    el("span", { class: "friend-actions" }, join, decline),
  );
}

function draw() {
  $("#friends-guest").hidden = !state.guest;
  $("#invitations-section").hidden = !state.invitations.length;
  $("#invitations").replaceChildren(...state.invitations.map(invitationRow));
  const friends = state.friends;
  for (const id of ["#following-section", "#followers-section", "#blocked-section"]) $(id).hidden = !friends;
  if (!friends) {
    $("#friends-summary").textContent = "";
    $("#friends-seat").hidden = true;
    return;
  }
  state.followers = new Set(friends.followers.map((f) => f.id));
  const following = [...friends.following].sort((a, b) => Number(Boolean(b.table || b.online)) - Number(Boolean(a.table || a.online)));
  const online = following.filter((f) => f.online).length;
  const shown = following.filter((f) => f.mutual).length; // presence is shown for those who follow back
  $("#friends-summary").textContent = shown ? t("friends.summary", { n: online, count: shown }) : "";
  const seat = friends.open_seats[0];
  $("#friends-seat").hidden = !seat;
  if (seat) $("#friends-seat").textContent = t("friends.open_seat", { table: seat.name, n: seat.seat + 1 });
  $("#no-friends").hidden = Boolean(following.length);
  $("#following").replaceChildren(...following.map(friendRow));
  // Followers you follow back are among your friends (marked "follows you"); the others may be followed back.
  const others = friends.followers.filter((f) => !f.followed);
  $("#followers-section").hidden = !others.length;
  $("#followers").replaceChildren(...others.map(followerRow));
  $("#blocked-section").hidden = !friends.blocked.length;
  $("#blocked").replaceChildren(...friends.blocked.map(blockedRow));
}

async function load() {
  try {
    const [friends, invitations] = await Promise.all([
      api("/api/me/friends").catch((error) => {
        if (error instanceof ApiError && (error.status === 403 || error.status === 401)) return null;
        throw error;
      }),
      api("/api/me/invitations"),
    ]);
    state.friends = friends;
    state.guest = friends === null;
    state.invitations = invitations.invitations || [];
    $("#friends-error").textContent = "";
  } catch {
    $("#friends-error").textContent = t("conn.failed");
  }
  draw();
  clearTimeout(state.timer);
  state.timer = setTimeout(load, 60_000);
}

async function start() {
  await startPage();
  onLanguageChange(draw);
  onInvitation(() => load());
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) load();
  });
  await load();
}

start();
