// The page the service worker shows for a page asked while offline (it keeps the address asked: trying again
// loads that page).

import { $, startPage } from "./common.js";

function retry() {
  if (location.pathname === "/offline") location.href = "/";
  else location.reload();
}

async function start() {
  window.addEventListener("online", retry);
  $("#retry").addEventListener("click", retry);
  await startPage();
}

start();
