"""Shared test fixtures: repository paths, optional data and engines."""

from __future__ import annotations

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


# Tests that need a tool or data through a fixture carry its mark, so `make test-fast`
# (-m "not stockfish and not shared_data ...") leaves them out without a mark on each.
_FIXTURE_MARKS = {"stockfish": "stockfish", "lichess_excerpt": "shared_data"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, mark in _FIXTURE_MARKS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(getattr(pytest.mark, mark))
