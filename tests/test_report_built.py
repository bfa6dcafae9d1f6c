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
from tests.helpers import scaled

needs_chromium = pytest.mark.skipif(browser.missing_browser() is not None,
                                    reason=str(browser.missing_browser()))


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
                with urllib.request.urlopen(address, timeout=scaled(10)) as response:
                    cache[address] = response.read().decode("utf-8", errors="replace")
            except urllib.error.URLError:
                cache[address] = None
        text = cache[address]
        if text is None:
            broken.append(f"{link}: no such page")
        elif anchor and not re.search(rf"""\bid=["']{re.escape(anchor)}["']""", text):
            broken.append(f"{link}: no element with that id")
    return broken


#: Every table either fits its column or scrolls inside its own box: one that is wider than
#: it shows and cannot scroll cuts columns off.
_CUT_TABLES = """
return Array.from(document.querySelectorAll('div.body table')).filter(t => {
  const style = getComputedStyle(t);
  const scrolls = ['auto', 'scroll'].includes(style.overflowX);
  const right = t.getBoundingClientRect().right;
  return (t.scrollWidth > t.clientWidth + 1 && !scrolls)
      || right > document.documentElement.clientWidth + 1;
}).map(t => (t.querySelector('th, td') || t).textContent.trim().slice(0, 40));
"""


def _check_site(site: Path) -> dict[str, list[str]]:
    """Every HTML page of ``site`` opened in Chromium: page -> its problems (see module)."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    cache: dict[str, str | None] = {}
    found: dict[str, list[str]] = {}
    with browser.serve(site) as base, browser.chromium(console=True) as driver:
        for page in pages:
            problems, links = browser.page_problems(driver, base + page)
            problems += _broken_links(links, base, cache)
            problems += [f"a table cuts its columns off: {first!r}"
                         for first in driver.execute_script(_CUT_TABLES)]
            if problems:
                found[page] = problems
    return found


#: The first screen a reviewer sees (a laptop's browser window).
FIRST_SCREEN = (1280, 900)

_PLACE = """
const [pattern, kind] = arguments;
const found = kind === 'img'
  ? Array.from(document.images).find(i => i.getAttribute('src').includes(pattern))
  : Array.from(document.querySelectorAll('div.body p')).find(
      p => p.textContent.trim().startsWith(pattern));
if (!found) return null;
const box = found.getBoundingClientRect();
return [box.top, box.bottom, window.innerHeight, kind === 'img' ? found.naturalWidth : 1];
"""


def _first_screen_problems(site: Path, page: str) -> list[str]:
    """Whether ``page``'s first screen (:data:`FIRST_SCREEN`, scrolled to the top) holds the
    answer's bottom line and the whole compute-gap figure, rendered."""
    problems = []
    with browser.serve(site) as base, browser.chromium(*FIRST_SCREEN) as driver:
        browser.page_problems(driver, base + page)  # loaded, images decoded
        for pattern, kind in (("The answer.", "p"), ("compute-gap.png", "img")):
            place = driver.execute_script(_PLACE, pattern, kind)
            if place is None:
                problems.append(f"{page}: no {kind} {pattern!r}")
            elif place[3] == 0:
                problems.append(f"{page}: {pattern!r} is not rendered")
            elif place[0] < 0 or place[1] > place[2]:
                problems.append(f"{page}: {pattern!r} spans {place[0]:.0f}-{place[1]:.0f} px, "
                                f"outside the first screen's {place[2]:.0f} px")
    return problems


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


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_the_first_screen_of_the_readme_and_the_report_holds_the_answer_and_the_figure(
        report_site: Path) -> None:
    """A reviewer reads the answer in two minutes: the README's rendering (the report's
    README page) and the report's landing page each show, without scrolling, the answer's
    bottom line and the whole equal-compute figure."""
    assert _first_screen_problems(report_site, "README.html") == []
    assert _first_screen_problems(report_site, "index.html") == []


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_the_first_screen_check_fails_when_the_figure_is_pushed_down(tmp_path: Path) -> None:
    (tmp_path / "figures").mkdir()
    source = Path(__file__).resolve().parents[1] / "figures" / "compute-gap.png"
    (tmp_path / "figures" / "compute-gap.png").write_bytes(source.read_bytes())
    body = ("<html><body><div class='body'><p><strong>The answer.</strong> yes</p>{gap}"
            "<img src='figures/compute-gap.png'></div></body></html>")
    (tmp_path / "ok.html").write_text(body.format(gap=""))
    (tmp_path / "late.html").write_text(body.format(gap="<div style='height:2000px'></div>"))
    assert _first_screen_problems(tmp_path, "ok.html") == []
    [late] = _first_screen_problems(tmp_path, "late.html")
    assert "'compute-gap.png' spans" in late and "outside the first screen" in late


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_the_table_check_names_a_table_that_cuts_its_columns_off(tmp_path: Path) -> None:
    wide = "<tr>" + "".join(f"<td>cell{i}-with-long-text</td>" for i in range(60)) + "</tr>"
    (tmp_path / "cut.html").write_text(
        "<html><body><div class='body' style='width:600px;overflow:hidden'>"
        f"<table style='display:block;overflow:hidden'>{wide}</table></div></body></html>")
    (tmp_path / "scrolls.html").write_text(
        "<html><body><div class='body' style='width:600px'>"
        f"<table style='display:block;overflow-x:auto'>{wide}</table></div></body></html>")
    found = _check_site(tmp_path)
    assert list(found) == ["cut.html"]
    assert "a table cuts its columns off: 'cell0-with-long-text'" in found["cut.html"]
