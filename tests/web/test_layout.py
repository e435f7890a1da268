"""The seated table at a phone's and a laptop's size: whole games against bots by clicking, for 3, 4 and 5
players, with what each of your turns needs inside the first screen, measured from the element boxes.
"""

from __future__ import annotations

from typing import Any

import pytest

from support.server import ServerProcess
from support.web import check_hidden, create_table, move_once, next_move, open_player, record_of, shoot

pytestmark = pytest.mark.browser

SIZES = {"phone": {"width": 375, "height": 667}, "laptop": {"width": 1280, "height": 800}}

BOXES = """(kind) => {
  const page = (e) => { const r = e.getBoundingClientRect();
    return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left + scrollX, right: r.right + scrollX,
            width: r.width, height: r.height}; };
  const all = (s) => [...document.querySelectorAll(s)].filter(e => e.getClientRects().length).map(page);
  const needed = { hand: all('#my-hand .card'), status: all('#status.mine') };
  if (kind === 'bid') {
    needed.bids = all('#bid-buttons button');
    needed.safety = all('#safety').concat(all('label.safety-choice'));
  } else {
    needed.trick = all('#trick-cards .trick-area').concat(all('#trick-cards .trick-play'));
  }
  const lead = document.querySelector('#trick-cards .trick-play');
  return { needed, width: innerWidth, height: innerHeight,
           sideways: document.documentElement.scrollWidth - innerWidth,
           safetyTicked: document.querySelector('#safety').checked,
           deal: document.querySelector('#table-info').textContent,
           placed: [...document.querySelectorAll('#trick-cards .trick-play')].map(e => [...e.classList]),
           ledMarked: lead === null || lead.classList.contains('led') };
}"""


OTHER_HANDS = """() => [...document.querySelectorAll('#seats .seat .hand .card')].map((card) => {
  let box = card.getBoundingClientRect();
  if (box.top < 0 || box.bottom > innerHeight) {
    card.scrollIntoView({block: 'nearest'});
    box = card.getBoundingClientRect();
  }
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {seat: card.closest('.seat').dataset.seat, covered: !(hit && card.contains(hit)),
          by: hit ? `${hit.tagName}#${hit.id}.${hit.className}` : null};
})"""

LEGIBLE = """() => ({
  digits: [...document.querySelectorAll('#seats .card .val')].map(e => parseFloat(getComputedStyle(e).fontSize)),
  names: [...document.querySelectorAll('#seats .seat-name')].map(e => ({text: e.textContent,
    cut: e.scrollWidth > e.clientWidth + 0.5})),
})"""

# Controls that lie in a fixed, sticky or absolute layer, and the controls of the page their boxes overlap.
FLOATING_OVER = """() => {
  const layerOf = (e) => { for (let n = e; n && n !== document.body; n = n.parentElement) {
    if (['fixed', 'sticky', 'absolute'].includes(getComputedStyle(n).position)) return n; } return null; };
  const controls = [...document.querySelectorAll(
    'button, input, select, textarea, a.button, label, #sheet td, #sheet th')].filter((e) => {
      const box = e.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== 'hidden'; });
  const name = (e) => `${e.tagName}#${e.id}.${e.className}:${e.textContent.trim().slice(0, 20)}`;
  const overlaps = [];
  for (const a of controls) {
    const layer = layerOf(a);
    if (!layer) continue;
    const ra = a.getBoundingClientRect();
    for (const b of controls) {
      if (layer.contains(b) || a.contains(b) || b.contains(a)) continue;
      const rb = b.getBoundingClientRect();
      if (ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5 && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5)
        overlaps.push(`${name(a)} over ${name(b)}`);
    }
  }
  return overlaps;
}"""


def check_nothing_covered(player: Any, others: bool) -> None:
    """No floating control covers another control; ``others``: each other player's cards are in sight (the centre
    of each is the card itself, not a summary over it)."""
    overlaps = player.page.evaluate(FLOATING_OVER)
    assert not overlaps, overlaps
    if others:
        cards = player.page.evaluate(OTHER_HANDS)
        assert cards, "the other hands are on the felt"
        covered = [card for card in cards if card["covered"]]
        assert not covered, f"other players' cards covered: {covered[:3]}"


def check_first_screen(player: Any, kind: str) -> dict[str, Any]:
    """Everything this turn needs lies inside the first screen (no scrolling), the hand on one row."""
    seen: dict[str, Any] = player.page.evaluate(BOXES, kind)
    width, height = seen["width"], seen["height"]
    for part, boxes in seen["needed"].items():
        assert boxes, f"{part} not shown on a {kind} turn"
        for box in boxes:
            assert box["top"] >= 0 and box["bottom"] <= height + 0.5, f"{part} outside the first screen: {box}"
            assert box["left"] >= 0 and box["right"] <= width + 0.5, f"{part} cut at the side: {box}"
    # One row: a wrapped card would sit a card's height lower (a raised, focused card moves a few pixels only).
    tops = [box["top"] for box in seen["needed"]["hand"]]
    lowest = min(box["height"] for box in seen["needed"]["hand"])
    assert max(tops) - min(tops) < lowest / 2, f"the hand wraps: card tops {sorted(tops)}"
    assert seen["sideways"] <= 0, "no sideways scrolling"
    assert seen["ledMarked"]
    return seen


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_a_whole_game_fits_each_turn(browser: Any, server: ServerProcess, players: int, size: str) -> None:
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)
    table_id, tokens = create_table(server, edition="iello-2024", players=players, seats=seats, name="Layout")
    player = open_player(browser, f"{server.http}/t/{table_id}?pace=0#seat=0&token={tokens[0]}", SIZES[size])
    page = player.page
    page.wait_for_selector("#join:not([hidden])")
    page.fill("#join-name", "Ana")
    page.click("#join-button")
    turns = {"bid": 0, "play": 0}
    while (kind := next_move(player)) != "over":
        try:
            seen = check_first_screen(player, kind)
        except AssertionError:
            shoot(player, f"failed-{size}-{players}", full_page=False)
            raise
        check_nothing_covered(player, others=kind == "bid" and turns["bid"] > 0)
        if turns == {"bid": 0, "play": 0}:
            legible = page.evaluate(LEGIBLE)
            assert legible["digits"] and min(legible["digits"]) >= 14, f"others' digits: {legible['digits']}"
            assert not any(name["cut"] for name in legible["names"]), legible["names"]
        assert page.inner_text("#me-badges .badge.turn") == ("to bid" if kind == "bid" else "to play")
        if kind == "bid":
            assert not seen["safetyTicked"], "the safety starts unticked in each deal"
            if turns["bid"] == 1 and page.locator("#summary").is_visible():
                shoot(player, f"{size}-{players}-summary", full_page=False)
                # Closed, the summary stays reachable while the deal is bid.
                page.click("#summary-close")
                page.wait_for_selector("#summary-open:not([hidden])")
                check_nothing_covered(player, others=True)
                shoot(player, f"{size}-{players}-last-deal", full_page=False)
                page.click("#summary-open")
                page.wait_for_selector("#summary:not([hidden])")
            if turns["bid"] == 2:
                shoot(player, f"{size}-{players}-bidding", full_page=False)
            # Tick the safety in every deal: the next deal must show it unticked again.
            page.check("#safety")
            page.locator("#bid-buttons button:not(:disabled)").first.click()
        else:
            if turns["play"] == 12:
                shoot(player, f"{size}-{players}-playing", full_page=False)
            for classes in seen["placed"]:
                assert any(c.startswith("pos-") for c in classes), "each trick card lies in front of its player"
            move_once(player, kind)
        turns[kind] += 1
    record = record_of(server, table_id)
    deals = len(record["deals"])
    assert turns["bid"] == deals and turns["play"] == 10 * deals
    assert page.locator("#ranking li").count() == players
    clipped = page.evaluate(
        "(() => { const s = document.querySelector('#sheet .scroll'); return s.scrollWidth - s.clientWidth; })()"
    )
    assert clipped <= 0, "the score sheet's columns all fit, on a phone too"
    check_nothing_covered(player, others=False)
    shoot(player, f"{size}-{players}-game-over", full_page=False)
    assert check_hidden(player, server, table_id, seat=0) > 0
    assert not player.errors, player.errors
