"""Figures of the web table: home -> first bid against bots (clicks, seconds: the tutorial, the form, Play
now), the table page's weight, click -> your card shown on the table (median over a game). Not a test: run
``.venv/bin/python tests/web/measure_figures.py`` (needs Debian's chromium)."""

import gzip
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
from playwright.sync_api import sync_playwright  # noqa: E402

from support.server import ServerProcess  # noqa: E402


def main() -> None:
    static = ROOT / "src" / "luz" / "web" / "static"
    files = [
        "table.html",
        "css/luz.css",
        "js/table.js",
        "js/tablestate.js",
        "js/connection.js",
        "js/controls.js",
        "js/render.js",
        "js/board.js",
        "js/common.js",
        "js/site.js",
        "js/i18n.js",
        "js/alerts.js",
        "js/motion.js",
        "i18n/en.json",
        "favicon.svg",
    ]
    raw = sum((static / f).stat().st_size for f in files)
    gz = sum(len(gzip.compress((static / f).read_bytes(), 9)) for f in files)
    print(f"table page weight ({len(files)} files): {raw} B uncompressed, {gz} B gzip -9 (file by file)")

    folder = Path(tempfile.mkdtemp(prefix="luz-web-figures-"))
    srv = ServerProcess(f"sqlite:///{folder}/m{time.time()}.sqlite3", folder / "server.log").start()
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for route in ("tutorial", "create", "play-now"):
                page = b.new_page(viewport={"width": 375, "height": 667})
                start = time.monotonic()
                page.goto(f"{srv.http}/")
                page.wait_for_selector("#edition option", state="attached")
                clicks = 0
                if route == "tutorial":
                    page.click("#tutorial-button")
                    clicks += 1
                elif route == "play-now":
                    page.click("#play-now")
                    clicks += 1
                else:
                    page.fill("#player-name", "Ana")
                    page.click("#create-button")
                    clicks += 1
                page.wait_for_selector("#bid-buttons button:not(:disabled)", timeout=60000)
                page.locator("#bid-buttons button:not(:disabled)").nth(1).click()
                clicks += 1
                page.wait_for_function(
                    "!document.querySelector('#me-bid').textContent.includes('no bid')", timeout=60000
                )
                print(
                    f"home -> first bid via {route}: {clicks} clicks, "
                    f"{time.monotonic() - start:.2f} s (page load included)"
                )
                page.close()
            # Click -> card shown, over a whole game at the default pace (500 ms) against random bots.
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{srv.http}/")
            page.wait_for_selector("#edition option", state="attached")
            page.fill("#player-name", "Ana")
            for seat in (1, 2, 3):
                page.select_option(f"#seat-{seat}", "bot:random")
            page.click("#create-button")
            page.wait_for_url("**/t/**")
            page.select_option("#pace", "500")
            delays = []
            while True:
                page.wait_for_function(
                    """!document.querySelector('#over').hidden
                  || document.querySelector('#bid-buttons button:not(:disabled)')
                  || document.querySelector('#my-hand button.card:not(:disabled):not([aria-pressed])')""",
                    timeout=60000,
                )
                if not page.locator("#over").is_hidden():
                    break
                if page.locator("#bid-buttons button:not(:disabled)").count():
                    page.locator("#bid-buttons button:not(:disabled)").first.click()
                    continue
                delay = page.evaluate("""() => new Promise(done => {
                  const button = document.querySelector('#my-hand button.card:not(:disabled):not([aria-pressed])');
                  const played = () => [...document.querySelectorAll('#trick-cards .trick-play')]
                    .some(e => e.dataset.from === `0:${button.dataset.slot}`);
                  const t0 = performance.now();
                  button.click();
                  const look = () => played() ? done(performance.now() - t0) : requestAnimationFrame(look);
                  look();
                })""")
                delays.append(delay)
            print(
                f"click -> card shown on the table: median {statistics.median(delays):.0f} ms over {len(delays)} cards "
                f"(min {min(delays):.0f}, max {max(delays):.0f}), pace 500 ms"
            )
            b.close()
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
