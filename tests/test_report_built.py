"""The built artefacts, each built once: every figure and table (``make figures``) is
byte-for-byte repeatable under another hash seed, and the reproduction report (``make
report``) built from it loads nothing from the network and, in a real browser, every page
loads in a headless Chromium with no console error, every image renders and no internal link
is broken (skipped with the reason when chromium, chromedriver or selenium is absent;
.ci/run installs them).

The tests share this file so the two-process suite (``--dist loadfile``) builds the figures
and the report once (the session fixtures ``figure_build`` and ``report_site``)."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from chessmoe.report import site, site_pages
from tests import browser
from tests.conftest import FigureBuild, build_figures

needs_chromium = pytest.mark.skipif(browser.missing_chromium() is not None,
                                    reason=str(browser.missing_chromium()))


@pytest.mark.slow
def test_two_figure_builds_under_other_hash_seeds_are_identical(figure_build: FigureBuild,
                                                                tmp_path: Path) -> None:
    """No set or dict order, nor anything else that varies between runs, reaches an
    artefact: a second build under another hash seed gives the same files."""
    def files(folder: Path) -> dict[str, bytes]:
        return {p.relative_to(folder).as_posix(): p.read_bytes()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    first = files(figure_build.figures)
    second = files(build_figures(tmp_path, "2").figures)
    assert sorted(first) == sorted(second)
    assert len(first) > 100 and "INDEX.md" in first
    differ = [name for name in first if first[name] != second[name]]
    assert differ == [], f"differ between the two builds: {differ}"


@pytest.mark.slow
def test_the_built_report_loads_nothing_from_the_network(report_site: Path) -> None:
    assert (report_site / "index.html").is_file()
    assert site.external_fetches(report_site) == []
    html = "\n".join(p.read_text(encoding="utf-8") for p in report_site.rglob("*.html"))
    assert "mathjax" not in html.lower() and "require.js" not in html
    assert "contradicts" in (report_site / "index.html").read_text(encoding="utf-8")


def _broken_links(links: list[str], base: str, cache: dict[str, str | None]) -> list[str]:
    """The internal links (on ``base``'s server) whose page is missing or whose anchor names
    no element of it."""
    broken = []
    for link in links:
        if not link.startswith(base):
            continue
        address, _, anchor = link.partition("#")
        if address not in cache:
            try:
                with urllib.request.urlopen(address, timeout=10) as response:
                    cache[address] = response.read().decode("utf-8", errors="replace")
            except urllib.error.URLError:
                cache[address] = None
        text = cache[address]
        if text is None:
            broken.append(f"{link}: no such page")
        elif anchor and not re.search(rf"""\bid=["']{re.escape(anchor)}["']""", text):
            broken.append(f"{link}: no element with that id")
    return broken


def _check_site(site: Path) -> dict[str, list[str]]:
    """Every HTML page of ``site`` opened in Chromium: page -> its problems (see module)."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    cache: dict[str, str | None] = {}
    found: dict[str, list[str]] = {}
    with browser.serve(site) as base, browser.chromium(console=True) as driver:
        for page in pages:
            problems, links = browser.page_problems(driver, base + page)
            problems += _broken_links(links, base, cache)
            if problems:
                found[page] = problems
    return found


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_every_report_page_loads_renders_its_images_and_links_only_to_pages_that_exist(
        report_site: Path) -> None:
    from chessmoe.report.artefacts import NOTEBOOK_JOBS

    # the landing page, every artefact's page, every executed notebook and REPRODUCING.md
    assert (report_site / "index.html").is_file()
    built = {p.relative_to(report_site).as_posix() for p in report_site.rglob("*.html")}
    assert {site_pages.page_name(a.stem)[:-3] + ".html" for a in site_pages.artefacts()} <= built
    assert {f"notebooks/{job.notebook[:-6]}.html" for job in NOTEBOOK_JOBS} <= built
    assert "REPRODUCING.html" in built and "docs/phases.html" in built
    assert _check_site(report_site) == {}


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_the_page_check_catches_a_broken_image_a_broken_link_and_a_console_error(
        tmp_path: Path) -> None:
    """The checks above fail when a page breaks: a missing image, a link to a missing page or
    anchor, a script error and a fetch from another host (here another port) are each
    named."""
    (tmp_path / "ok.html").write_text("<html><body><p id='here'>ok</p></body></html>")
    (tmp_path / "bad.html").write_text(
        "<html><body><img src='missing.png'><a href='nowhere.html'>x</a>"
        "<a href='ok.html#there'>y</a><a href='ok.html#here'>z</a>"
        "<img src='http://127.0.0.1:9/elsewhere.png'>"
        "<script>undefinedFunction();</script></body></html>")
    found = _check_site(tmp_path)
    assert list(found) == ["bad.html"]
    text = "\n".join(found["bad.html"])
    assert "image not rendered: missing.png" in text
    assert "nowhere.html: no such page" in text
    assert "ok.html#there: no element with that id" in text and "#here" not in text
    assert "undefinedFunction" in text
    assert "fetched from the network: http://127.0.0.1:9/elsewhere.png" in text
