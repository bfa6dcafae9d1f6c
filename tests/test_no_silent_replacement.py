"""Issue 44: no command silently replaces committed evidence. Each results writer, aimed at a
committed finished result it would change, stops with one line naming the folder and the ways
on (``--force``, another output); finding it up to date, it leaves every byte as it is;
``--force`` replaces it. Each test builds a small git checkout in a temporary folder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from chessmoe._io.evidence import CommittedResult
from chessmoe.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=repo, check=True, capture_output=True, text=True).stdout


def commit_all(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "results")


def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    git(repo, "init", "-q")
    return repo


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(err: str, folder: Path, elsewhere: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(folder) in lines[0] and "--force" in lines[0] and elsewhere in lines[0]


# --- chessmoe stats ----------------------------------------------------------------------


def test_stats_leave_a_committed_result_alone_and_refuse_to_change_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chessmoe.games import stats

    repo = checkout(tmp_path)
    results = repo / "results"
    out = results / "stats" / "selfplay-sample"
    stats.compute_and_save("sample", results_dir=results, max_games=20, progress=False)
    commit_all(repo)
    before = snapshot(out)
    again = stats.compute_and_save("sample", results_dir=results, max_games=20, progress=False)
    assert not again.computed and snapshot(out) == before  # up to date: not a byte written

    argv = ["stats", "--source", "sample", "--results", str(results), "--quiet"]
    assert main([*argv, "--max-games", "30"]) == 2  # the smoke run of issue 44
    one_line(capsys.readouterr().err, out, "--name NAME")
    assert snapshot(out) == before

    assert main([*argv, "--max-games", "30", "--force"]) == 0
    assert json.loads((out / "manifest.json").read_text())["max_games"] == 30


def test_stats_replace_a_result_nobody_committed(tmp_path: Path) -> None:
    from chessmoe.games import stats

    repo = checkout(tmp_path)
    results = repo / "results"
    stats.compute_and_save("sample", results_dir=results, max_games=20, progress=False)
    result = stats.compute_and_save("sample", results_dir=results, max_games=25,
                                    progress=False)
    assert result.computed and result.manifest["max_games"] == 25


# --- chessmoe data build ------------------------------------------------------------------


def test_a_rebuilt_dataset_keeps_its_committed_manifest_and_another_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chessmoe.games.datasets import build_source

    repo = checkout(tmp_path)
    results = repo / "results"
    record = results / "datasets" / "selfplay-sample" / "manifest.json"
    build_source("sample", data_dir=tmp_path / "data1", results_dir=results, max_games=20,
                 progress=False)
    # as the committed manifests were written: with the build plan's fingerprint, which the
    # kit no longer records (it follows the workers, like the shards)
    record.write_text(json.dumps({**json.loads(record.read_text()), "plan_sha256": "6bdf"}))
    commit_all(repo)
    committed = record.read_bytes()
    # a fresh clone rebuilds the store from scratch: the same dataset, the record stays
    build_source("sample", data_dir=tmp_path / "data2", results_dir=results, max_games=20,
                 progress=False)
    assert record.read_bytes() == committed

    argv = ["data", "build", "--source", "sample", "--data-dir", str(tmp_path / "data3"),
            "--results", str(results), "--quiet"]
    assert main([*argv, "--max-games", "30"]) == 2
    one_line(capsys.readouterr().err, record.parent, "--results DIR")
    assert record.read_bytes() == committed
    assert not (tmp_path / "data3" / "datasets").exists()  # refused before building
    # the same inputs building other samples (as a changed encoder would): found after the
    # build, refused all the same
    other = json.loads(committed)
    other["totals"]["positions"] += 1
    record.write_text(json.dumps(other))
    commit_all(repo)
    with pytest.raises(CommittedResult, match="other samples, games or counts"):
        build_source("sample", data_dir=tmp_path / "data1", results_dir=results,
                     max_games=20, progress=False)
    assert json.loads(record.read_text()) == other

    assert main([*argv, "--max-games", "30", "--force"]) == 0
    assert json.loads(record.read_text())["max_games"] == 30


# --- chessmoe train ------------------------------------------------------------------------


def finished_bundle(bundle: Path, dataset_dir: Path, config: dict[str, object],
                    experts: tuple[str, ...]) -> None:
    """A bundle as training leaves it: every expert in the manifest, Table 1 written."""
    bundle.mkdir(parents=True)
    games = json.loads((dataset_dir / "manifest.json").read_text())["games_table"]["sha256"]
    shas = {name: f"{k:064x}" for k, name in enumerate(experts)}
    (bundle / "manifest.json").write_text(json.dumps({
        "train_config": config, "dataset": {"games_table_sha256": games},
        "experts": {n: {"sha256": s, "checkpoint": f"{n}/model.pt", "best_val_loss": 1.5}
                    for n, s in shas.items()}}))
    (bundle / "evaluation.json").write_text(json.dumps({"inputs": {"experts": shas}}))


def test_training_leaves_a_finished_bundle_and_refuses_other_settings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from chessmoe import config
    from chessmoe.nets.regimes import finished_bundle_changes, plan, profile_dataset

    smoke = config.profile("smoke").training
    data = tmp_path / "data"
    dataset = profile_dataset(smoke, data_dir=data, progress=False)
    repo = checkout(tmp_path)
    results = repo / "results"
    bundle = results / "experts" / "smoke" / "regular"
    finished_bundle(bundle, dataset, json.loads(json.dumps(smoke.train.to_dict())),
                    ("baseline",))
    commit_all(repo)
    before = snapshot(bundle)
    jobs = plan("regular", "lichess")

    assert finished_bundle_changes(bundle, jobs, smoke.train, dataset) == []
    # how a run executes is not what it learns
    assert finished_bundle_changes(bundle, jobs, replace(smoke.train, threads=2), dataset) == []
    assert finished_bundle_changes(bundle, jobs, replace(smoke.train, iterations=24),
                                   dataset) == ["other training settings: iterations"]
    assert finished_bundle_changes(bundle, plan("separated", "lichess"), smoke.train,
                                   dataset) is None  # experts missing: training resumes
    # a bundle recorded before the games table's sha256 (the committed small ones): its
    # dataset's source, name and split say which dataset it was trained on
    older = tmp_path / "older"
    shutil.copytree(bundle, older)
    recorded = json.loads((older / "manifest.json").read_text())
    built = json.loads((dataset / "manifest.json").read_text())
    recorded["dataset"] = {"source": "sample", "name": built["source"]["name"],
                           "split": built["split"]["description"]}
    (older / "manifest.json").write_text(json.dumps(recorded))
    assert finished_bundle_changes(older, jobs, smoke.train, dataset) == []
    recorded["dataset"]["split"] = "seeded game-level split (seed 10)"
    (older / "manifest.json").write_text(json.dumps(recorded))
    assert finished_bundle_changes(older, jobs, smoke.train, dataset) == ["another dataset"]

    argv = ["train", "--profile", "smoke", "--regime", "regular", "--results", str(results),
            "--data-dir", str(data), "--quiet"]
    assert main(argv) == 0  # up to date: nothing trained, nothing written
    assert snapshot(bundle) == before
    assert main([*argv, "--set", "iterations=24"]) == 2
    one_line(capsys.readouterr().err, bundle, "--results DIR")
    assert snapshot(bundle) == before
    # --force replaces it for real: the expert is trained again under the new settings (a
    # finished run is otherwise reused), and the manifest and Table 1 follow
    assert main([*argv, "--set", "iterations=24", "--force"]) == 0
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["train_config"]["iterations"] == 24
    assert manifest["experts"]["baseline"]["iterations"] == 24
    evaluation = json.loads((bundle / "evaluation.json").read_text())
    assert evaluation["inputs"]["experts"] == {"baseline": manifest["experts"]["baseline"][
        "sha256"]}


# --- chessmoe search -----------------------------------------------------------------------


def test_recorded_searches_are_left_up_to_date_and_others_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import asdict

    from chessmoe._io.fsutil import sha256_file
    from chessmoe.search.gating import GatingConfig, record

    repo = checkout(tmp_path)
    bundle = repo / "results" / "experts" / "small" / "separated"
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_text('{"experts": {}}')
    out = repo / "results" / "search" / "small-separated"
    out.mkdir(parents=True)
    recorded = {"bundle_manifest_sha256": sha256_file(bundle / "manifest.json"),
                "config": json.loads(json.dumps(asdict(GatingConfig()))),
                "positions_source": "selfplay-sf15.pgn.gz",
                "batches": 7}
    (out / "manifest.json").write_text(json.dumps(recorded))
    commit_all(repo)
    assert record(bundle, out) == recorded  # up to date: no search run, nothing written
    assert main(["search", "--bundle", str(bundle), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: up to date (7 mini-batches")
    assert main(["search", "--bundle", str(bundle), "--out", str(out), "--nodes", "40"]) == 2
    one_line(capsys.readouterr().err, out, "--out DIR")
    assert json.loads((out / "manifest.json").read_text()) == recorded


# --- chessmoe tournament -------------------------------------------------------------------


def test_a_finished_committed_tournament_is_not_extended_or_taken_over(tmp_path: Path) -> None:
    from dataclasses import replace

    from chessmoe.play.tournament import _guard_finished, _write_spec, only_matches, run_local
    from tests.test_match import _tiny_spec

    repo = checkout(tmp_path)
    out = repo / "results" / "tournaments" / "tiny"
    run_local(only_matches(_tiny_spec(), ["b-vs-a"]), out, workers=1, progress=False)
    commit_all(repo)
    before = snapshot(out)
    run_local(only_matches(_tiny_spec(), ["b-vs-a"]), out, workers=1, progress=False)
    assert snapshot(out) == before  # nothing to play: not a byte written
    with pytest.raises(CommittedResult, match=r"new matches a-vs-b\); pass --force"):
        run_local(_tiny_spec(), out, workers=1, progress=False)
    with pytest.raises(CommittedResult, match="it records tournament 'tiny', this run plays "
                                              "'other'"):
        _write_spec(replace(only_matches(_tiny_spec(), ["b-vs-a"]), name="other"), out,
                    force=False)
    assert snapshot(out) == before
    # an unfinished tournament resumes as always, committed or not
    summary = (out / "summary.json").read_text()
    (out / "summary.json").write_text(json.dumps({**json.loads(summary), "complete": False}))
    _guard_finished(_tiny_spec(), out, force=False)
    (out / "summary.json").write_text(summary)
    # --force extends the finished one
    whole = run_local(_tiny_spec(), out, workers=1, progress=False, force=True)
    assert [m.summary.games for m in whole.matches] == [4, 4] and whole.complete


def test_a_tournament_recorded_before_the_draw_rules_field_is_left_as_it_is(
        tmp_path: Path) -> None:
    """The committed small tournament's spec.json and summary.json predate the adjudication's
    draw_rules field; a rerun with nothing to play rewrote both (a fresh clone's make
    tournament PROFILE=small, found by issue 44's check). Read as the kit reads them, they are
    the same tournament, and stay byte for byte."""
    from dataclasses import replace

    from chessmoe.play.match import Adjudication
    from chessmoe.play.tournament import run_local
    from tests.test_match import _tiny_spec

    spec = replace(_tiny_spec(pairs=1), adjudication=Adjudication(max_plies=16,
                                                                  draw_rules="claim"))
    out = tmp_path / "t"
    run_local(spec, out, workers=1, progress=False)
    for name in ("spec.json", "summary.json"):  # as the kit wrote them before draw_rules
        record = json.loads((out / name).read_text())
        del record["adjudication"]["draw_rules"]
        (out / name).write_text(json.dumps(record, indent=2))
    before = snapshot(out)
    run_local(spec, out, workers=1, progress=False)
    assert snapshot(out) == before
