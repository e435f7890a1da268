// Retry your mistake (issue 35): a decision the review labelled a mistake or a blunder, shown as the reviewed
// seat saw it (its own values hidden), to choose again. The page is never told the options' values before it
// answers: the server checks the answer (POST .../puzzles/{step}/answer) and only then tells how it compares with
// the best and what the best was worth.

import { beadsText, renderHand, renderSeat, renderSheet, renderTrick, trickOnTable } from "./board.js";
import { $, ApiError, api, editions, el, seatName } from "./common.js";
import { language, onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const params = new URLSearchParams(location.search);
const game = Number(params.get("game") || 1);
const seat = Number(params.get("seat") || 0);
const base = `/api/tables/${encodeURIComponent(tableId)}/games/${game}/puzzles`;
const page = { puzzles: [], puzzle: null, table: null, edition: null, result: null, busy: false };

function nameOf(s) {
  const name = page.table?.seats?.[s] ? seatName(page.table, s) : t("seat.default_name", { n: s + 1 });
  return s === seat ? t("seat.you", { name }) : name;
}

function number(value) {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

function percent(share) {
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 }).format(share);
}

/** An action in words: "bid 2 + safety", "the card in position 3". */
function actionWords(action) {
  const argument = action.split(":")[1];
  if (action.startsWith("bid:")) return t(argument.endsWith("+") ? "bid.with_safety" : "bid.plain", { n: parseInt(argument, 10) });
  return t("puzzle.card", { n: parseInt(argument, 10) + 1 });
}

/** Where the puzzle is: "Deal 2: the bid", "Deal 2, trick 3". */
function whereText(puzzle) {
  const view = puzzle.view;
  if (puzzle.kind === "bid") return t("review.where_bid", { deal: puzzle.deal });
  return t("review.where_card", { deal: puzzle.deal, n: view.tricks_won.reduce((a, b) => a + b, 0) + 1 });
}

function drawBoard() {
  const { view } = page.puzzle;
  const edition = page.edition;
  $("#seats").replaceChildren(...[...Array(view.players).keys()].map((s) => renderSeat(edition, view, s, nameOf(s))));
  const { trick, title, previousDeal } = trickOnTable(view, nameOf);
  $("#trick-title").textContent = title;
  $("#trick-cards").replaceChildren(renderTrick(edition, trick, nameOf, previousDeal));
  $("#beads").textContent = beadsText(view);
  $("#sheet").replaceChildren(renderSheet(view, nameOf));
}

function drawChoices() {
  const puzzle = page.puzzle;
  const answered = Boolean(page.result);
  $("#puzzle-question").textContent = t(puzzle.kind === "bid" ? "puzzle.ask_bid" : "puzzle.ask_card");
  const box = $("#puzzle-choices");
  if (puzzle.kind === "bid") {
    box.replaceChildren(
      ...puzzle.choices.map((action) => {
        const argument = action.slice("bid:".length);
        const text = argument.endsWith("+") ? t("review.bid_safety", { n: parseInt(argument, 10) }) : argument;
        const chosen = page.result?.action === action;
        return el(
          "button",
          {
            type: "button",
            class: chosen ? "" : "secondary",
            title: actionWords(action),
            "aria-label": actionWords(action),
            "aria-pressed": String(chosen),
            disabled: answered || page.busy,
            dataset: { action },
            on: { click: () => choose(action) },
          },
          text,
        );
      }),
    );
    return;
  }
  const legal = new Set(answered || page.busy ? [] : puzzle.choices.map((action) => parseInt(action.slice("play:".length), 10)));
  box.replaceChildren(renderHand(page.edition, puzzle.view.hands[seat], { mine: true, legal, onPlay: (slot) => choose(`play:${slot}`) }));
}

function optionLine(key, option) {
  const chance = page.puzzle.kind === "bid" ? "puzzle.chance_made" : "puzzle.chance_trick";
  return el(
    "p",
    { dataset: { option: key, action: option.action } },
    t(`puzzle.${key}`, { action: actionWords(option.action), points: number(option.points) }),
    " ",
    el("span", { class: "muted" }, t(chance, { chance: percent(option.chance) })),
  );
}

function drawResult() {
  const box = $("#puzzle-result");
  const result = page.result;
  if (!result) {
    box.replaceChildren();
    delete box.dataset.verdict;
    return;
  }
  box.dataset.verdict = result.within_noise ? "good" : "bad";
  const verdict = result.within_noise
    ? t(result.action === result.best.action ? "puzzle.verdict_best" : "puzzle.verdict_noise", { loss: number(result.chosen.loss), se: number(result.chosen.se) })
    : t(`puzzle.verdict_${result.label || "worse"}`, { loss: number(result.chosen.loss), se: number(result.chosen.se) });
  const yours = [result.best.action, result.played.action].includes(result.action) ? [] : [optionLine("yours", result.chosen)];
  box.replaceChildren(
    el("p", { class: "puzzle-verdict" }, verdict),
    optionLine("best", result.best),
    ...yours,
    optionLine("played", result.played),
  );
}

function drawLinks() {
  const at = page.puzzles.indexOf(page.puzzle);
  const next = page.puzzles[at + 1];
  $("#puzzle-next").hidden = !next;
  if (next) $("#puzzle-next").href = `/puzzle/${encodeURIComponent(tableId)}?game=${game}&seat=${seat}&step=${next.step}`;
  $("#puzzle-review").href = `/replay/${encodeURIComponent(tableId)}?game=${game}&review=${seat}`;
}

function draw() {
  if (!page.puzzle) return;
  const edition = page.edition;
  $("#puzzle-where").textContent = [
    whereText(page.puzzle),
    t("puzzle.count", { n: page.puzzles.indexOf(page.puzzle) + 1, count: page.puzzles.length }),
    edition?.name,
  ].filter(Boolean).join(" · ");
  drawBoard();
  drawChoices();
  drawResult();
  drawLinks();
}

async function choose(action) {
  if (page.busy || page.result) return;
  page.busy = true;
  $("#main").dataset.state = "answering";
  drawChoices();
  try {
    page.result = await api(`${base}/${page.puzzle.step}/answer?seat=${seat}`, { method: "POST", body: { action } });
    $("#puzzle-error").textContent = "";
    $("#main").dataset.state = "answered";
  } catch (error) {
    if (!(error instanceof ApiError)) $("#puzzle-error").textContent = t("conn.failed");
    else $("#puzzle-error").textContent = error.status === 429 ? t("puzzle.too_many") : error.message;
    $("#main").dataset.state = "ready";
  }
  page.busy = false;
  draw();
}

async function main() {
  await startPage();
  onLanguageChange(draw);
  try {
    const [answer, editionList, table] = await Promise.all([
      api(`${base}?seat=${seat}`),
      editions(),
      api(`/api/tables/${encodeURIComponent(tableId)}`).catch(() => null),
    ]);
    page.puzzles = answer.puzzles;
    page.table = table;
    const step = params.get("step");
    page.puzzle = page.puzzles.find((p) => String(p.step) === step) || page.puzzles[0] || null;
    page.edition = page.puzzle ? editionList[page.puzzle.view.edition] : null;
  } catch (error) {
    $("#puzzle-error").textContent = error instanceof ApiError && error.status === 404 ? t("puzzle.not_reviewed") : error instanceof ApiError ? error.message : t("conn.failed");
    $("#main").dataset.state = "error";
    return;
  }
  if (!page.puzzle) {
    $("#puzzle-error").textContent = t("puzzle.none");
    $("#main").dataset.state = "error";
    return;
  }
  $("#puzzle").hidden = false;
  $("#main").dataset.state = "ready";
  draw();
}

main();
