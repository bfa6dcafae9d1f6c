"""Notebook 01 for students: one split for every figure by default, the paper's on request
(make figures), and a user's own statistics working with the defaults."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from chessmoe.games import stats as gs
from chessmoe.report import artefacts, params, runner
from chessmoe.report.figures import phase_stats as ps

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01_phase_statistics.ipynb"
LICHESS_STATS = ROOT / "results" / "stats" / "lichess-2013-01-first5000"


def test_one_split_for_every_figure_unless_the_papers_are_asked_for() -> None:
    """Issue 58: the mean middlegame start read 11.67 in Fig. 2 (all games) and 11.77 in
    Fig. 11 (the test games). By default every figure reads the same games; make figures
    asks for the paper's splits."""
    assert params.PhaseStatsParams().split == "all"
    assert params.PhaseStatsParams().paper_splits is False
    one = ps.figure_splits()
    assert (one.positions, one.games, one.distribution) == ("all", "all", "all")
    assert one.describe() == "every figure reads all kept games"
    test = ps.figure_splits("test")
    assert (test.positions, test.games, test.distribution) == ("test", "test", "test")
    paper = ps.figure_splits("val", paper=True)
    assert (paper.positions, paper.games, paper.distribution) == ("test", "train", "all")
    job = artefacts.job("01_phase_statistics.ipynb")
    assert job.params(ROOT / "results", ROOT / "build")["paper_splits"] is True
    # the same games give the same start move in Fig. 2 and Fig. 11
    stats = gs.load_stats(LICHESS_STATS)
    middle, _ = gs.phase_starts(stats.games_in(one.distribution), "lichess")
    again, _ = gs.phase_starts(stats.games_in(one.positions), "lichess")
    tested, _ = gs.phase_starts(stats.games_in(paper.positions), "lichess")
    assert middle.mean() == again.mean() and f"{middle.mean():.2f}" == "11.67"
    assert f"{tested.mean():.2f}" == "11.77"


def test_the_notebook_explains_mixedness_and_sets_exercises_on_its_parameters() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "## What mixedness measures" in text and "12_phase_explorer.ipynb" in text
    exercises = text[text.index("## Exercises"):]
    numbered = [line for line in exercises.splitlines() if line[:3] in ("1. ", "2. ", "3. ",
                                                                         "4. ")]
    assert len(numbered) == 4
    declared = {name for name in vars(params.PhaseStatsParams())}
    for line, name in zip(numbered, ("table", "split", "stats_dir", "stats_dir"), strict=True):
        assert name in declared and f"`{name}" in exercises[exercises.index(line):]


@pytest.mark.slow
def test_the_notebook_runs_on_the_committed_data_and_on_a_users_games(tmp_path: Path) -> None:
    """The defaults on the committed statistics; then a user's own PGN (the kit's 100 Lichess
    games, copied as the user's file) through ``chessmoe stats`` with the defaults but the
    folders, which stopped with "split 'test' not in ..." before."""
    from chessmoe.cli import main
    from chessmoe.explore import phase_games

    runner.execute(NOTEBOOK, tmp_path / "committed.ipynb",
                   {"figures_dir": str(tmp_path / "committed")}, cwd=NOTEBOOK.parent)
    outputs = json.dumps([c.get("outputs", []) for c in nbformat.read(
        tmp_path / "committed.ipynb", as_version=4).cells])
    assert "figures: every figure reads all kept games" in outputs and '"error"' not in outputs
    # a user's few games: the first six of the kit's Lichess games, four kept by the paper's
    # filters, all of them in the training split (no "test" split for the old defaults)
    games = phase_games.default_games_path().read_text().split("\n\n[Event ")
    mine = tmp_path / "my-games.pgn"
    mine.write_text(games[0] + "".join("\n\n[Event " + g for g in games[1:6]))
    assert main(["stats", "--source", str(mine), "--results", str(tmp_path / "my-results"),
                 "--quiet"]) == 0
    (folder,) = (tmp_path / "my-results" / "stats").iterdir()
    assert set(gs.load_stats(folder).games["split"]) == {"train"}
    runner.execute(NOTEBOOK, tmp_path / "mine.ipynb",
                   {"stats_dir": str(folder), "compare_dirs": [],
                    "figures_dir": str(tmp_path / "mine")}, cwd=NOTEBOOK.parent)
    outputs = json.dumps([c.get("outputs", []) for c in nbformat.read(
        tmp_path / "mine.ipynb", as_version=4).cells])
    assert '"error"' not in outputs and "artefacts written" in outputs
    assert sum(1 for p in (tmp_path / "mine").rglob("*.png")) >= 7
