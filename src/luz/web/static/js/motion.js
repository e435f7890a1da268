// Motion as a consequence of the diff (as chessground does): before a view is drawn the boxes of its keyed
// elements are taken; after (render.js kept, moved, created and removed them by key), an element whose key is new
// but whose origin was on screen flies from there (FLIP: its first box, its last, a transform between), and the
// cards of a completed trick that the view removed fly to their winner: the very elements, no copies. Nothing
// waits on an animation: input is never held.

/** The box of every keyed element under ``root`` (hand slots by "seat:slot", trick cards by "deal:trick:seat"),
 * and the completed trick on the table (its cards and its winner). */
export function boxesOf(root) {
  const boxes = new Map();
  for (const node of root.querySelectorAll("[data-key]")) boxes.set(node.dataset.key, node.getBoundingClientRect());
  const area = root.querySelector("#trick-cards .trick-area[data-winner]");
  const trick = area
    ? {
        winner: area.dataset.winner,
        cards: [...area.querySelectorAll(".trick-play")].map((node) => ({
          key: node.dataset.key,
          node,
          box: node.getBoundingClientRect(),
        })),
      }
    : null;
  return { boxes, trick };
}

function fly(node, from, to, duration, { fade = false } = {}) {
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (!dx && !dy) return null;
  const frames = [
    { transform: `translate(${dx}px, ${dy}px)`, opacity: 1 },
    { transform: "none", opacity: fade ? 0 : 1 },
  ];
  return node.animate(frames, { duration, easing: "cubic-bezier(.2,.7,.3,1)" });
}

/** Animate what changed under ``root`` since ``before`` (from :func:`boxesOf`); ``duration`` 0: no motion. */
export function animateFrom(before, root, duration) {
  if (!duration || !root.getClientRects().length) return;
  for (const node of root.querySelectorAll("#trick-cards [data-key]")) {
    if (before.boxes.has(node.dataset.key)) continue;
    const origin = before.boxes.get(node.dataset.from);
    if (origin) fly(node, origin, node.getBoundingClientRect(), duration);
  }
  const trick = before.trick;
  if (!trick || trick.cards.some((card) => card.node.isConnected)) return;
  const seat = root.querySelector(`.seat[data-seat="${trick.winner}"]`) || root.querySelector("#me:not([hidden])");
  if (!seat) return;
  const target = seat.getBoundingClientRect();
  for (const card of trick.cards) {
    // The removed card itself, out of the table's flow and of its names (a leaving card is no longer shown).
    const leaving = card.node;
    leaving.removeAttribute("data-key");
    leaving.querySelectorAll("[data-card]").forEach((face) => face.removeAttribute("data-card"));
    leaving.classList.add("leaving");
    leaving.setAttribute("aria-hidden", "true");
    Object.assign(leaving.style, {
      position: "fixed",
      left: `${target.left + target.width / 2 - card.box.width / 2}px`,
      top: `${target.top + target.height / 2 - card.box.height / 2}px`,
      width: `${card.box.width}px`,
      height: `${card.box.height}px`,
      margin: "0",
      transform: "none",
    });
    document.body.append(leaving);
    const flight = fly(leaving, card.box, leaving.getBoundingClientRect(), duration, { fade: true });
    if (flight) flight.finished.then(() => leaving.remove(), () => leaving.remove());
    else leaving.remove();
  }
}
