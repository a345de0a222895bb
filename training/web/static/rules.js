// Rules page: /rules.html?game=ID shows the short "How to play" page in the interface language
// (/api/howto/{game}?lang=...) and, one link away, the full RULES.md (/api/rules/{game}, English).

import { api, el, initPage, showError } from "./common.js";
import { currentSettings } from "./common.js";
import { ui } from "./i18n.js";

const params = new URLSearchParams(location.search);
const game = params.get("game") || "";
const full = params.get("full") === "1";

async function load() {
  try {
    if (full) {
      const data = await api("GET", "/api/rules/" + encodeURIComponent(game));
      document.getElementById("rules").innerHTML = data.html;
    } else {
      const data = await api("GET", "/api/howto/" + encodeURIComponent(game) + "?lang=" + currentSettings().lang);
      document.getElementById("rules").innerHTML = data.html;
    }
  } catch (e) {
    showError(e.message);
  }
}

function render() {
  document.title = (full ? ui("rules") : ui("how_to_play")) + " — " + (game || "cardzoo");
  const other = document.getElementById("other-link");
  other.href = "/rules.html?game=" + encodeURIComponent(game) + (full ? "" : "&full=1");
  other.textContent = full ? ui("how_to_play") : ui("full_rules");
  document.getElementById("rules-note").textContent = full ? ui("rules_note") : ui("howto_note");
  document.body.dataset.view = full ? "rules" : "howto";
}

async function main() {
  await initPage(async () => {
    render();
    await load();
  }, [el("a", { href: "/", id: "games-link", "data-i18n": "games_title" })]);
  document.getElementById("play-link").href = "/table.html?game=" + encodeURIComponent(game);
  render();
  await load();
  document.body.dataset.ready = "1";
}

main();
