"""Exploring never overwrites committed figures: notebook runs by hand write to build/explore/."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from chessmoe.report import artefacts, params, runner
from tests.helpers import tournament_summary
from tests.test_notebooks import tiny_results  # noqa: F401  (fixture)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _fake_repo(root: Path) -> Path:
    for name in ("chessmoe", "results", "figures", "notebooks"):
        (root / name).mkdir(parents=True)
    (root / "figures" / "fig08-mixedness.png").write_bytes(b"committed")
    return root


def test_the_committed_figures_folder_is_redirected_to_scratch(tmp_path: Path) -> None:
    repo = _fake_repo(tmp_path / "repo")
    assert params.is_committed_figures(repo / "notebooks" / ".." / "figures")
    out = params.output_dir(repo / "notebooks" / ".." / "figures", "01_phase_statistics.ipynb")
    assert out == repo.resolve() / "build" / "explore" / "01_phase_statistics"
    # a staging folder (make figures) or any other folder is used as given
    staging = tmp_path / "build" / "figures-staging"
    assert params.output_dir(staging, "01_phase_statistics.ipynb") == staging
    elsewhere = tmp_path / "figures"  # named figures, but not beside chessmoe/ and results/
    assert params.output_dir(elsewhere, "01_phase_statistics.ipynb") == elsewhere


def test_every_figure_notebook_defaults_to_scratch_and_guards_figures() -> None:
    for job in artefacts.NOTEBOOK_JOBS:
        stem = Path(job.notebook).stem
        source = nbformat.read(NOTEBOOKS / job.notebook, as_version=4)
        cell = next(c for c in source.cells if "parameters" in c.metadata.get("tags", []))
        assert f'figures_dir = "../build/explore/{stem}"' in cell.source, job.notebook
        assert not params.is_committed_figures(NOTEBOOKS / "../build/explore" / stem)
        code = "\n".join(c.source for c in source.cells if c.cell_type == "code")
        assert f'nb.output_dir(p.figures_dir, "{job.notebook}")' in code, job.notebook
        assert "Path(p.figures_dir)" not in code, job.notebook
    for cls, stem in ((params.PhaseStatsParams, "01_phase_statistics"),
                      (params.EloExplorerParams, "07_elo_explorer"),
                      (params.ClaimsParams, "10_claims"), (params.SetupParams, "09_setup")):
        assert cls().figures_dir == f"../build/explore/{stem}"


def test_notebooks_cite_docs_in_the_repository_not_shared_files() -> None:
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert "FACTS.md" not in text and "../shared" not in text, path.name
        for link in re.findall(r"\(\.\./(docs/[^)#]+)", text):
            assert (NOTEBOOKS.parent / link).is_file(), f"{path.name} links missing {link}"


@pytest.mark.slow
def test_a_hand_run_aimed_at_figures_leaves_them_untouched(tiny_results: Path,  # noqa: F811
                                                           tmp_path: Path) -> None:
    repo = _fake_repo(tmp_path / "repo")
    committed = repo / "figures" / "fig08-mixedness.png"
    job = artefacts.job("01_phase_statistics.ipynb")
    run = job.params(tiny_results, repo / "figures") | {"max_move": 30}
    runner.execute(NOTEBOOKS / "01_phase_statistics.ipynb", tmp_path / "executed.ipynb", run,
                   cwd=repo / "notebooks")
    assert committed.read_bytes() == b"committed"
    assert [p.name for p in (repo / "figures").rglob("*")] == ["fig08-mixedness.png"]
    scratch = repo / "build" / "explore" / "01_phase_statistics"
    written = sorted(str(p.relative_to(scratch)) for p in scratch.rglob("*") if p.is_file())
    assert written == sorted(job.artefact_files())


def test_phase_tables_are_shown_with_human_column_names() -> None:
    import pandas as pd

    from chessmoe.report.figures import phase_stats as ps

    table = pd.DataFrame({"differ_pct": [1.5], "opening_pct_position_only": [30.0],
                          "endgame_pct_division": [20.0]},
                         index=pd.Index(["sample / lichess"], name="source / table"))
    shown = ps.readable_columns(table)
    assert list(shown.columns) == ["Phases differ (%)", "Opening, position only (%)",
                                   "Endgame, division (%)"]
    assert shown.index.name == "Source / table" and shown.iloc[0, 0] == 1.5
    assert table.columns[0] == "differ_pct"  # the saved artefact keeps its names


def test_the_rating_list_is_drawn_from_the_cutechess_replay_once_it_is_complete(
        tmp_path: Path) -> None:
    import json

    layout = artefacts.ResultsLayout()
    job = artefacts.job("11_ratings.ipynb", layout)
    committed = tmp_path / "tournaments" / "ratings"
    replayed = tmp_path / "tournaments" / "ratings-cutechess"
    assert job.params(tmp_path, tmp_path / "out")["tournament_dir"] == str(committed)
    replayed.mkdir(parents=True)
    (replayed / "summary.json").write_text(json.dumps(tournament_summary([], complete=False)))
    assert artefacts.ratings_tournament(tmp_path, layout) == committed  # still being played
    (replayed / "summary.json").write_text(json.dumps(tournament_summary([], complete=True)))

    def match(a: str, b: str) -> dict[str, object]:
        return {"name": f"{a}-vs-{b}", "pairs": 1, "first": {"name": a}, "second": {"name": b}}

    # complete, but only some pairings of its players were played (--match): not a list yet
    (replayed / "spec.json").write_text(json.dumps({"matches": [match("x", "y"),
                                                                match("y", "z")]}))
    assert artefacts.ratings_tournament(tmp_path, layout) == committed
    # a self-match does not stand in for a missing pairing
    (replayed / "spec.json").write_text(json.dumps({"matches": [
        match("x", "x"), match("x", "y"), match("y", "z")]}))
    assert artefacts.ratings_tournament(tmp_path, layout) == committed
    (replayed / "spec.json").write_text(json.dumps({"matches": [
        match("x", "y"), match("z", "y"), match("x", "z")]}))
    assert job.params(tmp_path, tmp_path / "out")["tournament_dir"] == str(replayed)
    # a round robin that leaves out a player of the committed list is not its replacement
    committed.mkdir(parents=True, exist_ok=True)
    (committed / "spec.json").write_text(json.dumps({"matches": [match("x", "w")]}))
    assert artefacts.ratings_tournament(tmp_path, layout) == committed
    (committed / "spec.json").write_text(json.dumps({"matches": [match("x", "y")]}))
    assert artefacts.ratings_tournament(tmp_path, layout) == replayed
    # the kit's own ratings-cutechess design is such a round robin
    from chessmoe.play.designs import build_design

    experts = Path(__file__).resolve().parents[1] / "results" / "experts" / "small"
    design = build_design("ratings-cutechess", experts).to_dict()
    (replayed / "spec.json").write_text(json.dumps(design))
    # ... and includes every player of the committed (claim-rules) list
    root = Path(__file__).resolve().parents[1]
    (committed / "spec.json").write_text(
        (root / "results" / "tournaments" / "ratings" / "spec.json").read_text())
    assert artefacts.ratings_tournament(tmp_path, layout) == replayed
    (replayed / "spec.json").write_text(json.dumps({**design, "matches": design["matches"][1:]}))
    assert artefacts.ratings_tournament(tmp_path, layout) == committed


def test_the_grid_figures_are_drawn_from_the_small_cutechess_replay_once_it_is_complete(
        tmp_path: Path) -> None:
    import json

    layout = artefacts.ResultsLayout()
    jobs = [artefacts.job(n, layout) for n in ("06_playing_strength.ipynb", "09_setup.ipynb")]
    committed = tmp_path / "tournaments" / "small"
    replayed = tmp_path / "tournaments" / "small-cutechess"
    assert {j.params(tmp_path, tmp_path / "out")["tournament_dir"] for j in jobs} \
        == {str(committed)}
    replayed.mkdir(parents=True)
    (replayed / "summary.json").write_text(json.dumps(tournament_summary([], complete=False)))
    assert {j.params(tmp_path, tmp_path / "out")["tournament_dir"] for j in jobs} \
        == {str(committed)}  # still being played
    (replayed / "summary.json").write_text(json.dumps(tournament_summary([], complete=True)))
    # complete, but for fewer matches than the committed tournament planned (--match)
    committed.mkdir(parents=True)
    match = {"name": "staged-b8-n100", "pairs": 6, "first": {"name": "staged"}}
    (committed / "spec.json").write_text(json.dumps({"matches": [match, {**match,
                                                                            "name": "x"}]}))
    (replayed / "spec.json").write_text(json.dumps({"matches": [match]}))
    assert {j.params(tmp_path, tmp_path / "out")["tournament_dir"] for j in jobs} \
        == {str(committed)}
    from chessmoe.report.make_figures import read_folders

    assert read_folders(jobs[0], tmp_path) == ["tournaments/small"]
    (replayed / "spec.json").write_text(json.dumps({"matches": [match, {**match,
                                                                           "name": "x"}]}))
    assert {j.params(tmp_path, tmp_path / "out")["tournament_dir"] for j in jobs} \
        == {str(replayed)}
    # figures/INDEX.md names the folder the notebooks read, not the one they would have
    assert read_folders(jobs[0], tmp_path) == ["tournaments/small-cutechess"]
    assert read_folders(jobs[1], tmp_path) == ["tournaments/small-cutechess"]  # not the root
    datasets = artefacts.job("02_datasets.ipynb", layout)  # names only the results root
    assert read_folders(datasets, tmp_path) == [n.rsplit("/", 1)[0] for n, _ in datasets.needs]
    assert artefacts.ratings_tournament(tmp_path, layout) == tmp_path / "tournaments" / "ratings"
