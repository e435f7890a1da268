// Translations: en.json, fr.json and ja.json, a language switch that is remembered, the page's lang attribute kept right.

const LANGUAGES = { en: "English", fr: "Français", ja: "日本語" };
const KEY = "luz.lang";
let strings = {};
let fallback = {};
let current = "en";
const listeners = [];

async function load(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`);
  return response.json();
}

function chosenLanguage() {
  const params = new URLSearchParams(location.search);
  const asked = params.get("lang");
  if (asked in LANGUAGES) return asked;
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    saved = null;
  }
  if (saved in LANGUAGES) return saved;
  return browserLanguage();
}

/** The first of the browser's preferred languages that the site speaks ("fr-CA" chooses fr, "ja-JP" ja), else en. */
function browserLanguage() {
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

/** ``{n|pli|plis}``: the first form when ``n`` is singular in the current language (French: 0 and 1), else the second. */
const PLURAL = /\{(\w+)\|([^|{}]*)\|([^|{}]*)\}/g;
const plurals = {}; // each language's Intl.PluralRules, made once

/**
 * The text of ``key`` in the current language, with ``{name}`` placeholders filled from ``params`` and the
 * plural choices ``{name|one|other}`` made by the number ``params[name]`` (Intl.PluralRules).
 */
export function t(key, params = {}) {
  const text = strings[key] ?? fallback[key] ?? key;
  return text
    .replace(PLURAL, (whole, name, one, other) => {
      if (!(name in params)) return whole;
      plurals[current] ??= new Intl.PluralRules(current);
      return plurals[current].select(Number(params[name])) === "one" ? one : other;
    })
    .replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * ``t(key, params)`` as strings and a node: its placeholder ``{name}`` filled by ``node``, an element that stays
 * whole where the text wraps (a figure and its unit: "83 %" never split across two lines).
 */
export function tWith(key, params, name, node) {
  const mark = "\u{E000}"; // a private-use character: in no translation
  return t(key, { ...params, [name]: mark })
    .split(mark)
    .flatMap((text, i) => (i ? [node, text] : [text]));
}

export function language() {
  return current;
}

const DATE_STYLES = {
  date: { dateStyle: "medium" },
  datetime: { dateStyle: "medium", timeStyle: "short" },
  day: { dateStyle: "medium", timeZone: "UTC" },
};
const dateFormats = {}; // each locale and style's Intl.DateTimeFormat, made once

/** The locale of dates: the browser's own variant of the page's language if it has one ("en-GB"), else the language. */
function dateLocale() {
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language || current];
  return preferred.find((tag) => tag.toLowerCase().split("-")[0] === current) ?? current;
}

/**
 * A date written for the page's language (Intl.DateTimeFormat): ``when`` a Date, milliseconds or an ISO text;
 * ``style`` "date" (its day where the browser is), "datetime" (and its time) or "day" (a calendar day such as
 * the daily deal's "2026-12-06", the same day everywhere).
 */
export function formatDate(when, style = "date") {
  const locale = dateLocale();
  dateFormats[`${locale} ${style}`] ??= new Intl.DateTimeFormat(locale, DATE_STYLES[style]);
  return dateFormats[`${locale} ${style}`].format(new Date(when));
}

/** Fill the static texts of ``root``: data-i18n (text), data-i18n-label (aria-label), data-i18n-placeholder. */
export function translate(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.dataset.i18nPlaceholder));
  }
  const title = document.querySelector("title[data-i18n]");
  if (title) document.title = `${t(title.dataset.i18n)} · LUZ`;
}

/** Call ``listener`` after every change of language (pages re-render what they built). */
export function onLanguageChange(listener) {
  listeners.push(listener);
}

export async function setLanguage(lang) {
  if (!(lang in LANGUAGES)) return;
  strings = await load(lang);
  current = lang;
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    // private browsing: the choice lasts for this page only
  }
  document.documentElement.lang = lang;
  translate();
  for (const button of document.querySelectorAll(".lang button")) {
    button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  }
  for (const listener of listeners) listener(lang);
}

export async function startI18n() {
  fallback = await load("en");
  await setLanguage(chosenLanguage());
}

/** The language switch: one button per language, the current one pressed. */
export function languageSwitch() {
  const group = document.createElement("div");
  group.className = "lang";
  group.setAttribute("role", "group");
  group.dataset.i18nLabel = "nav.language";
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.lang = code;
    button.lang = code;
    button.textContent = code.toUpperCase();
    button.title = name;
    button.setAttribute("aria-label", name);
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => setLanguage(code));
    group.append(button);
  }
  return group;
}
