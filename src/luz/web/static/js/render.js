// The table's DOM reconciled by key, as chessground's render.ts reconciles its board: an element whose key stayed
// is kept and updated in place, one whose place changed is moved, a new key's is created, a gone key's removed.
// So focus, listeners and card elements survive a view, and motion animates the real elements (motion.js).
//
// Keys are the elements' data-key (a hand card "seat:slot", a trick card "deal:trick:seat", a seat panel
// "seat:N", a sheet row "deal:N"): positions and seats, never a hidden value. A child without one is known by
// its tag and its rank among its unkeyed siblings of that tag.

/** Each node's key among ``nodes`` (siblings), as the reconciling matches them. */
function keysOf(nodes) {
  const ranks = new Map();
  return nodes.map((node) => {
    const key = node.dataset?.key;
    if (key !== undefined) return key;
    const rank = ranks.get(node.nodeName) ?? 0;
    ranks.set(node.nodeName, rank + 1);
    return `#${node.nodeName}:${rank}`;
  });
}

/**
 * Make ``container``'s children the ``items``, in order: ``{key, build(), update(node)}``. A child whose key is
 * an item's is kept and given to ``update`` (which returns it, or the node to put in its place), moved only if
 * out of order; an item without such a child is built; the children left are removed.
 */
export function reconcile(container, items) {
  const children = [...container.childNodes];
  const wanted = new Set(items.map((item) => item.key));
  const byKey = new Map();
  // The gone children leave first: then a kept child after one that left is already in its place, not moved
  // (moving a node takes its focus away).
  keysOf(children).forEach((key, index) => {
    if (wanted.has(key) && !byKey.has(key)) byKey.set(key, children[index]);
    else children[index].remove();
  });
  let cursor = container.firstChild;
  for (const { key, build, update } of items) {
    const kept = byKey.get(key);
    byKey.delete(key);
    let node = kept;
    if (!kept) node = build();
    else if ((node = update(kept)) !== kept) {
      kept.replaceWith(node); // in its place: the children after it do not move
      if (cursor === kept) cursor = node;
    }
    if (node === cursor) cursor = cursor.nextSibling;
    else container.insertBefore(node, cursor);
  }
  while (cursor) {
    const next = cursor.nextSibling;
    cursor.remove();
    cursor = next;
  }
}

function syncAttributes(node, fresh) {
  for (const name of node.getAttributeNames()) if (!fresh.hasAttribute(name)) node.removeAttribute(name);
  for (const name of fresh.getAttributeNames()) {
    const value = fresh.getAttribute(name);
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }
}

/** ``node`` made like ``fresh`` (a newly drawn version of it) where they differ; ``fresh`` itself when their kinds
 * differ (the caller puts it in place). The kept node keeps its listeners: they must not depend on the view. */
export function patch(node, fresh) {
  if (node.nodeName !== fresh.nodeName) return fresh;
  if (node.nodeType !== Node.ELEMENT_NODE) {
    if (node.nodeValue !== fresh.nodeValue) node.nodeValue = fresh.nodeValue;
    return node;
  }
  syncAttributes(node, fresh);
  morphChildren(node, [...fresh.childNodes]);
  return node;
}

/** ``container``'s children made like ``nodes`` (newly drawn), keeping each child whose key stayed. */
export function morphChildren(container, nodes) {
  const keys = keysOf(nodes);
  reconcile(
    container,
    nodes.map((fresh, index) => ({ key: keys[index], build: () => fresh, update: (node) => patch(node, fresh) })),
  );
}

/** ``container``'s content made like ``replaceChildren(...nodes)`` would, keeping what stayed. */
export function morph(container, ...nodes) {
  const given = nodes.flat().filter((node) => node !== null && node !== undefined);
  morphChildren(
    container,
    given.map((node) => (typeof node === "string" ? document.createTextNode(node) : node)),
  );
}
