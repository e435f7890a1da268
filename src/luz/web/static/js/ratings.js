// Ratings as the pages show them: "1,534", or "1,500?" while provisional (too few rated games yet), the numbers
// as the page's language writes them.

import { el } from "./common.js";
import { language, t } from "./i18n.js";

/** A rating's text: its number, with "?" while provisional. */
export function ratingText(rating) {
  return numberText(rating.rating, rating.provisional);
}

function numberText(value, provisional) {
  return `${new Intl.NumberFormat(language()).format(value)}${provisional ? "?" : ""}`;
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

/** A rating before and after a game: "1,500 → 1,512? (+12)" (provisional after it: "?"). */
export function ratingBeforeAfter(entry) {
  return el(
    "span",
    { class: "rating-before-after", title: entry.provisional ? t("rating.provisional") : "" },
    t("fair.before_after", { before: numberText(entry.before, false), after: numberText(entry.after, entry.provisional) }),
    " (",
    ratingChange(entry.change),
    ")",
  );
}

/** A small badge with a seat's rating, for the table. */
export function ratingBadge(rating) {
  return el("span", { class: "badge rating", title: t(rating.provisional ? "rating.provisional" : "rating.rating") }, ratingText(rating));
}
