"""The shared-trunk network: routing by phase, its experts as plain networks, its budget."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from chessmoe.games.datasets import DatasetStore
from chessmoe.nets.checkpoints import load_checkpoint, save_checkpoint
from chessmoe.nets.evaluation import evaluate_bundle
from chessmoe.nets.model import ModelConfig, RiseNet, count_parameters, preset
from chessmoe.nets.regimes import ALL_REGIMES, REGIMES, plan, regime_config, train_bundle
from chessmoe.nets.training import (
    DataSpec,
    TrainConfig,
    Trainer,
    per_sample_terms,
    summarise,
)
from chessmoe.nets.trunk import (
    TOLERANCE,
    PhaseHeadNet,
    build_network,
    multiply_adds,
    trunk_config,
)

TINY_TRUNK = replace(preset("tiny"), policy_channels=12, policy_kernel2=1, phase_heads=3)


def _planes(n: int, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(n, 52, 8, 8, generator=generator) < 0.1).float()


def test_each_position_goes_through_its_own_phase_head() -> None:
    torch.manual_seed(3)
    net = PhaseHeadNet(TINY_TRUNK).eval()
    planes = _planes(9)
    phase = torch.tensor([0, 1, 2, 2, 1, 0, 0, 2, 1])
    with torch.no_grad():
        mixed = net(planes, phase)
        alone = [net.expert(k)(planes) for k in range(3)]
    for row, k in enumerate(phase.tolist()):
        for field in range(4):
            torch.testing.assert_close(mixed[field][row], alone[k][field][row])
    # the heads differ: routing matters
    assert not torch.allclose(alone[0].policy, alone[1].policy)
    with pytest.raises(ValueError, match="needs each position's phase"):
        net(planes)


def test_an_expert_is_a_plain_network_that_round_trips_through_a_checkpoint(
        tmp_path: Path) -> None:
    torch.manual_seed(4)
    net = PhaseHeadNet(TINY_TRUNK).eval()
    expert = net.expert(2)
    assert type(expert) is RiseNet and expert.config.phase_heads == 1
    save_checkpoint(tmp_path / "expert.pt", expert)
    again = load_checkpoint(tmp_path / "expert.pt")
    planes = _planes(5)
    with torch.no_grad():
        torch.testing.assert_close(again(planes).policy, expert(planes).policy)
    save_checkpoint(tmp_path / "trunk.pt", net)  # the whole trunk network too
    whole = load_checkpoint(tmp_path / "trunk.pt")
    assert isinstance(whole, PhaseHeadNet)
    phase = torch.tensor([2, 0, 1, 1, 2])
    with torch.no_grad():
        torch.testing.assert_close(whole(planes, phase).value, net(planes, phase).value)


def test_the_new_model_fields_are_recorded_only_when_set() -> None:
    committed = Path("results/experts/small/regular/manifest.json")
    assert "phase_heads" not in preset("small").to_dict()
    assert ModelConfig.from_dict(TINY_TRUNK.to_dict()) == TINY_TRUNK
    assert TINY_TRUNK.to_dict()["phase_heads"] == 3
    if committed.exists():  # a committed bundle's model record reads as before
        assert json.loads(committed.read_text())["model"] == preset("small").to_dict()
    with pytest.raises(ValueError, match="policy_kernel2"):
        replace(preset("tiny"), policy_kernel2=5)
    assert type(build_network(preset("tiny"))) is RiseNet
    assert type(build_network(TINY_TRUNK)) is PhaseHeadNet


@pytest.mark.slow
def test_at_the_small_size_the_trunk_mixture_costs_what_one_network_costs() -> None:
    """Parameters and multiply-adds a position within 10 % of the regular network's (201,469
    parameters, 12.5 M multiply-adds), where three full experts would hold three times."""
    regular = preset("small")
    config = trunk_config(regular)
    params = count_parameters(PhaseHeadNet(config)) / count_parameters(RiseNet(regular))
    cost = multiply_adds(config) / multiply_adds(regular)
    assert abs(params - 1) <= TOLERANCE and abs(cost - 1) <= TOLERANCE
    assert multiply_adds(regular) == 12_542_528
    # the regular trunk fits: it is kept, and the shared policy width balances the two misses
    assert (config.channels, config.policy_channels, config.policy_kernel2) == (64, 107, 1)


# --- the trunk regime: trained on every position through its phase's head, then split -------

TRUNK_SMOKE = TrainConfig(model="tiny", model_overrides={"channels": 24, "expansion_init": 24,
                                                          "expansion_step": 16,
                                                          "kernel5_reduction": 16},
                          batch_size=32, iterations=30, eval_every=10, eval_samples=200,
                          log_every=5, max_lr=0.05, device="cpu", threads=1)


def test_the_trunk_regime_trains_its_network_within_the_budget() -> None:
    config = regime_config("trunk", TRUNK_SMOKE)
    model = config.model_config()
    assert model.phase_heads == 3 and model.policy_kernel2 == 1
    regular = count_parameters(RiseNet(TRUNK_SMOKE.model_config()))
    assert abs(count_parameters(build_network(model)) / regular - 1) <= TOLERANCE
    assert regime_config("trunk", config) == config  # already a trunk: unchanged
    assert regime_config("staged", TRUNK_SMOKE) == TRUNK_SMOKE
    [job] = plan("trunk")
    assert job.experts == ("phase0", "phase1", "phase2")
    assert "trunk" not in REGIMES and "trunk" in ALL_REGIMES  # never a profile's default


@pytest.mark.slow
def test_a_trunk_bundle_is_split_into_experts_that_score_as_its_routing(
        dataset: Path, tmp_path: Path) -> None:
    manifest = train_bundle("trunk", tmp_path, dataset, TRUNK_SMOKE, progress=False)
    bundle = tmp_path / "trunk"
    assert manifest["regime"] == "trunk" and manifest["model"]["phase_heads"] == 3
    assert set(manifest["experts"]) == {"phase0", "phase1", "phase2"}
    trunk = load_checkpoint(bundle / "trunk" / "model.pt")
    assert isinstance(trunk, PhaseHeadNet)
    trunk_sha = json.loads((bundle / "trunk" / "model.pt.json").read_text())["sha256"]
    planes = _planes(6)
    for k in range(3):
        entry = manifest["experts"][f"phase{k}"]
        assert entry["trunk"] == {"checkpoint": "trunk/model.pt", "sha256": trunk_sha,
                                  "head": k}
        expert = load_checkpoint(bundle / entry["checkpoint"])
        assert type(expert) is RiseNet and (bundle / f"phase{k}" / "model.onnx").exists()
        with torch.no_grad():
            routed = trunk(planes, torch.full((6,), k))
            torch.testing.assert_close(expert(planes).policy, routed.policy)
            torch.testing.assert_close(expert(planes).value, routed.value)
    # the mixture Table 1 scores (each position by its phase's expert) is the trunk's routing
    result = evaluate_bundle(bundle, dataset, device="cpu")["results"]
    store = DatasetStore(dataset)
    index = store.indices("test", "no-phases", "lichess")
    routed_terms = per_sample_terms(trunk, store, index, TRUNK_SMOKE, torch.device("cpu"),
                                    definition="lichess")
    assert result["mixture"]["no-phases"]["loss"] == pytest.approx(
        summarise(routed_terms, TRUNK_SMOKE)["loss"], rel=1e-5)
    # finished: a second run changes nothing (the split is kept as it is)
    files = {p: p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    assert train_bundle("trunk", tmp_path, dataset, TRUNK_SMOKE, progress=False) == manifest
    assert {p: p.read_bytes() for p in bundle.rglob("*") if p.is_file()} == files


@pytest.mark.slow
def test_training_routes_each_position_through_its_own_phase_head(dataset: Path,
                                                                  tmp_path: Path) -> None:
    config = regime_config("trunk", TRUNK_SMOKE)
    torch.manual_seed(5)
    start = PhaseHeadNet(config.model_config())
    save_checkpoint(tmp_path / "init.pt", start)
    Trainer(tmp_path / "run", config, DataSpec(str(dataset), "lichess"),
            init_from=tmp_path / "init.pt", progress=False).run()
    trained = load_checkpoint(tmp_path / "run" / "model.pt")
    assert isinstance(trained, PhaseHeadNet)
    with torch.no_grad():  # every head learnt, far beyond what weight decay alone moves
        moved = [float((trained.heads[k].policy_out.weight - start.heads[k].policy_out.weight)
                       .norm() / start.heads[k].policy_out.weight.norm()) for k in range(3)]
    assert min(moved) > 0.05, moved
