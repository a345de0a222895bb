"""Screenshot of the web card table for the README (``training/web/screenshot.png``).

    python -m cardzoo.training.web.screenshot [--game all_fours] [--moves 2] [--lang en] [--theme felt]
                                      [--size M] [--seed 3] [--speed instant] [--width 1280 --height 900]
                                      [--out training/web/screenshot.png]

A phone-size picture: ``--width 390 --height 844 --out training/web/screenshot_phone.png``.

Starts the app with uvicorn on a free local port, opens a table in headless chromium
(``/usr/bin/chromium`` via ``/usr/bin/chromedriver``, Selenium), plays the person's first legal
move ``--moves`` times (stopping early at the end of the deal), and saves a PNG of the window.
Needs the ``selenium`` package and Debian's ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server():
    """(base URL, uvicorn.Server, its thread) of the app running in a daemon thread on 127.0.0.1."""
    import uvicorn

    from cardzoo.training.web.app import create_app

    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start within 30 s")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", srv, thread


def chromium(width: int = 1280, height: int = 1000):
    """A headless Selenium chromium driver (Debian's chromium and chromedriver, no download)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    # --window-size counts the window's frame: grow the window until the page itself is width x height
    inner = drv.execute_script("return [window.innerWidth, window.innerHeight]")
    size = drv.get_window_size()
    drv.set_window_size(size["width"] + width - inner[0], size["height"] + height - inner[1])
    return drv


def _wait(drv, cond, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(drv, timeout, poll_frequency=0.05).until(lambda d: cond(d))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="all_fours")
    p.add_argument("--moves", type=int, default=2)
    p.add_argument("--lang", default="en", choices=["en", "id"])
    p.add_argument("--theme", default="felt", choices=["felt", "dark", "light"])
    p.add_argument("--contrast", default="normal", choices=["normal", "high"])
    p.add_argument("--size", default="M", choices=["S", "M", "L"])
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--speed", default="instant", choices=["slow", "normal", "fast", "instant"])
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=900)
    p.add_argument("--out", default="training/web/screenshot.png")
    a = p.parse_args(argv)
    base, srv, thread = start_server()
    drv = chromium(a.width, a.height)
    try:
        drv.get(base + "/")
        settings = {"lang": a.lang, "theme": a.theme, "contrast": a.contrast, "size": a.size, "speed": a.speed}
        drv.execute_script("localStorage.setItem('cardzoo.settings', JSON.stringify(arguments[0]))", settings)
        url = f"{base}/table.html?game={a.game}&seed={a.seed}"
        if a.players:
            url += f"&players={a.players}"
        drv.get(url)
        seq = 0
        for _ in range(a.moves + 1):
            _wait(drv, lambda d: d.execute_script("return document.body.dataset.busy") == "0"
                  and int(d.execute_script("return document.body.dataset.seq")) > seq)
            seq = int(drv.execute_script("return document.body.dataset.seq"))
            if _ == a.moves or drv.execute_script("return document.body.dataset.done") == "1":
                break
            drv.execute_script(
                "const b = document.querySelector('#hand button.legal, #move-cards button.legal, #move-buttons button.move');"
                "if (b) b.click();"
            )
        drv.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        drv.save_screenshot(a.out)
        print(f"wrote {a.out}")
    finally:
        drv.quit()
        srv.should_exit = True
        thread.join(timeout=10)


if __name__ == "__main__":
    main()
