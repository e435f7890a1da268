// The deduction lesson: a prepared position (GET /api/tutorial/lesson, never a live game) drawn with the table's
// card components, a question about one of your hidden cards, feedback, then that card's exact probabilities.
// The verdicts and probabilities are the server's (the engine's beliefs): nothing here computes a rule.

import { api, colourName, colourOf, editions, el } from "./common.js";
import { renderHand } from "./board.js";
import { t } from "./i18n.js";

let lessonPromise = null;

function lesson() {
  lessonPromise ??= Promise.all([api("/api/tutorial/lesson"), editions()]);
  return lessonPromise;
}

/** A probability as a fraction and a percentage ("3/4 · 75%"). */
function oddsLabel(value) {
  return t("lesson.odds", { fraction: `${value.numerator}/${value.denominator}`, percent: Math.round(value.probability * 100) });
}

/** Values as a list: "2, 4, 5, 7", or with ``or`` before the last one ("6 or 8"). */
function listOf(values, or = false) {
  if (!or || values.length < 2) return values.join(", ");
  return `${values.slice(0, -1).join(", ")}${t("common.or")}${values.at(-1)}`;
}

function seatName(seat) {
  return t(`lesson.name_${seat}`);
}

function drawPosition(edition, data) {
  const seen = data.view;
  const others = seen.hands
    .map((hand, seat) => ({ hand, seat }))
    .filter(({ seat }) => seat !== seen.seat)
    .map(({ hand, seat }) =>
      el("div", { class: "lesson-seat" }, el("span", { class: "lesson-name" }, seatName(seat)), renderHand(edition, hand)),
    );
  const mine = renderHand(edition, seen.hands[seen.seat], { mine: true });
  mine.querySelector(`[data-slot="${data.question.slot}"]`)?.classList.add("asked");
  return el(
    "div",
    { class: "lesson-position" },
    ...others,
    el("div", { class: "lesson-seat mine" }, el("span", { class: "lesson-name" }, t("lesson.you")), mine),
  );
}

function drawOdds(edition, data, colour) {
  const asked = data.marginals.find((m) => m.slot === data.question.slot);
  return el(
    "ul",
    { class: "lesson-odds plain", "aria-label": t("lesson.odds_title") },
    ...asked.values.map((value) =>
      el(
        "li",
        { dataset: { value: value.value, numerator: value.numerator, denominator: value.denominator } },
        el("span", { class: `lesson-value c-${colour.name}` }, `${colour.symbol} ${value.name}`),
        el("span", { class: "lesson-bar", "aria-hidden": "true" }, el("span", { style: `width: ${value.probability * 100}%` })),
        el("span", { class: "lesson-share" }, oddsLabel(value)),
      ),
    ),
  );
}

function feedback(data, candidate, colour) {
  const asked = data.marginals.find((m) => m.slot === data.question.slot).values;
  const names = (verdicts, or = false) => listOf(data.candidates.filter((c) => verdicts.includes(c.verdict)).map((c) => c.name), or);
  const params = {
    value: candidate.name,
    colour: colourName(colour),
    holder: candidate.holder === null ? "" : seatName(candidate.holder),
    seen: names(["seen"]),
    unseen: names(["order", "possible", "likeliest"]),
    possible: names(["possible", "likeliest"], true),
    odds: oddsLabel(asked.find((v) => v.value === candidate.value) ?? { numerator: 0, denominator: 1, probability: 0 }),
  };
  return [t(`lesson.verdict_${candidate.verdict}`, params), t("lesson.why", params)];
}

/** Draw the lesson into ``box``; ``onAnswer`` is told of each answer. */
export async function renderLesson(box, { onAnswer = null } = {}) {
  const [data, byKey] = await lesson();
  const edition = byKey[data.view.edition];
  const colour = colourOf(edition, data.question.colour);
  const result = el("div", { class: "lesson-result", role: "status" });
  const buttons = data.candidates.map((candidate) =>
    el("button", {
      type: "button",
      class: "secondary small",
      "aria-pressed": "false",
      "aria-label": t("card.face", { colour: colourName(colour), symbol: colour.symbol, value: candidate.name }),
      dataset: { value: candidate.value, verdict: candidate.verdict },
      text: candidate.name,
      on: {
        click: (event) => {
          for (const button of buttons) button.setAttribute("aria-pressed", String(button === event.currentTarget));
          const [verdict, why] = feedback(data, candidate, colour);
          result.dataset.verdict = candidate.verdict;
          result.replaceChildren(
            el("p", { class: `lesson-verdict ${candidate.verdict}` }, verdict),
            el("p", {}, why),
            el("p", { class: "lesson-odds-title" }, t("lesson.odds_title")),
            drawOdds(edition, data, colour),
            el("p", { class: "muted" }, t("lesson.worlds", { n: data.worlds.toLocaleString() })),
          );
          onAnswer?.(candidate);
        },
      },
    }),
  );
  const position = data.question.slot + 1;
  const names = edition.value_names[data.view.players];
  box.replaceChildren(
    el("p", {}, t("lesson.intro", { players: data.view.players, low: names[0], high: names.at(-1) })),
    drawPosition(edition, data),
    el("p", { class: "lesson-question", id: "lesson-question" }, t("lesson.question", { n: position, colour: colourName(colour) })),
    el("div", { class: "lesson-answers", role: "group", "aria-labelledby": "lesson-question" }, ...buttons),
    result,
  );
}

/** The lesson in a dialog over the page (the tutorial's table), removed once closed: the table's page then holds
 * no card but its game's. */
export function openLessonDialog() {
  const body = el("div", { class: "lesson", id: "lesson-body" });
  const dialog = el(
    "dialog",
    { id: "lesson-dialog", class: "lesson-dialog", "aria-labelledby": "lesson-title" },
    el(
      "div",
      { class: "help-bar" },
      el("h2", { id: "lesson-title" }, t("lesson.title")),
      el("button", { type: "button", class: "secondary small", id: "lesson-close", text: t("help.close"), on: { click: () => dialog.close() } }),
    ),
    body,
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  renderLesson(body);
}
