"""Shared test fixtures: repository paths, optional data and engines."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
LICHESS_EXCERPT = SHARED_DATA / "lichess_db_standard_rated_2013-01_first5000.pgn"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A phase dataset built from 150 games of the embedded sample (one per test module)."""
    from chessmoe.games.datasets import build
    from chessmoe.games.sources import resolve

    out = tmp_path_factory.mktemp("data") / "sample"
    build(resolve("sample"), out, max_games=150, progress=False)
    return out


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


@dataclass(frozen=True)
class FigureBuild:
    """One ``make figures`` of the checkout into a scratch folder: its figures and its
    executed notebooks."""

    figures: Path
    notebooks: Path


def build_figures(out: Path, seed: str) -> FigureBuild:
    """Every figure and table of the checkout's committed results, built as ``make figures``
    builds them (``chessmoe notebooks figures``) in a process of its own under the hash seed
    ``seed``, into ``out`` (figures/ is not touched)."""
    env = {**os.environ, "PYTHONHASHSEED": seed,
           # the notebooks' kernel imports this checkout's chessmoe, as `make figures` does
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    built = FigureBuild(out / "figures", out / "notebooks")
    done = subprocess.run(
        [sys.executable, "-m", "chessmoe", "notebooks", "figures", "--dir",
         str(REPO / "notebooks"), "--results", str(REPO / "results"), "--figures",
         str(built.figures), "--build", str(built.notebooks)],
        env=env, capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    return built


@pytest.fixture(scope="session")
def figure_build(tmp_path_factory: pytest.TempPathFactory) -> FigureBuild:
    """The figures built once a test process (hash seed 1): the repeatability test compares a
    second build with it and the report is built from its notebooks. The tests that use it
    share one file, so the two-process suite (``--dist loadfile``) builds it once."""
    return build_figures(tmp_path_factory.mktemp("figures-build"), "1")


@pytest.fixture(scope="session")
def report_site(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
                ) -> Path:
    """The reproduction report (``make report``) built into a temporary folder from the
    checkout's figures/ and results/ and the executed notebooks of build/notebooks/; where
    those are absent or incomplete, from :func:`figure_build`'s notebooks (figures/ is not
    touched). Skips without Sphinx and MyST-NB."""
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_nb")
    from chessmoe.report import site

    notebooks = REPO / "build" / "notebooks"
    try:
        site.check_inputs(site.SiteInputs(REPO, notebooks))
    except site.ReportInputsMissing:
        notebooks = request.getfixturevalue("figure_build").notebooks
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
