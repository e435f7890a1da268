// A finished game's deal shared: "Play this deal" (a new unlisted table dealt the same cards, with bots or
// friends) and the other finished games on that deal ("Other scores"), for the replay page and the game over.

import { $, ApiError, api, botName, el, saved } from "./common.js";
import { formatDate, t } from "./i18n.js";

/**
 * Make an unlisted table on ``deal`` (``{deal: {table, game}}``, a finished game's, whose seed the server looks
 * up, or ``{deal_set}``), sit at its first seat and open it: the other seats bots (the level Play now uses) or, for
 * ``friends``, open seats whose invitations the table shows. The refusal in ``errorBox`` when the server refused.
 */
export async function playDeal(deal, players, { friends, button, errorBox }) {
  const bot = saved.get("quick", {})?.bot || "heuristic";
  const others = Array.from({ length: players - 1 }, () => (friends ? { kind: "human" } : { kind: "bot", bot }));
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  errorBox.textContent = "";
  try {
    const body = { ...deal, public: false, seats: [{ kind: "human" }, ...others] };
    const answer = await api("/api/tables", { method: "POST", body });
    const id = answer.table.id;
    saved.set(`invites.${id}`, answer.invites);
    const mine = answer.invites[0];
    const joined = await api(`/api/tables/${encodeURIComponent(id)}/seats/${mine.seat}/join`, {
      method: "POST",
      body: { token: mine.token },
    });
    saved.set(`seat.${id}`, { seat: joined.seat, token: joined.token });
    location.href = `/t/${encodeURIComponent(id)}`;
  } catch (error) {
    errorBox.textContent = error instanceof ApiError ? t("create.refused", { detail: error.message }) : t("conn.failed");
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** The other finished games on the deal of game ``game`` of ``tableId`` (``[]`` when none or unreachable). */
export async function otherScores(tableId, game) {
  const suffix = game ? `?game=${encodeURIComponent(game)}` : "";
  const answer = await api(`/api/tables/${encodeURIComponent(tableId)}/deal${suffix}`).catch(() => null);
  return answer?.others ?? [];
}

/** A seat of another game: its player's name, or its bot's level and seat as at the table ("Random 2"). */
function seatLabel(seat) {
  return seat.kind === "bot" ? t("seat.bot_name", { bot: botName(seat.name), n: seat.seat + 1 }) : seat.name;
}

/** One other game: its date (linked to its replay when shown), then each seat's name and points, the winner first. */
function otherGame(other) {
  const seats = [...other.players].sort((a, b) => a.rank - b.rank);
  const people = seats.map((seat) =>
    el("li", {}, `${seatLabel(seat)} `, el("strong", {}, String(seat.points))),
  );
  const when = formatDate(other.finished_at);
  return el(
    "li",
    { class: "other-game", dataset: { table: other.table ?? "" } },
    other.replay ? el("a", { href: other.replay, title: t("deal.replay_of", { date: when }) }, when) : el("span", {}, when),
    el("ol", { class: "plain other-seats" }, ...people),
  );
}

/** ``box`` (a list) filled with ``others``, or a line (``none``) saying no other table has played the deal yet. */
export function drawOtherScores(box, others, none = "deal.none") {
  const items = others.map(otherGame);
  if (!items.length) items.push(el("li", { class: "muted" }, t(none)));
  box.replaceChildren(...items);
}

/**
 * The game-over panel's "Other scores", fetched once per game (the server lists none while the game runs): shown
 * when another table played the deal, or, at a table made to share it (``shared``), saying none has yet.
 */
export async function showOtherScores(tableId, game, section, shared) {
  if (section.dataset.game === String(game)) return;
  section.dataset.game = String(game);
  section.hidden = true;
  const others = await otherScores(tableId, game);
  drawOtherScores($(".other-scores-list", section), others);
  section.hidden = !others.length && !shared;
}
