// Cards drawn with CSS and inline SVG, for the three packs of the suite:
//   french  (C D H S; 2..10 J Q K A)        — All Fours, Avinas, P'yanitsa
//   spanish (Co Cu Cl Sw; A 2..9 J N K)      — Aluette: coins/oros, cups/copas, clubs/bastos, swords/espadas
//   tarocco (S B C D; A 6..10 J N Q K; trumps BEG MO1-4 T5-T16 MOO SUN WOR ANG; MAT) — Ottocento
// A card is the server's CardDict {id, code, rank, suit, pack, label}; everything here is derived
// from `code` and the pack so that the drawing never depends on the label's language.
// A face-down card has code null.

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

// Suit icons, viewBox 0 0 100 100.
const ICONS = {
  hearts:
    '<path d="M50 90C22 68 5 48 5 29 5 14 17 5 29 5c10 0 17 6 21 14 4-8 11-14 21-14 12 0 24 9 24 24 0 19-17 39-45 61z"/>',
  diamonds: '<path d="M50 3 88 50 50 97 12 50z"/>',
  spades:
    '<path d="M50 4C36 28 8 42 8 62c0 14 11 22 22 22 7 0 13-3 16-9-2 10-7 16-14 21h36c-7-5-12-11-14-21 3 6 9 9 16 9 11 0 22-8 22-22C92 42 64 28 50 4z"/>',
  clubs:
    '<circle cx="50" cy="27" r="19"/><circle cx="27" cy="58" r="19"/><circle cx="73" cy="58" r="19"/>' +
    '<path d="M45 50h10c0 20 4 34 14 46H31c10-12 14-26 14-46z"/>',
  coins:
    '<circle cx="50" cy="50" r="42" class="c-fill"/><circle cx="50" cy="50" r="29" fill="none" class="c-line" stroke-width="5"/>' +
    '<circle cx="50" cy="50" r="10" class="c-line"/>' +
    '<path d="M50 12v10M50 78v10M12 50h10M78 50h10" class="c-line" stroke-width="5"/>',
  cups:
    '<path class="c-fill" d="M20 10h60c0 30-12 45-24 49v17c0 5 14 7 18 14H26c4-7 18-9 18-14V59C32 55 20 40 20 10z"/>' +
    '<path class="c-line" d="M24 22h52" stroke-width="5" fill="none"/>',
  swords:
    '<path class="c-fill" d="M46 4h8l3 64H43z"/><rect class="c-line" x="27" y="66" width="46" height="8" rx="3"/>' +
    '<rect class="c-line" x="45" y="74" width="10" height="15"/><circle class="c-line" cx="50" cy="92" r="6"/>',
  batons:
    '<path class="c-fill" d="M37 94 29 24C27 9 39 3 49 6c10 3 13 11 13 21l4 67z"/>' +
    '<circle class="c-line" cx="39" cy="40" r="4"/><circle class="c-line" cx="55" cy="58" r="4"/><circle class="c-line" cx="42" cy="74" r="4"/>',
  // Tarocco trump symbols.
  moon: '<path d="M70 6A44 44 0 1 0 70 94A50 50 0 0 1 70 6z"/>',
  sun:
    '<circle cx="50" cy="50" r="22"/>' +
    '<path d="M50 4v16M50 80v16M4 50h16M80 50h16M17 17l11 11M72 72l11 11M83 17 72 28M28 72 17 83" stroke-width="7" stroke-linecap="round" fill="none" class="stroke-cur"/>',
  world:
    '<circle cx="50" cy="50" r="40" fill="none" stroke-width="6" class="stroke-cur"/>' +
    '<ellipse cx="50" cy="50" rx="18" ry="40" fill="none" stroke-width="5" class="stroke-cur"/>' +
    '<path d="M10 50h80M16 30h68M16 70h68" stroke-width="5" fill="none" class="stroke-cur"/>',
  angel:
    '<path d="M50 30C38 10 14 8 4 22c12 0 22 6 28 18-10-4-20-2-26 6 14-2 26 4 34 14z"/>' +
    '<path d="M50 30C62 10 86 8 96 22c-12 0-22 6-28 18 10-4 20-2 26 6-14-2-26 4-34 14z"/>' +
    '<circle cx="50" cy="26" r="9"/><path d="M42 38h16l8 56H34z"/>',
  moor: '<circle cx="50" cy="30" r="17"/><path d="M20 94c0-30 12-44 30-44s30 14 30 44z"/><path d="M30 18h40l-6-10H36z"/>',
  begato:
    '<path d="M20 60h60v8H20z"/><path d="M28 68v26M72 68v26" stroke-width="6" fill="none" class="stroke-cur"/>' +
    '<circle cx="35" cy="50" r="8"/><circle cx="55" cy="48" r="6"/><path d="M70 10l-14 42" stroke-width="6" fill="none" class="stroke-cur"/>',
  matto:
    '<path d="M50 40 14 12l10 40zM50 40l36-28-10 40zM50 40 50 4l-8 36z"/><circle cx="14" cy="12" r="6"/><circle cx="86" cy="12" r="6"/>' +
    '<circle cx="50" cy="4" r="5"/><circle cx="50" cy="62" r="17"/><path d="M30 96c0-14 8-18 20-18s20 4 20 18z"/>',
  trump: '<path d="M50 6l12 30 32 2-25 20 9 32-28-18-28 18 9-32L6 38l32-2z"/>',
};

const FRENCH_SUITS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const SPANISH_SUITS = { Co: "coins", Cu: "cups", Cl: "bastos", Sw: "swords" };
const TAROCCO_SUITS = { S: "swords", B: "batons", C: "cups", D: "coins" };

/** Parse a card code of `pack` into {kind: "suited"|"trump"|"fool", rank, suit, num, icon}. */
export function parseCode(code, pack) {
  if (code == null) return { kind: "back" };
  if (pack === "tarocco") {
    if (code === "MAT") return { kind: "fool", rank: "MAT", suit: null, num: "0", icon: "matto" };
    if (code === "BEG") return { kind: "trump", rank: "BEG", num: "1", icon: "begato" };
    if (/^MO[1-4]$/.test(code)) return { kind: "trump", rank: "MO", num: "M", icon: "moor", moor: code.slice(2) };
    if (/^T\d+$/.test(code)) return { kind: "trump", rank: "T", num: code.slice(1), icon: "trump" };
    const special = { MOO: ["moon", "Moon"], SUN: ["sun", "Sun"], WOR: ["world", "World"], ANG: ["angel", "Angel"] };
    if (special[code]) {
      const nums = { MOO: "17", SUN: "18", WOR: "19", ANG: "20" };
      return { kind: "trump", rank: code, num: nums[code], icon: special[code][0] };
    }
    const suit = TAROCCO_SUITS[code.slice(-1)];
    return { kind: "suited", rank: code.slice(0, -1), suit, icon: suit };
  }
  if (pack === "spanish") {
    const suit = SPANISH_SUITS[code.slice(-2)];
    return { kind: "suited", rank: code.slice(0, -2), suit, icon: suit === "bastos" ? "batons" : suit };
  }
  const suit = FRENCH_SUITS[code.slice(-1)];
  return { kind: "suited", rank: code.slice(0, -1), suit, icon: suit };
}

function svgIcon(name, cls) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", "icon icon-" + name + (cls ? " " + cls : ""));
  svg.innerHTML = ICONS[name] || ICONS.trump;
  return svg;
}

/** The card's name in the current language, e.g. "Queen of clubs" / "Ratu keriting". */
export function cardName(card, pack) {
  if (!card || card.code == null) return t("card", "face_down");
  const p = parseCode(card.code, pack || card.pack);
  if (p.kind === "fool") return t("card", "matto");
  if (p.kind === "trump") {
    if (p.rank === "BEG") return t("card", "begato");
    if (p.rank === "MO") return t("card", "moor").replace("{n}", p.moor);
    if (p.rank === "T") return t("card", "trump_n").replace("{n}", p.num);
    return t("card", { MOO: "moon", SUN: "sun", WOR: "world", ANG: "angel" }[p.rank]);
  }
  const rankKey = "rank_" + p.rank;
  const rank = t("card", rankKey, p.rank);
  const suit = t("card", "suit_" + p.suit, p.suit || "");
  return t("card", "name_pattern").replace("{rank}", rank).replace("{suit}", suit);
}

/** Short text of a card code with its suit symbol, for facts and the log, as an inline element. */
export function miniCard(code, pack) {
  const span = document.createElement("span");
  const p = parseCode(code, pack);
  span.className = "mini-card suit-" + (p.suit || p.kind);
  span.setAttribute("aria-label", cardName({ code }, pack));
  span.title = cardName({ code }, pack);
  if (p.kind === "suited") {
    const r = document.createElement("span");
    r.textContent = p.rank;
    span.append(r, svgIcon(p.icon, "mini-icon"));
  } else {
    span.append(svgIcon(p.icon, "mini-icon"));
    const r = document.createElement("span");
    r.textContent = p.kind === "fool" ? "Matto" : p.num;
    span.append(r);
  }
  return span;
}

/** Is `code` a card code of `pack`? (for turning fact values into mini cards) */
export function isCardCode(code, pack) {
  if (typeof code !== "string" || !code) return false;
  const re = {
    french: /^(10|[2-9JQKA])[CDHS]$/,
    spanish: /^([2-9AJNK])(Co|Cu|Cl|Sw)$/,
    tarocco: /^((10|[6-9AJNQK])[SBCD]|BEG|MO[1-4]|T([5-9]|1[0-6])|MOO|SUN|WOR|ANG|MAT)$/,
  }[pack];
  return !!re && re.test(code);
}

/**
 * A card element. opts: {pack, tag ("div"|"button"), small, legal, disabled}.
 * Returns the element; a button carries aria-label with the card's name.
 */
export function cardElement(card, opts = {}) {
  const pack = opts.pack || (card && card.pack) || "french";
  const el = document.createElement(opts.tag || "div");
  el.classList.add("card", "pack-" + pack);
  if (opts.small) el.classList.add("small");
  if (!card || card.code == null) {
    el.classList.add("back");
    el.setAttribute("aria-label", t("card", "face_down"));
    if (el.tagName !== "BUTTON") el.setAttribute("role", "img");
    return el;
  }
  const p = parseCode(card.code, pack);
  el.dataset.code = card.code;
  if (card.id != null) el.dataset.id = card.id;
  el.classList.add("kind-" + p.kind);
  if (p.suit) el.classList.add("suit-" + p.suit);
  const name = cardName(card, pack);
  el.setAttribute("aria-label", name);
  el.title = name;
  if (el.tagName !== "BUTTON") el.setAttribute("role", "img");

  const corner = (cls) => {
    const c = document.createElement("span");
    c.className = "corner " + cls;
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = p.kind === "suited" ? p.rank : p.num;
    c.append(r);
    if (p.kind === "suited") c.append(svgIcon(p.icon, "corner-icon"));
    return c;
  };
  el.append(corner("tl"));
  const center = document.createElement("span");
  center.className = "center";
  if (p.kind === "suited" && /^[JQKN]$/.test(p.rank)) {
    const court = document.createElement("span");
    court.className = "court";
    court.textContent = p.rank;
    center.append(court);
    center.append(svgIcon(p.icon, "court-icon"));
  } else if (p.kind === "suited") {
    center.append(svgIcon(p.icon, "big-icon"));
  } else {
    center.append(svgIcon(p.icon, "big-icon"));
    const cap = document.createElement("span");
    cap.className = "trump-name";
    cap.textContent = name;
    center.append(cap);
  }
  el.append(center, corner("br"));
  return el;
}
