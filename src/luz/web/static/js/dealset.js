// Deal sets (/deals): name one (a secret deal that several tables play at different times), and a set's page
// (/deals/ID): its link to share, play it with bots or friends while it is open, its tables' results, and, for
// whoever named it, closing it (then no new table, and every replay shown).

import { $, ApiError, api, copy, editions, fillEditionSelect, fillPlayersSelect, identity } from "./common.js";
import { drawOtherScores, playDeal } from "./deal.js";
import { onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";

const setId = decodeURIComponent(location.pathname.split("/")[2] || "");
const state = { set: null, editions: {}, me: null };

function refused(box, error) {
  $(box).textContent = error instanceof ApiError ? error.message : t("conn.failed");
}

/** The set's name, rules, whether it is open, its results (drawn again in a new language). */
function draw() {
  const set = state.set;
  if (!set) return;
  $("#set-title").textContent = set.name;
  document.title = set.name;
  const edition = state.editions[set.edition];
  $("#set-info").textContent = [edition?.name ?? set.edition, t("table.players", { n: set.players })].join(" · ");
  $("#set-state").textContent = t(set.closed ? "dealset.closed" : "dealset.open");
  $("#set-play").hidden = set.closed;
  $("#set-close").hidden = set.closed || !state.me || state.me.id !== set.owner;
  $("#set-unfinished").textContent = set.unfinished ? t("dealset.unfinished", { n: set.unfinished }) : "";
  drawOtherScores($("#set-games"), set.games, "dealset.none");
  $("#set-link").value = `${location.origin}${set.url}`;
  $("#set-panel").hidden = false;
  $("#set-results").hidden = false;
}

async function loadSet() {
  try {
    state.set = await api(`/api/deal-sets/${encodeURIComponent(setId)}`);
  } catch (error) {
    refused("#set-error", error);
    return;
  }
  draw();
}

async function closeSet() {
  $("#set-play-error").textContent = "";
  try {
    await api(`/api/deal-sets/${encodeURIComponent(setId)}/close`, { method: "POST" });
  } catch (error) {
    refused("#set-play-error", error);
    return;
  }
  await loadSet();
}

function showNewForm() {
  fillEditionSelect($("#set-edition"), state.editions);
  const players = () => fillPlayersSelect($("#set-players"), state.editions[$("#set-edition").value]);
  players();
  $("#set-edition").addEventListener("change", players);
  $("#set-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("#set-error").textContent = "";
    const body = { name: $("#set-name").value.trim(), edition: $("#set-edition").value, players: Number($("#set-players").value) };
    try {
      const made = await api("/api/deal-sets", { method: "POST", body });
      location.href = made.url;
    } catch (error) {
      refused("#set-error", error);
    }
  });
  $("#set-new").hidden = false;
}

async function start() {
  await startPage();
  state.editions = await editions();
  state.me = await identity();
  if (!setId) {
    showNewForm();
    return;
  }
  for (const [id, friends] of [["#set-bots", false], ["#set-friends", true]]) {
    const button = $(id);
    button.addEventListener("click", () =>
      playDeal({ deal_set: setId }, state.set.players, { friends, button, errorBox: $("#set-play-error") }),
    );
  }
  $("#set-copy").addEventListener("click", () => copy($("#set-link").value, $("#set-copy")));
  $("#set-close").addEventListener("click", closeSet);
  onLanguageChange(draw);
  await loadSet();
}

start();
