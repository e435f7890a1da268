// The table's DOM reconciled by key, as chessground's render.ts reconciles its board: an element whose key stayed
// is kept and updated in place, one whose place changed is moved, a new key's is created, a gone key's removed.
// So focus, listeners and card elements survive a view, and motion animates the real elements (motion.js).
//
// Keys are the elements' data-key (a hand card "seat:slot", a trick card "deal:trick:seat", a seat panel
// "seat:N", a sheet row "deal:N"): positions and seats, never a hidden value. A child without one is known by
// its tag and class and its rank among its unkeyed siblings of that tag and class.

/** Each node's key among ``nodes`` (siblings), as the reconciling matches them. */
function keysOf(nodes) {
  const ranks = new Map();
  return nodes.map((node) => {
    const key = node.dataset?.key;
    if (key !== undefined) return key;
    // Its class too: a badge that leaves does not shift the keys of the others (turn, first, bid...).
    const kind = `${node.nodeName}.${node.getAttribute?.("class") ?? ""}`;
    const rank = ranks.get(kind) ?? 0;
    ranks.set(kind, rank + 1);
    return `#${kind}:${rank}`;
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

/** ``node``'s attributes made ``attributes`` where they differ (null, undefined or false: absent; true: present,
 * empty); ``node`` returned. */
export function setAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) {
      if (node.hasAttribute(name)) node.removeAttribute(name);
    } else {
      const text = value === true ? "" : String(value);
      if (node.getAttribute(name) !== text) node.setAttribute(name, text);
    }
  }
  return node;
}

/** ``node``'s text made ``text`` if it differs (a kept text node stays); ``node`` returned. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
  return node;
}

/** An item for :func:`reconcile` of a node drawn anew each time, one with nothing to keep but itself (a badge, a
 * line of text): the kept node stays while it equals ``fresh``, else ``fresh`` takes its place. */
export function steady(key, fresh) {
  return { key, build: () => fresh, update: (node) => (node.isEqualNode(fresh) ? node : fresh) };
}

/** Items for :func:`reconcile` of ``nodes`` drawn anew, null ones left out: each keyed by its data-key, else by
 * its tag, class and rank among its unkeyed siblings of that tag and class (a string is a text node). */
export function steadyAll(...nodes) {
  const given = nodes
    .flat()
    .filter((node) => node !== null && node !== undefined)
    .map((node) => (typeof node === "string" ? document.createTextNode(node) : node));
  const keys = keysOf(given);
  return given.map((node, index) => steady(keys[index], node));
}

/** Items for :func:`reconcile` of ``nodes`` drawn anew, keyed as :func:`steadyAll`'s, one level deeper: a kept
 * element stays (a list, a scrolled box) with its attributes made the fresh one's and its children steady. */
export function keptAll(...nodes) {
  return steadyAll(...nodes).map(({ key, build }) => {
    const fresh = build();
    const update = (node) => {
      if (node.nodeName !== fresh.nodeName || node.nodeType !== Node.ELEMENT_NODE) return node.isEqualNode(fresh) ? node : fresh;
      for (const name of node.getAttributeNames()) if (!fresh.hasAttribute(name)) node.removeAttribute(name);
      setAttributes(node, Object.fromEntries(fresh.getAttributeNames().map((name) => [name, fresh.getAttribute(name)])));
      reconcile(node, steadyAll(...fresh.childNodes));
      return node;
    };
    return { key, build, update };
  });
}
