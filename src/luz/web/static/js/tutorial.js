// The tutorial's guide: a few steps shown over the real table (a prepared deal against bots, played by the real
// engine and server). Each step appears when the view reaches its moment; the guide reads only the viewer's own
// view (colours of your cards, whose turn, the beads left as the table shows them) and the edition's data, never
// anything hidden.

import { $, el } from "./common.js";
import { beadsText } from "./board.js";
import { t } from "./i18n.js";

const myBid = (view, me) => view.phase === "bid" && view.current_player === me;
const bidPlaced = (view, me) => view.bids[me] !== null;
const myPlay = (view, me) => view.phase === "play" && view.current_player === me;

const STEPS = [
  { key: "welcome", when: myBid, until: bidPlaced, next: true },
  { key: "deck", when: myBid, until: bidPlaced, next: true, lesson: true },
  { key: "safety", when: myBid, until: bidPlaced, next: true },
  { key: "cap", when: (view, me) => myBid(view, me) && view.beads_left !== null, until: bidPlaced, next: true },
  { key: "bid", when: myBid, until: bidPlaced },
  { key: "lead", when: (view, me) => myPlay(view, me) && !view.trick?.plays.length, until: (view, me) => view.hands[me].some((s) => s.played) },
  { key: "follow", when: (view, me) => myPlay(view, me) && view.trick?.plays.length > 0, next: true },
  { key: "trump", when: (view) => view.phase === "play", next: true },
  { key: "watch", when: (view) => view.phase === "play", until: (view) => view.results.length > 0 },
  // The steps after the first deal wait while you bid: the bid buttons and the safety keep the first screen.
  { key: "score", when: (view, me) => view.results.length > 0 && !myBid(view, me), next: true },
  { key: "done", when: (view, me) => !myBid(view, me), lesson: true },
];

const guide = { step: 0, view: null, me: null, edition: null, collapsed: false };

function trumps(view, me, edition) {
  const trump = edition.colours.find((colour) => colour.trump);
  return view.hands[me].filter((slot) => !slot.played && slot.colour === trump?.letter).length;
}

/** The words' values: the trumps you hold, the deck of this edition by player count, the cap as the table shows it. */
function params(view, edition) {
  const range = (players) => ({ low: edition.value_names[players][0], high: edition.value_names[players].at(-1), players });
  const others = edition.players.filter((players) => players !== view.players).map((players) => t("tutorial.deck_other", range(players)));
  return {
    ...range(view.players),
    trumps: guide.trumps,
    n: Math.max(1, guide.trumps),
    colours: edition.colours.length,
    others: others.join(", "),
    hand: edition.hand_size,
    aside: edition.aside[view.players],
    cap: view.options.bid_cap,
    shown: beadsText(view),
  };
}

function button(id, text, onClick, secondary = false) {
  return el("button", { type: "button", class: `small${secondary ? " secondary" : ""}`, id, text, on: { click: onClick } });
}

function show() {
  const box = $("#coach");
  const { view, me, edition } = guide;
  if (!view) return;
  // Steps whose moment has passed are skipped; a step with ``until`` ends by itself.
  while (guide.step < STEPS.length - 1) {
    const step = STEPS[guide.step];
    if (step.until?.(view, me)) guide.step += 1;
    else break;
  }
  const step = STEPS[guide.step];
  box.hidden = !step.when(view, me);
  if (box.hidden) return;
  box.dataset.step = step.key;
  box.classList.toggle("collapsed", guide.collapsed);
  const toggle = el("button", {
    type: "button",
    class: "coach-toggle",
    id: "coach-toggle",
    "aria-expanded": String(!guide.collapsed),
    "aria-label": t(guide.collapsed ? "tutorial.expand" : "tutorial.collapse"),
    text: guide.collapsed ? "?" : "–",
    on: {
      click: () => {
        guide.collapsed = !guide.collapsed;
        show();
      },
    },
  });
  if (guide.collapsed) {
    box.replaceChildren(toggle, el("p", {}, el("strong", {}, t("tutorial.title"))));
    return;
  }
  const text = t(`tutorial.${step.key}`, params(view, edition));
  const actions = [];
  if (step.next) {
    actions.push(
      button("coach-next", t("tutorial.next"), () => {
        guide.step += 1;
        show();
      }),
    );
  }
  if (step.lesson) {
    const open = () => import("./lesson.js").then(({ openLessonDialog }) => openLessonDialog());
    actions.push(button("coach-lesson", t("lesson.open"), open, true));
  }
  if (step.key === "done") {
    actions.push(el("a", { class: "button small secondary", href: "/how-to-play" }, t("help.button")));
  }
  box.replaceChildren(toggle, el("p", {}, el("strong", {}, t("tutorial.title")), " ", text), el("div", { class: "coach-actions" }, ...actions));
}

/** Follow the table: call after each view drawn (``me``: the viewer's seat). */
export function coach(view, me, edition) {
  guide.view = view;
  guide.me = me;
  guide.edition = edition;
  if (view && view.hands.length && guide.trumps === undefined) guide.trumps = trumps(view, me, edition);
  show();
}
