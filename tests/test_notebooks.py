"""Notebook hygiene, parameter validation, and execution under papermill."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from chessmoe._io.fsutil import atomic_write_json
from chessmoe.games.datasets import build
from chessmoe.games.sources import ResolvedSource
from chessmoe.games.stats import compute
from chessmoe.report import artefacts, hygiene, make_figures, params, runner
from chessmoe.report.params import (
    DatasetsParams,
    ExpertLossesParams,
    ParameterError,
    PhaseStatsParams,
    RelatedEnginesParams,
    SearchGatingParams,
    TrainExpertsParams,
)
from tests.helpers import random_games_pgn

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PARAMS = {"01_phase_statistics.ipynb": PhaseStatsParams, "02_datasets.ipynb": DatasetsParams,
          "03_train_experts.ipynb": TrainExpertsParams,
          "04_expert_losses.ipynb": ExpertLossesParams,
          "08_search_gating.ipynb": SearchGatingParams,
          "13_related_engines.ipynb": RelatedEnginesParams}


def _parameters_cell(path: Path) -> dict[str, object]:
    notebook = nbformat.read(path, as_version=4)
    (cell,) = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    values = {}
    for node in ast.parse(cell.source).body:
        assert isinstance(node, ast.Assign), "parameters cell holds assignments only"
        values[node.targets[0].id] = ast.literal_eval(node.value)  # type: ignore[attr-defined]
    return values


def test_notebook_sources_are_clean() -> None:
    assert hygiene.check_clean([NOTEBOOKS]) == []


def test_check_and_strip_find_and_remove_outputs(tmp_path: Path) -> None:
    path = tmp_path / "dirty.ipynb"
    shutil.copy(NOTEBOOKS / "01_phase_statistics.ipynb", path)
    notebook = nbformat.read(path, as_version=4)
    code = next(c for c in notebook.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hello")]
    code.execution_count = 3
    nbformat.write(notebook, path)
    assert len(hygiene.check_clean([path])) == 2
    assert hygiene.strip_outputs([path]) == [path]
    assert hygiene.check_clean([path]) == []


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_parameters_cell_matches_its_declaration(name: str) -> None:
    declared = {f.name: (f.default if f.default is not dataclasses.MISSING
                         else f.default_factory())  # type: ignore[misc]
                for f in dataclasses.fields(PARAMS[name])}
    assert _parameters_cell(NOTEBOOKS / name) == declared


def test_parameters_rejects_unknown_and_mistyped_names() -> None:
    before = params.snapshot({"x": 1})
    ok = params.parameters(PhaseStatsParams, {"x": 1, "max_move": 40, "table": "engine"}, before)
    assert ok.max_move == 40 and ok.table == "engine" and ok.split == "all"
    with pytest.raises(ParameterError, match="did you mean 'max_move'"):
        params.parameters(PhaseStatsParams, {"max_moves": 40}, before)
    with pytest.raises(ParameterError, match="'max_move' must be int"):
        params.parameters(PhaseStatsParams, {"max_move": "40"}, before)
    with pytest.raises(ParameterError, match="'compare_dirs' must be list"):
        params.parameters(PhaseStatsParams, {"compare_dirs": "a"}, before)


def test_assert_artefacts(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"x")
    (tmp_path / "empty.png").write_bytes(b"")
    assert params.assert_artefacts([tmp_path / "a.png"]) == [tmp_path / "a.png"]
    with pytest.raises(FileNotFoundError, match=r"empty\.png"):
        params.assert_artefacts([tmp_path / "a.png", tmp_path / "empty.png"])


def test_runner_names_the_make_target_of_missing_results(tmp_path: Path) -> None:
    with pytest.raises(make_figures.MissingResults, match="make results-stats SOURCE=sample"):
        make_figures.check_inputs(artefacts.NOTEBOOK_JOBS, tmp_path)


def test_a_truncated_results_json_is_named_in_one_line(tmp_path: Path) -> None:
    """make figures on a cut-off summary.json says which file and what to do, before any
    notebook runs (not a papermill traceback)."""
    committed = NOTEBOOKS.parent / "results"
    shutil.copytree(committed, tmp_path / "results",
                    ignore=shutil.ignore_patterns("*.pt", "*.onnx", "games-*.jsonl",
                                                  "*.parquet", "*.npy", "*.pgn"))
    summary = tmp_path / "results" / "tournaments" / "small" / "summary.json"
    summary.write_text(summary.read_text()[:500])
    with pytest.raises(make_figures.MissingResults) as info:
        make_figures.check_inputs(artefacts.NOTEBOOK_JOBS, tmp_path / "results")
    message = str(info.value)
    assert str(summary) in message and "truncated or invalid JSON" in message
    assert "make tournament PROFILE=small" in message and "\n" not in message


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results tree like the committed one, from a few random games per source."""
    root = tmp_path_factory.mktemp("results")
    for name, seed in (("lichess-2013-01-first5000", 1), ("selfplay-sample", 2)):
        pgn = random_games_pgn(root / f"{name}.pgn", 40, seed=seed)
        source = ResolvedSource(str(pgn), name, (pgn,), f"tiny {name}")
        compute(source, root / "stats" / name, progress=False)
        manifest = build(source, root / "data" / name, progress=False)
        atomic_write_json(root / "datasets" / name / "manifest.json", manifest)
    return root


@pytest.mark.slow
def test_phase_statistics_notebook_runs_under_papermill(tiny_results: Path,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "figures"
    runner.execute(NOTEBOOKS / "01_phase_statistics.ipynb", tmp_path / "executed.ipynb",
               artefacts.NOTEBOOK_JOBS[0].params(tiny_results, out) | {"max_move": 30})
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        artefacts.NOTEBOOK_JOBS[0].artefact_files())
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    assert any("artefacts written" in json.dumps(c.get("outputs", [])) for c in executed.cells)


@pytest.mark.slow
def test_datasets_notebook_runs_under_papermill(tiny_results: Path, tmp_path: Path) -> None:
    out = tmp_path / "figures"
    runner.execute(NOTEBOOKS / "02_datasets.ipynb", tmp_path / "executed.ipynb",
               artefacts.NOTEBOOK_JOBS[1].params(tiny_results, out))
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        artefacts.NOTEBOOK_JOBS[1].artefact_files())


@pytest.mark.slow
def test_unknown_parameter_fails_before_and_inside_the_kernel(tiny_results: Path,
                                                              tmp_path: Path) -> None:
    import papermill

    source = NOTEBOOKS / "01_phase_statistics.ipynb"
    with pytest.raises(ParameterError, match="max_moves"):
        runner.execute(source, tmp_path / "x.ipynb", {"max_moves": 3})
    # Straight papermill only warns; the notebook's own check turns it into an error.
    with pytest.raises(papermill.PapermillExecutionError, match="unknown notebook parameter"):
        papermill.execute_notebook(str(source), str(tmp_path / "y.ipynb"),
                                   parameters={"max_moves": 3}, kernel_name="chessmoe",
                                   progress_bar=False, cwd=str(NOTEBOOKS))


@pytest.mark.slow
def test_figures_runner_replaces_stale_artefacts(tiny_results: Path, tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "fig99-stale.png").write_bytes(b"old")
    # The tiny tree holds statistics and datasets only: a full run names what is missing and
    # leaves the figures alone; the jobs it can feed replace the stale artefacts.
    with pytest.raises(make_figures.MissingResults, match="make experts PROFILE=small"):
        make_figures.run_figures(notebooks=NOTEBOOKS, results=tiny_results, figures=figures,
                       build=tmp_path / "build", log=lambda _: None)
    assert (figures / "fig99-stale.png").read_bytes() == b"old"
    fed = tuple(j for j in artefacts.NOTEBOOK_JOBS
                if all((tiny_results / n).exists() for n, _ in j.needs))
    assert [j.notebook for j in fed] == ["01_phase_statistics.ipynb", "02_datasets.ipynb",
                                         "07_elo_explorer.ipynb",
                                         "13_related_engines.ipynb"]  # untrained: rows say so
    paths = make_figures.run_figures(notebooks=NOTEBOOKS, results=tiny_results, figures=figures,
                           build=tmp_path / "build", jobs=fed, log=lambda _: None).paths
    assert not (figures / "fig99-stale.png").exists()
    assert (figures / "fig02-phase-distribution.png") in paths
    assert "fig13-phase-coverage" in (figures / "INDEX.md").read_text()


@pytest.mark.slow
def test_training_notebooks_run_under_papermill(tmp_path: Path) -> None:
    results = tmp_path / "results"
    runner.execute(NOTEBOOKS / "03_train_experts.ipynb", tmp_path / "03.ipynb",
               {"profile": "smoke", "results_dir": str(results),
                "data_dir": str(tmp_path / "data")})
    experts = results / "experts" / "smoke"
    assert sorted(p.name for p in experts.iterdir()) == [
        "regular", "separated", "staged", "weighted-a10", "weighted-a4"]
    assert (experts / "separated" / "evaluation.json").exists()
    figures = tmp_path / "figures"
    runner.execute(NOTEBOOKS / "04_expert_losses.ipynb", tmp_path / "04.ipynb",
               {"experts_dir": str(experts), "figures_dir": str(figures)})
    stems = {p.stem for p in figures.glob("*.png")}
    assert {"fig04-staged-endgame-loss", "fig14-schedules", "fig16-regular-training",
            "fig22-staged-endgame-expert", "fig25-weighted-endgame-expert"} <= stems
    assert len(stems) == 12
    table1 = (figures / "table1-expert-losses.md").read_text()
    assert "Separated Learning / Mixture" in table1


@pytest.mark.slow
def test_kernels_talk_over_private_ipc_sockets_that_are_removed(tmp_path: Path) -> None:
    source = tmp_path / "probe.ipynb"
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "chessmoe", "display_name": "Python (chessmoe)", "language": "python"}})
    notebook.cells = [
        nbformat.v4.new_code_cell("x = 0", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("from ipykernel.kernelapp import IPKernelApp\n"
                                  "app = IPKernelApp.instance()\n"
                                  "print(app.transport, app.ip)")]
    nbformat.write(notebook, source)
    runner.execute(source, tmp_path / "out.ipynb", {"x": 1}, cwd=tmp_path)
    executed = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    transport, ip = executed.cells[-1].outputs[0]["text"].split()
    assert transport == "ipc"
    assert Path(ip).parent.name.startswith("chessmoe-kernel-")
    assert not Path(ip).parent.exists()  # the private socket folder is gone with the kernel
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.ipynb", "probe.ipynb"]


def test_the_job_table_names_every_committed_artefact_once() -> None:
    """figures/INDEX.md, the files in figures/ and the job table agree, and each figure
    notebook's final assertion reads the table (one edit renames an artefact)."""
    root = NOTEBOOKS.parent
    index = (root / "figures" / "INDEX.md").read_text()
    listed = set(re.findall(r"^\| ([\w/.-]+) \| \[", index, flags=re.M))
    table = {name.rsplit(".", 1)[0] for job in artefacts.NOTEBOOK_JOBS
             for name in job.artefact_files()}
    assert listed == table
    files = [name for job in artefacts.NOTEBOOK_JOBS for name in job.artefact_files()]
    assert len(files) == len(set(files))  # no artefact promised twice
    assert all((root / "figures" / name).is_file() for name in files)
    for job in artefacts.NOTEBOOK_JOBS:
        final = nbformat.read(NOTEBOOKS / job.notebook, as_version=4).cells
        last = [c.source for c in final if c.cell_type == "code"
                and "assert_artefacts" in c.source][-1]
        assert f'job_table.promised("{job.notebook}"' in last, job.notebook
