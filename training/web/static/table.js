// The card table: /table.html?game=ID[&players=N&partner=AGENT&opponents=AGENT&seed=S][&table=TABLE_ID]
// Creates (or reopens) a table through the API, draws the view the server sends, and plays the
// person's moves: legal cards are enabled buttons in the hand, other moves are buttons below the
// table. Keyboard: arrow keys move the selection over the legal moves, Enter or Space plays it.

// Pacing: a move's answer carries "frames" (each move as seat 0 saw it); they are shown one at a
// time at the chosen speed, each new card travelling to the trick, and a completed trick stays on
// the table with its winner marked before it is gathered. Forced moves (one legal move, e.g.
// P'yanitsa's FLIP) are played for the person, at the same pace. Where an answer's moves after the
// person's last one were condensed ("skipped": P'yanitsa with 3-4 players once the person is out),
// the page says what was played without the person and shows the last battle.

import { api, currentSettings, el, initPage, showError } from "./common.js";
import { cardElement, cardName, isCardCode, miniCard } from "./cards.js";
import { PACE, has, t, ui } from "./i18n.js";

const params = new URLSearchParams(location.search);
const game = params.get("game") || "all_fours";
let tableId = params.get("table");
let view = null;
let busy = false;
let seq = 0;
let selected = 0; // index into moveEls
let moveEls = [];
let usedKeyboard = false;
let holdTrick = null; // a completed trick shown with its winner while pacing
let arrived = null; // seat whose card just arrived in the trick (animated)
let replay = null; // {initial, frames, i} while replaying a finished deal
let liveView = null; // the live view kept while replaying
let hinted = null; // action the hint suggests
let matchInfo = null; // {options, length} of a whole match of this game (from /api/games)
let skipNote = ""; // what the others played without the person (an answer's "skipped"), until the next move

function pace() {
  return PACE[currentSettings().speed] || PACE.normal;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ seats and names

const POSITIONS = ["bottom", "right", "top", "left"];

/** Screen position of `seat`: you at the bottom, partner across, opponents left and right. */
function position(seat) {
  const info = (view.seats || []).find((s) => s.seat === seat) || {};
  const byRole = { you: "bottom", partner: "top", across: "top", left: "left", right: "right" };
  if (byRole[info.role]) return byRole[info.role];
  const n = view.num_players || 4;
  const rel = (seat - (view.seat || 0) + n) % n;
  if (n === 2) return rel === 0 ? "bottom" : "top";
  if (n === 3) return ["bottom", "right", "left"][rel];
  return POSITIONS[rel];
}

function seatInfo(seat) {
  return (view.seats || []).find((s) => s.seat === seat) || { seat, role: seat === view.seat ? "you" : "opponent" };
}

/** "You", "Partner", "Left opponent", ... ; several plain opponents get their seat number. */
function seatName(seat) {
  const info = seatInfo(seat);
  const role = info.role || "opponent";
  const same = (view.seats || []).filter((s) => s.role === role).length;
  if (same > 1) return ui("role_" + role) + " " + ui("seat_n", { n: seat });
  return ui("role_" + role);
}

function agentName(name) {
  if (!name) return "";
  const kind = name.includes("/") ? name.split("/").pop() : name;
  return t("ui", "agent_" + kind, kind);
}

// ------------------------------------------------------------------ text helpers

/** Translate an action name the env uses (STAND, CALL_3, FD_AS, ORDER(KS), accept_chant, QC, ...). */
function actionLabel(name) {
  if (name == null) return "";
  const pack = view.pack;
  if (has("action", name)) return t("action", name);
  let m;
  if ((m = /^CALL_(\d+)$/.exec(name))) return t("action", "CALL_n").replace("{n}", m[1]);
  if ((m = /^DECLARE_([CDHS])$/.exec(name)))
    return t("action", "DECLARE_suit").replace("{suit}", t("card", "suit_" + { C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[m[1]]));
  if ((m = /^FD_(.+)$/.exec(name))) return t("action", "FD_card").replace("{card}", cardName({ code: m[1] }, pack));
  if ((m = /^ORDER\((.+)\)$/.exec(name))) return t("action", "ORDER_card").replace("{card}", cardName({ code: m[1] }, pack));
  if (isCardCode(name, pack)) return cardName({ code: name }, pack);
  return t("key", name);
}

/** A fact or score value: card codes become mini cards, seats (S0..S3) become seat names, known
 *  words (yes, no, suit names, signals, ...) are translated, the rest is shown as it is. */
function valueNode(value, key) {
  const span = el("span", { class: "value" });
  const text = value == null ? "" : String(value);
  if (key === "combos" || key === "declare_preview_combos") {
    // "Kings 17, cups sequence 15, sequences doubled 32": each name translated whole
    span.textContent = text
      .split(", ")
      .map((item) => {
        const m = /^(.*) (-?[\d.]+)$/.exec(item);
        return m ? t("value", m[1], m[1]) + " " + m[2] : item;
      })
      .join(", ");
    return span;
  }
  if (has("value", text)) {
    span.textContent = t("value", text);
    return span;
  }
  if (view.pack === "french" && /^[CDHS]$/.test(text)) {
    span.textContent = t("value", { C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[text]);
    return span;
  }
  let m;
  if ((m = /^([AB])( \(clean\))?$/.exec(text)) && /team|winner/.test(key || "") && view.teams) {
    span.textContent = teamName(m[1] === "A" ? 0 : 1) + (m[2] ? " (" + t("value", "clean") + ")" : "");
    return span;
  }
  if ((m = /^team ([AB]) wins$/.exec(text)) && view.teams) {
    // Aluette's match_result fact is the match's winner, not a deal's
    const mine = (view.teams[m[1] === "A" ? 0 : 1] || []).includes(view.seat);
    span.textContent = ui((mine ? "your_team_wins" : "their_team_wins") + (key === "match_result" ? "_match" : ""));
    return span;
  }
  for (const p of text.split(/(\s+|,\s*|:\s*)/)) {
    if (!p) continue;
    if ((m = /^S(\d)$/.exec(p))) span.append(el("span", { class: "seat-ref", text: seatName(Number(m[1])) }));
    else if (isCardCode(p, view.pack)) span.append(miniCard(p, view.pack));
    else if (has("value", p)) span.append(t("value", p));
    else span.append(p);
  }
  return span;
}

function teamName(i) {
  const members = (view.teams || [])[i] || [];
  return members.includes(view.seat) ? ui("your_team") : ui("their_team");
}

/** Column headers for per-team or per-seat values. */
function columns(n) {
  const teams = view.teams;
  if (teams && n === teams.length) {
    return teams.map((members, i) => {
      const mine = members.includes(view.seat);
      return { text: mine ? ui("your_team") : ui("their_team"), title: members.map(seatName).join(", ") };
    });
  }
  return Array.from({ length: n }, (_, i) => ({ text: seatName(i), title: "" }));
}

function resultText(result) {
  if (result == null) return "";
  let m;
  if ((m = /^team_(\d+)_wins(_match)?$/.exec(result)) && view.teams) {
    const mine = (view.teams[Number(m[1])] || []).includes(view.seat);
    return ui((mine ? "your_team_wins" : "their_team_wins") + (m[2] || ""));
  }
  if (result === "match_drawn") return ui("match_drawn");
  if ((m = /^seat_(\d+)_(wins|loses)$/.exec(result))) {
    if (Number(m[1]) === view.seat) return ui(m[2] === "wins" ? "you_win" : "you_lose");
    return ui("seat_" + m[2], { who: seatName(Number(m[1])) });
  }
  if ((m = /^seats_([\d_]+)_lose$/.exec(result)))
    return ui("seats_lose", { who: m[1].split("_").map((x) => seatName(Number(x))).join(" " + ui("and") + " ") });
  return t("key", result);
}

// ------------------------------------------------------------------ drawing

function legalByCard() {
  const map = new Map();
  for (const mv of view.legal || []) {
    if (mv.card && mv.card.id != null) {
      if (!map.has(mv.card.id)) map.set(mv.card.id, []);
      map.get(mv.card.id).push(mv);
    }
  }
  return map;
}

function drawSeats() {
  for (const pos of ["top", "left", "right", "bottom"]) {
    const box = document.getElementById("seat-" + pos);
    box.innerHTML = "";
    box.hidden = true;
  }
  const n = view.num_players || (view.seats || []).length;
  for (let s = 0; s < n; s++) {
    const pos = position(s);
    const box = document.getElementById("seat-" + pos);
    box.hidden = false;
    const info = seatInfo(s);
    const badges = el("span", { class: "badges" });
    if (view.dealer === s) badges.append(el("span", { class: "badge dealer", text: ui("dealer") }));
    if (view.to_act === s && !view.done) badges.append(el("span", { class: "badge to-act", text: ui("to_act") }));
    const title = el("div", { class: "seat-title" }, el("strong", { text: seatName(s) }));
    if (info.agent) title.append(el("span", { class: "agent", text: " · " + agentName(info.agent) }));
    title.append(badges);
    box.append(title);
    box.classList.toggle("acting", view.to_act === s && !view.done);
    box.dataset.seat = String(s);
    const count = (view.hand_sizes || [])[s];
    const faceDown = s !== view.seat || !(view.hand || []).length; // P'yanitsa: your own pile is face down too
    if (faceDown && count != null && count > 0) {
      const backs = el("div", { class: "backs", "aria-label": ui(count === 1 ? "card_held" : "cards_held", { n: count }), role: "img" });
      for (let i = 0; i < Math.min(count, 8); i++) backs.append(cardElement(null, { pack: view.pack, small: true }));
      backs.append(el("span", { class: "count", text: ui(count === 1 ? "card_held" : "cards_held", { n: count }) }));
      box.append(backs);
    } else if (count != null) {
      box.append(el("div", { class: "count", text: ui(count === 1 ? "card_held" : "cards_held", { n: count }) }));
    }
    const exposed = (view.exposed || [])[s] || [];
    if (exposed.length && s !== view.seat) {
      const ex = el("div", { class: "exposed", role: "group", "aria-label": ui("exposed") });
      ex.append(el("span", { class: "mini-label", text: ui("exposed") }));
      for (const c of exposed) ex.append(cardElement(c, { pack: view.pack, small: true }));
      box.append(ex);
    }
  }
}

function drawTrick() {
  const trick = document.getElementById("trick");
  for (const slot of trick.querySelectorAll(".slot")) slot.innerHTML = "";
  const label = trick.querySelector(".trick-label");
  trick.dataset.completed = holdTrick ? "1" : "0";
  if (holdTrick) {
    // A trick just completed: every card stays where it was played, the winner's marked.
    for (const play of holdTrick.cards || []) {
      const c = cardElement(play.card, { pack: view.pack });
      if (holdTrick.winner === play.seat) c.classList.add("winner");
      if (arrived === play.seat) c.classList.add("arrive-" + position(play.seat));
      c.setAttribute("aria-label", seatName(play.seat) + ": " + cardName(play.card, view.pack));
      trick.querySelector(".slot.pos-" + position(play.seat)).append(c);
    }
    label.textContent =
      holdTrick.winner == null ? ui("nobody_won") : ui("trick_won_by", { who: seatName(holdTrick.winner) });
    trick.classList.add("showing-last", "completed");
    trick.classList.remove("empty");
    return;
  }
  trick.classList.remove("completed");
  for (const play of view.trick || []) {
    const slot = trick.querySelector(".slot.pos-" + position(play.seat));
    const c = cardElement(play.card, { pack: view.pack });
    if (arrived === play.seat) c.classList.add("arrive-" + position(play.seat));
    c.setAttribute("aria-label", seatName(play.seat) + ": " + cardName(play.card, view.pack));
    slot.append(c);
  }
  label.textContent = ui("current_trick");
  const lt0 = view.last_trick;
  if (!(view.trick || []).length && lt0 && lt0.cards && lt0.cards.length) {
    // Nothing played to this trick yet: show the last one, faded, where each card was played.
    for (const play of lt0.cards) {
      const c = cardElement(play.card, { pack: view.pack });
      c.classList.add("previous");
      if (lt0.winner === play.seat) c.classList.add("winner");
      c.setAttribute("aria-label", ui("last_trick") + ", " + seatName(play.seat) + ": " + cardName(play.card, view.pack));
      trick.querySelector(".slot.pos-" + position(play.seat)).append(c);
    }
    label.textContent =
      ui("last_trick") + " — " + (lt0.winner == null ? ui("nobody_won") : ui("won_by", { who: seatName(lt0.winner) }));
    trick.classList.add("showing-last");
  } else trick.classList.remove("showing-last");
  trick.classList.toggle("empty", !(view.trick || []).length);
  const last = document.getElementById("last-trick");
  last.innerHTML = "";
  const lt = view.last_trick;
  if (lt && lt.cards && lt.cards.length) {
    for (const play of lt.cards) {
      const fig = el("figure", { class: "lt-card" + (lt.winner === play.seat ? " winner" : "") });
      fig.append(cardElement(play.card, { pack: view.pack, small: true }));
      fig.append(el("figcaption", { text: seatName(play.seat) }));
      last.append(fig);
    }
    last.append(
      el("p", { class: "lt-winner", text: lt.winner == null ? ui("nobody_won") : ui("won_by", { who: seatName(lt.winner) }) })
    );
  } else last.append(el("p", { class: "muted", text: ui("none_yet") }));
}

const PREVIEW_KEYS = ["declare_preview_points", "declare_preview_cards", "declare_preview_combos", "discards_left", "may_not_discard"];

function fact(key) {
  const f = (view.facts || []).find((x) => x.key === key);
  return f ? f.value : null;
}

/** Ottocento's Declare preview and the dealer's discard help, above the move buttons. */
function drawPreview() {
  const box = document.getElementById("preview");
  box.innerHTML = "";
  const keys = PREVIEW_KEYS.filter((k) => fact(k) != null);
  box.hidden = !keys.length || !view.your_turn;
  for (const k of keys) {
    box.append(el("div", { class: "preview-line", "data-key": k }, el("span", { class: "preview-key", text: t("key", k) + ": " }), valueNode(fact(k), k)));
  }
}

function drawFacts() {
  const dl = document.getElementById("facts");
  dl.innerHTML = "";
  const facts = (view.facts || []).filter((f) => !PREVIEW_KEYS.includes(f.key));
  if (!facts.length) dl.append(el("p", { class: "muted", text: ui("no_facts") }));
  for (const f of facts) {
    dl.append(el("dt", { text: t("key", f.key) }), el("dd", {}, valueNode(f.value, f.key)));
  }
}

function valuesTable(rows, id) {
  const table = el("table", { class: "score-table", id });
  const n = Math.max(0, ...rows.map((r) => (r.values || []).length));
  const head = el("tr", {}, el("th", { text: "" }));
  for (const c of columns(n)) head.append(el("th", { scope: "col", text: c.text, title: c.title || null }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of rows) {
    const tr = el("tr", {}, el("th", { scope: "row", text: r.label !== undefined ? r.label : t("key", r.key) }));
    for (const v of r.values || []) tr.append(el("td", {}, valueNode(v, r.key)));
    body.append(tr);
  }
  table.append(body);
  return table;
}

function drawScores() {
  const box = document.getElementById("scores");
  box.innerHTML = "";
  const rows = view.scores || [];
  if (!rows.length) box.append(el("p", { class: "muted", text: ui("no_scores") }));
  else box.append(valuesTable(rows));
}

function drawLog() {
  const ol = document.getElementById("log");
  ol.innerHTML = "";
  // the View carries the episode's last moves only: number them from the first one sent
  ol.start = (view.log_start || 0) + 1;
  for (const e of view.log || []) {
    const li = el("li", {}, el("span", { class: "who", text: seatName(e.seat) + ": " }));
    const text = e.text == null ? "" : String(e.text);
    if (text === "face_down") li.append(t("key", "face_down"));
    else if (isCardCode(text, view.pack)) li.append(miniCard(text, view.pack));
    else li.append(actionLabel(text));
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

function moveButton(mv, extraClass) {
  const b = el("button", { type: "button", class: "move " + (extraClass || ""), "data-action": String(mv.action) });
  b.textContent = actionLabel(mv.name);
  b.addEventListener("click", () => play(mv.action));
  return b;
}

function drawHandAndMoves() {
  const hand = document.getElementById("hand");
  const moveCards = document.getElementById("move-cards");
  const moveButtons = document.getElementById("move-buttons");
  hand.innerHTML = "";
  moveCards.innerHTML = "";
  moveButtons.innerHTML = "";
  const byCard = legalByCard();
  const used = new Set();
  const handEls = [];
  const myExposed = new Set(((view.exposed || [])[view.seat] || []).map((c) => c.id));
  const barred = new Set(String(fact("may_not_discard") || "").split(/\s+/).filter(Boolean));
  for (const c of view.hand || []) {
    const b = cardElement(c, { pack: view.pack, tag: "button" });
    b.type = "button";
    const moves = view.your_turn ? byCard.get(c.id) || [] : [];
    if (myExposed.has(c.id)) {
      b.classList.add("shown");
      b.append(el("span", { class: "shown-badge", text: ui("shown") }));
    }
    if (view.your_turn && barred.has(c.code)) {
      b.classList.add("barred");
      b.append(el("span", { class: "barred-badge", text: "✕" }));
      b.title = t("key", "may_not_discard");
    }
    if (moves.length) {
      const mv = moves[0];
      used.add(mv.action);
      b.classList.add("legal");
      if (hinted === mv.action) b.classList.add("hinted");
      b.dataset.action = String(mv.action);
      b.setAttribute("aria-label", cardName(c, view.pack) + " — " + ui("playable"));
      b.addEventListener("click", () => play(mv.action));
      handEls.push(b);
    } else {
      b.disabled = true;
      if (view.your_turn) b.classList.add("illegal");
    }
    hand.append(b);
  }
  const cardEls = [];
  const buttonEls = [];
  for (const mv of view.your_turn ? view.legal || [] : []) {
    if (used.has(mv.action)) continue;
    const inHand = mv.card && (view.hand || []).some((c) => c.id === mv.card.id);
    if (mv.card && mv.card.code != null && !inHand) {
      // A card move for a card that is not in the hand (e.g. P'yanitsa: order the pot).
      const b = cardElement(mv.card, { pack: view.pack, tag: "button" });
      b.type = "button";
      b.classList.add("legal", "move");
      b.dataset.action = String(mv.action);
      b.setAttribute("aria-label", actionLabel(mv.name));
      b.title = actionLabel(mv.name);
      b.addEventListener("click", () => play(mv.action));
      moveCards.append(b);
      cardEls.push(b);
    } else {
      const b = moveButton(mv, mv.card ? "card-move" : "");
      if (hinted === mv.action) b.classList.add("hinted");
      moveButtons.append(b);
      buttonEls.push(b);
    }
  }
  if (cardEls.length) moveCards.prepend(el("span", { class: "move-caption", text: ui("choose_card") }));
  const previewing = view.your_turn && PREVIEW_KEYS.some((k) => fact(k) != null);
  document.getElementById("moves").hidden = !cardEls.length && !buttonEls.length && !previewing;
  document.getElementById("hand-panel").hidden = !(view.hand || []).length;
  document.getElementById("hint-button").hidden = !view.your_turn || !!replay;
  if (!view.your_turn) document.getElementById("hint-text").textContent = "";
  moveEls = [...handEls, ...cardEls, ...buttonEls];
  if (selected >= moveEls.length) selected = 0;
  markSelected(usedKeyboard);
}

function markSelected(focus) {
  moveEls.forEach((b, i) => b.classList.toggle("selected", i === selected));
  if (focus && moveEls[selected]) moveEls[selected].focus();
}

function drawStatus() {
  document.getElementById("game-name").textContent = view.game_name || game;
  document.getElementById("phase").textContent = ui("phase") + ": " + t("key", view.phase || "play");
  let turn;
  if (view.done) turn = ui("deal_over");
  else if (view.your_turn) turn = ui("your_turn");
  else if (view.to_act != null) turn = ui("waiting_for", { who: seatName(view.to_act) });
  else turn = "";
  const tEl = document.getElementById("turn");
  tEl.textContent = turn;
  tEl.classList.toggle("mine", !!view.your_turn);
  document.title = (view.game_name || game) + " — cardzoo";
  document.getElementById("text").textContent = view.text || "";
  const note = document.getElementById("skip-note");
  note.textContent = skipNote;
  note.hidden = !skipNote;
}

/** The moves an answer condensed (its "skipped": the others playing on once the person has no move
 *  left, e.g. P'yanitsa with 3-4 players once you are out): how many, and who went out when. */
function skipText(s) {
  if (!s) return "";
  const parts = [s.battles != null ? ui("skipped_moves", { moves: s.moves, battles: s.battles }) : ui("skipped_moves_plain", { moves: s.moves })];
  for (const o of s.out || []) if (o.battle != null) parts.push(ui("went_out", { who: seatName(o.seat), battle: o.battle }));
  return parts.join(" ");
}

function drawSummary() {
  const box = document.getElementById("summary");
  const s = view.summary;
  if (!s && !view.done) {
    box.hidden = true;
    return;
  }
  const wasHidden = box.hidden;
  box.hidden = false;
  document.getElementById("summary-title").textContent = s ? t("key", s.key) : ui("deal_over");
  // at the end of a match, who won it (a game whose summary tells the last deal's result only)
  const matchResult = view.match_result && (!s || view.match_result !== s.result) ? resultText(view.match_result) : "";
  document.getElementById("summary-result").textContent = [s ? resultText(s.result) : "", matchResult].filter(Boolean).join(" ");
  const table = document.getElementById("summary-table");
  table.replaceWith(
    s && s.lines && s.lines.length
      ? Object.assign(valuesTable(s.lines, "summary-table"), { className: "summary-table" })
      : el("table", { id: "summary-table", class: "summary-table", hidden: true })
  );
  // What scored and why, from the kernel's scoring (no training rewards on the table).
  const ul = document.getElementById("explain");
  ul.innerHTML = "";
  const explain = (s && s.explain) || [];
  for (const e of explain) ul.append(el("li", { "data-key": e.key }, explainNode(e)));
  document.getElementById("explain-title").hidden = !explain.length;
  ul.hidden = !explain.length;
  // The running match score, where the game keeps one.
  const rows = (view.scores || []).filter((r) => r.key === "match_score" || r.key === "pips" || r.key === "rams");
  const totals = document.getElementById("totals-table");
  const nt = rows.length && view.match ? valuesTable(rows, "totals-table") : el("table", { id: "totals-table", hidden: true });
  nt.className = "summary-table";
  totals.replaceWith(nt);
  document.getElementById("new-deal").hidden = !view.done || !!replay;
  document.getElementById("replay-open").hidden = !view.done || !!replay;
  // After a single deal: the same table settings for a whole match (the game's rules define it).
  const pm = document.getElementById("play-match");
  pm.hidden = !view.done || !!replay || !!view.match || !matchInfo;
  if (matchInfo) {
    const q = new URLSearchParams(params);
    q.delete("table");
    for (const [k, v] of Object.entries(matchInfo.options)) q.set("opt." + k, typeof v === "string" ? v : JSON.stringify(v));
    pm.href = "/table.html?" + q.toString();
    pm.textContent = ui("whole_match", { length: t("ui", "match_" + game, matchInfo.length) });
  }
  if (wasHidden && view.done) box.scrollIntoView({ block: "nearest" });
}

/** One explanation line: the sentence of explain.KEY with its {args} as seat names, team names,
 *  mini cards or numbers; {A} and {B} are the two teams. A sentence about exactly 1 point uses
 *  explain.KEY_one where the language has one ("1 point", not "1 points"); {NAME|one|other} in a
 *  sentence is the word "one" when the argument NAME is 1, else "other" ("1 ram", "2 rams"). */
function explainNode(e) {
  const span = el("span", { class: "explain-line" });
  const args = { ...(e.args || {}) };
  // {seats}: "S0 S1", said "You and Left opponent"; {nseats|one|other} counts them ("loses", "lose")
  const seats = args.seats == null ? null : String(args.seats).split(/[\s,]+/).filter(Boolean);
  if (seats) args.nseats = seats.length;
  let key = args.points === 1 && has("explain", e.key + "_one") ? e.key + "_one" : e.key;
  // a sentence about the person alone has its own words where the language needs them (explain.KEY_you:
  // "You were the first", "Your call"): with the seat's name it said "You was the first", "You's call"
  const me = "S" + view.seat;
  if ((args.seat === me || (seats && seats.length === 1 && seats[0] === me)) && has("explain", key + "_you")) key += "_you";
  const text = t("explain", key, e.key);
  for (const part of text.split(/(\{\w+(?:\|[^{}|]*\|[^{}|]*)?\})/)) {
    const m = /^\{(\w+)(?:\|([^{}|]*)\|([^{}|]*))?\}$/.exec(part);
    if (!m) {
      if (part) span.append(part);
      continue;
    }
    const name = m[1];
    if (m[2] !== undefined) {
      span.append(args[name] === 1 ? m[2] : m[3]);
      continue;
    }
    if (name === "A" || name === "B") span.append(el("strong", { text: teamName(name === "A" ? 0 : 1) }));
    else if (!(name in args)) span.append(part);
    else if (name === "team") span.append(el("strong", { text: teamName(args.team === "A" ? 0 : 1) }));
    else if (name === "seat") span.append(el("strong", { class: "seat-ref", text: seatName(Number(String(args.seat).slice(1))) }));
    else if (name === "seats") {
      seats.forEach((s, i) => {
        if (i > 0) span.append(i === seats.length - 1 ? " " + ui("and") + " " : ", ");
        span.append(el("strong", { class: "seat-ref", text: seatName(Number(s.slice(1))) }));
      });
    }
    else if (name === "card" && isCardCode(String(args.card), view.pack)) span.append(miniCard(String(args.card), view.pack));
    else if (typeof args[name] === "number") span.append(el("strong", { text: fmtNum(args[name]) }));
    else span.append(valueNode(args[name], name));
  }
  return span;
}

function fmtNum(x) {
  if (typeof x !== "number") return String(x);
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

function render() {
  if (!view) return;
  drawStatus();
  drawSeats();
  drawTrick();
  drawFacts();
  drawScores();
  drawLog();
  drawHandAndMoves();
  drawPreview();
  drawSummary();
  drawReplayBar();
  seq += 1;
  document.body.dataset.seq = String(seq);
  document.body.dataset.done = view.done ? "1" : "0";
  document.body.dataset.yourTurn = view.your_turn ? "1" : "0";
}

// ------------------------------------------------------------------ playing

function setBusy(b) {
  busy = b;
  document.body.dataset.busy = b ? "1" : "0";
  document.getElementById("main").setAttribute("aria-busy", b ? "true" : "false");
}

/** Show the moves of an answer one at a time, then its final view. `prev`: the view shown before a
 *  move's answer (the same episode), whose log may reach further back than the answer's. */
async function showFrames(final, prev) {
  const frames = final.frames || [];
  const skipped = final.skipped || null;
  delete final.frames;
  delete final.skipped;
  // the text view of each move's moment (the answer's own text is its last state: shown with the
  // first move, it would show every move of the answer at once); a frame without one keeps the text
  let shownText = view && view.text != null ? view.text : "";
  if (pace().move > 0 && frames.length) {
    // the log at each move: the log before the answer (the view shown before it, else the answer's
    // log less its own moves), then its frames one by one; a View carries the last moves only
    // (numbered from log_start), and an answer may hold more moves than that
    const all = final.log || [];
    // (moves the answer condensed, "skipped", are moves seat 0 heard of too)
    const heard = frames.filter((f) => f.text != null).length + (skipped ? skipped.moves : 0);
    const log = prev ? (prev.log || []).slice() : all.slice(0, Math.max(0, all.length - heard));
    let first = (final.log_start || 0) + all.length - heard - log.length;
    for (let idx = 0; idx < frames.length; idx++) {
      const f = frames[idx];
      if (skipped && idx === skipped.after && pace().move > 0) {
        // the server sent the moves here condensed (the others played on, the person has no move
        // left): say what happened, then show the last moves; the log is the answer's, less those
        const rest = frames.slice(idx).filter((x) => x.text != null).length;
        log.splice(0, log.length, ...all.slice(0, Math.max(0, all.length - rest)));
        first = final.log_start || 0;
        skipNote = skipText(skipped);
        render();
        await sleep(pace().trick);
      }
      // the server sends no frame for a move seat 0 does not hear of (an uncaught Aluette signal):
      // a frame, or a pause, would tell that something happened; a frame without text is skipped too
      if (f.text == null) continue;
      // the speed is read at each move: a change applies at once (instant shows the answer's end),
      // not after the rest of a long answer (the rest of a P'yanitsa game once seat 0 is out)
      const p = pace();
      if (p.move <= 0) break;
      log.push({ seat: f.seat, text: f.text });
      const drop = Math.max(0, log.length - all.length);
      if (f.view.text != null) shownText = f.view.text;
      view = { ...final, ...f.view, your_turn: false, legal: [], log: log.slice(drop), log_start: first + drop, text: shownText };
      if (!f.view.done) view.summary = null;
      arrived = f.seat;
      render();
      await sleep(p.move);
      if (f.completed && f.completed.cards && f.completed.cards.length) {
        holdTrick = f.completed;
        render();
        await sleep(p.trick);
        holdTrick = null;
      }
    }
  }
  arrived = null;
  if (skipped) skipNote = skipText(skipped);
  view = final;
}

function forcedMove() {
  if (!view || !view.your_turn || currentSettings().auto === "off") return null;
  const legal = view.legal || [];
  return legal.length === 1 ? legal[0].action : null;
}

async function play(action) {
  if (busy || !view || !view.your_turn || replay) return;
  setBusy(true);
  showError(null);
  hinted = null;
  document.getElementById("hint-text").textContent = "";
  let next = action;
  skipNote = "";
  while (next != null) {
    try {
      const before = view;
      await showFrames(await api("POST", "/api/tables/" + encodeURIComponent(tableId) + "/move", { action: next, moves: view.moves, deal: view.deal }), before);
    } catch (e) {
      showError(e.message);
      try {
        view = await api("GET", "/api/tables/" + encodeURIComponent(tableId));
      } catch (e2) {
        /* keep the old view */
      }
      break;
    }
    selected = 0;
    render();
    next = forcedMove();
    if (next != null) await sleep(pace().move);
  }
  selected = 0;
  render();
  setBusy(false);
}

async function newDeal() {
  if (busy) return;
  setBusy(true);
  showError(null);
  skipNote = "";
  try {
    await showFrames(await api("POST", "/api/tables/" + encodeURIComponent(tableId) + "/new"));
  } catch (e) {
    showError(e.message);
  }
  selected = 0;
  render();
  setBusy(false);
  const forced = forcedMove();
  if (forced != null) play(forced);
}

async function showHint() {
  if (busy || !view || !view.your_turn) return;
  try {
    const h = await api("GET", "/api/tables/" + encodeURIComponent(tableId) + "/hint");
    hinted = h.action;
    document.getElementById("hint-text").textContent = ui("hint_text", { move: actionLabel(h.name) });
    render();
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------ replay

async function openReplay() {
  if (busy || !view || !view.done) return;
  try {
    const r = await api("GET", "/api/tables/" + encodeURIComponent(tableId) + "/replay");
    liveView = view;
    replay = { initial: r.initial, frames: r.frames, first: r.first, i: 0 };
    showReplayStep();
  } catch (e) {
    showError(e.message);
  }
}

function showReplayStep() {
  const f = replay.i === 0 ? { view: replay.initial, seat: null, text: null, completed: null } : replay.frames[replay.i - 1];
  // the log up to this move, from the replay's own frames (the live View carries only the last
  // moves; a long episode's replay starts at move number replay.first)
  const log = replay.frames.slice(0, replay.i).filter((x) => x.text != null).map((x) => ({ seat: x.seat, text: x.text }));
  view = { ...liveView, ...f.view, your_turn: false, legal: [], log, log_start: replay.first };
  if (replay.i < replay.frames.length) view.summary = null;
  holdTrick = f.completed || null;
  render();
  holdTrick = null;
}

function stepReplay(d) {
  if (!replay) return;
  replay.i = Math.max(0, Math.min(replay.frames.length, replay.i + d));
  showReplayStep();
}

function closeReplay() {
  if (!replay) return;
  replay = null;
  view = liveView;
  render();
}

function drawReplayBar() {
  const bar = document.getElementById("replay-bar");
  bar.hidden = !replay;
  if (!replay) return;
  document.getElementById("replay-step").textContent = ui("replay_step", { i: replay.i, n: replay.frames.length });
  document.getElementById("replay-prev").disabled = replay.i === 0;
  document.getElementById("replay-next").disabled = replay.i === replay.frames.length;
}

async function openTable() {
  if (tableId) {
    try {
      view = await api("GET", "/api/tables/" + encodeURIComponent(tableId));
      return;
    } catch (e) {
      if (e.status !== 404) throw e;
    }
  }
  const body = { game };
  for (const k of ["partner", "opponents"]) body[k] = params.get(k) || null;
  // players and seed as written in the address: a whole number digit for digit (a seed past 2^53
  // would be rounded by a JavaScript number), anything else as a string for the server to refuse
  // naming it (Number("abc") was NaN, sent as null: a silent random deal)
  const digits = {};
  for (const k of ["players", "seed"]) {
    const v = (params.get(k) || "").trim();
    body[k] = v === "" ? null : v;
    if (/^[0-9]+$/.test(v)) digits[k] = v.replace(/^0+(?=[0-9])/, "");
  }
  // Env options as opt.NAME=VALUE, e.g. opt.collect_order=winner_chooses, sent as written: the
  // server reads each value as cardzoo play -o NAME=VALUE does (opt.num_players=03 is 3)
  const options = {};
  for (const [k, v] of params) {
    if (k.startsWith("opt.")) options[k.slice(4)] = v;
  }
  if (Object.keys(options).length) body.options = options;
  const text = "{" + Object.entries(body).map(([k, v]) => JSON.stringify(k) + ":" + (k in digits ? digits[k] : JSON.stringify(v))).join(",") + "}";
  const data = await api("POST", "/api/tables", text);
  tableId = data.table_id;
  params.set("table", tableId);
  history.replaceState(null, "", "/table.html?" + params.toString());
  await showFrames(data.view);
}

function onKey(e) {
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
  const onMove = e.target && e.target.dataset && e.target.dataset.action !== undefined;
  const free = onMove || e.target === document.body || e.target === document.documentElement;
  if (!moveEls.length) return;
  if (["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"].includes(e.key)) {
    if (!free) return;
    e.preventDefault();
    usedKeyboard = true;
    const d = e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1;
    selected = (selected + d + moveEls.length) % moveEls.length;
    markSelected(true);
  } else if (e.key === "Enter" || e.key === " ") {
    if (!free) return;
    e.preventDefault();
    usedKeyboard = true;
    const idx = onMove ? moveEls.indexOf(e.target) : selected;
    const target = moveEls[idx >= 0 ? idx : selected];
    if (target) play(Number(target.dataset.action));
  }
}

async function main() {
  const rulesLink = el("a", { href: "/rules.html?game=" + encodeURIComponent(game), id: "rules-link", "data-i18n": "how_to_play" });
  const gamesLink = el("a", { href: "/", id: "games-link", "data-i18n": "games_title" });
  await initPage(render, [gamesLink, rulesLink]);
  document.getElementById("new-deal").addEventListener("click", newDeal);
  document.getElementById("hint-button").addEventListener("click", showHint);
  document.getElementById("replay-open").addEventListener("click", openReplay);
  document.getElementById("replay-prev").addEventListener("click", () => stepReplay(-1));
  document.getElementById("replay-next").addEventListener("click", () => stepReplay(1));
  document.getElementById("replay-close").addEventListener("click", closeReplay);
  document.addEventListener("keydown", onKey);
  // The table closes when the page does (the server keeps it a few seconds for a reload).
  window.addEventListener("pagehide", () => {
    if (tableId && navigator.sendBeacon) navigator.sendBeacon("/api/tables/" + encodeURIComponent(tableId) + "/close");
  });
  try {
    await openTable();
  } catch (e) {
    showError(e.message);
  }
  try {
    const g = ((await api("GET", "/api/games")).games || []).find((x) => x.id === game);
    matchInfo = g && g.match ? g.match : null;
  } catch (e) {
    matchInfo = null;
  }
  render();
  setBusy(false);
  const forced = forcedMove();
  if (forced != null) play(forced);
}

main();
