"""The table page's state (tablestate.js) in a real browser: made from the address, changed by the server's messages
through its table of handlers (each names what to draw again) and by named updates; an old state, an unknown
message type or a type named like an object's own property change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from support.server import ServerProcess
from support.web import open_player

pytestmark = pytest.mark.browser

# Runs in the page; returns what each step saw. ``saved`` is localStorage under "luz.".
SCENARIO = """async () => {
  localStorage.setItem("luz.seat.abc", JSON.stringify({ seat: 2, token: "mine" }));
  const s = await import("/static/js/tablestate.js");
  const seen = {};
  const state = s.createState({ pathname: "/t/abc", search: "?pace=0&tutorial=1", hash: "#seat=1&token=tok" });
  const { tableId, pace, tutorial, me, invite } = state;
  seen.made = { tableId, pace, tutorial, me, invite };
  seen.sameToken = s.createState({ pathname: "/t/abc", search: "", hash: "#seat=2&token=mine" }).invite;
  const table = { seats: [{ name: "Ana" }, { name: "Bo" }, { name: "Cy" }], game_no: 1 };
  seen.newer = s.apply(state, { type: "state", version: 3, table, view: null }, 1000);
  seen.older = s.apply(state, { type: "state", version: 2, table, view: null }, 1001);
  seen.queued = state.queue.map((m) => [m.version, m.received]);
  seen.before = s.showNext(state);
  seen.shown = [state.shown.version, state.queue.length, state.table === table];
  seen.name = [s.nameOf(state, 0), s.youOr(state, 2).includes("Cy")];
  const id = s.actionSent(state);
  seen.sent = [id, state.pending, state.holdUntil];
  seen.otherAck = s.apply(state, { type: "ack", id: 99 });
  seen.stillPending = state.pending;
  seen.ack = s.apply(state, { type: "ack", id });
  seen.afterAck = state.pending;
  s.nextRequest(state, { awaited: true });
  seen.stale = s.apply(state, { type: "error", id: state.pending, code: "stale", message: "old" });
  seen.afterError = state.pending;
  seen.notes = s.apply(state, { type: "notes", deal: 1, notes: { 0: "x" } });
  seen.notesKept = state.notes.notes[0];
  seen.unknown = s.apply(state, { type: "nonsense" });
  seen.ownProperty = [s.apply(state, { type: "constructor" }), s.apply(state, { type: "toString" })];
  s.holdSeat(state, 1, "tok");
  seen.held = [state.me, state.invite, JSON.parse(localStorage.getItem("luz.seat.abc"))];
  s.leaveSeat(state, { forget: true });
  seen.left = [state.me, localStorage.getItem("luz.seat.abc")];
  return seen;
}"""


def test_the_table_state_changes_only_through_its_handlers_and_named_updates(
    browser: Any, server: ServerProcess
) -> None:
    player = open_player(browser, f"{server.http}/offline")
    seen = player.page.evaluate(SCENARIO)
    assert seen["made"] == {
        "tableId": "abc",
        "pace": 0,
        "tutorial": True,
        "me": {"seat": 2, "token": "mine"},
        "invite": {"seat": 1, "token": "tok"},
    }
    assert seen["sameToken"] is None  # the link of the seat this browser holds already: no invitation
    assert seen["newer"] == ["pump"] and seen["older"] == []
    assert seen["queued"] == [[3, 1000]]
    assert seen["before"] is None and seen["shown"] == [3, 0, True]
    assert seen["name"] == ["Ana", True]
    assert seen["sent"] == [1, 1, 0]
    assert seen["otherAck"] == ["refusal", "controls"] and seen["stillPending"] == 1
    assert seen["ack"] == ["refusal", "controls"] and seen["afterAck"] is None
    assert seen["stale"] == ["refusal", "sync", "controls"] and seen["afterError"] is None
    assert seen["notes"] == ["controls"] and seen["notesKept"] == "x"
    assert seen["unknown"] == [] and seen["ownProperty"] == [[], []]
    assert seen["held"] == [{"seat": 1, "token": "tok"}, None, {"seat": 1, "token": "tok"}]
    assert seen["left"] == [None, None]
    assert not player.errors, player.errors
