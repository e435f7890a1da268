// The account page's notifications: this browser's Web Push subscription (the browser is asked for its permission
// only after a click), push and email switches, quiet hours, with the browser's time zone and the page's language
// (GET/PUT /api/me/notifications, GET /api/push/key, POST/DELETE /api/me/push).

import { $, ApiError, api } from "./common.js";
import { language, t } from "./i18n.js";

const state = { settings: null, me: null, subscribed: false, asked: null };

const supported = () => "serviceWorker" in navigator && "PushManager" in window && typeof Notification !== "undefined";
const timezone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** The server's key as the bytes ``pushManager.subscribe`` wants (it comes base64url-encoded). */
function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function registration() {
  // common.js registers the worker once the page has loaded; a click may come first.
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

function say(text, error = false) {
  $("#notify-message").textContent = error ? "" : text;
  $("#notify-error").textContent = error ? text : "";
}

function showDevice() {
  const box = $("#push-state");
  let key = "notify.device_off";
  if (!supported()) key = "notify.unsupported";
  else if (Notification.permission === "denied") key = "notify.blocked";
  else if (state.subscribed && Notification.permission === "granted") key = "notify.device_on";
  box.textContent = t(key);
  box.classList.toggle("on", key === "notify.device_on");
  $("#push-enable").hidden = !supported() || key === "notify.device_on";
  $("#push-enable").disabled = key === "notify.blocked";
  $("#push-disable").hidden = key !== "notify.device_on";
}

function showSettings() {
  const settings = state.settings;
  const form = $("#notify-form");
  form.hidden = !settings;
  if (!settings) return;
  $("#notify-push").checked = settings.push;
  const guest = state.me?.guest ?? true;
  const email = $("#notify-email");
  email.checked = settings.email && !guest;
  email.disabled = guest || !settings.smtp;
  $("#notify-address").disabled = guest || !settings.smtp;
  if (!$("#notify-address").matches(":focus")) $("#notify-address").value = settings.email_address || "";
  let emailKey = "";
  if (guest) emailKey = "notify.email_accounts";
  else if (!settings.smtp) emailKey = "notify.email_off";
  else if (settings.email_address && settings.email_verified) emailKey = "notify.email_verified";
  else if (settings.email_address) emailKey = "notify.email_check";
  $("#email-state").textContent = emailKey ? t(emailKey, { address: settings.email_address || "" }) : "";
  $("#email-state").classList.toggle("ok", emailKey === "notify.email_verified");
  const quiet = settings.quiet_hours;
  $("#quiet-on").checked = Boolean(quiet);
  if (quiet) {
    $("#quiet-start").value = quiet.start;
    $("#quiet-end").value = quiet.end;
  }
  showQuiet();
}

function showQuiet() {
  const on = $("#quiet-on").checked;
  $("#quiet-start").disabled = !on;
  $("#quiet-end").disabled = !on;
  $("#timezone-text").textContent = t("notify.timezone", { zone: timezone() });
}

export function showNotifications() {
  showDevice();
  showSettings();
}

/** What the form says, as the server takes it (with this browser's time zone and the page's language). Email
 * is for accounts (a guest sends none of it), and an address goes only when it changed: each new one is sent a
 * link to confirm it. */
function wanted() {
  const body = {
    push: $("#notify-push").checked,
    quiet_hours: $("#quiet-on").checked ? { start: $("#quiet-start").value, end: $("#quiet-end").value } : null,
    timezone: timezone(),
    language: language(),
  };
  const settings = state.settings;
  if (!(state.me?.guest ?? true) && settings?.smtp) {
    const address = $("#notify-address").value.trim() || null;
    if (address !== (settings.email_address || null)) body.email_address = address;
    body.email = $("#notify-email").checked && Boolean(address);
  }
  return body;
}

async function save(changes = {}) {
  const body = { ...wanted(), ...changes };
  state.settings = { ...state.settings, ...(await api("/api/me/notifications", { method: "PUT", body })) };
  showSettings(); // a new address: "check your inbox" under it
  say(t("notify.saved"));
}

async function enable() {
  say("");
  if (!supported()) return;
  // The browser's question comes from this click, never on its own.
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    showDevice();
    say(t(permission === "denied" ? "notify.blocked" : "notify.not_allowed"), true);
    return;
  }
  $("#push-enable").disabled = true;
  try {
    const [{ key }, ready] = await Promise.all([api("/api/push/key"), registration()]);
    let subscription = await ready.pushManager.getSubscription();
    subscription ??= await ready.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
    await api("/api/me/push", { method: "POST", body: subscription.toJSON() });
    state.subscribed = true;
    $("#notify-push").checked = true;
    await save({ push: true });
    say(t("notify.enabled"));
  } catch (error) {
    say(error instanceof ApiError ? error.message : t("notify.failed"), true);
  } finally {
    $("#push-enable").disabled = false;
    showDevice();
  }
}

async function disable() {
  say("");
  try {
    const ready = await registration();
    const subscription = await ready.pushManager.getSubscription();
    if (subscription) {
      await api("/api/me/push", { method: "DELETE", body: { endpoint: subscription.endpoint } });
      await subscription.unsubscribe();
    }
    state.subscribed = false;
    say(t("notify.disabled"));
  } catch (error) {
    say(error instanceof ApiError ? error.message : t("notify.failed"), true);
  }
  showDevice();
}

/** Read the settings again (the page's identity ``me`` may have changed: signing in or out). */
export async function loadNotifications(me) {
  state.me = me;
  try {
    state.settings = await api("/api/me/notifications");
    $("#notify-error").textContent = "";
  } catch (error) {
    state.settings = null;
    $("#notify-error").textContent = error instanceof ApiError && error.status === 404 ? t("notify.unavailable") : t("conn.failed");
  }
  if (supported()) {
    const ready = await navigator.serviceWorker.getRegistration("/").catch(() => null);
    state.subscribed = Boolean(await ready?.pushManager.getSubscription().catch(() => null));
  }
  showNotifications();
}

export function startNotifications() {
  $("#push-enable").addEventListener("click", enable);
  $("#push-disable").addEventListener("click", disable);
  $("#quiet-on").addEventListener("change", showQuiet);
  $("#notify-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    try {
      await save();
    } catch (error) {
      say(error instanceof ApiError ? error.message : t("conn.failed"), true);
    }
  });
  showNotifications();
}
