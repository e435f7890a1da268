// Turn alerts: the tab's title, a short sound, a notification while the tab is hidden. Each can be switched
// off and is remembered; the browser is asked for notifications only when the player ticks that box.

import { $, saved } from "./common.js";
import { t } from "./i18n.js";

const settings = { title: true, sound: false, notify: false, ...saved.get("alerts", {}) };
let wasMyTurn = false;
let audio = null;
let shown = { mine: false, tableName: "" };

function showTitle() {
  const { mine, tableName } = shown;
  document.title = mine && settings.title ? `● ${t("alerts.tab")} · ${tableName} · LUZ` : `${tableName} · LUZ`;
}

function beep() {
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // no audio here
  }
}

function notify(tableName) {
  if (!document.hidden || typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    new Notification(t("alerts.notification"), { body: tableName, tag: "luz-turn" });
  } catch {
    // notifications refused by this browser
  }
}

/** Show (or clear) the alerts for the viewer's turn at ``tableName``; sound and notification once a turn. */
export function turnAlert(mine, tableName) {
  shown = { mine, tableName };
  showTitle();
  document.documentElement.dataset.myTurn = String(mine);
  if (mine && !wasMyTurn) {
    if (settings.sound) beep();
    if (settings.notify) notify(tableName);
  }
  wasMyTurn = mine;
}

/** Wire the three switches of the settings panel to the remembered settings. */
export function alertsStart() {
  for (const [key, id] of [
    ["title", "#alert-title"],
    ["sound", "#alert-sound"],
    ["notify", "#alert-notify"],
  ]) {
    const box = $(id);
    box.checked = settings[key];
    box.addEventListener("change", async () => {
      settings[key] = box.checked;
      if (key === "notify" && box.checked && typeof Notification !== "undefined" && Notification.permission === "default") {
        settings.notify = box.checked = (await Notification.requestPermission()) === "granted";
      }
      if (key === "sound" && box.checked) beep();
      if (key === "title") showTitle();
      saved.set("alerts", settings);
    });
  }
}
