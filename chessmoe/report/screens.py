"""The report's screenshots under ``docs/`` (``report-landing.png``, ``report-figure.png``),
taken by ``make report`` from the site it has just built, in a headless Chromium, so they are
never older than the answer they show.

Beside them, :data:`STAMP` records a fingerprint of the answer the landing page showed
(:func:`answer_fingerprint`: the answer's lines as :func:`chessmoe.report.answer.answer_lines`
gives them from ``figures/``); :func:`stale` says when the committed screenshots show another
answer than the committed claims table gives (a test fails then: ``make report`` retakes
them). Chromium, its driver and selenium are needed only to take them
(:func:`missing_browser`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from chessmoe.report import answer, stems

__all__ = ["CHROMEDRIVER", "CHROMIUM", "SHOTS", "STAMP", "answer_fingerprint", "chromium",
           "missing_browser", "save_small_png", "serve", "stale", "take"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: The report's pages the screenshots show, and their files under ``docs/``.
SHOTS: tuple[tuple[str, str], ...] = (
    ("index.html", "report-landing.png"),
    (f"artefacts/{stems.FIG06_SINGLE_EXPERT_NODES}.html", "report-figure.png"))
#: The record of what the screenshots show, under ``docs/``.
STAMP = "report-screenshots.json"


def missing_browser() -> str | None:
    """Why Chromium cannot be driven here (None when it can)."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install chromium)"
    if not CHROMEDRIVER.exists():
        return f"{CHROMEDRIVER} is absent (apt-get install chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    return None


def answer_fingerprint(figures: Path) -> str:
    """The sha256 of the answer the landing page shows (from ``figures``' claims table)."""
    text = "\n".join(answer.answer_lines(figures))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stale(root: Path) -> str | None:
    """Why ``root``'s committed screenshots are stale (None when they show the answer the
    committed claims table gives)."""
    path = root / "docs" / STAMP
    if not path.is_file():
        return f"{path} is missing: run `make report` (with Chromium) to take the screenshots"
    recorded = json.loads(path.read_text(encoding="utf-8")).get("answer_sha256")
    if recorded != answer_fingerprint(root / "figures"):
        return ("the report's screenshots show an older answer than figures/claims.csv "
                "gives: run `make report` (with Chromium) to retake them")
    missing = [name for _, name in SHOTS if not (root / "docs" / name).is_file()]
    return f"missing screenshots: {', '.join(missing)}" if missing else None


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on a free localhost port (a thread); yields its URL."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def chromium(width: int = 1250, height: int = 1500, console: bool = False,
             offline: bool = False) -> Iterator[Any]:
    """A headless Chromium driven by chromedriver (``console``: keep the pages' console
    messages for ``driver.get_log("browser")``; ``offline``: every host but 127.0.0.1 fails
    to resolve, and the requests are logged in the ``performance`` log)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(flag)
    if offline:
        options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    logs = ({"browser": "ALL"} if console else {}) | ({"performance": "ALL"} if offline else {})
    if logs:
        options.set_capability("goog:loggingPrefs", logs)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def save_small_png(data: bytes, path: Path, colors: int = 64) -> None:
    """Save a screenshot with a ``colors``-colour palette (small enough to commit)."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    image.quantize(colors=colors).save(path, optimize=True)


def take(site: Path, docs: Path, figures: Path) -> list[Path]:
    """Screenshots of the built ``site``'s pages (:data:`SHOTS`) into ``docs``, and the
    record of the answer they show (:data:`STAMP`); returns the files written."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    saved = []
    with serve(site) as url, chromium(width=1300, height=1250) as driver:
        for page, name in SHOTS:
            driver.get(url + page)
            WebDriverWait(driver, 30).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "div.body"))
            WebDriverWait(driver, 30).until(lambda d: d.execute_script(
                "return Array.from(document.images).every(i => i.complete)"))
            time.sleep(0.5)
            # 256 colours: with fewer the figures' coloured points turn grey
            save_small_png(bytes(driver.get_screenshot_as_png()), docs / name, 256)
            saved.append(docs / name)
    stamp = docs / STAMP
    stamp.write_text(json.dumps({"answer_sha256": answer_fingerprint(figures),
                                 "pages": [page for page, _ in SHOTS]}, indent=2) + "\n",
                     encoding="utf-8")
    return [*saved, stamp]
