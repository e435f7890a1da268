// The tournaments' list and the form that creates one (accounts only): docs/TOURNAMENTS.md.

import { $, ApiError, api, editions, el, fillEditionSelect, identity } from "./common.js";
import { onLanguageChange, t } from "./i18n.js";
import { startPage } from "./site.js";
import { paceText } from "./tournament-text.js";

let list = [];

function render() {
  $("#tour-empty").hidden = list.length > 0;
  $("#tour-list").replaceChildren(
    ...list.map((tour) =>
      el(
        "li",
        { class: "tour-item panel" },
        el("a", { href: `/tournaments/${encodeURIComponent(tour.id)}` }, tour.name),
        el(
          "span",
          { class: "muted" },
          [
            t(`tour.status_${tour.status}`),
            t("tour.players_n", { n: tour.players }),
            t("tour.size_n", { n: tour.size }),
            t("tour.rounds_n", { n: tour.rounds }),
            paceText(tour.time_control),
          ].join(" · "),
        ),
      ),
    ),
  );
}

async function load() {
  try {
    list = await api("/api/tournaments");
    $("#tour-list-error").textContent = "";
  } catch (error) {
    $("#tour-list-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
  render();
}

async function create(event) {
  event.preventDefault();
  const starts = $("#tour-starts").value;
  const body = {
    name: $("#tour-name").value.trim(),
    edition: $("#tour-edition").value,
    players: Number($("#tour-size").value),
    rounds: Number($("#tour-rounds").value),
    time_control: $("#tour-pace").value,
    capacity: Number($("#tour-capacity").value),
    rated: $("#tour-rated").checked,
    starts_at: starts ? new Date(starts).toISOString() : null,
  };
  try {
    const made = await api("/api/tournaments", { method: "POST", body });
    location.href = `/tournaments/${encodeURIComponent(made.id)}`;
  } catch (error) {
    $("#tour-error").textContent = error instanceof ApiError ? error.message : t("conn.failed");
  }
}

async function main() {
  await startPage();
  onLanguageChange(render);
  fillEditionSelect($("#tour-edition"), await editions());
  const me = await identity().catch(() => null);
  const guest = !me || me.guest;
  $("#tour-account").hidden = !guest;
  $("#tour-form").hidden = guest;
  $("#tour-form").addEventListener("submit", create);
  await load();
}

main();
