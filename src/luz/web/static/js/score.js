// The score-keeper for a game played with the real box. The server scores (POST /api/score, the code behind
// `luz score`); this page keeps the entered deals (in the browser, so a reload loses nothing) and shows them.

import { outcomeText, renderRanking, renderSheet } from "./board.js";
import { $, ApiError, api, editions, el, fillEditionSelect, fillPlayersSelect, saved } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";

let editionList = {};
let game = saved.get("score"); // {document: {edition, players, first_player, deals}, names, report}

const nameOf = (seat) => game?.names?.[seat] || t("seat.default_name", { n: seat + 1 });

function keep() {
  saved.set("score", game);
}

/** The report of ``document``; a sheet the rules refuse rejects with its reason (asked with ``quiet``, so that a
 * refused deal is an answer, not an HTTP error in the browser's console). */
async function scored(document) {
  const report = await api("/api/score?quiet=true", { method: "POST", body: document });
  if (report.refused) throw new ApiError(422, report.refused);
  return report;
}

// -- setting up ---------------------------------------------------------------------------------------------

function fillEditions() {
  fillEditionSelect($("#edition"), editionList);
  fillPlayers();
}

function fillPlayers() {
  fillPlayersSelect($("#players"), editionList[$("#edition").value]);
  fillNames();
}

function fillNames() {
  const players = Number($("#players").value);
  const box = $("#names");
  const before = [...box.querySelectorAll("input")].map((input) => input.value);
  box.replaceChildren();
  for (let seat = 0; seat < players; seat += 1) {
    const input = el("input", { id: `name-${seat}`, maxlength: 40, value: before[seat] ?? "", autocomplete: "off" });
    input.placeholder = t("seat.default_name", { n: seat + 1 });
    box.append(el("div", { class: "field inline" }, el("label", { for: `name-${seat}` }, t("create.seat", { n: seat + 1 })), input));
  }
  const first = $("#first-player");
  first.replaceChildren(...[...Array(players).keys()].map((s) => el("option", { value: s })));
  nameFirstPlayers();
  for (const input of box.querySelectorAll("input")) input.addEventListener("input", nameFirstPlayers);
}

/** The first-player choices say the names typed so far ("Seat 2" until one is). */
function nameFirstPlayers() {
  const inputs = [...$("#names").querySelectorAll("input")];
  for (const option of $("#first-player").options) {
    const seat = Number(option.value);
    option.textContent = inputs[seat]?.value.trim() || t("create.seat", { n: seat + 1 });
  }
}

async function startGame(event) {
  event.preventDefault();
  const players = Number($("#players").value);
  const names = [...$("#names").querySelectorAll("input")].map((input, seat) => input.value.trim() || t("seat.default_name", { n: seat + 1 }));
  const folded = names.map((n) => n.toLocaleLowerCase());
  if (new Set(folded).size !== folded.length) {
    $("#setup-error").textContent = t("score.same_names");
    return;
  }
  const document = { edition: $("#edition").value, players, first_player: Number($("#first-player").value), deals: [] };
  try {
    game = { document, names, report: await scored(document) };
  } catch (error) {
    $("#setup-error").textContent = error instanceof ApiError ? t("score.refused", { detail: error.message }) : t("conn.failed");
    return;
  }
  saved.set("edition", document.edition);
  keep();
  draw();
  $("#entry-title").focus?.();
}

// -- entering deals -----------------------------------------------------------------------------------------

function numberSelect(id, high, label) {
  const select = el("select", { id, "aria-label": label });
  for (let n = 0; n <= high; n += 1) select.append(el("option", { value: n, text: String(n) }));
  return select;
}

function drawEntry() {
  const report = game.report;
  const over = report.winner !== undefined;
  $("#entry").hidden = over;
  if (over) return;
  const players = game.document.players;
  const first = report.next_first_player;
  const number = game.document.deals.length + 1;
  $("#entry-title").textContent = t("score.deal_title", { n: number, count: report.deal_count, name: nameOf(first) });
  $("#entry-note").hidden = !report.next_first_is_leader;
  $("#entry-note").textContent = t("score.leader_first", { name: nameOf(first) });
  const rows = $("#deal-rows");
  rows.replaceChildren(
    el(
      "div",
      { class: "entry muted", "aria-hidden": "true" },
      el("span", {}, t("score.player")),
      el("span", {}, t("score.bid")),
      el("span", {}, t("score.safety")),
      el("span", {}, t("score.tricks")),
    ),
  );
  for (let i = 0; i < players; i += 1) {
    const seat = (first + i) % players;
    const name = nameOf(seat);
    rows.append(
      el(
        "div",
        { class: "entry", dataset: { seat } },
        el("strong", {}, name),
        numberSelect(`bid-${seat}`, report.max_bid, t("score.bid_of", { name })),
        el("input", { type: "checkbox", id: `safety-${seat}`, "aria-label": t("score.safety_of", { name }) }),
        numberSelect(`tricks-${seat}`, report.tricks_per_deal, t("score.tricks_of", { name })),
      ),
    );
  }
  showTricksSum();
}

function showTricksSum() {
  const players = game.document.players;
  let sum = 0;
  for (let seat = 0; seat < players; seat += 1) sum += Number($(`#tricks-${seat}`)?.value || 0);
  $("#tricks-sum").textContent = t("score.tricks_sum", { n: sum, count: game.report.tricks_per_deal });
}

async function addDeal(event) {
  event.preventDefault();
  const players = [...Array(game.document.players).keys()];
  const deal = {
    bids: players.map((s) => Number($(`#bid-${s}`).value)),
    safety: players.map((s) => $(`#safety-${s}`).checked),
    tricks: players.map((s) => Number($(`#tricks-${s}`).value)),
  };
  const document = { ...game.document, deals: [...game.document.deals, deal] };
  try {
    game.report = await scored(document);
  } catch (error) {
    // Refused: the entered values stay in the form, to be corrected.
    $("#deal-error").textContent = error instanceof ApiError ? t("score.refused", { detail: error.message }) : t("conn.failed");
    return;
  }
  game.document = document;
  $("#deal-error").textContent = "";
  keep();
  draw();
}

async function undo() {
  const document = { ...game.document, deals: game.document.deals.slice(0, -1) };
  game.report = await scored(document);
  game.document = document;
  keep();
  draw();
}

function newGame() {
  if (game.report.winner === undefined && game.document.deals.length && !confirm(t("score.confirm_new"))) return;
  game = null;
  saved.remove("score");
  draw();
}

// -- the sheet ----------------------------------------------------------------------------------------------

function draw() {
  $("#setup").hidden = Boolean(game);
  $("#playing").hidden = !game;
  if (!game) return;
  const { document, report } = game;
  const edition = editionList[document.edition];
  $("#game-info").textContent = [edition?.name, t("table.players", { n: document.players })].join(" · ");
  drawEntry();
  const sheet = {
    players: document.players,
    totals: report.totals,
    results: document.deals.map((deal, i) => ({ ...deal, ...report.deals[i] })),
  };
  $("#score-sheet").replaceChildren(renderSheet(sheet, nameOf));
  $("#undo").disabled = !document.deals.length;
  const over = report.winner !== undefined;
  $("#result").hidden = !over;
  const lastScores = report.deals.at(-1)?.scores;
  if (over) {
    $("#result-text").textContent = outcomeText(report, lastScores, nameOf);
    $("#result-ranking").replaceChildren(renderRanking(report, nameOf));
    $("#standing").textContent = "";
  } else if (document.deals.length) {
    const leader = report.ranking[0];
    $("#standing").textContent = t("score.leader", { name: nameOf(leader), points: report.totals[leader] });
  } else {
    $("#standing").textContent = "";
  }
}

async function start() {
  await startPage();
  editionList = await editions();
  fillEditions();
  $("#edition").addEventListener("change", fillPlayers);
  $("#players").addEventListener("change", fillNames);
  $("#setup-form").addEventListener("submit", startGame);
  $("#deal-form").addEventListener("submit", addDeal);
  $("#deal-rows").addEventListener("change", showTricksSum);
  $("#undo").addEventListener("click", undo);
  $("#new-game").addEventListener("click", newGame);
  onLanguageChange(() => {
    fillNames();
    draw();
  });
  draw();
}

start();
