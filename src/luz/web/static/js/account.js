// Your identity: display name, turning a guest into an account, signing in and out, the password; your play
// settings (forced moves); the notifications of your turns (notifications.js); your vacation (the clocks of your
// turn-based games paused).

import { $, ApiError, api, identity } from "./common.js";
import { dayText } from "./clock.js";
import { onLanguageChange, t } from "./i18n.js";
import { setName } from "./identity.js";
import { loadNotifications, showNotifications, startNotifications } from "./notifications.js";
import { startPage, watchTurns } from "./site.js";

let me = null;
let vacation = null;

/** The vacation panel: days left this year, and the current vacation's end with a button to end it early. */
function showVacation() {
  if (!vacation || !me) return;
  const away = vacation.until !== null;
  const left = t("vacation.left", { n: vacation.days_left, total: vacation.allowance_days });
  $("#vacation-state").textContent = me.guest
    ? t("vacation.accounts_only")
    : away ? `${t("vacation.until", { date: dayText(vacation.until) })} ${left}` : left;
  $("#vacation-form").hidden = me.guest || away || vacation.days_left < 1;
  $("#vacation-days").max = String(Math.max(1, vacation.days_left));
  $("#vacation-end").hidden = !away;
}

async function loadVacation() {
  vacation = await api("/api/me/vacation").catch(() => null);
  showVacation();
}

async function changeVacation(request) {
  $("#vacation-error").textContent = "";
  try {
    vacation = await request();
    showVacation();
  } catch (error) {
    const known = ["vacation_allowance", "on_vacation"].includes(error?.code);
    $("#vacation-error").textContent = known ? t(`vacation.refused_${error.code}`) : error instanceof ApiError ? error.message : t("conn.failed");
  }
}

function show() {
  if (!me) return;
  $("#who").textContent = me.guest ? t("player.you_guest", { name: me.name }) : t("player.you_account", { name: me.name, username: me.username });
  $("#display-name").value ||= me.name;
  $("#signed-out").hidden = !me.guest;
  $("#signed-in").hidden = me.guest;
}

async function refresh({ first = false } = {}) {
  const before = me?.id;
  me = first ? await identity() : await api("/api/me");
  show();
  await loadPlay(); // another identity: its own settings
  await loadNotifications(me); // a guest turned account may now have email
  await loadVacation();
  if (!first && me?.id !== before) watchTurns({ restart: true }); // another identity: its own turns
}

/** The "Play" panel's checkbox as stored (left disabled if the settings cannot be read). */
async function loadPlay() {
  const box = $("#play-forced");
  try {
    box.checked = (await api("/api/me/play")).forced_moves;
    box.disabled = false;
  } catch {
    box.disabled = true;
  }
}

let playSaid = null; // what the "Play" panel last said: { key, error }, said again in a new language

function showPlay() {
  $("#play-message").textContent = playSaid && !playSaid.error ? t(playSaid.key) : "";
  $("#play-error").textContent = playSaid?.error ? t(playSaid.key) : "";
}

/** Save the checkbox as soon as it changes; if that fails, say so and show the setting as it still is. */
async function savePlay() {
  const box = $("#play-forced");
  const wanted = box.checked;
  playSaid = null;
  showPlay();
  box.disabled = true;
  try {
    const saved = await api("/api/me/play", { method: "PUT", body: { forced_moves: wanted } });
    box.checked = saved.forced_moves;
    playSaid = { key: saved.forced_moves ? "play.saved_on" : "play.saved_off", error: false };
  } catch {
    box.checked = !wanted;
    playSaid = { key: "play.failed", error: true };
  } finally {
    box.disabled = false;
    showPlay();
  }
}

/** ``button`` busy while a request runs (a password's hashing takes seconds): disabled, saying what it does. */
async function busy(button, text, work) {
  const idle = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = text;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = idle;
  }
}

function handle(form, work, done, busyText) {
  $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    $("#account-error").textContent = "";
    $("#account-message").textContent = "";
    try {
      await busy($(`${form} button[type=submit]`), t(busyText), work);
      $("#account-message").textContent = t(done);
      await refresh();
    } catch (error) {
      $("#account-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    }
  });
}

async function main() {
  await startPage();
  onLanguageChange(() => {
    show();
    showPlay();
    showNotifications();
    showVacation();
  });
  $("#vacation-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const days = Number($("#vacation-days").value);
    changeVacation(() => api("/api/me/vacation", { method: "POST", body: { days } }));
  });
  $("#vacation-end").addEventListener("click", () => changeVacation(() => api("/api/me/vacation", { method: "DELETE" })));
  startNotifications();
  $("#play-forced").addEventListener("change", savePlay);
  handle("#rename-form", () => setName($("#display-name").value.trim()), "player.saved", "player.saving"); // the header follows
  handle(
    "#register-form",
    () => api("/api/account/register", { method: "POST", body: { username: $("#register-username").value.trim(), password: $("#register-password").value } }),
    "player.registered", "player.registering",
  );
  handle(
    "#login-form",
    () => api("/api/account/login", { method: "POST", body: { username: $("#login-username").value.trim(), password: $("#login-password").value } }),
    "player.logged_in", "player.signing_in",
  );
  handle(
    "#password-form",
    () => api("/api/account/password", { method: "POST", body: { current: $("#current-password").value, new: $("#new-password").value } }),
    "player.password_changed", "player.changing_password",
  );
  for (const [button, path] of [["#logout", "/api/account/logout"], ["#logout-all", "/api/account/logout-all"]]) {
    $(button).addEventListener("click", async () => {
      await api(path, { method: "POST" }).catch(() => null);
      $("#account-message").textContent = t("player.logged_out");
      await refresh();
    });
  }
  await refresh({ first: true });
}

main();
