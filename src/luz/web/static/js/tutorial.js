// The tutorial's guide: a few steps shown over the real table (a prepared deal against bots, played by the real
// engine and server). Each step appears when the view reaches its moment; the guide reads only the viewer's own
// view (colours of your cards, whose turn), never anything hidden.

import { $, el } from "./common.js";
import { t } from "./i18n.js";

const STEPS = [
  { key: "welcome", when: (view, me) => view.phase === "bid" && view.current_player === me, next: true },
  { key: "bid", when: (view, me) => view.phase === "bid" && view.current_player === me, until: (view, me) => view.bids[me] !== null },
  { key: "follow", when: (view, me) => view.phase === "play" && view.current_player === me && view.trick?.plays.length > 0, next: true },
  { key: "trump", when: (view) => view.phase === "play", next: true },
  { key: "watch", when: (view) => view.phase === "play", until: (view) => view.results.length > 0 },
  { key: "score", when: (view) => view.results.length > 0, next: true },
  { key: "done", when: () => true },
];

const guide = { step: 0, view: null, me: null };

function trumps(view, me, edition) {
  const trump = edition.colours.find((colour) => colour.trump);
  return view.hands[me].filter((slot) => !slot.played && slot.colour === trump?.letter).length;
}

function show() {
  const box = $("#coach");
  const { view, me } = guide;
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
  const text = t(`tutorial.${step.key}`, { trumps: guide.trumps, n: Math.max(1, guide.trumps) });
  const parts = [el("p", {}, el("strong", {}, t("tutorial.title")), " ", text)];
  if (step.next) {
    parts.push(
      el("button", {
        type: "button",
        class: "small",
        id: "coach-next",
        text: t("tutorial.next"),
        on: {
          click: () => {
            guide.step += 1;
            show();
          },
        },
      }),
    );
  }
  if (step.key === "done") {
    parts.push(el("a", { class: "button small secondary", href: "/how-to-play" }, t("help.button")));
  }
  box.replaceChildren(...parts);
}

/** Follow the table: call after each view drawn (``me``: the viewer's seat). */
export function coach(view, me, edition) {
  guide.view = view;
  guide.me = me;
  if (view && view.hands.length && guide.trumps === undefined) guide.trumps = trumps(view, me, edition);
  show();
}
