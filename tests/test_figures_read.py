"""Issue 44: `make figures` says what it read. The results folders the notebooks read are
compared with the commit before drawing; those that differ are named in a closing warning and
every artefact drawn from them is marked in figures/INDEX.md."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chessmoe.report.artefacts import NotebookJob
from chessmoe.report.make_figures import FiguresRun, _index, uncommitted_reads
from tests.test_evidence import committed_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def jobs() -> tuple[NotebookJob, ...]:
    both = NotebookJob(
        notebook="01_phase_statistics.ipynb",
        params=lambda results, out: {"stats_dir": str(results / "stats" / "a"),
                                     "compare_dirs": [str(results / "stats" / "b")],
                                     "figures_dir": str(out)},
        needs=(("stats/a/manifest.json", "make a"), ("stats/b/manifest.json", "make b")),
        tables=("reads-a-and-b",))
    only_b = NotebookJob(
        notebook="02_datasets.ipynb",
        params=lambda results, out: {"stats_dir": str(results / "stats" / "b"),
                                     "figures_dir": str(out)},
        needs=(("stats/b/manifest.json", "make b"),), figures=("reads-b",))
    every = NotebookJob(  # as Table 8 does: every manifest under the results root
        notebook="09_setup.ipynb",
        params=lambda results, out: {"results_dir": str(results), "figures_dir": str(out)},
        needs=(("stats/b/manifest.json", "make b"),), tables=("reads-every-manifest",),
        reads=("stats/*/manifest.json",))
    return both, only_b, every


def row(index: str, stem: str) -> str:
    return next(line for line in index.splitlines() if line.startswith(f"| {stem}"))


def test_a_changed_committed_result_is_named_and_its_artefacts_marked(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    results = repo / "results"
    assert uncommitted_reads(jobs(), results) == ()
    clean = _index(jobs(), results, ())
    assert "uncommitted" not in clean
    assert FiguresRun(()).warning(results) is None

    (results / "stats" / "a" / "games.parquet").write_bytes(b"the smoke run's frames")
    changed = uncommitted_reads(jobs(), results)
    assert [(u.directory, u.files) for u in changed] == [
        ((results / "stats" / "a").resolve(), ("games.parquet",))]
    index = _index(jobs(), results, changed)
    assert row(index, "reads-a-and-b") == (
        "| reads-a-and-b *(uncommitted results)* | [md](reads-a-and-b.md), "
        "[csv](reads-a-and-b.csv) | `notebooks/01_phase_statistics.ipynb` | "
        "`results/stats/a` (uncommitted), `results/stats/b` |")
    assert row(index, "reads-b") == row(clean, "reads-b")  # drawn from committed results only
    # a folder read beyond those the row lists is named, and marks the row, when it differs
    assert row(clean, "reads-every-manifest").endswith("| `results/stats/b` |")
    assert row(index, "reads-every-manifest").startswith(
        "| reads-every-manifest *(uncommitted results)* |")
    assert row(index, "reads-every-manifest").endswith(
        "| `results/stats/b`, `results/stats/a` (uncommitted) |")
    assert ("**Drawn from uncommitted results.** The artefacts marked *(uncommitted results)* "
            "read results that differ from the commit, so they are not the committed "
            "evidence: results/stats/a (1 file: games.parquet).") in index
    warning = FiguresRun((), changed).warning(results)
    assert warning is not None and "results/stats/a (1 file: games.parquet)" in warning
    assert "figures/INDEX.md marks" in warning and "\n" not in warning

    (results / "stats" / "b" / "new.parquet").write_bytes(b"added")  # an added file counts
    assert [u.directory.name for u in uncommitted_reads(jobs(), results)] == ["a", "b"]
