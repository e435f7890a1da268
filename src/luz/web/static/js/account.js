// Your identity: display name, turning a guest into an account, signing in and out, the password.

import { $, ApiError, api, startPage } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";

let me = null;

function show() {
  if (!me) return;
  $("#who").textContent = me.guest ? t("player.you_guest", { name: me.name }) : t("player.you_account", { name: me.name, username: me.username });
  $("#display-name").value ||= me.name;
  $("#signed-out").hidden = !me.guest;
  $("#signed-in").hidden = me.guest;
}

async function refresh() {
  me = await api("/api/me");
  show();
}

function handle(form, work, done) {
  $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    $("#account-error").textContent = "";
    $("#account-message").textContent = "";
    try {
      await work();
      $("#account-message").textContent = t(done);
      await refresh();
    } catch (error) {
      $("#account-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    }
  });
}

async function main() {
  await startPage();
  onLanguageChange(show);
  handle("#rename-form", () => api("/api/me/name", { method: "POST", body: { name: $("#display-name").value.trim() } }), "player.saved");
  handle(
    "#register-form",
    () => api("/api/account/register", { method: "POST", body: { username: $("#register-username").value.trim(), password: $("#register-password").value } }),
    "player.registered",
  );
  handle(
    "#login-form",
    () => api("/api/account/login", { method: "POST", body: { username: $("#login-username").value.trim(), password: $("#login-password").value } }),
    "player.logged_in",
  );
  handle(
    "#password-form",
    () => api("/api/account/password", { method: "POST", body: { current: $("#current-password").value, new: $("#new-password").value } }),
    "player.password_changed",
  );
  for (const [button, path] of [["#logout", "/api/account/logout"], ["#logout-all", "/api/account/logout-all"]]) {
    $(button).addEventListener("click", async () => {
      await api(path, { method: "POST" }).catch(() => null);
      $("#account-message").textContent = t("player.logged_out");
      await refresh();
    });
  }
  await refresh();
}

main();
