"""Shared test fixtures: repository paths, optional data and engines."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
LICHESS_EXCERPT = SHARED_DATA / "lichess_db_standard_rated_2013-01_first5000.pgn"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def lichess_excerpt() -> Path:
    """The 5000-game Lichess excerpt beside the project (skips when absent)."""
    if not LICHESS_EXCERPT.exists():
        pytest.skip(f"needs {LICHESS_EXCERPT} (development data beside the project)")
    return LICHESS_EXCERPT


@pytest.fixture(scope="session")
def stockfish() -> Path:
    """A Stockfish binary (skips when none is installed)."""
    from chessmoe._io.external import StockfishNotFound, find_stockfish

    try:
        return find_stockfish()
    except StockfishNotFound as error:
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def report_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reproduction report (``make report``) built into a temporary folder from the
    checkout's figures/ and results/ and the executed notebooks of build/notebooks/; where
    those are absent or incomplete, the figure notebooks are executed first into a scratch
    build (figures/ is not touched). Skips without Sphinx and MyST-NB."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    from chessmoe.report import site

    notebooks = REPO / "build" / "notebooks"
    try:
        site.check_inputs(site.SiteInputs(REPO, notebooks))
    except site.ReportInputsMissing:
        from chessmoe.report.make_figures import run_figures

        scratch = tmp_path_factory.mktemp("figures-run")
        run_figures(notebooks=REPO / "notebooks", results=REPO / "results",
                    figures=scratch / "figures", build=scratch / "notebooks",
                    log=lambda _: None)
        notebooks = scratch / "notebooks"
    out = tmp_path_factory.mktemp("report") / "report"
    with warnings.catch_warnings():  # MyST-Parser's use of Sphinx APIs Sphinx 11 removes
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        site.build(site.SiteInputs(REPO, notebooks), out, log=lambda _: None)
    return out


# Tests that need a tool or data through a fixture carry its mark, so `make test-fast`
# (-m "not stockfish and not shared_data ...") leaves them out without a mark on each.
_FIXTURE_MARKS = {"stockfish": "stockfish", "lichess_excerpt": "shared_data"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, mark in _FIXTURE_MARKS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(getattr(pytest.mark, mark))
