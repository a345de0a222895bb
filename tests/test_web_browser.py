"""End-to-end test of the web card table in a real browser (issue 8).

Starts the FastAPI app (``cardzoo.training.web.app.create_app``) with uvicorn on 127.0.0.1 at a free port in
a background thread and drives Debian's chromium (``/usr/bin/chromium``) through
``/usr/bin/chromedriver`` with Selenium (headless). It opens the game list, plays a whole deal of
All Fours and one of Aluette by clicking legal moves (one All Fours move by keyboard: arrow key,
then Enter), checks the end-of-deal summary, switches the interface to Bahasa Indonesia (the
visible text changes and stays changed after a reload), changes the card size (persists after a
reload), opens a 3-player P'yanitsa table and a rules page, and saves a screenshot to ``tmp_path``.

Without chromium/chromedriver the test is skipped, unless the environment variable ``CI`` is
``"true"``: then it fails, because CI installs the browser (``.ci/run``). Every wait has a timeout
and each deal a move cap, so the test is bounded in time (about 15 s here).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT_S = 30  # longest wait for any page state
MOVE_CAP = 300  # most moves the person makes in one deal before the test gives up


def _require_browser():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        msg = f"browser test needs {', '.join(missing)} (apt-get install chromium chromium-driver; pip install selenium)"
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but " + msg)
        pytest.skip(msg)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    _require_browser()
    import uvicorn

    from cardzoo.training.web.app import create_app

    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not srv.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, f"uvicorn did not start within {WAIT_S} s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def driver(server):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    drv.set_page_load_timeout(WAIT_S)
    drv.set_script_timeout(WAIT_S)
    yield drv
    drv.quit()


# ---------------------------------------------------------------------------- helpers


def _wait(drv, cond, what):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(drv, WAIT_S, poll_frequency=0.05).until(lambda d: cond(d), message=f"timed out waiting for {what}")


def _body(drv, name):
    return drv.execute_script(f"return document.body.dataset.{name};")


def _wait_table_ready(drv, after_seq=0):
    _wait(drv, lambda d: _body(d, "busy") == "0" and int(_body(d, "seq") or 0) > after_seq, "the table to render")
    return int(_body(drv, "seq"))


def _legal(drv):
    from selenium.webdriver.common.by import By

    return drv.find_elements(By.CSS_SELECTOR, "#hand button.legal, #move-cards button.legal, #move-buttons button.move")


def _check_hand(drv, pack_re):
    """Every hand card is a button named after its card; without a legal move it is disabled."""
    from selenium.webdriver.common.by import By

    cards = drv.find_elements(By.CSS_SELECTOR, "#hand button.card")
    assert cards, "the person's hand is empty during the deal"
    for c in cards:
        assert re.search(pack_re, c.get_attribute("aria-label")), c.get_attribute("aria-label")
        assert c.get_attribute("data-action") is not None or not c.is_enabled()


def _play_deal(drv, pack_re, keyboard_move=False):
    """Play seat 0's moves (first legal move, hand cards first) until the deal is over.
    Returns the number of moves made."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    seq = _wait_table_ready(drv)
    moves = 0
    checked_hand = False
    while _body(drv, "done") != "1":
        assert moves < MOVE_CAP, f"the deal did not end within {MOVE_CAP} moves"
        assert _body(drv, "yourTurn") == "1", "the server returned a view where it is not the person's turn"
        legal = _legal(drv)
        assert legal, "it is the person's turn but no move is offered"
        if not checked_hand and drv.execute_script("return document.querySelectorAll('#hand button.legal').length"):
            _check_hand(drv, pack_re)
            checked_hand = True
        if keyboard_move and len(legal) >= 2:
            keyboard_move = False
            want = legal[1].get_attribute("data-action")
            log_len = drv.execute_script("return document.querySelectorAll('#log li').length")
            drv.execute_script("document.activeElement && document.activeElement.blur && document.activeElement.blur()")
            ActionChains(drv).send_keys(Keys.ARROW_RIGHT).perform()
            active = drv.switch_to.active_element
            assert active.get_attribute("data-action") == want, "ArrowRight did not select the second legal move"
            assert "selected" in active.get_attribute("class")
            ActionChains(drv).send_keys(Keys.ENTER).perform()
            seq = _wait_table_ready(drv, seq)
            assert drv.execute_script("return document.querySelectorAll('#log li').length") > log_len
        else:
            legal[0].click()
            seq = _wait_table_ready(drv, seq)
        assert not drv.find_element("id", "error").is_displayed(), drv.find_element("id", "error").text
        moves += 1
    assert not keyboard_move, "no position with two legal moves came up for the keyboard move"
    return moves


def _check_summary(drv):
    from selenium.webdriver.common.by import By

    box = drv.find_element(By.ID, "summary")
    _wait(drv, lambda d: box.is_displayed(), "the end-of-deal summary")
    assert drv.find_element(By.ID, "summary-title").text.strip()
    rows = drv.find_elements(By.CSS_SELECTOR, "#summary table tbody tr")
    assert rows, "the summary shows no score lines"
    assert drv.find_element(By.ID, "new-deal").is_displayed()
    return box.text


# ---------------------------------------------------------------------------- the test


def test_play_two_games_languages_and_settings(server, driver, tmp_path: Path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    drv = driver
    started = time.monotonic()

    # Game list: one panel per game, the AI choices come from /api/games.
    drv.get(server + "/")
    _wait(drv, lambda d: _body(d, "ready") == "1", "the game list")
    games = [li.get_attribute("data-game") for li in drv.find_elements(By.CSS_SELECTOR, "#games li.game")]
    assert {"all_fours", "ottocento", "avinas", "aluette", "pyanitsa"} <= set(games)
    assert drv.find_element(By.ID, "home-link").text == "cardzoo card table"
    Select(drv.find_element(By.ID, "partner-all_fours")).select_by_value("all_fours/random")
    Select(drv.find_element(By.ID, "opponents-all_fours")).select_by_value("all_fours/random")
    drv.find_element(By.ID, "play-all_fours").click()

    # All Fours: a whole deal, one move by keyboard.
    _wait(drv, lambda d: "table.html" in d.current_url and "table=" in d.current_url, "the All Fours table")
    assert "All Fours" in drv.find_element(By.ID, "game-name").text
    seats = drv.find_elements(By.CSS_SELECTOR, "#felt .seat:not([hidden])")
    assert len(seats) == 4
    assert "Partner" in drv.find_element(By.ID, "seat-top").text
    moves = _play_deal(drv, r" of (clubs|diamonds|hearts|spades)", keyboard_move=True)
    assert moves >= 6  # at least one card per trick of a 6-card hand
    summary_en = _check_summary(drv)
    assert "End" in summary_en or "Result" in summary_en or "hand" in summary_en.lower()
    drv.save_screenshot(str(tmp_path / "all_fours_end.png"))

    # Aluette (Spanish pack) straight from its URL, with random AI seats.
    drv.get(server + "/table.html?game=aluette&partner=aluette/random&opponents=aluette/random&seed=5")
    assert "Aluette" in _wait(drv, lambda d: d.find_element(By.ID, "game-name").text, "the Aluette table")
    _play_deal(drv, r" of (coins|cups|swords|clubs \(bastos\))")
    _check_summary(drv)

    # Language: Indonesian everywhere, kept after a reload.
    Select(drv.find_element(By.ID, "set-lang")).select_by_value("id")
    _wait(drv, lambda d: d.find_element(By.ID, "home-link").text == "Meja kartu cardzoo", "Indonesian text")
    assert drv.find_element(By.ID, "new-deal").text == "Bagikan lagi"
    assert drv.execute_script("return document.documentElement.lang") == "id"
    drv.refresh()
    _wait_table_ready(drv)
    assert drv.find_element(By.ID, "home-link").text == "Meja kartu cardzoo"
    assert "Babak selesai" in drv.find_element(By.ID, "turn").text
    labels = [c.get_attribute("aria-label") for c in drv.find_elements(By.CSS_SELECTOR, "#log .mini-card")]
    assert any(re.search(r"(koin|piala|pedang|tongkat)", x or "") for x in labels)

    # A new deal at the same table: the summary goes away and the person has cards again.
    drv.find_element(By.ID, "new-deal").click()
    _wait(drv, lambda d: _body(d, "done") == "0" and _body(d, "busy") == "0", "a new deal")
    assert not drv.find_element(By.ID, "summary").is_displayed()
    assert drv.find_elements(By.CSS_SELECTOR, "#hand button.card")

    # A display setting: large cards, kept after a reload.
    small = drv.execute_script("return document.querySelector('#hand .card').getBoundingClientRect().width")
    Select(drv.find_element(By.ID, "set-size")).select_by_value("L")
    assert drv.execute_script("return document.documentElement.dataset.size") == "L"
    drv.refresh()
    _wait_table_ready(drv)
    assert drv.execute_script("return document.documentElement.dataset.size") == "L"
    assert Select(drv.find_element(By.ID, "set-size")).first_selected_option.get_attribute("value") == "L"
    assert drv.execute_script("return document.querySelector('#hand .card').getBoundingClientRect().width") > small

    # P'yanitsa with 3 players: three seats, each alone, and the FLIP button (in Indonesian).
    drv.get(server + "/table.html?game=pyanitsa&players=3&opponents=pyanitsa/random")
    _wait_table_ready(drv)
    assert len(drv.find_elements(By.CSS_SELECTOR, "#felt .seat:not([hidden])")) == 3
    assert "Pasangan" not in drv.find_element(By.ID, "felt").text
    assert "Buka kartu" in drv.find_element(By.ID, "move-buttons").text
    drv.save_screenshot(str(tmp_path / "pyanitsa_id.png"))

    # An unknown view key falls back to the key with "_" replaced by " ".
    fallback = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/static/i18n.js').then((m) => done([m.t('key', 'some_new_fact'), m.t('key', 'trump')]));"
    )
    assert fallback == ["some new fact", "Truf"]

    # Rules page, and back to English.
    drv.get(server + "/rules.html?game=ottocento")
    _wait(drv, lambda d: "Ottocento" in d.find_element(By.ID, "rules").text, "the Ottocento rules")
    Select(drv.find_element(By.ID, "set-lang")).select_by_value("en")
    _wait(drv, lambda d: d.find_element(By.ID, "home-link").text == "cardzoo card table", "English text")
    # No script error or failed request anywhere on the way.
    errors = [e["message"] for e in drv.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    assert time.monotonic() - started < 240
