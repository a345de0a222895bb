// Interface text in English and Bahasa Indonesia, and the display settings (localStorage).
//
// The i18n files (/i18n/en.json, /i18n/id.json) have sections:
//   ui      page text of the front end
//   key     the snake_case keys the server's views send (facts, scores, summary lines, results, phases, roles)
//   action  action names the envs use (STAND, BEG, accept_chant, ...); patterns like CALL_{n}
//   card    rank/suit/trump names for card labels
//   game    game names and one-line descriptions
// An unknown view key falls back to the key with "_" replaced by " ".

const STORE = "cardzoo.settings";
const DEFAULTS = { lang: "en", contrast: "normal", size: "M", theme: "felt", grain: "on", warmth: "neutral", speed: "normal", auto: "on" };
export const CHOICES = {
  lang: ["en", "id"],
  contrast: ["normal", "high"],
  size: ["S", "M", "L"],
  theme: ["felt", "dark", "light"],
  grain: ["on", "off"],
  warmth: ["neutral", "warm", "cool"],
  speed: ["slow", "normal", "fast", "instant"],
  auto: ["on", "off"],
};
// milliseconds for one card to travel and for a completed trick to stay on the table, per speed
export const PACE = {
  slow: { move: 900, trick: 1800 },
  normal: { move: 450, trick: 1100 },
  fast: { move: 180, trick: 450 },
  instant: { move: 0, trick: 0 },
};

let dict = {};
let fallbackDict = {};

export function loadSettings() {
  let s = {};
  try {
    s = JSON.parse(localStorage.getItem(STORE) || "{}") || {};
  } catch (e) {
    s = {};
  }
  const out = { ...DEFAULTS };
  for (const k of Object.keys(CHOICES)) if (CHOICES[k].includes(s[k])) out[k] = s[k];
  return out;
}

export function saveSettings(s) {
  localStorage.setItem(STORE, JSON.stringify(s));
}

export function applySettings(s) {
  const root = document.documentElement;
  root.lang = s.lang;
  root.dataset.theme = s.theme;
  root.dataset.contrast = s.contrast;
  root.dataset.size = s.size;
  root.dataset.grain = s.grain;
  root.dataset.warmth = s.warmth;
  root.dataset.speed = s.speed;
}

async function fetchJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(url + ": HTTP " + r.status);
  return r.json();
}

export async function loadLanguage(lang) {
  fallbackDict = await fetchJson("/i18n/en.json");
  dict = lang === "en" ? fallbackDict : await fetchJson("/i18n/" + lang + ".json");
}

export function humanize(key) {
  return String(key).replace(/_/g, " ");
}

/** Translate `key` of `section`; fallback: English, then `fallback`, then the key humanized. */
export function t(section, key, fallback) {
  const d = dict[section] || {};
  if (Object.prototype.hasOwnProperty.call(d, key)) return d[key];
  const f = fallbackDict[section] || {};
  if (Object.prototype.hasOwnProperty.call(f, key)) return f[key];
  if (fallback !== undefined) return fallback;
  return humanize(key);
}

/** UI text with {placeholders} filled from `vars`. */
export function ui(key, vars) {
  let s = t("ui", key);
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  return s;
}

/** Does the current dictionary know `key` in `section`? */
export function has(section, key) {
  return Object.prototype.hasOwnProperty.call(dict[section] || {}, key) ||
    Object.prototype.hasOwnProperty.call(fallbackDict[section] || {}, key);
}

/** Fill every element with data-i18n="key" (text) and data-i18n-aria="key" (aria-label). */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = ui(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", ui(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = ui(el.dataset.i18nTitle);
}
