// Motion as a consequence of the diff (as chessground does): before a view is drawn the boxes of its keyed
// elements are taken; after, an element whose key is new but whose origin was on screen flies from there, and a
// completed trick that left the table flies to its winner. Nothing waits on an animation: input is never held.

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
          node: node.cloneNode(true),
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
  if (!trick || trick.cards.some((card) => root.querySelector(`[data-key="${card.key}"]`))) return;
  const seat = root.querySelector(`.seat[data-seat="${trick.winner}"]`) || root.querySelector("#me:not([hidden])");
  if (!seat) return;
  const target = seat.getBoundingClientRect();
  for (const card of trick.cards) {
    const ghost = card.node;
    ghost.removeAttribute("data-key");
    ghost.querySelectorAll("[data-card]").forEach((face) => face.removeAttribute("data-card"));
    ghost.classList.add("ghost");
    ghost.setAttribute("aria-hidden", "true");
    Object.assign(ghost.style, {
      position: "fixed",
      left: `${target.left + target.width / 2 - card.box.width / 2}px`,
      top: `${target.top + target.height / 2 - card.box.height / 2}px`,
      width: `${card.box.width}px`,
      height: `${card.box.height}px`,
      margin: "0",
      transform: "none",
    });
    document.body.append(ghost);
    const flight = fly(ghost, card.box, ghost.getBoundingClientRect(), duration, { fade: true });
    if (flight) flight.finished.then(() => ghost.remove(), () => ghost.remove());
    else ghost.remove();
  }
}
