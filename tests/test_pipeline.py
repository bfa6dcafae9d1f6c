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
    assert (results / "stats" / "selfplay-sample" / "manifest.json").exists()
    assert (results / "datasets" / "selfplay-sample" / "manifest.json").exists()
    assert (results / "experts" / "smoke" / "weighted-a10" / "evaluation.json").exists()
    assert (results / "search" / "smoke-separated" / "batches.jsonl").exists()
    summary = json.loads((results / "tournaments" / "smoke" / "summary.json").read_text())
    assert summary["complete"]

    again = pipeline.run("smoke", results_dir=results, data_dir=data, progress=False)
    assert again["steps"]["stats"]["outcome"] == {"selfplay-sample": "up to date"}
    assert again["steps"]["search"]["outcome"] == {"search": "up to date"}  # nothing redone

    jobs = artefacts.notebook_jobs(artefacts.LAYOUTS["smoke"])
    figures = tmp_path / "figures"
    paths = make_figures.run_figures(notebooks=NOTEBOOKS, results=results, figures=figures,
                           build=tmp_path / "build", jobs=jobs, log=lambda _: None)
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
