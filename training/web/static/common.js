// Shared by the three pages: the header (title, navigation, language and display settings)
// and a small JSON API client.

import { CHOICES, applySettings, loadLanguage, loadSettings, saveSettings, translatePage, ui } from "./i18n.js";

export let settings = loadSettings();

/** The current settings (kept up to date when the person changes one). */
export function currentSettings() {
  return settings;
}

/** JSON request; throws Error(detail) with the server's {"detail": ...} message on a 4xx/5xx.
 *  `body`: a value sent as JSON, or a string already written as JSON text (sent as it is). */
export async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  if (r.status === 204) return null;
  let data = null;
  try {
    data = await r.json();
  } catch (e) {
    data = null;
  }
  if (!r.ok) {
    let detail = data && data.detail !== undefined ? data.detail : "HTTP " + r.status;
    if (typeof detail !== "string") detail = JSON.stringify(detail);
    const err = new Error(detail);
    err.status = r.status;
    throw err;
  }
  return data;
}

function select(id, labelKey, values, current, labelOf) {
  const wrap = document.createElement("label");
  wrap.className = "setting";
  const span = document.createElement("span");
  span.dataset.i18n = labelKey;
  const sel = document.createElement("select");
  sel.id = id;
  for (const v of values) {
    const o = document.createElement("option");
    o.value = v;
    o.dataset.i18n = labelOf(v);
    sel.append(o);
  }
  sel.value = current;
  wrap.append(span, sel);
  return [wrap, sel];
}

/**
 * Build the header into <header id="top">, load the language, apply settings.
 * `rerender` is called after a language change (and must redraw dynamic text).
 */
export async function initPage(rerender, extraNav) {
  applySettings(settings);
  await loadLanguage(settings.lang);
  const header = document.getElementById("top");
  header.innerHTML = "";
  const home = document.createElement("a");
  home.href = "/";
  home.className = "brand";
  home.id = "home-link";
  home.dataset.i18n = "app_title";
  const nav = document.createElement("nav");
  nav.setAttribute("aria-label", "navigation");
  nav.append(home);
  if (extraNav) for (const a of extraNav) nav.append(a);
  const controls = document.createElement("div");
  controls.className = "settings";
  controls.setAttribute("role", "group");
  controls.dataset.i18nAria = "settings";
  const [langW, langS] = select("set-lang", "language", CHOICES.lang, settings.lang, (v) => "lang_" + v);
  const [themeW, themeS] = select("set-theme", "theme", CHOICES.theme, settings.theme, (v) => "theme_" + v);
  const [conW, conS] = select("set-contrast", "contrast", CHOICES.contrast, settings.contrast, (v) => "contrast_" + v);
  const [sizeW, sizeS] = select("set-size", "card_size", CHOICES.size, settings.size, (v) => "size_" + v);
  const [grainW, grainS] = select("set-grain", "grain", CHOICES.grain, settings.grain, (v) => "grain_" + v);
  const [warmW, warmS] = select("set-warmth", "warmth", CHOICES.warmth, settings.warmth, (v) => "warmth_" + v);
  const [speedW, speedS] = select("set-speed", "speed", CHOICES.speed, settings.speed, (v) => "speed_" + v);
  const [autoW, autoS] = select("set-auto", "auto_forced", CHOICES.auto, settings.auto, (v) => "auto_" + v);
  controls.append(langW, themeW, conW, grainW, warmW, sizeW, speedW, autoW);
  header.append(nav, controls);

  const onChange = async () => {
    const langChanged = langS.value !== settings.lang;
    settings = {
      lang: langS.value,
      theme: themeS.value,
      contrast: conS.value,
      size: sizeS.value,
      grain: grainS.value,
      warmth: warmS.value,
      speed: speedS.value,
      auto: autoS.value,
    };
    saveSettings(settings);
    applySettings(settings);
    if (langChanged) {
      await loadLanguage(settings.lang);
      translatePage();
      if (rerender) rerender();
    }
  };
  for (const s of [langS, themeS, conS, sizeS, grainS, warmS, speedS, autoS]) s.addEventListener("change", onChange);
  translatePage();
}

export function showError(msg) {
  const box = document.getElementById("error");
  if (!box) return;
  if (!msg) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = ui("error_prefix") + " " + msg;
}

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || k === "for" || k === "href" || k === "id" || k === "tabindex" || k === "type")
      e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
