"""What a profile trains by default: its regimes and its controls (config.PROFILES, the
``regimes`` and ``controls`` of nets.regimes.TrainingPlan)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chessmoe import config
from chessmoe.nets import controls, regimes
from chessmoe.nets.regimes import TrainingPlan
from chessmoe.nets.training import TrainConfig


def _capture_training(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """Replace the dataset build and the trainers by recorders: what would be trained."""
    seen: dict[str, Any] = {"bundles": [], "controls": []}
    monkeypatch.setattr(regimes, "profile_dataset", lambda *a, **k: tmp_path / "data")
    monkeypatch.setattr(controls, "profile_dataset", lambda *a, **k: tmp_path / "data")

    def train_all(out: Path, dataset: Path, cfg: TrainConfig, **kwargs: Any) -> dict[str, Any]:
        seen["bundles"] = [b.name(kwargs["definition"]) for b in kwargs["bundles"]]
        seen["config"] = cfg
        seen["test_samples"] = kwargs["test_samples"]
        return {}

    def train_bundle(regime: str, out: Path, dataset: Path, cfg: TrainConfig,
                     **kwargs: Any) -> None:
        seen["controls"].append((kwargs["name"], regime, cfg.iterations, cfg.seed,
                                 cfg.batch_size))
        seen["threads"] = cfg.threads

    monkeypatch.setattr(regimes, "train_all", train_all)
    monkeypatch.setattr(controls, "train_bundle", train_bundle)
    monkeypatch.setattr(controls, "evaluate_bundle",
                        lambda *a, **k: seen.setdefault("control_test_samples", k["test_samples"]))
    return seen


def test_medium_trains_the_equal_compute_bundles_and_only_regular_long(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture_training(monkeypatch, tmp_path)
    medium = config.profile("medium")
    regimes.train_profile(medium.training, "medium", results_dir=tmp_path, progress=False)
    assert seen["bundles"] == ["regular", "staged", "weighted-a10"]
    assert seen["config"].epochs == config.MEDIUM_EPOCHS and seen["config"].iterations is None
    assert seen["test_samples"] == config.MEDIUM_TEST_SAMPLES == 250_000
    regular = tmp_path / "experts" / "medium" / "regular"
    regular.mkdir(parents=True)
    # the regular network trained the GPU way (--set batch_size=1024 epochs=2): its control
    # trains at its batch, so "3 times its steps" is 3 times its positions too
    gpu = {**medium.training.train.to_dict(), "batch_size": 1024, "epochs": 2.0, "threads": 7}
    (regular / "manifest.json").write_text(json.dumps(
        {"experts": {"baseline": {"iterations": 33000}}, "train_config": gpu}))
    done = controls.train_controls(medium.training, "medium", results_dir=tmp_path,
                                   progress=False)
    assert seen["controls"] == [("regular-long", "regular", 3 * 33000, 9, 1024)]
    assert seen["threads"] == medium.training.train.threads  # this machine's, not regular's
    assert [d.name for d in done] == ["regular-long"]
    assert seen["control_test_samples"] == 250_000  # the same positions as its bundles
    assert medium.tournament.design == "medium"


def test_small_still_trains_every_regime_and_every_control(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = _capture_training(monkeypatch, tmp_path)
    small = config.profile("small")
    regimes.train_profile(small.training, "small", results_dir=tmp_path, progress=False)
    assert seen["bundles"][:5] == ["regular", "separated", "staged", "weighted-a4",
                                   "weighted-a10"]
    assert seen["test_samples"] is None  # the small profile's Table 1: every test position
    assert len(seen["bundles"]) == 5 + len(small.training.definitions)
    regimes.train_profile(small.training, "small", results_dir=tmp_path, progress=False,
                          regimes=["staged"])
    assert seen["bundles"] == ["staged"]  # a named regime still wins over the profile's
    regular = tmp_path / "experts" / "small" / "regular"
    regular.mkdir(parents=True)
    (regular / "manifest.json").write_text(json.dumps(
        {"experts": {"baseline": {"iterations": 2056}}}))
    controls.train_controls(small.training, "small", results_dir=tmp_path, progress=False)
    names = [c[0] for c in seen["controls"]]
    assert names == ["regular-seed10", "regular-seed11", "separated-long", "regular-long",
                     "staged-seed10", "staged-seed11", "weighted-a10-seed10",
                     "weighted-a10-seed11", "regular-long-seed10", "regular-long-seed11"]
    steps = {c[0]: c[2] for c in seen["controls"]}
    seeds = {c[0]: c[3] for c in seen["controls"]}
    assert steps["regular-long"] == 3 * 2056
    # regular-long under the other seeds: its steps, the seed its name says
    assert steps["regular-long-seed10"] == steps["regular-long-seed11"] == 3 * 2056
    assert (seeds["regular-long"], seeds["regular-long-seed10"],
            seeds["regular-long-seed11"]) == (9, 10, 11)
    # a manifest without its training configuration: the profile's
    assert {c[4] for c in seen["controls"]} == {small.training.train.batch_size}


def test_a_training_plan_refuses_unknown_regimes_and_controls() -> None:
    with pytest.raises(ValueError, match="unknown regime 'mixed'"):
        TrainingPlan(TrainConfig(), source="sample", regimes=("regular", "mixed"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown control 'regular-longer'"):
        TrainingPlan(TrainConfig(), source="sample", controls=("regular-longer",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="test_samples must be a positive count"):
        TrainingPlan(TrainConfig(), source="sample", test_samples=0)


def test_the_medium_pipeline_trains_regular_long_and_skips_the_gating_record(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``make results PROFILE=medium``: the controls its tournament plays are trained after
    the regimes, the Fig. 3 search (separated experts, which medium does not train) is
    skipped, and a tournament with no trained engine is reported, not played as 0 of 0."""
    from chessmoe import pipeline

    seen = _capture_training(monkeypatch, tmp_path)
    regular = tmp_path / "experts" / "medium" / "regular"
    regular.mkdir(parents=True)
    (regular / "manifest.json").write_text(json.dumps(
        {"experts": {"baseline": {"iterations": 8224}}}))
    record = pipeline.run("medium", results_dir=tmp_path, data_dir=tmp_path / "data",
                          steps=["experts", "search", "tournament"], progress=False)
    steps = record["steps"]
    assert steps["experts"]["outcome"]["controls"] == ["regular-long"]
    assert [c[0] for c in seen["controls"]] == ["regular-long"]
    assert steps["search"]["outcome"]["search"].startswith("skipped")
    tournament = steps["tournament"]["outcome"]
    assert tournament["matches"] == 0 and "no engine of the medium design" in \
        tournament["skipped"]
    small = config.profile("small")
    assert not small.training.pipeline_controls  # make results PROFILE=small is unchanged
