// Texts shared by the tournaments' pages.

import { t } from "./i18n.js";

/** A tournament's pace: a clock (minutes + seconds a move) or turn-based days per move. */
export function paceText(control) {
  if (control.days_per_move) return t("tour.pace_days", { n: control.days_per_move });
  return t("tour.pace_clock", { m: control.reserve_ms / 60000, s: control.increment_ms / 1000 });
}
