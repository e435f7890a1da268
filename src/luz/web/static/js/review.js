// The review of one seat's decisions in a finished game of a table, on its replay page (issue 27): a Review
// button for each seat, a busy state while the server computes it (POST, then GET about once a second), then the
// summary, each deal's figures, the evaluation strip (one mark a decision, coloured and marked "?!", "?", "??"
// as in chess), the options of the decision at the replay's step, and the previous and next mistakes. While it is
// computed, the deals reviewed so far are shown the same way, deal by deal as they come (the game's figures as "…").
// Every hand is public once the game is over, so anyone may ask for any seat's review.

import { cardFace } from "./board.js";
import { $, ApiError, api, el } from "./common.js";
import { language, t } from "./i18n.js";

const POLL_MS = 1000;
/** What a figure of the game shows while the review is still computed. */
const PENDING = "…";
/** The marks of the strip, by a decision's grade: a symbol (the text alternative to its colour). */
const SYMBOLS = { best: "✓", ok: "·", inaccuracy: "?!", mistake: "?", blunder: "??", forced: "–" };
/** The labels whose decisions open as puzzles (server/puzzles.py). */
const PUZZLES = ["mistake", "blunder"];

/** A decision's grade: its label, else ``forced``, ``best`` (best within the noise) or ``ok``. */
function gradeOf(decision) {
  if (decision.forced) return "forced";
  if (decision.label) return decision.label;
  return decision.best_within_noise ? "best" : "ok";
}

function number(value, digits = 1) {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** A number of points with its sign ("+3.5", "−2.0"). */
function signed(value) {
  return new Intl.NumberFormat(language(), {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
    signDisplay: "exceptZero",
  }).format(value);
}

function percent(share) {
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 }).format(share);
}

/** A bid's short form as on the score sheet ("2+": two tricks with the safety), from the engine's "bid:2+". */
function bidShort(action) {
  return action ? action.slice("bid:".length) : "–";
}

/** A bid in words ("bid 2 + safety"). */
function bidWords(action) {
  const argument = action.slice("bid:".length);
  return t(argument.endsWith("+") ? "bid.with_safety" : "bid.plain", { n: parseInt(argument, 10) });
}

/** A bid as a choice among bids ("2 + safety"). */
function bidChoice(action) {
  const argument = action.slice("bid:".length);
  const tricks = parseInt(argument, 10);
  return argument.endsWith("+") ? t("review.bid_safety", { n: tricks }) : String(tricks);
}

/**
 * Mount the review on the replay page of game ``gameNo`` of table ``tableId``. ``steps``: the replay's steps
 * (views with every hand face up); ``nameOf``: a seat's name as the replay shows it; ``goTo(step)``: move the
 * replay; ``initialSeat``: a seat whose review to show at once (the page's ``?review=S``). Returns ``onStep(step)`` (the
 * replay moved), ``redraw()`` (the language changed) and ``close()``.
 */
export function mountReview({ tableId, gameNo, players, edition, steps, nameOf, goTo, initialSeat = null }) {
  const state = { seat: null, status: "idle", review: null, error: "", step: 0, timer: null, asked: 0, progress: {} };
  const url = (seat) => `/api/tables/${encodeURIComponent(tableId)}/games/${gameNo}/review?seat=${seat}`;
  const section = $("#review");
  section.hidden = false;

  function stopPolling() {
    clearTimeout(state.timer);
    state.timer = null;
  }

  /** The review so far from a running status's ``deals``: their decisions and summaries, as the review has them. */
  function partial(deals) {
    if (!deals.length) return null;
    return { seat: state.seat, decisions: deals.flatMap((deal) => deal.decisions), deals: deals.map((deal) => deal.summary) };
  }

  /** Take the server's answer for ``seat`` (asked as request number ``asked``; a later ask wins). */
  function take(answer, asked) {
    if (asked !== state.asked) return;
    if (answer.status === "ready") {
      state.status = "ready";
      state.review = answer.review;
      draw();
      return;
    }
    const status = answer.status === "running" ? "running" : "queued";
    const deals = answer.deals ?? [];
    const more = deals.length !== (state.review?.deals.length ?? 0);
    const changed = more || status !== state.status;
    state.status = status;
    state.progress = { done: answer.done ?? 0, total: answer.total ?? 0, position: answer.position ?? null };
    if (more) state.review = partial(deals);
    // Redrawn only when a deal came: the marks and options shown stay as they are between two.
    if (changed) draw();
    else drawStatus();
    state.timer = setTimeout(() => poll(asked), POLL_MS);
  }

  function fail(error, asked) {
    if (asked !== state.asked) return;
    stopPolling();
    state.status = "error";
    if (!(error instanceof ApiError)) state.error = t("conn.failed");
    else if (error.status === 429) state.error = t("review.one_at_a_time");
    else if (error.status === 404) state.error = t("review.failed");
    else if (error.status === 409) state.error = t("review.in_play");
    else if (error.status === 503) state.error = t("review.unavailable");
    else state.error = t("review.error", { detail: error.message });
    draw();
  }

  async function poll(asked) {
    try {
      take(await api(url(state.seat)), asked);
    } catch (error) {
      fail(error, asked);
    }
  }

  async function ask(seat) {
    stopPolling();
    state.asked += 1;
    const asked = state.asked;
    Object.assign(state, { seat, status: "queued", review: null, error: "", progress: {} });
    draw();
    try {
      take(await api(url(seat), { method: "POST" }), asked);
    } catch (error) {
      fail(error, asked);
    }
  }

  /** The reviewed seat's decision shown at the replay's step: the one decided there, else the one just made. */
  function current() {
    const list = state.review?.decisions || [];
    return list.find((d) => d.step === state.step) || list.find((d) => d.step + 1 === state.step) || null;
  }

  /** Where a decision was, in words: "Deal 2: bid", "Deal 2, trick 3" (the seat plays one card a trick). */
  function whereText(decision) {
    if (decision.kind === "bid") return t("review.where_bid", { deal: decision.deal });
    const plays = state.review.decisions.filter((d) => d.deal === decision.deal && d.kind === "play");
    return t("review.where_card", { deal: decision.deal, n: plays.indexOf(decision) + 1 });
  }

  /** Move the replay to ``decision`` and bring its options into view: on a laptop with the board beside them
   * (the board's top at the window's), on a phone the options alone. */
  function jump(decision) {
    goTo(decision.step);
    const box = $("#review-options");
    const { top, bottom } = box.getBoundingClientRect();
    if (top >= 0 && bottom <= window.innerHeight) return;
    if (window.matchMedia("(min-width: 760px)").matches) $("#board").scrollIntoView({ block: "start" });
    if (box.getBoundingClientRect().bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
  }

  /** The nearest labelled decision before (``direction`` -1) or after (+1) the replay's step. */
  function mistake(direction) {
    const labelled = (state.review?.decisions || []).filter((d) => d.label);
    const here = current();
    const at = here ? here.step : state.step - 0.5;
    return direction > 0 ? labelled.find((d) => d.step > at) : labelled.findLast((d) => d.step < at);
  }

  function actionNode(decision, action, seat) {
    if (action.startsWith("bid:")) return el("span", { class: "review-bid", title: bidWords(action) }, bidChoice(action));
    const slot = parseInt(action.slice("play:".length), 10);
    const card = steps[decision.step]?.view?.hands?.[seat]?.[slot];
    return card?.card ? cardFace(edition, card) : el("span", {}, t("review.slot", { n: slot + 1 }));
  }

  function drawSeats() {
    const buttons = [...Array(players).keys()].map((seat) =>
      el(
        "button",
        {
          type: "button",
          class: "secondary small",
          "aria-pressed": String(state.seat === seat),
          dataset: { seat },
          on: { click: () => ask(seat) },
        },
        nameOf(seat),
      ),
    );
    $("#review-seats").replaceChildren(...buttons);
  }

  function drawStatus() {
    const busy = state.status === "queued" || state.status === "running";
    section.dataset.state = state.status;
    section.setAttribute("aria-busy", String(busy));
    // Once deals are shown, the progress is said under them, in the identity's place (progressLine): nothing above
    // them that would go when the review is whole.
    const status = $("#review-status");
    status.hidden = !busy || Boolean(state.review);
    status.replaceChildren();
    if (busy && !state.review) status.append(...progressLine());
    const inSummary = $("#review-account [data-figure='progress']");
    if (inSummary) inSummary.replaceChildren(...progressLine());
    $("#review-error").textContent = state.status === "error" ? state.error : "";
  }

  /** The spinner and the words of a review waiting or being computed. */
  function progressLine() {
    const waiting = state.progress.position ? "review.queued_position" : "review.queued"; // 1: the next to start
    const key = state.status === "running" ? "review.running" : waiting;
    const params = { name: nameOf(state.seat), ...state.progress };
    return [el("span", { class: "spinner", "aria-hidden": "true" }), t(key, params)];
  }

  /** The game's figures, then under the strip the labels' counts and the points' identity; while the review is
   * computed (no ``game`` yet), the same figures and counts with "…" in their place and the progress in the
   * identity's. Everything above the strip keeps its shape, so the strip never moves when the review is whole. */
  function drawSummary(review) {
    const game = review.game ?? null;
    const shown = (value) => (game ? value(game) : PENDING);
    const figure = (key, value, name) =>
      el("div", { class: "review-figure", dataset: { figure: name } }, el("dt", {}, t(key)), el("dd", {}, value));
    $("#review-summary").replaceChildren(
      el("h3", { class: "visually-hidden" }, t("review.of", { name: nameOf(review.seat) })),
      el(
        "dl",
        { class: "review-figures" },
        figure("review.points", shown((g) => String(g.points)), "points"),
        figure("review.expected_lost", shown((g) => number(g.expected_lost)), "expected-lost"),
        figure("review.best_share", shown((g) => percent(g.best_share)), "best-share"),
        figure("review.accuracy", shown((g) => (g.accuracy == null ? "–" : percent(g.accuracy / 100))), "accuracy"),
        figure("review.luck", shown((g) => (g.luck == null ? "–" : signed(g.luck))), "luck"),
        figure("review.decisions", shown((g) => String(g.decisions)), "decisions"),
      ),
    );
    $("#review-summary").setAttribute("aria-busy", String(!game));
    $("#review-counts").replaceChildren(
      ...["inaccuracy", "mistake", "blunder"].map((label) =>
        el(
          "li",
          { class: `review-count g-${label}`, dataset: { label } },
          el("span", { class: "review-sym", "aria-hidden": "true" }, SYMBOLS[label]),
          t(`review.count_${label}`, { n: shown((g) => g.labels[label]) }),
        ),
      ),
    );
    $("#review-account").replaceChildren(
      !game
        ? el("p", { class: "hint-text review-status", role: "status", dataset: { figure: "progress" } }, ...progressLine())
        : game.luck == null
          ? ""
          : el(
              "p",
              { class: "hint-text", dataset: { figure: "identity" } },
              t("review.identity", {
                points: String(game.points),
                start: number(game.start_value),
                lost: number(game.decision_loss),
                luck: signed(game.luck),
              }),
            ),
    );
  }

  function drawDeals(review) {
    const head = el(
      "tr",
      {},
      ...["review.deal", "review.bid", "review.could_bid", "review.deal_points", "review.lost", "review.luck", "review.best"].map(
        (key) => el("th", { scope: "col" }, t(key)),
      ),
    );
    const rows = review.deals.map((deal) => {
      const better = deal.could_bid && deal.could_bid !== deal.bid;
      return el(
        "tr",
        { dataset: { deal: deal.deal } },
        el("th", { scope: "row" }, String(deal.deal)),
        el("td", { title: deal.bid ? bidWords(deal.bid) : null }, bidShort(deal.bid)),
        el(
          "td",
          { title: deal.could_bid ? bidWords(deal.could_bid) : null, class: better ? "review-better" : null },
          bidShort(deal.could_bid),
        ),
        el("td", {}, deal.points > 0 ? `+${deal.points}` : String(deal.points)),
        el("td", {}, number(deal.decision_loss ?? deal.expected_lost)),
        el("td", {}, deal.luck == null ? "–" : signed(deal.luck)),
        el("td", {}, deal.decisions ? percent(deal.best_share) : "–"),
      );
    });
    $("#review-deals").replaceChildren(
      el(
        "div",
        { class: "scroll" },
        el(
          "table",
          { class: "sheet review-deals" },
          el("caption", { class: "visually-hidden" }, t("review.deals_caption", { name: nameOf(review.seat) })),
          el("thead", {}, head),
          el("tbody", {}, ...rows),
        ),
      ),
    );
  }

  function markLabel(decision) {
    const where = whereText(decision);
    const grade = gradeOf(decision);
    const what = decision.forced ? t("review.grade_forced") : t(`review.grade_${grade}`);
    const lost = decision.forced || grade === "best" ? "" : ` ${t("review.lost_short", { loss: number(decision.loss) })}`;
    return `${where}: ${what}.${lost}`;
  }

  function drawStrip(review) {
    const groups = new Map();
    for (const decision of review.decisions) {
      if (!groups.has(decision.deal)) groups.set(decision.deal, []);
      groups.get(decision.deal).push(decision);
    }
    const items = [...groups].map(([deal, list]) =>
      el(
        "li",
        { class: "review-deal-marks" },
        el("span", { class: "review-deal-label", "aria-hidden": "true", title: `${t("review.deal")} ${deal}` }, String(deal)),
        ...list.map((decision) => {
          const grade = gradeOf(decision);
          return el(
            "button",
            {
              type: "button",
              class: `review-mark g-${grade}`,
              "aria-label": markLabel(decision),
              title: markLabel(decision),
              dataset: { step: decision.step, grade, deal: decision.deal, index: decision.index },
              on: { click: () => jump(decision) },
            },
            SYMBOLS[grade],
          );
        }),
      ),
    );
    const focused = document.activeElement?.closest?.("#review-strip .review-mark")?.dataset.step;
    $("#review-strip").replaceChildren(...items);
    if (focused !== undefined) $(`#review-strip .review-mark[data-step='${focused}']`)?.focus();
    markCurrent();
  }

  /** Mark the strip's decision at the replay's step (in place: a mark clicked keeps its focus). */
  function markCurrent() {
    const here = current();
    for (const mark of document.querySelectorAll("#review-strip .review-mark")) {
      const at = here && Number(mark.dataset.step) === here.step;
      if (at) mark.setAttribute("aria-current", "step");
      else mark.removeAttribute("aria-current");
    }
    $("#review-prev").disabled = !mistake(-1);
    $("#review-next").disabled = !mistake(1);
  }

  function drawOptions(review) {
    const decision = current();
    const box = $("#review-options");
    if (!decision) {
      box.replaceChildren(el("p", { class: "hint-text" }, t("review.no_decision", { name: nameOf(review.seat) })));
      return;
    }
    const grade = gradeOf(decision);
    const seat = review.seat;
    const chance = decision.kind === "bid" ? "review.chance_made" : "review.chance_trick";
    const head = el(
      "tr",
      {},
      ...["review.option", "review.expected", chance, "review.loss"].map((key) => el("th", { scope: "col" }, t(key))),
    );
    const rows = decision.options.map((option) => {
      const chosen = option.action === decision.action;
      const best = option.action === decision.best;
      const tags = [
        chosen ? el("span", { class: "badge review-chosen" }, t("review.chosen")) : null,
        best ? el("span", { class: "badge review-best" }, t("review.best_tag")) : null,
      ];
      const known = option.points !== null && option.points !== undefined;
      return el(
        "tr",
        { class: [chosen ? "chosen" : "", best ? "best" : ""].join(" ").trim() || null, dataset: { action: option.action } },
        el("th", { scope: "row" }, el("span", { class: "review-option" }, actionNode(decision, option.action, seat), ...tags)),
        el("td", {}, known ? number(option.points) : "–"),
        el("td", {}, known && option.chance !== null ? percent(option.chance) : "–"),
        el(
          "td",
          { class: "review-loss" },
          known ? [number(option.loss), " ", el("span", { class: "review-se" }, `± ${number(option.se)}`)] : "–",
        ),
      );
    });
    const where = whereText(decision);
    const verdict = decision.forced
      ? t("review.forced")
      : t(`review.verdict_${grade}`, { loss: number(decision.loss), se: number(decision.se) });
    box.replaceChildren(
      el(
        "h3",
        { class: `review-decision g-${grade}`, dataset: { step: decision.step, grade } },
        el("span", { class: "review-sym", "aria-hidden": "true" }, SYMBOLS[grade]),
        ` ${where}`,
      ),
      el("p", { class: "review-verdict" }, verdict),
      // "" where nothing is shown: replaceChildren, unlike el, would write a null out as "null".
      decision.best !== decision.action
        ? el("p", { class: "review-best-line" }, t("review.best_was"), " ", actionNode(decision, decision.best, seat))
        : "",
      // A mistake or a blunder opens as a puzzle: the position as the seat saw it, to choose again.
      PUZZLES.includes(decision.label)
        ? el(
            "p",
            {},
            el(
              "a",
              {
                class: "button small review-retry",
                href: `/puzzle/${encodeURIComponent(tableId)}?game=${gameNo}&seat=${seat}&step=${decision.step}`,
              },
              t("review.retry"),
            ),
          )
        : "",
      el(
        "div",
        { class: "scroll review-options-scroll", tabindex: "0", role: "region", "aria-label": t("review.options_caption", { where }) },
        el(
          "table",
          { class: "sheet review-options", dataset: { step: decision.step } },
          el("caption", { class: "visually-hidden" }, t("review.options_caption", { where })),
          el("thead", {}, head),
          el("tbody", {}, ...rows),
        ),
      ),
    );
    // The chosen row in view inside the table's box (the best is its first row).
    const scroller = box.querySelector(".review-options-scroll");
    const chosen = scroller.querySelector("tr.chosen");
    const header = scroller.querySelector("thead").offsetHeight;
    if (chosen && chosen.offsetTop + chosen.offsetHeight > scroller.clientHeight) {
      scroller.scrollTop = chosen.offsetTop - header - chosen.offsetHeight;
    }
  }

  function draw() {
    drawSeats();
    drawStatus();
    const shown = state.status === "ready" || state.status === "running";
    const review = shown ? state.review : null;
    $("#review-result").hidden = !review;
    $("#review-explain").hidden = Boolean(review);
    if (!review) return;
    drawSummary(review);
    drawStrip(review);
    drawOptions(review);
    drawDeals(review);
  }

  $("#review-prev").addEventListener("click", () => {
    const decision = mistake(-1);
    if (decision) jump(decision);
  });
  $("#review-next").addEventListener("click", () => {
    const decision = mistake(1);
    if (decision) jump(decision);
  });
  draw();
  if (initialSeat !== null && initialSeat >= 0 && initialSeat < players) ask(initialSeat);

  return {
    onStep(step) {
      state.step = step;
      if (state.review) {
        markCurrent();
        drawOptions(state.review);
      }
    },
    redraw: draw,
    close() {
      stopPolling();
      state.asked += 1;
      section.hidden = true;
    },
  };
}
