"""Driving the Voila explorers in a real browser (Debian's chromium + chromedriver).

Used by tests/test_browser.py and by ``python -m tests.browser`` to refresh the screenshots
under docs/.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: The Voila template the explorers are served with: Voila's lab template without its CDN
#: stylesheets (share/jupyter/voila/templates/chessmoe-offline), found through JUPYTER_PATH.
VOILA_TEMPLATE = "chessmoe-offline"


def missing_chromium() -> str | None:
    """Why Chromium cannot be driven here (None when it can): the browser, its driver or
    selenium is absent."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install chromium)"
    if not CHROMEDRIVER.exists():
        return f"{CHROMEDRIVER} is absent (apt-get install chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    return None


def missing() -> str | None:
    """Why the explorers' browser test cannot run here (None when it can)."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install chromium)"
    if not CHROMEDRIVER.exists():
        return f"{CHROMEDRIVER} is absent (apt-get install chromium-driver)"
    voila = Path(sys.executable).parent / "voila"
    if not voila.exists() and shutil.which("voila") is None:
        return "voila is not installed (pip install voila)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def voila(notebook: str | Path) -> Iterator[str]:
    """Serve ``notebooks/<notebook>`` (or the notebook at a path) with Voila on a free
    localhost port, the kernel importing this checkout's chessmoe; yields its URL."""
    port = _free_port()
    voila_bin = Path(sys.executable).parent / "voila"
    path = notebook if isinstance(notebook, Path) else ROOT / "notebooks" / notebook
    command = [str(voila_bin if voila_bin.exists() else shutil.which("voila")),
               str(path), "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", f"--template={VOILA_TEMPLATE}"]
    env = os.environ | {"PYTHONPATH": str(ROOT),
                        "JUPYTER_PATH": str(ROOT / "share" / "jupyter")}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def jupyterlab(root: Path) -> Iterator[str]:
    """JupyterLab on a free localhost port over ``root`` (no token; config, workspaces and
    runtime files kept under ``root``); yields its URL."""
    port = _free_port()
    jupyter = Path(sys.executable).parent / "jupyter"
    env = os.environ | {"PYTHONPATH": str(ROOT), "JUPYTER_CONFIG_DIR": str(root / ".cfg"),
                        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".ws"),
                        "JUPYTER_RUNTIME_DIR": str(root / ".rt")}
    process = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={root}",
         "--allow-root"], cwd=root, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.3)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def lab_run_all(driver: Any, timeout: float = 60) -> None:
    """JupyterLab's Run > Run All Cells (retried until the menu answers)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    item = "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"
    # cells run before the kernel is up are lost: wait for the status bar's "Idle"
    until(driver, lambda d: "| Idle" in d.find_element(By.ID, "jp-main-statusbar").text,
          "the notebook's kernel to be idle", timeout)
    deadline = time.monotonic() + timeout
    while True:  # the menu bar answers once JupyterLab has started
        try:
            driver.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') "
                                          "and text()='Run']").click()
            found = until(driver, lambda d: [e for e in d.find_elements(By.XPATH, item)
                                             if e.is_displayed()],
                          "the Run menu's Run All Cells to show", 10)
            found[0].click()
            return
        except (WebDriverException, AssertionError):
            if time.monotonic() > deadline:
                raise


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on a free localhost port (a thread); yields its URL."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

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
    to resolve, and the requests are logged for :func:`requests_made`)."""
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


def requests_made(driver: Any) -> list[str]:
    """Every URL the browser asked for since the last call (pages, scripts, styles, fonts,
    images, web sockets), read from the performance log of a Chromium started with
    ``offline=True``; failed requests are listed too."""
    import json

    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(str(message["params"]["request"]["url"]))
        elif message["method"] == "Network.webSocketCreated":
            urls.append(str(message["params"]["url"]))
    return urls


def external(urls: list[str]) -> list[str]:
    """The URLs that leave this machine (anything but 127.0.0.1/localhost, data: and blob:)."""
    local = ("http://127.0.0.1:", "ws://127.0.0.1:", "http://localhost:", "ws://localhost:",
             "data:", "blob:", "about:")
    return [url for url in urls if not url.startswith(local)]


def until(driver: Any, check: Any, what: str, timeout: float = 90) -> Any:
    """Wait (polling the page, not sleeping a fixed time) until ``check(driver)`` returns a
    true value, and return it; after ``timeout`` seconds fail with what was awaited and the
    start of the page's text. A page being redrawn (a stale or missing element) is read
    again."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        TimeoutException,
    )
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def probe(d: Any) -> Any:
        try:
            return check(d)
        except (NoSuchElementException, StaleElementReferenceException):
            return False

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.25).until(probe)
    except TimeoutException:
        try:
            text = driver.find_element(By.TAG_NAME, "body").text[:1500]
        except Exception as error:
            text = f"(the page could not be read: {error})"
        raise AssertionError(f"waited {timeout:g} s for {what}; the page reads: {text}") from None


def set_text_input(driver: Any, label: str, value: str) -> None:
    """Type ``value`` into the ipywidgets text box labelled ``label`` and commit it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(
        By.XPATH, f"//label[normalize-space()='{label}']/following-sibling::input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(value, Keys.ENTER)


def wait_for(driver: Any, css: str, timeout: float = 60) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css)))


def image_sources(driver: Any) -> list[str]:
    from selenium.webdriver.common.by import By

    return [str(i.get_attribute("src")) for i in driver.find_elements(By.CSS_SELECTOR,
                                                                       "img.widget-image")]


def element_png(driver: Any, css: str) -> bytes:
    """A screenshot of the first element matching ``css`` (the explorer's widget box)."""
    from selenium.webdriver.common.by import By

    element = driver.find_element(By.CSS_SELECTOR, css)
    driver.execute_script("arguments[0].scrollIntoView();", element)
    return bytes(element.screenshot_as_png)


def page_problems(driver: Any, url: str, timeout: float = 30) -> tuple[list[str], list[str]]:
    """Open ``url`` and return (problems, links): console errors, images not rendered
    (``naturalWidth`` 0) and resources fetched from anywhere but the page's own server; and
    every link's absolute address."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # drop what earlier pages left
    driver.get(url)
    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    # every <img> done loading (decoded or failed) before its width is read
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(
        "return Array.from(document.images).every(i => i.complete)"))
    problems = [f"console {entry['level']}: {entry['message']}"
                for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    broken = driver.execute_script(
        "return Array.from(document.images).filter(i => !(i.naturalWidth > 0))"
        ".map(i => i.getAttribute('src'))")
    problems += [f"image not rendered: {src}" for src in broken]
    origin = url.split("/", 3)[:3]
    fetched = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    problems += [f"fetched from the network: {name}" for name in fetched
                 if name.split("/", 3)[:3] != origin and not name.startswith(("data:", "blob:"))]
    links = driver.execute_script(
        "return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    return problems, [str(link) for link in links]


def save_small_png(data: bytes, path: Path, colors: int = 64) -> None:
    """Save a screenshot with a ``colors``-colour palette (small enough to commit)."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    image.quantize(colors=colors).save(path, optimize=True)


def report_screenshots(site: Path) -> list[Path]:
    """Screenshots of the built report's landing page and Fig. 6's page into docs/."""
    saved = []
    with serve(site) as url, chromium(width=1300, height=1250) as driver:
        for page, name in (("index.html", "report-landing.png"),
                           ("artefacts/fig06-single-expert-nodes.html", "report-figure.png")):
            driver.get(url + page)
            wait_for(driver, "div.body")
            time.sleep(1)
            # 256 colours: with fewer the figures' coloured points turn grey
            save_small_png(bytes(driver.get_screenshot_as_png()), ROOT / "docs" / name, 256)
            saved.append(ROOT / "docs" / name)
    return saved


def _explorer_screenshots() -> None:
    from selenium.webdriver.common.by import By

    with voila("07_elo_explorer.ipynb") as url, chromium(height=2600) as driver:
        driver.get(url)
        until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "img.sprt-planner"),
              "the Elo explorer's planner", 180)
        time.sleep(2)  # the last images decode
        save_small_png(element_png(driver, ".widget-vbox"), ROOT / "docs" / "elo-explorer.png")
    print("saved docs/elo-explorer.png")
    with voila("12_phase_explorer.ipynb") as url, chromium(height=2600) as driver:
        driver.get(url)
        until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "img.phase-summary"),
              "the phase explorer's summary", 180)
        time.sleep(2)
        save_small_png(element_png(driver, ".widget-vbox"), ROOT / "docs" / "phase-explorer.png")
        typical = driver.find_element(
            By.XPATH, "//div[contains(@class,'jp-RenderedHTMLCommon')]"
                      "[.//h4[normalize-space()='Typical opening']]")
        driver.execute_script("arguments[0].scrollIntoView();", typical)
        save_small_png(bytes(typical.screenshot_as_png), ROOT / "docs" / "phase-positions.png")
    print("saved docs/phase-explorer.png, docs/phase-positions.png")


if __name__ == "__main__":  # refresh docs/ screenshots: the explorers, or with "report" the
    # report's pages (built first by make report into build/report)
    if sys.argv[1:] == ["report"]:
        for path in report_screenshots(ROOT / "build" / "report"):
            print(f"saved {path.relative_to(ROOT)}")
    else:
        _explorer_screenshots()
