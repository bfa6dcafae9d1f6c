"""The whole pipeline at smoke scale, and every figure notebook on its results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe import pipeline
from chessmoe.report import artefacts, make_figures

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.mark.slow
def test_smoke_pipeline_then_every_figure(tmp_path: Path) -> None:
    results, data = tmp_path / "results", tmp_path / "data"
    record = pipeline.run("smoke", results_dir=results, data_dir=data, progress=False)
    assert list(record["steps"]) == list(pipeline.STEPS)
    # the smoke profile's own names, never the committed selfplay-sample (issue 44)
    assert (results / "stats" / "selfplay-sample-smoke" / "manifest.json").exists()
    assert (results / "datasets" / "selfplay-sample-smoke" / "manifest.json").exists()
    assert sorted(p.name for p in results.glob("*/selfplay-sample*")) == [
        "selfplay-sample-smoke", "selfplay-sample-smoke"]
    written = {p for p in results.iterdir()} | {p for p in results.glob("*/*")}
    assert written == {p for p in pipeline.outputs("smoke", results)} | {
        results / d for d in ("stats", "datasets", "experts", "search", "tournaments")}
    assert (results / "experts" / "smoke" / "weighted-a10" / "evaluation.json").exists()
    assert (results / "search" / "smoke-separated" / "batches.jsonl").exists()
    summary = json.loads((results / "tournaments" / "smoke" / "summary.json").read_text())
    assert summary["complete"]

    again = pipeline.run("smoke", results_dir=results, data_dir=data, progress=False)
    assert again["steps"]["stats"]["outcome"] == {"selfplay-sample-smoke": "up to date"}
    assert again["steps"]["search"]["outcome"] == {"search": "up to date"}  # nothing redone

    jobs = artefacts.notebook_jobs(artefacts.LAYOUTS["smoke"])
    figures = tmp_path / "figures"
    paths = make_figures.run_figures(notebooks=NOTEBOOKS, results=results, figures=figures,
                           build=tmp_path / "build", jobs=jobs, log=lambda _: None).paths
    names = {p.relative_to(figures).as_posix() for p in paths}
    for number in range(1, 30):
        assert any(n.startswith(f"fig{number:02d}-") and n.endswith(".png") for n in names), \
            number
    for number in range(1, 9):
        assert any(n.startswith(f"table{number}-") and n.endswith(".md") for n in names), \
            number


def test_unknown_profile_and_step() -> None:
    from chessmoe._io.errors import KitError

    with pytest.raises(KitError, match="unknown profile"):
        pipeline.run("huge")
    with pytest.raises(KitError, match="unknown step"):
        pipeline.run("smoke", steps=["train"])


def test_the_cli_names_an_unknown_step_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from chessmoe.cli import main

    assert main(["results", "--profile", "smoke", "--steps", "train"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("chessmoe results: unknown step(s) train; known: stats, datasets, "
                           "experts, search, tournament")


def test_the_smoke_profile_writes_only_under_names_of_its_own_that_git_ignores(
        repo: Path) -> None:
    """Issue 44: `make results PROFILE=smoke` on a fresh clone leaves `git status` clean and
    every committed result as it was."""
    import shutil
    import subprocess

    from chessmoe import config
    from chessmoe._io.evidence import tracked

    outputs = pipeline.outputs("smoke", repo / "results")
    assert [p.relative_to(repo).as_posix() for p in outputs] == [
        "results/stats/selfplay-sample-smoke", "results/datasets/selfplay-sample-smoke",
        "results/experts/smoke", "results/search/smoke-separated", "results/tournaments/smoke",
        "results/pipeline-smoke.json"]
    others = {p for name in config.PROFILES if name != "smoke"
              for p in pipeline.outputs(name, repo / "results")}
    assert not others & set(outputs)
    if shutil.which("git") is None or tracked(repo) is None:
        pytest.skip("needs a git checkout")
    for path in outputs:
        probe = path if path.suffix == ".json" else path / "manifest.json"
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", str(probe)],
                                 cwd=repo).returncode == 0
        assert ignored, f"{probe} is not ignored by git"
        assert not tracked(path), f"{path} holds committed files"


def test_profiles_share_a_statistics_or_dataset_name_only_over_the_same_data() -> None:
    from chessmoe import config

    owners: dict[Path, set[tuple[str, int | None]]] = {}
    for chosen in config.PROFILES.values():
        data = chosen.data
        for spec in data.stats_sources:
            owners.setdefault(pipeline.stats_dir(chosen, Path("r"), spec), set()).add(
                (spec, data.max_games))
        for spec in data.dataset_sources:
            owners.setdefault(Path("r") / "datasets" / pipeline.dataset_name(chosen, spec),
                              set()).add((spec, data.max_games))
    shared = {path: what for path, what in owners.items() if len(what) > 1}
    assert shared == {}
    assert Path("r/stats/selfplay-sample") in owners  # the committed names are still written


def test_a_data_plan_that_cuts_its_sources_needs_a_tag() -> None:
    from chessmoe.config import DataPlan

    with pytest.raises(ValueError, match="needs a tag"):
        DataPlan(("sample",), ("sample",), max_games=150)
    assert DataPlan(("sample",), ("sample",), max_games=150, tag="quick").tag == "quick"
