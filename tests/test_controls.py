"""The controls of issue 40 items 3 and 4 (chessmoe.nets.controls): the parameter-matched
single network ``regular-wide`` and the bundles trained until convergence
(``<method>-converged``), opt-in beside the committed bundles, never in their place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import typing
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
import pytest

from chessmoe import config
from chessmoe._io.evidence import CommittedResult
from chessmoe.cli import main
from chessmoe.games.datasets import build
from chessmoe.games.sources import resolve
from chessmoe.nets import controls, names
from chessmoe.nets.evaluation import evaluate_bundle
from chessmoe.nets.model import RiseNet, count_parameters, matched_width, preset
from chessmoe.nets.regimes import (
    ALL_BUNDLES,
    CONTROLS,
    DEFAULT_CONTROLS,
    Control,
    train_bundle,
)
from chessmoe.nets.training import TrainConfig


def parameters(model_config: Any) -> int:
    return count_parameters(RiseNet(model_config))


# --- the controls a profile trains ----------------------------------------------------------


def _capture(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    """Replace the dataset build, the trainer and the evaluation by a recorder."""
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(controls, "profile_dataset", lambda *a, **k: tmp_path / "data")

    def train_bundle(regime: str, out: Path, dataset: Path, cfg: TrainConfig,
                     **kwargs: Any) -> None:
        seen.append({"name": kwargs["name"], "regime": regime, "a": kwargs["a"], "config": cfg,
                     "baseline": kwargs["baseline"]})

    monkeypatch.setattr(controls, "train_bundle", train_bundle)
    monkeypatch.setattr(controls, "evaluate_bundle", lambda *a, **k: None)
    regular = tmp_path / "experts" / "small" / "regular"
    regular.mkdir(parents=True)
    small = config.profile("small").training.train
    (regular / "manifest.json").write_text(json.dumps(
        {"experts": {"baseline": {"iterations": 2056}}, "train_config": small.to_dict()}))
    return seen


def test_regular_wide_trains_regular_longs_steps_with_three_times_the_parameters(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, tmp_path)
    small = config.profile("small").training
    controls.train_controls(replace(small, controls=("regular-long", "regular-wide")), "small",
                            results_dir=tmp_path, progress=False)
    jobs = {job["name"]: job for job in seen}
    assert list(jobs) == ["regular-long", "regular-wide"]
    long, wide = jobs["regular-long"]["config"], jobs["regular-wide"]["config"]
    assert wide.iterations == long.iterations == 3 * 2056
    # everything but the network as regular-long: schedule, batch, seed, evaluation
    assert replace(wide, model_overrides={}) == long
    assert jobs["regular-wide"]["regime"] == "regular"
    assert wide.model_config() == matched_width(preset("small"), 3)
    assert wide.model_overrides == {"channels": 125, "expansion_init": 125,
                                    "expansion_step": 31, "kernel5_reduction": 31,
                                    "policy_channels": 125}


def test_converged_bundles_train_until_their_validation_loss_stops_improving(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, tmp_path)
    small = config.profile("small").training
    done = controls.train_controls(replace(small, controls=("converged",)), "small",
                                   results_dir=tmp_path, progress=False)
    assert [d.name for d in done] == ["regular-converged", "staged-converged",
                                      "weighted-a10-converged"]
    assert [(j["regime"], j["a"]) for j in seen] == [("regular", None), ("staged", None),
                                                     ("weighted", 10.0)]
    # the mixtures' reference network is the converged regular one, not the committed one
    assert [j["baseline"] for j in seen] == [None, "../regular-converged",
                                             "../regular-converged"]
    cfg = seen[0]["config"]
    assert all(j["config"] == cfg for j in seen)
    assert (cfg.schedule, cfg.patience, cfg.plateau_patience, cfg.min_delta) == (
        "plateau", 12, 4, 0.001)
    assert (cfg.iterations, cfg.epochs) == (None, 30.0)  # the cap, in epochs of its own data
    assert cfg.open_ended and replace(
        cfg, iterations=None, epochs=2.0, schedule="one-cycle", patience=None, min_delta=0.0,
        warmup_iterations=400, plateau_patience=4) == small.train


def test_the_head_shape_control_is_one_trunk_expert_on_the_scale_recipe(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from chessmoe.nets.trunk import PhaseHeadNet, multiply_adds, trunk_config

    seen = _capture(monkeypatch, tmp_path)
    small = config.profile("small").training
    done = controls.train_controls(replace(small, controls=("head1x1",)), "small",
                                   results_dir=tmp_path, progress=False)
    assert [d.name for d in done] == [names.REGULAR_HEAD1X1] == ["regular-head1x1"]
    assert names.control_of("regular-head1x1") == "head1x1"
    [job] = seen
    assert (job["regime"], job["baseline"]) == ("regular", None)
    cfg = job["config"]
    # the recipe of scale-201k-regular-seed9 and scale-201k-trunk-seed9, but the network
    assert replace(cfg, model_overrides={}) == replace(
        controls.scale_config(small.train, "201k", 9), model_overrides={})
    assert (cfg.seed, cfg.cpu_amp, cfg.patience) == (9, "off", controls.SCALE_PATIENCE)
    head = cfg.model_config()
    trunk = trunk_config(preset("small"))
    assert (head.policy_kernel2, head.phase_heads) == (1, 1)
    assert head == replace(trunk, phase_heads=1)
    # as large and as costly as one expert split from the trunk mixture, not as the mixture
    expert = PhaseHeadNet(trunk).expert(0)
    assert parameters(head) == count_parameters(expert) == names.HEAD1X1_PARAMETERS
    assert multiply_adds(head) == multiply_adds(trunk)
    assert count_parameters(PhaseHeadNet(trunk)) > parameters(head)


def test_a_bundle_another_runner_trains_is_skipped_and_left_alone(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys
    import time

    seen = _capture(monkeypatch, tmp_path)
    small = config.profile("small").training
    out = tmp_path / "experts" / "small"
    # another process holds regular-long's lock (as a second runner of the plan would)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from chessmoe._io.fsutil import hold_lock; "
         "h = hold_lock(sys.argv[1], 'x'); print('held', flush=True); time.sleep(60)",
         str(out / "regular-long" / controls.TRAINING_LOCK)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = controls.train_controls(replace(small, controls=("separated-long",
                                                                "regular-long")),
                                       "small", results_dir=tmp_path, progress=False)
    finally:
        holder.kill()
        holder.wait()
    assert [d.name for d in done] == ["separated-long", "regular-long"]
    assert [job["name"] for job in seen] == ["separated-long"]  # regular-long left alone
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "skipped:" in err and "regular-long is being written " \
        "by another process" in err
    # the lock goes with its process: the next run trains it
    time.sleep(0.1)
    controls.train_controls(replace(small, controls=("regular-long",)), "small",
                            results_dir=tmp_path, progress=False)
    assert [job["name"] for job in seen] == ["separated-long", "regular-long"]


def test_a_bundle_another_runner_finished_meanwhile_is_not_trained_again(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture(monkeypatch, tmp_path)
    small = config.profile("small").training
    real = controls.hold_lock

    def finished_while_waiting(lock: Path, what: str) -> Any:
        bundle = Path(lock).parent  # the other runner wrote its last files before releasing
        bundle.mkdir(parents=True, exist_ok=True)
        for name in ("manifest.json", "evaluation.json"):
            (bundle / name).write_text("{}")
        return real(lock, what)

    monkeypatch.setattr(controls, "hold_lock", finished_while_waiting)
    controls.train_controls(replace(small, controls=("regular-long",)), "small",
                            results_dir=tmp_path, progress=False)
    assert seen == []


def test_the_new_controls_are_opt_in() -> None:
    small = config.profile("small").training
    assert small.controls == DEFAULT_CONTROLS == ("seeds", "separated-long", "regular-long")
    plan = controls.ControlPlan.of(small)
    assert not plan.regular_wide and plan.converged == () and not plan.scale
    assert not plan.head1x1
    assert set(CONTROLS) == {*DEFAULT_CONTROLS, "regular-wide", "converged", "bf16", "scale",
                             "head1x1"}
    assert names.REGULAR_WIDE in CONTROLS  # the control and its bundle share the name
    assert CONTROLS == typing.get_args(Control) == tuple(names.CONTROL_DESCRIPTIONS)


def test_the_train_help_describes_every_control(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for control, description in names.CONTROL_DESCRIPTIONS.items():
        assert f"{control} ({description})" in text


def test_the_control_flag_names_the_controls_and_checks_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["train", "--profile", "smoke", "--control", "regular-wide", "converged",
                 "--results", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "experts/smoke/regular/manifest.json" in err
    code = main(["train", "--profile", "smoke", "--control", "regular-wider",
                 "--results", str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown control 'regular-wider'" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_no_control_takes_the_name_of_a_regimes_bundle() -> None:
    regimes = {spec.name("lichess") for spec in ALL_BUNDLES}
    seeded = {names.seed_bundle(s) for s in names.CONTROL_SEEDS} | {
        names.method_seed_bundle(m, s) for m in names.SEEDED_METHODS
        for s in names.CONTROL_SEEDS} | {names.regular_long_seed_bundle(s)
                                         for s in names.CONTROL_SEEDS}
    new = {names.REGULAR_WIDE, *(names.converged_bundle(m) for m in names.CONVERGED_METHODS)}
    assert new == {"regular-wide", "regular-converged", "staged-converged",
                   "weighted-a10-converged"}
    assert not new & (regimes | seeded | {names.REGULAR_LONG, names.SEPARATED_LONG})


# --- trained for real, in a git checkout -------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=repo, check=True, capture_output=True, text=True).stdout


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


SMOKE = TrainConfig(model="tiny", batch_size=32, iterations=30, eval_every=10,
                    eval_samples=200, log_every=5, max_lr=0.05, device="cpu", threads=1)


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A git checkout whose results/experts/smoke/regular is a committed finished bundle,
    and the dataset it was trained on."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    root = tmp_path_factory.mktemp("committed")
    dataset = root / "sample"
    build(resolve("sample"), dataset, max_games=150, progress=False)
    repo = root / "repo"
    out = repo / "results" / "experts" / "smoke"
    out.mkdir(parents=True)
    git(repo, "init", "-q")
    train_bundle("regular", out, dataset, SMOKE, profile="smoke", progress=False)
    evaluate_bundle(out / "regular", dataset)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "results")
    return repo, dataset


@pytest.mark.slow
def test_the_converged_settings_never_replace_a_committed_bundle(
        committed: tuple[Path, Path]) -> None:
    repo, dataset = committed
    out = repo / "results" / "experts" / "smoke"
    before = snapshot(out / "regular")
    converged = controls.converged_config(SMOKE)
    with pytest.raises(CommittedResult, match=r"other training settings: .*patience"):
        train_bundle("regular", out, dataset, converged, profile="smoke", progress=False)
    assert snapshot(out / "regular") == before


@pytest.mark.slow
def test_wide_and_converged_bundles_train_beside_the_committed_ones_and_play(
        committed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    repo, dataset = committed
    out = repo / "results" / "experts" / "smoke"
    before = snapshot(out / "regular")
    monkeypatch.setattr(controls, "profile_dataset", lambda *a, **k: dataset)
    monkeypatch.setattr(controls, "CONVERGED_CAP_EPOCHS", 0.25)  # a cap the test can afford
    monkeypatch.setenv("CHESSMOE_CACHE", str(repo.parent / "cache"))
    plan = controls.ControlPlan(seeds=(), separated_long=False, regular_long=False,
                                methods=(), regular_long_seeds=(), regular_wide=True,
                                converged=(controls.bundle_spec("regular"),))
    spec = config.profile("smoke").training
    done = controls.train_controls(spec, "smoke", results_dir=repo / "results", plan=plan,
                                   progress=False)
    assert [d.name for d in done] == ["regular-wide", "regular-converged"]
    assert snapshot(out / "regular") == before  # the committed bundle, byte for byte

    wide = json.loads((out / "regular-wide" / "manifest.json").read_text())
    assert wide["experts"]["baseline"]["iterations"] == 3 * 30  # regular-long's steps
    summary = json.loads((out / "regular-wide" / "baseline" / "summary.json").read_text())
    tiny = parameters(preset("tiny"))
    assert summary["parameters"] == parameters(matched_width(preset("tiny"), 3))
    assert abs(summary["parameters"] / (3 * tiny) - 1) < 0.02  # tiny is coarser: 16 channels
    assert wide["model"]["channels"] == 40 and (out / "regular-wide" / "evaluation.json").exists()

    record = json.loads((out / "regular-converged" / "manifest.json").read_text())
    [stage] = record["experts"]["baseline"]["convergence"]
    assert stage["reason"] == "cap" and stage["stopped_at"] == stage["cap"]
    assert record["experts"]["baseline"]["iterations"] == stage["stopped_at"]
    assert record["train_config"]["patience"] == controls.CONVERGED_PATIENCE

    # trained again: both finished, nothing rewritten
    after = snapshot(out)
    controls.train_controls(spec, "smoke", results_dir=repo / "results", plan=plan,
                            progress=False)
    assert snapshot(out) == after

    # the wide bundle is a player: the single-network path loads its other model config
    from chessmoe.play.match import PlayerSpec

    for backend in ("torch", "onnx"):
        player = PlayerSpec(name="wide", experts=str(out / "regular-wide"), nodes=24,
                            backend=backend).build()
        assert "single network" in player.description  # type: ignore[attr-defined]
        outcome = player.move(chess.Board())
        assert outcome.move in chess.Board().legal_moves
    assert any(os.scandir(repo.parent / "cache" / "onnx"))  # exported for ONNX Runtime
