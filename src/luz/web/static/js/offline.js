// The page the service worker shows for a page asked while offline (it keeps the address asked: trying again
// loads that page).

import { $ } from "./common.js";
import { startPage } from "./site.js";

function retry() {
  if (location.pathname === "/offline") location.href = "/";
  else location.reload();
}

/** The network is back but this page came (the server was not reached yet): try again, less and less often. */
function retryLater() {
  let tries = 0;
  try {
    tries = Number(sessionStorage.getItem("luz.offline.tries") || 0);
    sessionStorage.setItem("luz.offline.tries", String(tries + 1));
  } catch {
    tries = 5;
  }
  setTimeout(retry, Math.min(60, 2 ** tries) * 1000);
}

async function start() {
  window.addEventListener("online", retry);
  $("#retry").addEventListener("click", retry);
  document.body.dataset.listening = "online"; // from now on, the network's return reloads the page asked
  // Came while the network is up (the server was not reached): try again later. Not at /offline itself, a page
  // one may open on purpose.
  if (navigator.onLine && location.pathname !== "/offline") retryLater();
  await startPage();
}

start();
