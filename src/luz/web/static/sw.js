// The service worker (served at /sw.js, scope "/"): the installable app's offline shell, and the turn
// notifications that the server pushes (docs/USER_GUIDE.md, "Turn-based games").
//
// - install: the shell (every page's CSS, scripts, translations, icons, and the /offline page) is cached;
// - pages: from the network, the offline page when there is none (pages always come fresh: a game is live);
// - /static/: from the network too, the cached copy when offline (each fresh answer refreshes the cache);
// - /api/ and /ws/ (and anything else): never touched, never cached;
// - push: the payload's {title, body, data: {url}} as a notification, one per table (a newer one replaces it);
// - a click on it: the tab already on that address is focused, else one is opened (or an open tab goes there).

const VERSION = "luz-shell-v2";
const OFFLINE = "/offline";
// tests/web/test_pwa.py checks that this list names every file the pages use.
const SHELL = [
  OFFLINE,
  "/manifest.webmanifest",
  "/static/favicon.svg",
  "/static/css/luz.css",
  "/static/css/chat.css",
  "/static/css/tournament.css",
  "/static/i18n/en.json",
  "/static/i18n/fr.json",
  "/static/i18n/ja.json",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
  "/static/icons/maskable-512.png",
  "/static/icons/apple-touch-icon.png",
  ...[
    "account", "alerts", "board", "chat", "clock", "common", "connection", "controls", "daily", "daily-card", "deal",
    "dealset", "friends", "games", "how-to-play", "i18n", "identity", "invitations", "leaderboard", "lesson", "lobby",
    "motion", "notifications", "offline", "over-accuracy", "plain", "profile", "puzzle", "ratings", "render", "replay",
    "review", "score", "site", "table", "tablestate", "tournament", "tournament-text", "tournaments", "tutorial",
  ].map((name) => `/static/js/${name}.js`),
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      await cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== VERSION) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

async function page(request) {
  try {
    return await fetch(request);
  } catch {
    const cache = await caches.open(VERSION);
    return (await cache.match(OFFLINE)) || new Response("You are offline. Vous êtes hors ligne.", { status: 503 });
  }
}

async function shellFile(request) {
  const cache = await caches.open(VERSION);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(request, { ignoreSearch: true });
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return; // always the network
  if (request.mode === "navigate") event.respondWith(page(request));
  else if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") event.respondWith(shellFile(request));
});

// -- notifications --------------------------------------------------------------------------------------

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const data = message.data || {};
  const url = new URL(data.url || "/games", self.location.origin).href;
  event.waitUntil(
    self.registration.showNotification(message.title || "LUZ", {
      body: message.body || "",
      tag: data.tag || `luz-${new URL(url).pathname}`, // one per table: the newest replaces the older
      renotify: true,
      icon: "/static/icons/icon-192.png",
      badge: "/static/icons/icon-192.png",
      lang: message.lang || "",
      data: { ...data, url },
    }),
  );
});

/** Focus the tab already on ``url``, else open one; where opening is refused, bring an open tab there. */
async function openTab(url) {
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = tabs.find((tab) => tab.url === url) || tabs.find((tab) => new URL(tab.url).pathname === new URL(url).pathname);
  if (same) {
    try {
      return await same.focus();
    } catch {
      return same;
    }
  }
  try {
    const opened = await self.clients.openWindow(url);
    if (opened) return opened;
  } catch {
    // not allowed here: an open tab of the site goes there instead
  }
  const tab = tabs.find((t) => "navigate" in t);
  if (!tab) return null;
  const moved = await tab.navigate(url);
  try {
    return await (moved || tab).focus();
  } catch {
    return moved || tab;
  }
}

self.addEventListener("notificationclick", (event) => {
  const notification = event.notification;
  notification.close();
  event.waitUntil(openTab(notification.data?.url || new URL("/games", self.location.origin).href));
});
