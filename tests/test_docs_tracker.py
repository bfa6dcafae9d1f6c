"""What a reader of a clone sees names no issue of the development tracker: a user's clone
has no tracker, so "issue 22's target" or "(issue 40, item 4)" in a README, a results note,
a notebook, a CLI help or a docstring points at nothing. The target or the design is named
for what it is instead."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Reader-facing files: the documents, the results' notes, the generated tables, the
#: notebooks, the package (docstrings, help texts, error messages) and the benchmarks (their
#: titles and targets head BENCHMARKS.md's entries).
READER_FACING = ("README.md", "REPRODUCING.md", "docs/**/*.md", "results/**/README.md",
                 "figures/**/*.md", "figures/**/*.csv", "notebooks/*.ipynb", "chessmoe/**/*.py",
                 "benchmarks/*.py")

#: benchlog reads BENCHMARKS.md's older headings, which carried "(issue N)"; it names the
#: pattern it strips, not an issue.
EXEMPT = {"chessmoe/report/benchlog.py"}

TRACKER = re.compile(r"\bissues?[ -]?#?\s*\d+", re.IGNORECASE)


def tracker_references(text: str) -> list[str]:
    """Each "issue N" (any case, "issues 5", "issue-22", "issue #3", over a line break) in
    ``text``."""
    return [match.group(0) for match in TRACKER.finditer(text)]


def test_the_pattern_finds_every_spelling_and_only_them() -> None:
    assert tracker_references("Issue 22's target") == ["Issue 22"]
    assert tracker_references("(issue\n    40, item 4)") == ["issue\n    40"]
    assert tracker_references("the issue-22 scale; issues 5 and 12; issue #3") == [
        "issue-22", "issues 5", "issue #3"]
    assert tracker_references("an issue with 2 engines; tissue 4") == []


def test_no_reader_facing_file_names_a_tracker_issue() -> None:
    found = []
    for pattern in READER_FACING:
        for path in sorted(ROOT.glob(pattern)):
            relative = path.relative_to(ROOT).as_posix()
            if relative in EXEMPT or not path.is_file():
                continue
            for hit in tracker_references(path.read_text(encoding="utf-8", errors="replace")):
                found.append(f"{relative}: {hit!r}")
    assert found == []
