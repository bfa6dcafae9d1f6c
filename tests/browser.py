"""Driving the Voila explorers in a real browser (Debian's chromium + chromedriver).

Used by tests/test_browser.py and by ``python -m tests.browser`` to refresh the screenshots
under docs/. Every wait is on state (a port that listens, an element, a text) with a timeout
scaled for a loaded machine (:func:`tests.helpers.scaled`); :func:`until` is the one a test
uses to wait for what a page shows.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from chessmoe.report.screens import chromium, missing_browser, save_small_png, serve, take
from tests.helpers import wait_until

__all__ = ["chromium", "missing_browser", "save_small_png", "serve"]  # the report's, used here

ROOT = Path(__file__).resolve().parents[1]
#: The Voila template the explorers are served with: Voila's lab template without its CDN
#: stylesheets (share/jupyter/voila/templates/chessmoe-offline), found through JUPYTER_PATH.
VOILA_TEMPLATE = "chessmoe-offline"


def missing() -> str | None:
    """Why the explorers' browser test cannot run here (None when it can): Chromium cannot be
    driven (:func:`~chessmoe.report.screens.missing_browser`) or voila is absent."""
    voila = Path(sys.executable).parent / "voila"
    if not voila.exists() and shutil.which("voila") is None:
        return missing_browser() or "voila is not installed (pip install voila)"
    return missing_browser()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _await_server(process: subprocess.Popen[bytes], port: int, name: str,
                  timeout: float) -> None:
    """Wait until ``process`` listens on ``port``; fail naming ``name`` when it exits first
    or does not listen within ``scaled(timeout)`` seconds."""
    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"{name} exited with code {process.returncode} before "
                                 f"listening on port {port}")
        return _listening(port)

    wait_until(up, f"{name} to listen on 127.0.0.1:{port}", timeout, interval=0.3)


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
        _await_server(process, port, "voila", 30)
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
        _await_server(process, port, "jupyter lab", 40)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _lab_state(driver: Any) -> str:
    """JupyterLab's status bar and the code cells' prompts (for failure messages)."""
    from selenium.webdriver.common.by import By

    status = " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR,
                                                           ".jp-StatusBar-TextItem") if e.text)
    prompts = " ".join(e.text for e in driver.find_elements(
        By.CSS_SELECTOR, ".jp-CodeCell .jp-InputPrompt"))
    return f"status bar: {status!r}; prompts: {prompts!r}"


def lab_run_all(driver: Any, timeout: float = 60, cells: int = 2,
                run_timeout: float = 120) -> None:
    """In the notebook JupyterLab shows: wait until at least ``cells`` code cells are
    loaded and the kernel is idle, choose Run > Run All Cells (retried until the menu
    answers), then wait until every code cell has run (each prompt numbered, none ``[*]``).
    Clicking before the notebook and its kernel are ready runs nothing, as happens on a
    loaded machine."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    def prompts() -> list[str]:
        return [e.text.strip() for e in driver.find_elements(
            By.CSS_SELECTOR, ".jp-CodeCell .jp-InputPrompt")]

    def ready() -> bool:
        idle = any(e.text.strip().endswith("| Idle") for e in driver.find_elements(
            By.CSS_SELECTOR, ".jp-StatusBar-TextItem"))
        return idle and len(prompts()) >= cells

    wait_until(ready, f"the notebook's code cells (at least {cells}) and an idle kernel",
               timeout, ignore=(WebDriverException,), context=lambda: _lab_state(driver))

    def run_all() -> bool:
        driver.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') "
                                      "and text()='Run']").click()
        menu = "//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']"
        until(driver, lambda: driver.find_element(By.XPATH, menu), "the Run menu to open", 5)
        driver.find_element(By.XPATH, menu).click()
        return True

    wait_until(run_all, "JupyterLab's Run > Run All Cells to answer a click", timeout,
               ignore=(WebDriverException, AssertionError), interval=1.0)

    def ran() -> bool:
        shown = prompts()
        return bool(shown) and all(re.fullmatch(r"\[\d+\]:", p) for p in shown)

    wait_until(ran, "every code cell to have run (its prompt numbered)", run_timeout,
               ignore=(WebDriverException,), context=lambda: _lab_state(driver), interval=0.5)


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


def set_text_input(driver: Any, label: str, value: str) -> None:
    """Type ``value`` into the ipywidgets text box labelled ``label`` and commit it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = driver.find_element(
        By.XPATH, f"//label[normalize-space()='{label}']/following-sibling::input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(value, Keys.ENTER)


_T = TypeVar("_T")


def body_text(driver: Any, limit: int = 2000) -> str:
    """The first ``limit`` characters of the page's visible text (for failure messages)."""
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)[:limit]


def until(driver: Any, check: Callable[[], _T], what: str, timeout: float = 20.0) -> _T:
    """Wait for ``check()`` to return something true on the page ``driver`` shows and return
    it: polled for ``scaled(timeout)`` seconds, an element missing or being redrawn (stale)
    counting as not yet. A timeout fails with ``what`` and the page's text."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
    )

    return wait_until(check, what, timeout,
                      ignore=(NoSuchElementException, StaleElementReferenceException),
                      context=lambda: body_text(driver), interval=0.2)


def wait_for(driver: Any, css: str, timeout: float = 60) -> Any:
    """The first element matching ``css``, once there (see :func:`until`)."""
    from selenium.webdriver.common.by import By

    return until(driver, lambda: driver.find_element(By.CSS_SELECTOR, css),
                 f"an element matching {css!r}", timeout)


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
    driver.get_log("browser")  # drop what earlier pages left
    driver.get(url)
    until(driver, lambda: driver.execute_script("return document.readyState") == "complete",
          f"{url} to finish loading", timeout)
    # every <img> done loading (decoded or failed) before its width is read
    until(driver, lambda: driver.execute_script(
        "return Array.from(document.images).every(i => i.complete)"),
        f"every image of {url} to finish loading", timeout)
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


def report_screenshots(site: Path) -> list[Path]:
    """Screenshots of the built report's landing page and Fig. 6's page into docs/ (what
    ``make report`` does itself where Chromium is installed)."""
    return take(site, ROOT / "docs", ROOT / "figures")


def _explorer_screenshots() -> None:
    from selenium.webdriver.common.by import By

    with voila("07_elo_explorer.ipynb") as url, chromium(height=2600) as driver:
        driver.get(url)
        until(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "img.sprt-planner"),
              "the Elo explorer's planner", 180)
        time.sleep(2)  # the last images decode
        save_small_png(element_png(driver, ".widget-vbox"), ROOT / "docs" / "elo-explorer.png")
    print("saved docs/elo-explorer.png")
    with voila("12_phase_explorer.ipynb") as url, chromium(height=2600) as driver:
        driver.get(url)
        until(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "img.phase-summary"),
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
