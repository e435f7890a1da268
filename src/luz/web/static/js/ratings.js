// Ratings as the pages show them: "1534", or "1500?" while provisional (too few rated games yet).

import { el } from "./common.js";
import { language, t } from "./i18n.js";

/** A rating's text: its number, with "?" while provisional. */
export function ratingText(rating) {
  return `${rating.rating}${rating.provisional ? "?" : ""}`;
}

/** A rating change as a coloured "+12" / "−8" (nothing for an unrated game). */
export function ratingChange(change) {
  if (change === null || change === undefined) return el("span", { class: "muted" }, "–");
  const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  return el(
    "span",
    { class: `delta ${change > 0 ? "up" : change < 0 ? "down" : "even"}`, title: t("rating.change") },
    `${sign}${Math.abs(change)}`,
  );
}

/** A rating before and after a game: "1,500 → 1,512 (+12)" (the numbers in the page's language). */
export function ratingBeforeAfter(entry) {
  const number = new Intl.NumberFormat(language());
  return el(
    "span",
    { class: "rating-before-after" },
    t("fair.before_after", { before: number.format(entry.before), after: number.format(entry.after) }),
    " (",
    ratingChange(entry.change),
    ")",
  );
}

/** A small badge with a seat's rating, for the table. */
export function ratingBadge(rating) {
  return el("span", { class: "badge rating", title: t(rating.provisional ? "rating.provisional" : "rating.rating") }, ratingText(rating));
}
