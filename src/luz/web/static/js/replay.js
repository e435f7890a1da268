// Replay of a finished game, step by step with every hand face up; the steps are computed by the server's
// engine (POST /api/replay), from the table's record or from a record file.

import {
  actionText,
  beadsText,
  cardFace,
  outcomeText,
  renderRanking,
  renderSeat,
  renderSheet,
  renderTrick,
  trickOnTable,
} from "./board.js";
import { chatLine } from "./chat.js";
import { $, ApiError, api, editions, el, seatName } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";
import { drawOtherScores, otherScores, playDeal } from "./deal.js";
import { mountReview } from "./review.js";
import { startPage } from "./site.js";

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const game = new URLSearchParams(location.search).get("game");
const reviewSeat = new URLSearchParams(location.search).get("review"); // a seat whose review opens at once

const replay = {
  steps: [],
  names: null,
  edition: null,
  step: 0,
  timer: null,
  table: null,
  notes: [],
  chat: null,
  review: null,
  players: 0,
  others: null,
};

/** The notes ``seat`` kept on its cards in ``deal`` ({slot: text}), shown in the replay once the game is over. */
function notesOf(deal, seat) {
  const mine = replay.notes.filter((note) => note.deal === deal && note.seat === seat);
  return mine.length ? Object.fromEntries(mine.map((note) => [note.slot, note.text])) : null;
}
let editionList = {};

/** A seat's name as the table shows it (bots as "Random 2") when the game was played here; else the record's
 * name, with the seat number where several seats share it. */
function nameOf(seat) {
  if (replay.table?.seats?.[seat]) return seatName(replay.table, seat);
  const name = replay.names?.[seat];
  if (!name) return t("seat.default_name", { n: seat + 1 });
  return replay.names.filter((other) => other === name).length > 1 ? t("seat.numbered", { name, n: seat + 1 }) : name;
}

function show(step) {
  if (!replay.steps.length) return;
  replay.step = Math.max(0, Math.min(replay.steps.length - 1, step));
  const { view, action, seat } = replay.steps[replay.step];
  const edition = replay.edition;
  $("#step").value = String(replay.step);
  $("#main").dataset.step = String(replay.step);
  $("#step-text").textContent = t("replay.step", { n: replay.step, count: replay.steps.length - 1 });
  $("#action-text").textContent = action
    ? `${actionText(edition, action, seat, view, nameOf)} · ${t("table.deal", { n: view.deal_number, count: view.deal_count })}`
    : t("replay.start");
  $("#seats").replaceChildren(
    ...[...Array(view.players).keys()].map((s) =>
      renderSeat(edition, view, s, nameOf(s), [], { notes: notesOf(view.deal_number, s) }),
    ),
  );
  const { trick, title, previousDeal } = trickOnTable(view, nameOf);
  $("#trick-title").textContent = title;
  $("#trick-cards").replaceChildren(renderTrick(edition, trick, nameOf, previousDeal));
  $("#beads").textContent = beadsText(view);
  $("#aside").replaceChildren(el("div", { class: "hand" }, ...(view.aside_cards || []).map((card) => cardFace(edition, card))));
  $("#sheet").replaceChildren(renderSheet(view, nameOf));
  $("#over").hidden = !view.outcome;
  if (view.outcome) {
    $("#over-text").textContent = outcomeText(view.outcome, view.results.at(-1)?.scores, nameOf);
    $("#ranking").replaceChildren(renderRanking(view.outcome, nameOf));
  }
  for (const id of ["first", "prev"]) $(`#${id}`).disabled = replay.step === 0;
  for (const id of ["next", "last"]) $(`#${id}`).disabled = replay.step === replay.steps.length - 1;
  replay.review?.onStep(replay.step);
}

function autoplay() {
  if (replay.timer) {
    clearInterval(replay.timer);
    replay.timer = null;
  } else {
    if (replay.step === replay.steps.length - 1) show(0);
    replay.timer = setInterval(() => {
      show(replay.step + 1);
      if (replay.step === replay.steps.length - 1) autoplay();
    }, 700);
  }
  $("#auto").textContent = t(replay.timer ? "replay.pause" : "replay.play");
}

/** Replay ``text``, a record's JSON text (sent as it is: see ``api``). */
async function load(text, downloadUrl, fileName) {
  $("#replay-error").textContent = "";
  replay.review?.close();
  replay.review = null;
  let record;
  try {
    record = JSON.parse(text);
    const answer = await api("/api/replay", { method: "POST", text });
    replay.steps = answer.steps;
    replay.names = answer.names;
    replay.edition = editionList[record.edition] || editionList[answer.steps[0].view.edition];
  } catch (error) {
    const detail = error instanceof SyntaxError ? t("replay.not_json") : error.message;
    $("#replay-error").textContent = t("replay.bad_record", { detail });
    return;
  }
  $("#step").max = String(replay.steps.length - 1);
  $("#board").hidden = false;
  const link = $("#download");
  link.hidden = false;
  link.href = downloadUrl;
  link.setAttribute("download", fileName);
  replay.players = record.players;
  drawInfo();
  show(0);
}

/** The edition and the number of players, in the page's language. */
function drawInfo() {
  if (replay.edition) $("#replay-info").textContent = [replay.edition.name, t("table.players", { n: replay.players })].join(" · ");
}

async function loadTable() {
  const suffix = game ? `?game=${encodeURIComponent(game)}` : "";
  const url = `/api/tables/${encodeURIComponent(tableId)}/record${suffix}`;
  try {
    replay.table = await api(`/api/tables/${encodeURIComponent(tableId)}`).catch(() => null);
    replay.notes = (await api(`/api/tables/${encodeURIComponent(tableId)}/notes${suffix}`).catch(() => null))?.notes || [];
    replay.chat = (await api(`/api/tables/${encodeURIComponent(tableId)}/chat${suffix}`).catch(() => null))?.messages ?? null;
    drawChat();
    const text = await api(url, { asText: true });
    await load(text, url, `luz-${tableId}-game-${game || "last"}.json`);
    if (replay.steps.length && replay.table) {
      startReview();
      await showDeal();
    }
  } catch (error) {
    $("#replay-error").textContent =
      error instanceof ApiError ? t("replay.unavailable", { detail: error.message }) : t("conn.failed");
  }
}

/** "This deal": play it again (with bots or friends) and the other tables' scores on it; a table's game only. */
async function showDeal() {
  const number = Number(game) || replay.table.game_no;
  for (const [id, friends] of [["#deal-bots", false], ["#deal-friends", true]]) {
    const button = $(id);
    const deal = { deal: { table: tableId, game: number } };
    button.onclick = () => playDeal(deal, replay.players, { friends, button, errorBox: $("#deal-error") });
  }
  replay.others = await otherScores(tableId, number);
  drawOtherScores($("#deal-others"), replay.others);
  $("#deal").hidden = false;
}

/** The review of a seat's decisions (review.js), for a table's finished game: not for a record file. */
function startReview() {
  replay.review = mountReview({
    tableId,
    gameNo: Number(game) || replay.table.game_no,
    players: replay.steps[0].view.players,
    edition: replay.edition,
    steps: replay.steps,
    nameOf,
    goTo: show,
    initialSeat: reviewSeat === null ? null : Number(reviewSeat),
  });
  replay.review.onStep(replay.step);
}

/** The game's chat, both channels (the spectators' marked as theirs), once it is over. */
function drawChat() {
  $("#replay-chat").hidden = replay.chat === null;
  if (replay.chat === null) return;
  const lines = replay.chat.map((message) => chatLine(message));
  if (!lines.length) lines.push(el("li", { class: "chat-empty" }, t("chat.replay_none")));
  $("#replay-chat-lines").replaceChildren(...lines);
}

async function loadFile(file) {
  const text = await file.text();
  await load(text, URL.createObjectURL(new Blob([text], { type: "application/json" })), file.name);
}

async function start() {
  await startPage();
  editionList = await editions();
  $("#first").addEventListener("click", () => show(0));
  $("#prev").addEventListener("click", () => show(replay.step - 1));
  $("#next").addEventListener("click", () => show(replay.step + 1));
  $("#last").addEventListener("click", () => show(replay.steps.length - 1));
  $("#auto").addEventListener("click", autoplay);
  $("#step").addEventListener("input", (event) => show(Number(event.target.value)));
  $("#record-file").addEventListener("change", (event) => event.target.files[0] && loadFile(event.target.files[0]));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, select, textarea")) return;
    if (event.key === "ArrowRight") show(replay.step + 1);
    else if (event.key === "ArrowLeft") show(replay.step - 1);
  });
  onLanguageChange(() => {
    show(replay.step);
    drawChat();
    drawInfo();
    if (replay.others) drawOtherScores($("#deal-others"), replay.others);
    replay.review?.redraw();
    $("#auto").textContent = t(replay.timer ? "replay.pause" : "replay.play");
  });
  if (tableId) await loadTable();
}

start();
