"""Loss, schedules, the trainer (learning, resume, spikes, checkpoints) and the regimes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from chessmoe.games.datasets import Batch, DatasetStore
from chessmoe.nets import training
from chessmoe.nets.checkpoints import CheckpointError, load_checkpoint
from chessmoe.nets.evaluation import evaluate_bundle
from chessmoe.nets.model import NetOutput
from chessmoe.nets.recipes import learning_rate, momentum, phase_weights, table5
from chessmoe.nets.regimes import plan, stage_order, train_bundle
from chessmoe.nets.training import DataSpec, TrainConfig, Trainer, compute_loss

SMOKE = TrainConfig(model="tiny", batch_size=32, iterations=30, eval_every=10,
                    eval_samples=200, log_every=5, max_lr=0.05, device="cpu", threads=1)


def _rows(run: Path, kind: str | None = None) -> list[dict]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in rows if kind is None or r["set"] == kind]


# --- schedules ----------------------------------------------------------------------------


def test_learning_rate_at_the_boundaries() -> None:
    total = 3000
    assert learning_rate(0, total) == pytest.approx(1e-5)
    assert learning_rate(100, total) == pytest.approx(0.14 / 8)  # 1/30 of the run
    assert learning_rate(550, total) == pytest.approx(0.14)  # + 15 %
    assert learning_rate(1000, total) == pytest.approx(0.14 / 8)  # + 15 %
    assert learning_rate(2800, total) == pytest.approx(1e-5)  # + 60 %
    assert learning_rate(2900, total) == pytest.approx(1e-5)  # hold
    assert learning_rate(3000, total) == pytest.approx(1e-5)
    assert learning_rate(325, total) == pytest.approx((0.14 / 8 + 0.14) / 2)  # linear
    values = [learning_rate(i, total) for i in range(total + 1)]
    assert max(values) == pytest.approx(0.14)
    with pytest.raises(ValueError):
        learning_rate(0, 0)


def test_momentum_mirrors_the_learning_rate() -> None:
    assert momentum(0.14) == pytest.approx(0.8)
    assert momentum(1e-5) == pytest.approx(0.95)
    for i in range(0, 3001, 37):
        lr = learning_rate(i, 3000)
        assert momentum(lr) == pytest.approx(0.95 - (lr - 1e-5) / (0.14 - 1e-5) * 0.15)


# --- loss ----------------------------------------------------------------------------------


def _batch(weight: list[float]) -> Batch:
    return Batch(planes=torch.zeros(2, 52, 8, 8), policy=torch.tensor([1, 0]),
                 value=torch.tensor([1.0, -1.0]), wdl=torch.tensor([2, 0]),
                 plies_to_end=torch.tensor([50.0, 250.0]), phase=torch.tensor([0, 2]),
                 weight=torch.tensor(weight), index=np.arange(2))


def test_loss_equals_a_hand_computation() -> None:
    policy = torch.log(torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]]))
    wdl = torch.log(torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
    output = NetOutput(value=torch.tensor([0.5, 0.0]), wdl=wdl,
                       plies=torch.tensor([0.4, 0.9]), policy=policy)
    config = TrainConfig()
    per_sample = [
        0.01 * 0.25 + 0.988 * -np.log(0.2) + 0.01 * -np.log(0.5) + 0.002 * (0.4 - 0.5) ** 2,
        0.01 * 1.0 + 0.988 * -np.log(0.25) + 0.01 * -np.log(0.6) + 0.002 * (0.9 - 1.0) ** 2,
    ]
    loss = compute_loss(output, _batch([1.0, 1.0]), config)
    assert float(loss) == pytest.approx(np.mean(per_sample), rel=1e-6)
    weighted = compute_loss(output, _batch([2.0, 0.5]), config)
    assert float(weighted) == pytest.approx((2 * per_sample[0] + 0.5 * per_sample[1]) / 2,
                                            rel=1e-6)
    terms = training.loss_terms(output, _batch([1.0, 1.0]))
    assert terms.correct.tolist() == [0.0, 1.0]  # argmax 3 != 1; uniform row: argmax 0 == 0
    assert float(terms.val_loss(config)[0]) == pytest.approx(0.01 * 0.25 + 0.99 * -np.log(0.2))


# --- the trainer ---------------------------------------------------------------------------


@pytest.mark.slow
def test_training_decreases_the_loss_and_writes_a_run(dataset: Path, tmp_path: Path) -> None:
    config = TrainConfig(model="tiny", batch_size=64, iterations=80, eval_every=20,
                         eval_samples=400, log_every=10, max_lr=0.05, device="cpu", threads=1)
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    val = [r["loss"] for r in _rows(tmp_path / "run", "val")]
    assert len(val) == 4 and val[-1] < val[0] - 0.5
    assert summary["best_val_loss"] == pytest.approx(min(val))
    for name in ("config.json", "metrics.jsonl", "model.pt", "model.pt.json", "model.onnx",
                 "summary.json"):
        assert (tmp_path / "run" / name).exists(), name
    assert not (tmp_path / "run" / "state.pt").exists()
    tests = {r["set"] for r in _rows(tmp_path / "run") if r["set"].startswith("test/")}
    assert tests == {"test/opening", "test/middlegame", "test/endgame", "test/no-phases"}
    model = load_checkpoint(tmp_path / "run" / "model.pt")
    assert model.config.channels == 16


def _comparable(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "time"} for r in rows]


def test_resume_reproduces_the_uninterrupted_curve(dataset: Path, tmp_path: Path) -> None:
    full = Trainer(tmp_path / "full", SMOKE, DataSpec(str(dataset)), progress=False)
    full.run()

    def interrupt(event: dict) -> None:
        if event["iteration"] == 20:
            raise KeyboardInterrupt("power cut")

    broken = Trainer(tmp_path / "resumed", SMOKE, DataSpec(str(dataset)), progress=False,
                     on_evaluation=interrupt)
    with pytest.raises(KeyboardInterrupt):
        broken.run()
    assert (tmp_path / "resumed" / "state.pt").exists()
    Trainer(tmp_path / "resumed", SMOKE, DataSpec(str(dataset)), progress=False).run()
    assert _comparable(_rows(tmp_path / "resumed")) == _comparable(_rows(tmp_path / "full"))
    a = load_checkpoint(tmp_path / "full" / "model.pt").state_dict()
    b = load_checkpoint(tmp_path / "resumed" / "model.pt").state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_nan_loss_triggers_recovery(dataset: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    real = training.compute_loss
    calls = {"n": 0}

    def poisoned(output, batch, config):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        loss = real(output, batch, config)
        return loss * float("nan") if calls["n"] == 15 else loss

    monkeypatch.setattr(training, "compute_loss", poisoned)
    summary = Trainer(tmp_path / "run", SMOKE, DataSpec(str(dataset)), progress=False).run()
    events = _rows(tmp_path / "run", "event")
    assert [e["event"] for e in events] == ["nan-loss"]
    assert summary["spikes"] == 1 and summary["recoveries"] == [15]
    assert summary["stopped"] is None


def test_a_validation_spike_reloads_the_best_checkpoint(dataset: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    real = training.evaluate
    calls = {"n": 0}

    def spiky(model, store, index, config, device, weights=None,  # type: ignore[no-untyped-def]
            definition=None):
        metrics = real(model, store, index, config, device, weights, definition)
        calls["n"] += 1
        if calls["n"] == 6:  # each round evaluates val then 4 test sets: round 2's val
            metrics = {**metrics, "loss": metrics["loss"] * 10}
        return metrics

    monkeypatch.setattr(training, "evaluate", spiky)
    config = TrainConfig(**{**SMOKE.to_dict(), "max_spikes": 0})
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    events = _rows(tmp_path / "run", "event")
    assert events[0]["event"] == "spike" and events[0]["iteration"] == 20
    assert summary["stopped"] == "too many spikes"


def test_corrupt_checkpoints_give_clear_errors(dataset: Path, tmp_path: Path) -> None:
    Trainer(tmp_path / "run", SMOKE, DataSpec(str(dataset)), progress=False).run()
    path = tmp_path / "run" / "model.pt"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(path)
    (tmp_path / "run" / "model.pt.json").unlink()
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="cannot be loaded"):
        load_checkpoint(path)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "nope.pt")


@pytest.mark.slow
def test_a_changed_config_is_refused_in_an_existing_run(dataset: Path, tmp_path: Path) -> None:
    config = TrainConfig(**{**SMOKE.to_dict(), "iterations": 4, "eval_every": 2})
    Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    (tmp_path / "run" / "summary.json").unlink()
    other = TrainConfig(**{**config.to_dict(), "batch_size": 16})
    with pytest.raises(ValueError, match="different configuration"):
        Trainer(tmp_path / "run", other, DataSpec(str(dataset)), progress=False).run()
    # the thread count is how the run executes, not what it learns: it resumes under another
    resumed = TrainConfig(**{**config.to_dict(), "threads": (config.threads or 1) + 1})
    assert Trainer(tmp_path / "run", resumed, DataSpec(str(dataset)),
                   progress=False).run()["iterations"] == 4
    with pytest.raises(ValueError, match="unknown training option"):
        TrainConfig.from_dict({"batchsize": 3})


# --- regimes -------------------------------------------------------------------------------


def test_weighted_learning_weights_are_table5() -> None:
    assert phase_weights(4, 0) == pytest.approx((2.0, 0.5, 0.5))
    assert phase_weights(10, 2) == pytest.approx((0.25, 0.25, 2.5))
    for a in (1, 4, 10, 37.5):
        for main in range(3):
            assert np.mean(phase_weights(a, main)) == pytest.approx(1.0)
    frame = table5()
    assert frame.loc[(4, "middlegame"), "w_main"] == pytest.approx(2.0)
    assert frame.loc[(10, "opening"), "w_other"] == pytest.approx(0.25)
    assert frame.shape == (6, 5)
    assert np.mean(phase_weights(4, 1, n_phases=5)) == pytest.approx(1.0)


def test_balanced_weights_average_one_over_the_data_and_keep_the_ratio() -> None:
    """Table 5's weights average 1 only over equally common phases; balanced weights average
    1 over the data's phase shares, with w_main / w_other still a."""
    from hypothesis import given
    from hypothesis import strategies as st

    from chessmoe.nets.recipes import balanced_phase_weights

    # 20 / 20 / 60 %: the endgame expert's paper weights average 0.05 + 0.05 + 1.5 = 1.6
    assert balanced_phase_weights(10, 2, (0.2, 0.2, 0.6)) == pytest.approx(
        (0.25 / 1.6, 0.25 / 1.6, 2.5 / 1.6))
    assert balanced_phase_weights(10, 0, (20, 20, 60)) == pytest.approx(
        (2.5 / 0.7, 0.25 / 0.7, 0.25 / 0.7))  # counts work as shares
    assert balanced_phase_weights(4, 1, (1, 1, 1)) == pytest.approx(phase_weights(4, 1))
    for bad in ((0.5,), (0.5, -0.1, 0.6), (0, 0, 0), (float("nan"), 1, 1)):
        with pytest.raises(ValueError, match="phase shares"):
            balanced_phase_weights(10, 0, bad)

    @given(st.floats(1, 50), st.integers(0, 2),
           st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3))
    def mean_one(a: float, main: int, shares: list[float]) -> None:
        weights = balanced_phase_weights(a, main, shares)
        assert np.dot(shares, weights) / sum(shares) == pytest.approx(1.0)
        assert weights[main] / weights[(main + 1) % 3] == pytest.approx(a)

    mean_one()


def test_plans_of_the_regimes() -> None:
    assert [j.name for j in plan("regular")] == ["baseline"]
    separated = plan("separated")
    assert [j.stages[0].train for j in separated] == ["opening", "middlegame", "endgame"]
    staged = plan("staged")
    assert [s.train for s in staged[2].stages] == ["opening", "middlegame", "endgame"]
    assert [s.train for s in staged[0].stages] == ["middlegame", "endgame", "opening"]
    assert stage_order(1, order=(2, 0, 1)) == (2, 0, 1)
    with pytest.raises(ValueError, match="end with 1"):
        stage_order(1, order=(1, 0, 2))
    weighted = plan("weighted", a=10)
    assert weighted[1].stages[0].weights == pytest.approx((0.25, 2.5, 0.25))
    balanced = plan("weighted", a=10, shares=(0.2, 0.2, 0.6))
    assert balanced[1].stages[0].weights == pytest.approx((0.25 / 0.7, 2.5 / 0.7, 0.25 / 0.7))
    with pytest.raises(ValueError, match="2 phase shares"):
        plan("weighted", a=10, shares=(0.5, 0.5))
    with pytest.raises(ValueError, match="weighted regime's weights only"):
        plan("staged", shares=(0.2, 0.2, 0.6))
    assert [j.name for j in plan("separated", "movecount4")] == [f"phase{p}" for p in range(4)]
    with pytest.raises(ValueError, match="unknown regime"):
        plan("boosted")


def test_separated_expert_trains_only_on_its_phase(dataset: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = DatasetStore.batches

    def spying(self, indices, batch_size, **kwargs):  # type: ignore[no-untyped-def]
        for batch in real(self, indices, batch_size, **kwargs):
            if kwargs.get("shuffle", True):
                seen.extend(batch.phase.tolist())
            yield batch

    monkeypatch.setattr(DatasetStore, "batches", spying)
    manifest = train_bundle("separated", tmp_path, dataset, SMOKE, phases=[2], progress=False)
    assert set(seen) == {2}
    assert list(manifest["experts"]) == ["phase2"]
    config = json.loads((tmp_path / "separated" / "phase2" / "config.json").read_text())
    assert config["data"]["train"] == "endgame" and config["data"]["validation"] == "endgame"
    # the dataset manifest the checksum names travels with the bundle, byte for byte
    from chessmoe._io.fsutil import sha256_file

    copy = tmp_path / "separated" / manifest["dataset"]["manifest_copy"]
    assert copy.read_bytes() == (dataset / "manifest.json").read_bytes()
    assert sha256_file(copy) == manifest["dataset"]["manifest_sha256"]
    games = json.loads(copy.read_text())["games_table"]["sha256"]
    assert manifest["dataset"]["games_table_sha256"] == games


@pytest.mark.slow
def test_staged_expert_carries_weights_and_resets_the_optimiser(dataset: Path,
                                                                tmp_path: Path) -> None:
    manifest = train_bundle("staged", tmp_path, dataset, SMOKE, phases=[1], progress=False)
    expert = tmp_path / "staged" / "phase1"
    stages = sorted(p.name for p in (expert / "stages").iterdir())
    assert stages == ["stage1-opening", "stage2-endgame", "stage3-middlegame"]
    second = json.loads((expert / "stages" / "stage2-endgame" / "config.json").read_text())
    assert second["init_from"].endswith("stage1-opening/model.pt")
    rows = _rows(expert)
    assert {r["stage"] for r in rows} == {1, 2, 3}
    assert max(r["iteration"] for r in rows) == 3 * SMOKE.iterations  # offsets per stage
    summary = json.loads((expert / "summary.json").read_text())
    assert [s["train"] for s in summary["stages"]] == ["opening", "endgame", "middlegame"]
    assert manifest["experts"]["phase1"]["iterations"] == 3 * SMOKE.iterations
    # A fresh optimiser per stage: the learning rate restarts from its warm-up value.
    stage_rows = [r for r in rows if r["set"] == "train"]
    firsts = [min((r for r in stage_rows if r["stage"] == k), key=lambda r: r["iteration"])
              for k in (1, 2, 3)]
    assert firsts[0]["lr"] == pytest.approx(firsts[1]["lr"]) == pytest.approx(firsts[2]["lr"])


@pytest.mark.slow
def test_a_balanced_weighted_expert_trains_on_the_data_shares_weights(
        dataset: Path, tmp_path: Path) -> None:
    """The bundle is named apart from the paper's, its run trains with the balanced weights,
    and its manifest records the shares (from the dataset's manifest) and every weight."""
    from chessmoe.nets.controls import bundle_spec
    from chessmoe.nets.recipes import balanced_phase_weights
    from chessmoe.nets.regimes import BundleSpec, train_shares

    counts = json.loads((dataset / "manifest.json").read_text())["datasets"]["lichess"]["train"]
    positions = [counts[n]["positions"] for n in ("opening", "middlegame", "endgame")]
    shares = train_shares(dataset, "lichess")
    assert shares == pytest.approx([p / sum(positions) for p in positions])
    manifest = train_bundle("weighted", tmp_path, dataset, SMOKE, a=10, phases=[0],
                            progress=False, balanced=True)
    bundle = tmp_path / "weighted-a10-balanced"
    assert (bundle / "manifest.json").exists() and not (tmp_path / "weighted-a10").exists()
    run = json.loads((bundle / "phase0" / "config.json").read_text())
    expected = balanced_phase_weights(10, 0, shares)
    assert run["data"]["weights"] == pytest.approx(expected)
    assert run["data"]["weights"] != pytest.approx(phase_weights(10, 0))
    balance = manifest["balanced_weights"]
    assert balance["phase_shares"] == pytest.approx(shares, abs=1e-6)
    assert balance["weights"]["phase0"] == pytest.approx(expected, abs=1e-6)
    assert "balanced_weights" not in train_bundle("weighted", tmp_path, dataset, SMOKE, a=10,
                                                  phases=[0], progress=False)
    spec = bundle_spec("weighted-a10-balanced")
    assert spec == BundleSpec("weighted", 10.0, balanced=True)
    assert spec.name("lichess") == "weighted-a10-balanced"
    assert bundle_spec("weighted-a10").balanced is False
    with pytest.raises(ValueError, match="only the weighted regime"):
        BundleSpec("staged", balanced=True)


@pytest.mark.slow
def test_mixture_uses_each_phase_expert_on_its_phase(dataset: Path, tmp_path: Path) -> None:
    train_bundle("separated", tmp_path, dataset, SMOKE, progress=False)
    result = evaluate_bundle(tmp_path / "separated", dataset, device="cpu")["results"]
    assert set(result) == {"phase0", "phase1", "phase2", "mixture"}
    for p, name in enumerate(("opening", "middlegame", "endgame")):
        assert result["mixture"][name] == result[f"phase{p}"][name]
    sizes = [result["mixture"][n]["n"] for n in ("opening", "middlegame", "endgame")]
    assert sum(sizes) == result["mixture"]["no-phases"]["n"]


@pytest.mark.slow
def test_bundles_under_another_definition_use_its_test_sets(dataset: Path,
                                                            tmp_path: Path) -> None:
    from chessmoe.nets.regimes import BundleSpec, train_all

    manifests = train_all(tmp_path, dataset, SMOKE,
                          bundles=(BundleSpec("separated", None, "movecount2"),),
                          progress=False)
    assert list(manifests) == ["separated-movecount2"]
    assert manifests["separated-movecount2"]["definition"] == "movecount2"
    sets = {r["set"] for r in _rows(tmp_path / "separated-movecount2" / "phase1")}
    assert {"test/moves 0-20", "test/moves 21+", "test/no-phases", "val"} <= sets
    evaluation = json.loads((tmp_path / "separated-movecount2" / "evaluation.json").read_text())
    assert set(evaluation["results"]["mixture"]) == {"moves 0-20", "moves 21+", "no-phases"}
    # each test position is counted in its phase under movecount2, not the store's lichess
    store = DatasetStore(dataset)
    for p, name in enumerate(("moves 0-20", "moves 21+")):
        expected = store.indices("test", p, "movecount2").shape[0]
        assert evaluation["results"]["mixture"][name]["n"] == expected
        assert evaluation["results"]["mixture"][name] == evaluation["results"][f"phase{p}"][name]
    assert (evaluation["results"]["mixture"]["moves 0-20"]["n"]
            + evaluation["results"]["mixture"]["moves 21+"]["n"]
            == evaluation["results"]["mixture"]["no-phases"]["n"])


def test_a_spike_puts_back_the_best_weights(dataset: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """After a validation spike the model holds the best checkpoint's weights (not merely
    'a reload happened')."""
    real_eval, real_recover = training.evaluate, Trainer._recover
    calls = {"n": 0}
    seen: list[tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]] = []

    def spiky(model, store, index, config, device, weights=None,  # type: ignore[no-untyped-def]
            definition=None):
        metrics = real_eval(model, store, index, config, device, weights, definition)
        calls["n"] += 1
        if calls["n"] == 6:  # round 2's validation
            metrics = {**metrics, "loss": metrics["loss"] * 10}
        return metrics

    def recover(self, model, optimizer, device):  # type: ignore[no-untyped-def]
        before = {k: v.detach().clone() for k, v in model.state_dict().items()}
        real_recover(self, model, optimizer, device)
        seen.append((before, {k: v.detach().clone() for k, v in model.state_dict().items()}))

    monkeypatch.setattr(training, "evaluate", spiky)
    monkeypatch.setattr(Trainer, "_recover", recover)
    run = tmp_path / "run"
    best_at_10: dict[str, torch.Tensor] = {}

    def remember(row: dict) -> None:  # type: ignore[type-arg]
        if row["iteration"] == 10:
            best_at_10.update(load_checkpoint(run / "model.pt").state_dict())

    Trainer(run, SMOKE, DataSpec(str(dataset)), progress=False, on_evaluation=remember).run()
    (before, after), = seen
    weights = [k for k in after if after[k].is_floating_point()]
    assert all(torch.equal(after[k], best_at_10[k]) for k in weights)
    assert not all(torch.equal(before[k], after[k]) for k in weights)


def test_the_checkpoint_kept_is_the_best_not_the_last(dataset: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    real = training.evaluate
    calls = {"n": 0}
    scale = {1: 1.0, 6: 0.5, 11: 0.6}  # validation down, then up (no spike: 0.6 / 0.5 < 1.5)

    def shaped(model, store, index, config, device, weights=None,  # type: ignore[no-untyped-def]
            definition=None):
        metrics = real(model, store, index, config, device, weights, definition)
        calls["n"] += 1
        if calls["n"] in scale:
            metrics = {**metrics, "loss": 3.0 * scale[calls["n"]]}
        return metrics

    monkeypatch.setattr(training, "evaluate", shaped)
    summary = Trainer(tmp_path / "run", SMOKE, DataSpec(str(dataset)), progress=False).run()
    assert summary["best_iteration"] == 20 and summary["best_val_loss"] == pytest.approx(1.5)
    assert json.loads((tmp_path / "run" / "model.pt.json").read_text())["iteration"] == 20
    assert summary["spikes"] == 0


def test_nan_in_the_parameters_is_recovered(dataset: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A step that leaves NaN in the weights (not only in one loss) is caught at the next
    loss and the best weights come back; the kept model is finite."""
    real_step = torch.optim.SGD.step
    steps = {"n": 0}

    def poisoning_step(self, closure=None):  # type: ignore[no-untyped-def]
        out = real_step(self, closure)
        steps["n"] += 1
        if steps["n"] == 14:
            with torch.no_grad():
                self.param_groups[0]["params"][0].fill_(float("nan"))
        return out

    monkeypatch.setattr(torch.optim.SGD, "step", poisoning_step)
    summary = Trainer(tmp_path / "run", SMOKE, DataSpec(str(dataset)), progress=False).run()
    events = [e["event"] for e in _rows(tmp_path / "run", "event")]
    assert events.count("nan-loss") == 1 and len(summary["recoveries"]) == 1  # then healthy
    model = load_checkpoint(tmp_path / "run" / "model.pt")
    assert all(torch.isfinite(p).all() for p in model.parameters())


# --- gaps of issue 21: the validation loss, unweighted test sets, stages, repeated spikes -----


def test_summarised_validation_loss_is_0_01_value_plus_0_99_policy() -> None:
    """The loss that picks checkpoints, by hand on two samples: 0.01 * mean value error
    + 0.99 * mean policy cross-entropy, each term weighted per sample when weights apply."""
    terms = {"value": np.array([0.25, 1.0], np.float32),
             "policy": np.array([2.0, 0.5], np.float32),
             "wdl": np.array([1.0, 3.0], np.float32),
             "plies": np.array([0.04, 0.16], np.float32),
             "correct": np.array([1.0, 0.0], np.float32),
             "phase": np.array([0.0, 2.0], np.float32)}
    config = TrainConfig()
    plain = training.summarise(terms, config)
    # value mean 0.625, policy mean 1.25: 0.01 * 0.625 + 0.99 * 1.25 = 1.24375
    assert plain["loss"] == pytest.approx(1.24375, rel=1e-6)
    assert plain["value_mse"] == pytest.approx(0.625) and plain["policy_ce"] == pytest.approx(1.25)
    # the training total: 0.01 * 0.625 + 0.988 * 1.25 + 0.01 * 2.0 + 0.002 * 0.1 = 1.26145
    assert plain["total"] == pytest.approx(1.26145, rel=1e-6)
    assert plain["policy_acc"] == pytest.approx(0.5) and plain["n"] == 2
    # weights 2 and 0.5: value (0.5 + 0.5) / 2 = 0.5, policy (4 + 0.25) / 2 = 2.125
    weighted = training.summarise(terms, config, np.array([2.0, 0.5], np.float32))
    assert weighted["loss"] == pytest.approx(0.01 * 0.5 + 0.99 * 2.125, rel=1e-6)


def _hand_terms(model: torch.nn.Module, store: DatasetStore, index: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-sample squared value error, policy cross-entropy and phase, computed here with
    plain torch (not with the trainer's helpers)."""
    model.eval()
    values, policies, phases = [], [], []
    with torch.no_grad():
        for batch in store.batches(index, 256, shuffle=False):
            out = model(batch.planes)
            values.append(((out.value.float() - batch.value) ** 2).numpy())
            logp = torch.log_softmax(out.policy.float(), dim=1)
            policies.append((-logp[torch.arange(len(batch.policy)), batch.policy]).numpy())
            phases.append(batch.phase.numpy())
    return np.concatenate(values), np.concatenate(policies), np.concatenate(phases)


def test_a_weighted_run_reports_plain_test_losses(dataset: Path, tmp_path: Path) -> None:
    """Weighted learning weights the training and validation losses, never the test sets:
    the reported test loss is the plain mean over the test positions."""
    config = TrainConfig(**{**SMOKE.to_dict(), "iterations": 10, "eval_every": 10,
                            "eval_samples": None})
    weights = (2.0, 0.5, 0.5)
    Trainer(tmp_path / "run", config, DataSpec(str(dataset), weights=weights),
            progress=False).run()
    store = DatasetStore(dataset)
    model = load_checkpoint(tmp_path / "run" / "model.pt")  # the only evaluation: the best
    rows = {r["set"]: r for r in _rows(tmp_path / "run") if r["set"] != "train"}
    value, policy, phase = _hand_terms(model, store, store.indices("test", "no-phases"))
    assert rows["test/no-phases"]["n"] == len(value)
    plain = 0.01 * value.mean() + 0.99 * policy.mean()
    w = np.asarray(weights)[phase]
    weighted = 0.01 * np.sum(w * value) / len(w) + 0.99 * np.sum(w * policy) / len(w)
    assert abs(plain - weighted) > 1e-3  # the two readings differ on this data
    assert rows["test/no-phases"]["loss"] == pytest.approx(plain, rel=1e-4)
    opening = phase == 0
    assert rows["test/opening"]["loss"] == pytest.approx(
        0.01 * value[opening].mean() + 0.99 * policy[opening].mean(), rel=1e-4)
    # the validation set, by contrast, is weighted like training (weight_validation)
    v_value, v_policy, v_phase = _hand_terms(model, store, store.indices("val", "no-phases"))
    v_w = np.asarray(weights)[v_phase]
    assert rows["val"]["loss"] == pytest.approx(
        0.01 * np.sum(v_w * v_value) / len(v_w) + 0.99 * np.sum(v_w * v_policy) / len(v_w),
        rel=1e-4)


@pytest.fixture(scope="module")
def staged_expert(dataset: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[Path, dict[str, dict[str, torch.Tensor]]]:
    """One staged expert (phase 1: opening, endgame, then middlegame) with every stage's
    checkpoint kept, and the weights each stage's model held before its first step."""
    from chessmoe.nets import regimes

    config = TrainConfig(**{**SMOKE.to_dict(), "iterations": 10, "eval_every": 5,
                            "eval_samples": None})
    bundle = tmp_path_factory.mktemp("staged") / "staged"
    job = next(j for j in regimes.plan("staged") if j.phase == 1)
    initial: dict[str, dict[str, torch.Tensor]] = {}
    real = Trainer._prepare

    def prepare(self):  # type: ignore[no-untyped-def]
        run = real(self)
        initial[self.run_dir.name] = {k: v.detach().clone()
                                      for k, v in run.model.state_dict().items()}
        return run

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Trainer, "_prepare", prepare)
        regimes._train_job(regimes._JobArgs(job, str(bundle), str(dataset), "lichess", config,
                                            False, keep_stage_checkpoints=True))
    return bundle / "phase1", initial


@pytest.mark.slow
def test_a_stage_starts_from_the_previous_stages_best_weights(
        staged_expert: tuple[Path, dict[str, dict[str, torch.Tensor]]]) -> None:
    expert, initial = staged_expert
    stages = expert / "stages"
    assert list(initial) == ["stage1-opening", "stage2-endgame", "stage3-middlegame"]
    for before, after in (("stage1-opening", "stage2-endgame"),
                          ("stage2-endgame", "stage3-middlegame")):
        best = load_checkpoint(stages / before / "model.pt").state_dict()
        start = initial[after]
        assert set(start) == set(best)
        assert all(torch.equal(start[k], best[k]) for k in best), after
    # and the first stage did not start from anything trained
    first = load_checkpoint(stages / "stage1-opening" / "model.pt").state_dict()
    floats = [k for k in first if first[k].is_floating_point()]
    assert not all(torch.equal(initial["stage1-opening"][k], first[k]) for k in floats)


def test_each_stage_validates_on_its_own_phase(
        dataset: Path, staged_expert: tuple[Path, dict[str, dict[str, torch.Tensor]]]) -> None:
    expert, _ = staged_expert
    store = DatasetStore(dataset)
    sizes = {name: int(store.indices("val", name).shape[0])
             for name in ("opening", "middlegame", "endgame")}
    assert len(set(sizes.values())) == 3  # the phase subsets are told apart by their size
    for stage, phase in ((1, "opening"), (2, "endgame"), (3, "middlegame")):
        val = [r for r in _rows(expert) if r["set"] == "val" and r["stage"] == stage]
        assert val and all(r["n"] == sizes[phase] for r in val), (stage, phase)
        stage_dir = next((expert / "stages").glob(f"stage{stage}-*"))
        config = json.loads((stage_dir / "config.json").read_text())
        assert config["data"]["train"] == config["data"]["validation"] == phase


@pytest.mark.slow
def test_a_second_spike_after_a_recovery_is_detected(dataset: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation losses 3, 30 (spike), 30 (spike again, right after the recovery),
    2.9 (new best), 30 (spike): three spikes, each recovered."""
    real = training.evaluate
    calls = {"n": 0}
    val_losses = [3.0, 30.0, 30.0, 2.9, 30.0]

    def shaped(model, store, index, config, device, weights=None,  # type: ignore[no-untyped-def]
            definition=None):
        metrics = real(model, store, index, config, device, weights, definition)
        round_, position = divmod(calls["n"], 5)  # each round: val, then four test sets
        calls["n"] += 1
        if position == 0:
            metrics = {**metrics, "loss": val_losses[round_]}
        return metrics

    monkeypatch.setattr(training, "evaluate", shaped)
    config = TrainConfig(**{**SMOKE.to_dict(), "iterations": 50})
    summary = Trainer(tmp_path / "run", config, DataSpec(str(dataset)), progress=False).run()
    events = _rows(tmp_path / "run", "event")
    assert [(e["event"], e["iteration"]) for e in events] == [
        ("spike", 20), ("spike", 30), ("spike", 50)]
    assert [e["previous"] for e in events] == [3.0, 3.0, 2.9]
    assert summary["spikes"] == 3 and summary["recoveries"] == [20, 30, 50]
    assert summary["best_iteration"] == 40 and summary["best_val_loss"] == pytest.approx(2.9)
    assert summary["stopped"] is None


@pytest.mark.slow
def test_the_manifest_keeps_experts_trained_in_separate_calls(dataset: Path,
                                                              tmp_path: Path) -> None:
    config = TrainConfig(**{**SMOKE.to_dict(), "iterations": 4, "eval_every": 2})
    first = train_bundle("separated", tmp_path, dataset, config, phases=[0], progress=False)
    assert list(first["experts"]) == ["phase0"]
    second = train_bundle("separated", tmp_path, dataset, config, phases=[1], progress=False)
    assert list(second["experts"]) == ["phase0", "phase1"]
    on_disk = json.loads((tmp_path / "separated" / "manifest.json").read_text())
    assert list(on_disk["experts"]) == ["phase0", "phase1"]
    # the first expert's entry is the one written by the first call, unchanged
    assert on_disk["experts"]["phase0"] == first["experts"]["phase0"]
    meta = json.loads((tmp_path / "separated" / "phase1" / "model.pt.json").read_text())
    assert on_disk["experts"]["phase1"]["sha256"] == meta["sha256"]


def test_per_sample_terms_fill_every_position_in_order(dataset: Path) -> None:
    """The terms are written position by position into full-length arrays: any batch size
    (one that divides the set, one that leaves a short last batch, one larger than the set)
    gives the same arrays, and each entry is the term of that position alone."""
    from chessmoe.nets.model import build_model

    torch.manual_seed(0)
    model = build_model("tiny")
    store = DatasetStore(dataset)
    index = store.indices("test", "no-phases")[:53]
    config = TrainConfig(model="tiny", device="cpu")
    cpu = torch.device("cpu")
    full = training.per_sample_terms(model, store, index, config, cpu, batch_size=1)
    assert set(full) == {"value", "policy", "wdl", "plies", "correct", "phase"}
    assert all(v.shape == (53,) and v.dtype == np.float32 for v in full.values())
    for batch_size in (7, 53, 64):
        again = training.per_sample_terms(model, store, index, config, cpu, batch_size)
        for key in full:
            np.testing.assert_allclose(again[key], full[key], rtol=1e-5, atol=1e-6)
    from chessmoe.games.datasets import PHASE_COLUMNS

    phases = store.gather(index)[PHASE_COLUMNS[store.definition]]
    assert np.array_equal(full["phase"], phases.astype(np.float32))
    assert training.per_sample_terms(model, store, index[:0], config, cpu)["policy"].shape == (0,)


def test_a_test_sample_is_seeded_sorted_and_the_same_for_every_call() -> None:
    from chessmoe.nets.evaluation import sampled_test_index as sample_test_positions

    index = np.arange(1000, 3000, 2, dtype=np.int64)  # 1,000 test positions
    chosen = sample_test_positions(index, 100)
    assert chosen.shape == (100,) and np.all(np.diff(chosen) > 0)  # distinct, storage order
    assert np.isin(chosen, index).all()
    assert np.array_equal(chosen, sample_test_positions(index.copy(), 100))
    assert sample_test_positions(index, None) is index
    assert sample_test_positions(index, 1000) is index
    assert sample_test_positions(index, 5000) is index
    # numpy's legacy stream, fixed across numpy versions: the same positions on any machine
    expected = np.sort(np.random.RandomState(20240101).permutation(1000)[:100])
    assert np.array_equal(chosen, index[expected])
    assert chosen[:4].tolist() == [1028, 1048, 1076, 1078]  # pinned: RandomState never changes


def test_the_loss_standard_error_is_that_of_the_per_sample_validation_loss() -> None:
    config = TrainConfig()
    terms = {"value": np.array([0.0, 1.0, 0.0, 1.0], np.float32),
             "policy": np.array([1.0, 2.0, 3.0, 4.0], np.float32),
             "wdl": np.zeros(4, np.float32), "plies": np.zeros(4, np.float32),
             "correct": np.array([1, 0, 0, 1], np.float32)}
    loss = 0.01 * terms["value"] + 0.99 * terms["policy"]  # the validation loss (Table 7)
    result = training.summarise(terms, config)
    assert result["loss"] == pytest.approx(float(loss.mean()))
    assert result["loss_se"] == pytest.approx(float(np.std(loss, ddof=1) / 2.0))
    one = training.summarise({k: v[:1] for k, v in terms.items()}, config)
    assert one["loss_se"] == 0.0


@pytest.mark.slow
def test_evaluating_a_sample_records_it_and_reevaluates_when_it_changes(
        dataset: Path, tmp_path: Path) -> None:
    train_bundle("regular", tmp_path, dataset, SMOKE, progress=False)
    bundle = tmp_path / "regular"
    full = evaluate_bundle(bundle, dataset, device="cpu")
    assert full["test_samples"] is None
    assert full["test_positions"] == full["test_set_positions"]
    sampled = evaluate_bundle(bundle, dataset, device="cpu", test_samples=40)
    assert sampled["test_positions"] == 40 and sampled["test_samples"] == 40
    assert sampled["test_set_positions"] == full["test_set_positions"] > 40
    assert len(sampled["inputs"]["test_index_sha256"]) == 64  # which 40 positions
    assert "test_index_sha256" not in full["inputs"]  # the whole set needs no hash
    assert sampled["results"]["baseline"]["no-phases"]["n"] == 40
    assert sampled["results"]["baseline"]["no-phases"]["loss_se"] > 0
    on_disk = json.loads((bundle / "evaluation.json").read_text())
    assert on_disk["test_positions"] == 40
    again = evaluate_bundle(bundle, dataset, device="cpu")  # back to the whole set
    assert again["test_positions"] == full["test_positions"]
    assert again["results"] == full["results"]


@pytest.mark.slow
def test_an_evaluation_refuses_phases_its_bundle_does_not_name(dataset: Path,
                                                              tmp_path: Path) -> None:
    """A bundle whose manifest names fewer phases than its definition yields (here: the
    Lichess definition's endgame left out) is refused, not scored with those positions
    silently outside every phase's row."""
    train_bundle("regular", tmp_path, dataset, SMOKE, progress=False)
    bundle = tmp_path / "regular"
    manifest_path = bundle / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["definition"] == "lichess"
    manifest["phase_names"] = manifest["phase_names"][:2]  # opening, middlegame
    manifest_path.write_text(json.dumps(manifest))
    (bundle / "evaluation.json").unlink(missing_ok=True)
    with pytest.raises(ValueError, match=r"phase ids outside 0\.\.1 under lichess"):
        evaluate_bundle(bundle, dataset, device="cpu")
    assert not (bundle / "evaluation.json").exists()  # nothing written for a refused bundle


def test_table1_names_a_sampled_test_set_and_its_largest_standard_error() -> None:
    from chessmoe.report.figures.training import _sample_note

    def evaluation(positions: int, se: float | None, sha: str | None = None) -> dict:
        sets = {"loss": 2.3} if se is None else {"loss": 2.3, "loss_se": se}
        return {"test_positions": positions, "test_set_positions": 2_002_412,
                "inputs": {} if sha is None else {"test_index_sha256": sha},
                "results": {"baseline": {"no-phases": sets}}}

    whole = evaluation(2_002_412, 0.001)
    assert _sample_note(whole, [whole, evaluation(2_002_412, 0.002)]) == ""
    first = evaluation(250_000, 0.002, "ab")
    note = _sample_note(first, [first, evaluation(250_000, 0.0031, "ab")])
    assert "sample of the 2,002,412" in note and "0.0031" in note
    older = evaluation(250_000, None, "ab")  # written before loss_se existed
    assert "standard error" not in _sample_note(older, [older])
    with pytest.raises(ValueError, match="different test positions"):
        _sample_note(first, [first, evaluation(250_000, 0.002, "cd")])
    with pytest.raises(ValueError, match="different test positions"):
        _sample_note(first, [first, whole])


def test_weighted_summaries_carry_the_standard_error_of_the_weighted_mean() -> None:
    config = TrainConfig()
    terms = {"value": np.zeros(4, np.float32), "policy": np.array([1, 2, 3, 4], np.float32),
             "wdl": np.zeros(4, np.float32), "plies": np.zeros(4, np.float32),
             "correct": np.zeros(4, np.float32)}
    weights = np.array([0.5, 1.0, 2.0, 0.5], np.float32)
    weighted = 0.99 * weights * terms["policy"]  # the loss as training weights it (Eq. 2)
    result = training.summarise(terms, config, weights)
    assert result["loss"] == pytest.approx(float(weighted.mean()))
    assert result["loss_se"] == pytest.approx(float(np.std(weighted, ddof=1) / 2.0))


@pytest.mark.slow
def test_a_finished_staged_expert_resumes_in_a_clone_without_its_onnx_files(
        dataset: Path, tmp_path: Path) -> None:
    """model.onnx files are not committed: rerunning a finished staged expert where they are
    absent (a fresh clone) keeps its weights and summary instead of failing on the copy."""
    train_bundle("staged", tmp_path, dataset, SMOKE, phases=[1], progress=False)
    expert = tmp_path / "staged" / "phase1"
    weights = (expert / "model.pt").read_bytes()
    summary = json.loads((expert / "summary.json").read_text())
    for onnx in expert.rglob("model.onnx"):
        onnx.unlink()
    train_bundle("staged", tmp_path, dataset, SMOKE, phases=[1], progress=False)
    assert (expert / "model.pt").read_bytes() == weights
    assert json.loads((expert / "summary.json").read_text())["iterations"] == summary["iterations"]


@pytest.mark.slow
def test_train_all_records_a_balanced_bundles_shares(dataset: Path, tmp_path: Path) -> None:
    from chessmoe.nets.regimes import BundleSpec, train_all, train_shares

    manifests = train_all(tmp_path, dataset, SMOKE, evaluate=False,
                          bundles=(BundleSpec("weighted", 10.0, balanced=True),))
    balance = manifests["weighted-a10-balanced"]["balanced_weights"]
    assert balance["phase_shares"] == pytest.approx(train_shares(dataset, "lichess"), abs=1e-6)
    assert sorted(balance["weights"]) == ["phase0", "phase1", "phase2"]


# --- mixed precision on the CPU ------------------------------------------------------------


def test_cpu_amp_is_checked_and_recorded_only_when_set() -> None:
    with pytest.raises(training.KitError, match="cpu_amp='fp16'"):
        TrainConfig(cpu_amp="fp16")  # type: ignore[arg-type]
    assert "cpu_amp" not in TrainConfig().to_dict()  # records made before it read as before
    assert TrainConfig(cpu_amp="bf16").to_dict()["cpu_amp"] == "bf16"
    assert TrainConfig.from_dict(TrainConfig(cpu_amp="bf16").to_dict()).cpu_amp == "bf16"
    cpu, gpu = torch.device("cpu"), torch.device("cuda")
    assert training.training_precision(TrainConfig(), cpu) == "fp32"  # amp is the GPU's
    assert training.training_precision(TrainConfig(cpu_amp="bf16"), cpu) == "bf16-autocast"
    assert training.training_precision(TrainConfig(), gpu) == "bf16-autocast"
    assert training.training_precision(TrainConfig(amp="off", cpu_amp="bf16"), gpu) == "fp32"


@pytest.mark.skipif(not training.cpu_computes_bf16(), reason="this CPU has no native bf16")
def test_a_bf16_run_computes_in_bf16_and_says_so(dataset: Path, tmp_path: Path) -> None:
    """The same seed and steps in fp32 and under bf16 autocast: the summaries name their
    precision, and the validation losses differ (the forward pass really ran in bf16; two fp32
    runs of this seed give the same loss to the last digit) but stay near."""
    short = TrainConfig(**{**SMOKE.to_dict(), "iterations": 10, "eval_every": 10})
    fp32 = Trainer(tmp_path / "fp32", short, DataSpec(str(dataset)), progress=False).run()
    bf16 = Trainer(tmp_path / "bf16", TrainConfig(**{**short.to_dict(), "cpu_amp": "bf16"}),
                   DataSpec(str(dataset)), progress=False).run()
    assert (fp32["precision"], bf16["precision"]) == ("fp32", "bf16-autocast")
    assert fp32["best_val_loss"] != bf16["best_val_loss"]
    assert abs(fp32["best_val_loss"] - bf16["best_val_loss"]) < 0.2  # the same run, near
    config = json.loads((tmp_path / "bf16" / "config.json").read_text())
    assert config["train"]["cpu_amp"] == "bf16"


def test_training_evaluations_can_read_fewer_test_positions_than_validation_ones(
        dataset: Path, tmp_path: Path) -> None:
    """eval_test_samples caps the test sets (the curves) below the validation set, which
    alone picks the checkpoint; unset, every set reads eval_samples; recorded only when set."""
    config = replace(SMOKE, iterations=10, eval_every=10, eval_samples=300, eval_test_samples=40)
    Trainer(tmp_path / "run", config, DataSpec(str(dataset), "lichess"), progress=False).run()
    sizes = {r["set"]: r["n"] for r in _rows(tmp_path / "run") if "n" in r}
    assert sizes["val"] == 300 and sizes["test/no-phases"] == 40
    assert {n for s, n in sizes.items() if s.startswith("test/")} <= {40}
    assert "eval_test_samples" not in SMOKE.to_dict()
    assert config.to_dict()["eval_test_samples"] == 40
