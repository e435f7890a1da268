"""The table keeps what stayed (render.js): a view moves, updates, creates and removes only what changed, so
the hand's, the trick's and the other seats' card elements, and the focus on a hand card, survive the views of a
real game against bots (``?pace=0``). A MutationObserver counts the element nodes each view adds and removes."""

from __future__ import annotations

from typing import Any

import pytest

from support.server import ServerProcess
from support.web import move_once, next_move, open_player, seated_against_random_bots

pytestmark = pytest.mark.browser

# Installed once: after each drawn view (``#main``'s data-version changes first in draw(); the observer's callback
# runs once the whole draw is done) the identity of every hand and trick card element, by key, and the element
# nodes added and removed under #game since the view before (each added or removed subtree counted whole).
WATCH = """() => {
  const ids = new WeakMap();
  let next = 0;
  const idOf = (node) => { if (!ids.has(node)) ids.set(node, ++next); return ids.get(node); };
  const size = (node) => node.nodeType === 1 ? 1 + node.querySelectorAll('*').length : 0;
  const watch = { views: [], added: 0, removed: 0, blurs: 0 };
  window.__watch = watch;
  new MutationObserver((records) => {
    for (const r of records) {
      r.addedNodes.forEach((n) => { watch.added += size(n); });
      r.removedNodes.forEach((n) => { watch.removed += size(n); });
    }
  }).observe(document.querySelector('#game'), { childList: true, subtree: true });
  new MutationObserver(() => {
    const main = document.querySelector('#main');
    watch.views.push({
      version: Number(main.dataset.version),
      added: watch.added,
      removed: watch.removed,
      hand: [...document.querySelectorAll('#my-hand button.card')].map((b) => [b.dataset.slot, idOf(b)]),
      trick: [...document.querySelectorAll('#trick-cards .trick-play')].map((p) => [p.dataset.key, idOf(p)]),
      seats: [...document.querySelectorAll('#seats .seat')].map((s) => [s.dataset.key, idOf(s)]),
      others: [...document.querySelectorAll('#seats .card.back')].map((c) => [c.dataset.key, idOf(c)]),
      focused: document.activeElement?.matches?.('#my-hand button.card') ? idOf(document.activeElement) : null,
    });
    watch.added = 0;
    watch.removed = 0;
  }).observe(document.querySelector('#main'), { attributes: true, attributeFilter: ['data-version'] });
  document.querySelector('#my-hand').addEventListener('focusout', () => { watch.blurs += 1; });
}"""

VIEWS = "() => window.__watch.views"


def stable(views: list[dict[str, Any]], part: str) -> list[str]:
    """The keys of ``part`` ("hand", "trick", "seats" or "others") whose element was replaced between two views
    showing it."""
    seen: dict[str, int] = {}
    replaced = []
    for view in views:
        for key, node in view[part]:
            if seen.setdefault(key, node) != node:
                replaced.append(f"{key} in view {view['version']}")
                seen[key] = node
    return replaced


def test_views_keep_the_hand_the_trick_and_the_focus(browser: Any, server: ServerProcess) -> None:
    player = seated_against_random_bots(browser, server, "Render", "Ren")
    page = player.page
    assert next_move(player) == "bid"
    page.evaluate(WATCH)
    move_once(player, "bid")
    moves = 0
    while next_move(player) == "play" and moves < 6:
        move_once(player, "play")
        moves += 1
    views = page.evaluate(VIEWS)
    plays = [v for v in views if v["trick"] or v["hand"]]
    assert len(plays) >= 12, f"a game of several tricks was watched: {len(views)} views"
    added = [view["added"] for view in views[1:]]
    removed = [view["removed"] for view in views[1:]]
    print(f"\nnodes added per view: mean {sum(added) / len(added):.1f}, max {max(added)}, views {len(added)}")
    assert stable(views, "hand") == [], "a hand card that stayed kept its element"
    assert stable(views, "trick") == [], "a trick card that stayed kept its element"
    assert stable(views, "seats") == [], "a seat's panel kept its element"
    assert stable(views, "others") == [], "another seat's hidden card kept its element until played"
    # A view adds the card played (its face in the trick, its gap in the hand), the turn badges and the texts
    # that changed: a few dozen nodes at most, where rebuilding every section added 150 or more.
    assert max(added) <= 60, added
    assert sum(added) / len(added) <= 30, added
    assert max(removed) <= 60, removed

    # Notes mode enables every unplayed card whoever's turn it is: the focus stays on one while the bots play.
    assert next_move(player) == "play"
    page.evaluate("window.__watch.views = []")
    before = int(page.evaluate("document.querySelector('#main').dataset.version"))
    # One evaluation plays a card, turns notes on and focuses another card: no view comes in between.
    page.evaluate(
        """() => {
          const played = document.querySelector('#my-hand button.card:not(:disabled):not([aria-pressed])');
          played.click();
          document.querySelector('#note-mode').click();
          // Another card than the one played (it may have been the only legal one): that one is replaced.
          const others = [...document.querySelectorAll('#my-hand button.card:not(:disabled):not([aria-pressed])')];
          others.filter((card) => card.dataset.slot !== played.dataset.slot).at(-1).focus();
          window.__watch.blurs = 0;
        }"""
    )
    page.wait_for_function(
        f"Number(document.querySelector('#main').dataset.version) > {before}"
        " && document.querySelector('#status').classList.contains('mine')"
    )
    views = page.evaluate(VIEWS)
    focused = {view["focused"] for view in views}
    assert views and len(focused) == 1 and None not in focused, views
    assert page.evaluate("window.__watch.blurs") == 0, "the focused card was never replaced"
    assert not player.errors, player.errors


def test_the_bid_buttons_are_kept_and_updated_in_place(browser: Any, server: ServerProcess) -> None:
    """Ticking the safety redraws the bid buttons: each button (keyed by its count) and the focus on one stay,
    their labels change to the bids with the safety."""
    player = seated_against_random_bots(browser, server, "Bids", "Bea")
    page = player.page
    assert next_move(player) == "bid"
    page.evaluate(
        """() => {
          window.__buttons = [...document.querySelectorAll('#bid-buttons button')];
          window.__buttons[1].focus();
        }"""
    )
    labels = page.eval_on_selector_all("#bid-buttons button", "bs => bs.map(b => b.getAttribute('aria-label'))")
    # The safety ticked and unticked and ticked again from the keyboard's point of view: the focus stays put.
    page.evaluate(
        """() => {
          const safety = document.querySelector('#safety');
          for (const on of [true, false, true]) {
            safety.checked = on;
            safety.dispatchEvent(new Event('change'));
          }
        }"""
    )
    kept = page.evaluate(
        """() => {
          const now = [...document.querySelectorAll('#bid-buttons button')];
          return {
            same: now.length === window.__buttons.length && now.every((b, i) => b === window.__buttons[i]),
            focused: document.activeElement === window.__buttons[1],
            labels: now.map((b) => b.getAttribute('aria-label')),
          };
        }"""
    )
    assert kept["same"] and kept["focused"], kept
    assert kept["labels"] != labels and "safety" in kept["labels"][1] and "safety" not in labels[1], (labels, kept)
    assert not player.errors, player.errors


def test_a_child_that_left_moves_none_of_those_after_it(browser: Any, server: ServerProcess) -> None:
    """render.reconcile on a list whose first child left: the others are neither removed nor inserted again (a
    moved node loses its focus), and a real reorder still comes out in order."""
    player = open_player(browser, f"{server.http}/how-to-play")
    result = player.page.evaluate(
        """async () => {
          const { reconcile, steadyAll } = await import('/static/js/render.js');
          const draw = (list, nodes) => reconcile(list, steadyAll(nodes));
          const item = (key) => {
            const node = document.createElement('button');
            node.textContent = key;
            node.dataset.key = key;
            return node;
          };
          const list = document.createElement('div');
          document.body.append(list);
          draw(list, ['a', 'b', 'c', 'd'].map(item));
          const [, b, c, d] = list.children;
          d.focus();
          let mutations = 0;
          const count = (records) => {
            for (const r of records) mutations += r.removedNodes.length + r.addedNodes.length;
          };
          new MutationObserver(count).observe(list, { childList: true });
          draw(list, ['b', 'c', 'd'].map(item));
          await Promise.resolve();
          const kept = list.children[0] === b && list.children[1] === c && list.children[2] === d;
          const focused = document.activeElement === d;
          draw(list, ['d', 'b', 'e'].map(item));
          const order = [...list.children].map((n) => n.dataset.key);
          return { kept, focused, mutations, order, same: list.children[0] === d };
        }"""
    )
    assert result["kept"] and result["focused"], result
    assert result["mutations"] == 1, "only the child that left was removed"
    assert result["order"] == ["d", "b", "e"] and result["same"], result
