// Game list: one panel per game from /api/games, with the AI choice for partner and opponents,
// the number of players where the game allows several, a link to the rules, and "Play".

import { api, el, initPage, showError } from "./common.js";
import { t, ui } from "./i18n.js";

let games = [];
const chosen = {}; // game id -> {players, partner, opponents}

function agentLabel(name) {
  const kind = name.includes("/") ? name.split("/").pop() : name;
  return t("ui", "agent_" + kind, kind) + " (" + name + ")";
}

function agentSelect(id, labelKey, agents, value, onChange) {
  const sel = el("select", { id });
  sel.append(el("option", { value: "", text: ui("agent_default") }));
  for (const a of agents) sel.append(el("option", { value: a, text: agentLabel(a) }));
  sel.value = value;
  sel.addEventListener("change", () => onChange(sel.value));
  return el("label", { class: "field" }, el("span", { text: ui(labelKey) }), sel);
}

function render() {
  const list = document.getElementById("games");
  list.innerHTML = "";
  for (const g of games) {
    const c = chosen[g.id];
    const li = el("li", { class: "game pack-" + g.pack, id: "game-" + g.id, "data-game": g.id });
    li.append(el("h2", { text: g.name }));
    li.append(el("p", { class: "desc", text: t("game", g.id + "_desc", "") }));
    const p = g.players || { min: 4, max: 4, default: 4 };
    const players =
      p.min === p.max ? ui("players_fixed", { n: p.min }) : ui("players_range", { min: p.min, max: p.max });
    li.append(
      el(
        "p",
        { class: "meta" },
        el("span", { text: players }),
        el("span", { text: " · " + (g.teams ? ui("partnerships") : ui("each_alone")) }),
        el("span", { text: " · " + ui("pack_" + g.pack) })
      )
    );
    const form = el("div", { class: "options" });
    if (p.min !== p.max) {
      const sel = el("select", { id: "players-" + g.id });
      for (let n = p.min; n <= p.max; n++) sel.append(el("option", { value: String(n), text: String(n) }));
      sel.value = String(c.players);
      sel.addEventListener("change", () => (c.players = Number(sel.value)));
      form.append(el("label", { class: "field" }, el("span", { text: ui("players") }), sel));
    }
    if (g.id === "pyanitsa") {
      // The only decision in P'yanitsa: the winner of a battle orders the won cards (collect_order).
      const box = el("input", { type: "checkbox", id: "order-" + g.id });
      box.checked = !!c.winnerChooses;
      box.addEventListener("change", () => (c.winnerChooses = box.checked));
      form.append(el("label", { class: "check" }, box, el("span", { text: " " + ui("winner_chooses") })));
    }
    if (g.match) {
      // One deal, or a whole match as the game's rules define it (the match options of /api/games).
      const sel = el("select", { id: "length-" + g.id });
      sel.append(el("option", { value: "deal", text: ui("one_deal") }));
      sel.append(el("option", { value: "match", text: ui("whole_match", { length: t("ui", "match_" + g.id, g.match.length) }) }));
      sel.value = c.length || "deal";
      sel.addEventListener("change", () => (c.length = sel.value));
      form.append(el("label", { class: "field" }, el("span", { text: ui("length") }), sel));
    }
    const agents = g.agents || [];
    if (agents.length) {
      if (g.teams)
        form.append(agentSelect("partner-" + g.id, "partner_ai", agents, c.partner, (v) => (c.partner = v)));
      form.append(agentSelect("opponents-" + g.id, "opponents_ai", agents, c.opponents, (v) => (c.opponents = v)));
    }
    li.append(form);
    const play = el("button", { class: "primary play", id: "play-" + g.id, type: "button", text: ui("play") });
    play.addEventListener("click", () => {
      const q = new URLSearchParams({ game: g.id });
      if (p.min !== p.max) q.set("players", String(c.players));
      if (g.teams && c.partner) q.set("partner", c.partner);
      if (c.opponents) q.set("opponents", c.opponents);
      if (c.winnerChooses) q.set("opt.collect_order", "winner_chooses");
      if (c.length === "match" && g.match)
        for (const [k, v] of Object.entries(g.match.options)) q.set("opt." + k, typeof v === "string" ? v : JSON.stringify(v));
      location.href = "/table.html?" + q.toString();
    });
    const rules = el("a", { class: "button", href: "/rules.html?game=" + encodeURIComponent(g.id), text: ui("how_to_play") });
    li.append(el("div", { class: "actions" }, play, rules));
    list.append(li);
  }
  document.title = ui("games_title") + " — cardzoo";
}

async function main() {
  await initPage(render);
  try {
    const data = await api("GET", "/api/games");
    games = data.games || [];
    for (const g of games) {
      const p = g.players || { default: 4 };
      chosen[g.id] = { players: p.default, partner: "", opponents: "" }; // "": the server's default AI
    }
  } catch (e) {
    showError(e.message);
  }
  render();
  document.body.dataset.ready = "1";
}

main();
