// The leaderboard: the rated players of one pool (an edition at one player count), best first, the three best
// on a podium; provisional ratings (too few games yet) marked with "?" after the established ones.

import { $, ApiError, api, editions, el, saved } from "./common.js";
import { initials } from "./board.js";
import { onLanguageChange, t } from "./i18n.js";
import { ratingText } from "./ratings.js";
import { startPage } from "./site.js";

let editionList = {};
let board = null;

function pool() {
  const query = new URLSearchParams(location.search);
  return {
    edition: query.get("edition") || saved.get("ladder.edition", "iello-2024"),
    players: Number(query.get("players") || saved.get("ladder.players", 4)),
  };
}

function choose(edition, players) {
  saved.set("ladder.edition", edition);
  saved.set("ladder.players", players);
  history.replaceState(null, "", `/leaderboard?edition=${encodeURIComponent(edition)}&players=${players}`);
  load();
}

function playerLink(entry, children) {
  return el("a", { class: "ladder-name", href: `/u/${encodeURIComponent(entry.player)}` }, children);
}

function drawPicker() {
  const { edition, players } = pool();
  const select = $("#pool-edition");
  select.replaceChildren(...Object.values(editionList).map((e) => el("option", { value: e.key, text: e.name })));
  select.value = edition;
  const counts = editionList[edition]?.players ?? [3, 4, 5];
  const rated = (n) => board?.pools.find((p) => p.edition === edition && p.players === n)?.rated ?? 0;
  $("#pool-players").replaceChildren(
    ...counts.map((n) =>
      el(
        "button",
        {
          type: "button",
          class: "chip",
          "aria-pressed": String(n === players),
          on: { click: () => choose(edition, n) },
        },
        t("table.players", { n }),
        el("span", { class: "chip-count" }, String(rated(n))),
      ),
    ),
  );
}

function render() {
  drawPicker();
  if (!board) return;
  $("#ladder-explain").textContent = t("rating.explain", { n: board.provisional_games });
  $("#fair-provisional").textContent = t("fair.policy_provisional", { n: board.provisional_games });
  $("#fair-provisional").hidden = false;
  const ranking = board.ranking;
  $("#ladder-empty").hidden = ranking.length > 0;
  const podium = ranking.filter((e) => !e.provisional).slice(0, 3);
  $("#podium").replaceChildren(
    ...podium.map((entry) =>
      el(
        "li",
        { class: `podium-step place-${entry.rank}` },
        el("span", { class: "medal", title: t("rating.place", { n: entry.rank }) }, String(entry.rank)),
        el("span", { class: "avatar big", "aria-hidden": "true" }, initials(entry.name)),
        playerLink(entry, entry.name),
        el("strong", { class: "ladder-rating" }, ratingText(entry)),
      ),
    ),
  );
  $("#ladder").replaceChildren(
    ...ranking.map((entry) =>
      el(
        "li",
        { class: `ladder-row${entry.provisional ? " provisional" : ""}`, dataset: { player: entry.player } },
        el("span", { class: "ladder-rank" }, String(entry.rank)),
        el("span", { class: "avatar", "aria-hidden": "true" }, initials(entry.name)),
        playerLink(entry, entry.name),
        el("span", { class: "ladder-games muted" }, t("rating.games", { n: entry.games })),
        el(
          "strong",
          { class: "ladder-rating", title: entry.provisional ? t("rating.provisional") : "" },
          ratingText(entry),
        ),
      ),
    ),
  );
}

async function load() {
  const { edition, players } = pool();
  try {
    board = await api(`/api/leaderboard?edition=${encodeURIComponent(edition)}&players=${players}`);
    $("#ladder-error").textContent = "";
  } catch (error) {
    $("#ladder-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
    board = null;
  }
  render();
}

async function main() {
  await startPage();
  onLanguageChange(render);
  editionList = await editions();
  $("#pool-edition").addEventListener("change", (event) => {
    const counts = editionList[event.target.value]?.players ?? [4];
    choose(event.target.value, counts.includes(pool().players) ? pool().players : counts.at(-1));
  });
  await load();
}

main();
