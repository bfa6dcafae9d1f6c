"""Training until convergence (issue 40, item 4): the patience stops a run at the right
evaluation, the plateau schedule cuts its rate at the right ones, a resumed run continues both
counts exactly, and a staged expert applies the patience stage by stage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chessmoe._io.errors import KitError
from chessmoe.nets import training
from chessmoe.nets.recipes import plateau_learning_rate
from chessmoe.nets.regimes import train_bundle
from chessmoe.nets.training import DataSpec, TrainConfig, Trainer

#: A tiny run evaluated every 2 steps, capped at 40; the planted tests replace its
#: validation losses.
TINY = TrainConfig(model="tiny", batch_size=32, iterations=40, eval_every=2, eval_samples=64,
                   log_every=1, max_lr=0.05, device="cpu", threads=1)


def _rows(run: Path, kind: str | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in rows if kind is None or r["set"] == kind]


def _timeless(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "time"} for r in rows]


def plant(monkeypatch: pytest.MonkeyPatch, losses: dict[int, float]) -> None:
    """Every evaluation at iteration i reports the validation loss ``losses[i]`` (the
    networks still train; only what the trainer reads of them is planted)."""
    now: dict[str, int] = {}
    real = Trainer._evaluate_and_keep_best

    def spy(self: Trainer, run: Any, progress: Any) -> bool:
        now["iteration"] = progress.iteration
        return real(self, run, progress)

    def planted(model: Any, store: Any, index: Any, config: Any, device: Any,
                weights: Any = None, definition: Any = None) -> dict[str, float]:
        return {"n": len(index), "loss": losses[now["iteration"]]}

    monkeypatch.setattr(Trainer, "_evaluate_and_keep_best", spy)
    monkeypatch.setattr(training, "evaluate", planted)


# best at 8 (3.9); 10, 12 and 14 do not beat it; later losses only matter to a broken count
PATIENT = {2: 5.0, 4: 4.0, 6: 4.5, 8: 3.9, 10: 4.1, 12: 4.2, 14: 3.95,
           **{i: 4.0 + i / 1000 for i in range(16, 41, 2)}}


def test_plateau_learning_rate_warms_up_holds_and_is_cut() -> None:
    assert plateau_learning_rate(0, 0, 0.14, 1e-5, 400) == pytest.approx(1e-5)
    assert plateau_learning_rate(200, 0, 0.14, 1e-5, 400) == pytest.approx((0.14 + 1e-5) / 2)
    assert plateau_learning_rate(400, 0, 0.14, 1e-5, 400) == pytest.approx(0.14)
    assert plateau_learning_rate(10**6, 0, 0.14, 1e-5, 400) == pytest.approx(0.14)  # no end
    assert plateau_learning_rate(5000, 2, 0.14, 1e-5, 400) == pytest.approx(0.0014)
    assert plateau_learning_rate(5000, 9, 0.14, 1e-5, 400) == pytest.approx(1e-5)  # floor
    assert plateau_learning_rate(7, 0, 0.14, 1e-5, 0) == pytest.approx(0.14)
    with pytest.raises(ValueError):
        plateau_learning_rate(0, 0, factor=1.0)


def test_patience_stops_the_run_at_the_right_evaluation(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PATIENT)
    config = TrainConfig(**{**TINY.to_dict(), "patience": 3})
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    assert summary["stopped"] == "patience" and summary["iterations"] == 14
    assert summary["best_iteration"] == 8 and summary["best_val_loss"] == 3.9
    record = summary["convergence"]
    assert (record["stopped_at"], record["best_iteration"], record["reason"], record["cap"],
            record["evaluations_without_improvement"], record["patience"]) == (
        14, 8, "patience", 40, 3, 3)
    assert max(r["iteration"] for r in _rows(tmp_path / "run", "train")) == 14
    assert [e["event"] for e in _rows(tmp_path / "run", "event")] == ["patience"]


def test_min_delta_decides_what_counts_as_an_improvement(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PATIENT)
    # 3.9 at 8 beats 4.0 by exactly 0.1: the best checkpoint, not an improvement
    config = TrainConfig(**{**TINY.to_dict(), "patience": 3, "min_delta": 0.1})
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    assert (summary["iterations"], summary["best_iteration"]) == (10, 8)


def test_a_run_without_patience_goes_to_its_cap(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PATIENT)
    config = TrainConfig(**{**TINY.to_dict(), "schedule": "plateau", "plateau_patience": 50})
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    assert summary["stopped"] is None and summary["iterations"] == 40
    assert summary["convergence"]["reason"] == "cap"
    assert summary["convergence"]["lr_cuts"] == []


def test_a_resumed_run_continues_the_patience_count(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PATIENT)
    config = TrainConfig(**{**TINY.to_dict(), "patience": 3})
    full = Trainer(tmp_path / "full", config, DataSpec(str(dataset)), progress=False).run()

    def cut(event: dict[str, Any]) -> None:
        if event["iteration"] == 12:  # the state on disk: iteration 10, one evaluation stale
            raise KeyboardInterrupt("power cut")

    with pytest.raises(KeyboardInterrupt):
        Trainer(tmp_path / "resumed", config, DataSpec(str(dataset)), progress=False,
                on_evaluation=cut).run()
    resumed = Trainer(tmp_path / "resumed", config, DataSpec(str(dataset)),
                      progress=False).run()
    # counted from zero again, the run would have stopped at 16
    assert resumed["iterations"] == full["iterations"] == 14
    assert resumed["convergence"] == full["convergence"]
    assert _timeless(_rows(tmp_path / "resumed")) == _timeless(_rows(tmp_path / "full"))


def test_a_run_stopped_before_its_summary_is_not_trained_further(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PATIENT)
    config = TrainConfig(**{**TINY.to_dict(), "patience": 3})
    real = Trainer._finish

    def crash(self: Trainer, run: Any, progress: Any, elapsed: float) -> Any:
        raise KeyboardInterrupt("killed after the last evaluation")

    monkeypatch.setattr(Trainer, "_finish", crash)
    with pytest.raises(KeyboardInterrupt):
        Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    monkeypatch.setattr(Trainer, "_finish", real)
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    assert summary["iterations"] == 14 and summary["stopped"] == "patience"
    assert max(r["iteration"] for r in _rows(tmp_path / "run")) == 14


# plateau: cuts at 8 (2 stale), 14 (2 stale after the improvement at 10) and 18 (4 stale);
# the fifth stale evaluation (20) stops the run
PLATEAU = {2: 5.0, 4: 4.0, 6: 4.2, 8: 4.3, 10: 3.5, 12: 3.6, 14: 3.7, 16: 3.8, 18: 3.9,
           **{i: 4.0 + i / 1000 for i in range(20, 41, 2)}}


def _plateau_config() -> TrainConfig:
    return TrainConfig(**{**TINY.to_dict(), "schedule": "plateau", "patience": 5,
                          "plateau_patience": 2, "plateau_factor": 0.1,
                          "warmup_iterations": 4})


def test_the_plateau_schedule_cuts_the_rate_at_the_right_evaluations(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PLATEAU)
    summary = Trainer(tmp_path / "run", _plateau_config(), DataSpec(str(dataset)),
                      progress=False).run()
    assert summary["convergence"]["lr_cuts"] == [8, 14, 18]
    assert summary["iterations"] == 20 and summary["best_iteration"] == 10
    lr = {r["iteration"]: r["lr"] for r in _rows(tmp_path / "run", "train")}
    # a row's rate is that of the step that ended at its iteration
    assert lr[2] == pytest.approx(1e-5 + (0.05 - 1e-5) / 4)  # warming up
    assert lr[5] == lr[8] == pytest.approx(0.05)
    assert lr[9] == lr[14] == pytest.approx(0.005)
    assert lr[15] == lr[18] == pytest.approx(0.0005)
    assert lr[19] == lr[20] == pytest.approx(0.00005)


def test_a_resumed_plateau_run_keeps_its_cuts(
        dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, PLATEAU)
    config = _plateau_config()
    Trainer(tmp_path / "full", config, DataSpec(str(dataset)), progress=False).run()

    def cut(event: dict[str, Any]) -> None:
        if event["iteration"] == 16:  # the state on disk: iteration 14, two cuts, 2 stale
            raise KeyboardInterrupt("power cut")

    with pytest.raises(KeyboardInterrupt):
        Trainer(tmp_path / "resumed", config, DataSpec(str(dataset)), progress=False,
                on_evaluation=cut).run()
    summary = Trainer(tmp_path / "resumed", config, DataSpec(str(dataset)),
                      progress=False).run()
    assert summary["convergence"]["lr_cuts"] == [8, 14, 18]
    assert _timeless(_rows(tmp_path / "resumed")) == _timeless(_rows(tmp_path / "full"))


def test_fixed_length_records_are_unchanged_and_open_ended_ones_complete() -> None:
    fixed = TrainConfig(model="small", batch_size=256, epochs=2.0)
    assert not fixed.open_ended
    assert not set(training.CONVERGENCE_OPTIONS) & set(fixed.to_dict())
    # every committed bundle's recorded configuration reads back as it was written
    root = Path(__file__).resolve().parents[1] / "results" / "experts" / "small"
    for manifest in sorted(root.glob("*/manifest.json")):
        recorded = json.loads(manifest.read_text())["train_config"]
        assert TrainConfig.from_dict(recorded).to_dict() == recorded, manifest
    open_ended = TrainConfig(patience=12)
    assert open_ended.open_ended
    assert {k: open_ended.to_dict()[k] for k in training.CONVERGENCE_OPTIONS} == {
        "schedule": "one-cycle", "patience": 12, "min_delta": 0.0, "plateau_patience": 4,
        "plateau_factor": 0.1, "warmup_iterations": 400}
    assert TrainConfig.from_dict(open_ended.to_dict()) == open_ended
    with pytest.raises(KitError, match="patience=0"):
        TrainConfig(patience=0)
    with pytest.raises(KitError, match="schedule='cosine'"):
        TrainConfig(schedule="cosine")  # type: ignore[arg-type]


def _stops(val: list[tuple[int, float]], patience: int, min_delta: float) -> int | None:
    """Where the patience rule stops a run with these validation losses (None: not)."""
    reference, stale = float("inf"), 0
    for iteration, loss in val:
        if loss < reference - min_delta:
            reference, stale = loss, 0
        else:
            stale += 1
            if stale >= patience:
                return iteration
    return None


@pytest.mark.slow
def test_a_staged_expert_applies_the_patience_stage_by_stage(dataset: Path,
                                                             tmp_path: Path) -> None:
    config = TrainConfig(**{**TINY.to_dict(), "iterations": 30, "schedule": "plateau",
                            "patience": 2, "min_delta": 0.2, "plateau_patience": 1,
                            "warmup_iterations": 4, "eval_every": 3, "log_every": 5})
    manifest = train_bundle("staged", tmp_path, dataset, config, phases=[2], progress=False)
    record = manifest["experts"]["phase2"]
    stages = record["convergence"]
    assert [s["train"] for s in stages] == ["opening", "middlegame", "endgame"]
    expert = tmp_path / "staged" / "phase2"
    steps = []
    for k, stage in enumerate(stages):
        run = expert / "stages" / f"stage{k + 1}-{stage['train']}"
        val = [(r["iteration"], r["loss"]) for r in _rows(run, "val")]
        # each stage's own validation losses decide its own stop, with a fresh count
        stop = _stops(val, 2, 0.2)
        assert stage["stopped_at"] == (stop if stop is not None else 30)
        assert stage["reason"] == ("patience" if stop is not None else "cap")
        assert stage["best_iteration"] == min(val, key=lambda v: v[1])[0]
        steps.append(stage["stopped_at"])
    assert record["iterations"] == sum(steps)
    assert all(s["reason"] == "patience" for s in stages)  # the rule was exercised
