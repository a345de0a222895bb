// Rules page: /rules.html?game=ID shows the game's RULES.md rendered by the server (/api/rules/{game}).
// The rules text itself exists in English only (a note says so in Indonesian).

import { api, el, initPage, showError } from "./common.js";
import { ui } from "./i18n.js";

const game = new URLSearchParams(location.search).get("game") || "";

function render() {
  document.title = ui("rules") + " — " + (game || "cardzoo");
}

async function main() {
  await initPage(render, [el("a", { href: "/", id: "games-link", "data-i18n": "games_title" })]);
  document.getElementById("play-link").href = "/table.html?game=" + encodeURIComponent(game);
  render();
  try {
    const data = await api("GET", "/api/rules/" + encodeURIComponent(game));
    document.getElementById("rules").innerHTML = data.html;
  } catch (e) {
    showError(e.message);
  }
  document.body.dataset.ready = "1";
}

main();
