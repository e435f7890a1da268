// The table's WebSocket (docs/PROTOCOL.md): one connection at a time, reconnected with a growing delay and a
// countdown in the banner, a heartbeat that closes a line gone quiet, and a sync after each reconnection. What
// the messages mean is the page's (table.js): it gives the address and the handlers.

import { $ } from "./common.js";
import { t } from "./i18n.js";

const line = {
  socket: null,
  connectedOnce: false,
  attempts: 0,
  retryTimer: null,
  countdown: null,
  lastHeard: 0,
  heartbeat: null,
  pings: 0,
  handlers: null, // {address(): the socket's URL, receive(message), closed(code): true when the page handled it}
};

/** Connect with the page's ``handlers`` (kept for the reconnections). */
export function openConnection(handlers) {
  line.handlers = handlers;
  connect();
}

/** Whether a socket is open now (actions are sent only then). */
export function isOpen() {
  return line.socket?.readyState === WebSocket.OPEN;
}

/** Whether a socket is open or being opened (none after a close, until the retry). */
export function hasSocket() {
  return line.socket !== null;
}

/** Try again now, the delay forgotten. */
export function retryNow() {
  line.attempts = 0;
  reconnect();
}

export function connect() {
  clearTimeout(line.retryTimer);
  clearInterval(line.countdown);
  const socket = new WebSocket(line.handlers.address());
  line.socket = socket;
  socket.addEventListener("open", () => {
    if (line.socket !== socket) return;
    line.attempts = 0;
    line.lastHeard = performance.now();
    showBanner(null);
    if (line.connectedOnce) send({ type: "sync" });
    line.connectedOnce = true;
    startHeartbeat();
  });
  socket.addEventListener("message", (event) => {
    if (line.socket !== socket) return;
    line.lastHeard = performance.now();
    line.handlers.receive(JSON.parse(event.data));
  });
  socket.addEventListener("close", (event) => {
    if (line.socket !== socket) return;
    line.socket = null;
    stopHeartbeat();
    if (!line.handlers.closed(event.code)) retryLater();
  });
}

export function reconnect() {
  const old = line.socket;
  line.socket = null;
  old?.close();
  connect();
}

function retryLater() {
  stopHeartbeat();
  const delay = Math.min(15000, 500 * 2 ** line.attempts) * (0.8 + 0.4 * Math.random());
  line.attempts += 1;
  const due = performance.now() + delay;
  const tick = () => {
    const seconds = Math.max(0, Math.ceil((due - performance.now()) / 1000));
    showBanner(t("conn.lost", { seconds }));
  };
  tick();
  clearInterval(line.countdown);
  line.countdown = setInterval(tick, 1000);
  clearTimeout(line.retryTimer);
  line.retryTimer = setTimeout(connect, delay);
}

function startHeartbeat() {
  stopHeartbeat();
  // A dropped network often closes nothing: no word from the server for a while means the line is dead.
  line.heartbeat = setInterval(() => {
    const quiet = performance.now() - line.lastHeard;
    if (quiet > 25000) {
      const dead = line.socket;
      line.socket = null;
      dead?.close();
      retryLater();
    } else if (quiet > 10000) {
      send({ type: "ping", id: `ping-${++line.pings}` });
    }
  }, 5000);
}

function stopHeartbeat() {
  clearInterval(line.heartbeat);
}

/** Send ``message`` if the socket is open; false when it is not. */
export function send(message) {
  if (!isOpen()) return false;
  line.socket.send(JSON.stringify(message));
  return true;
}

function showBanner(text) {
  $("#banner").hidden = !text;
  $("#banner-text").textContent = text || "";
}
