"""The shared-trunk network: routing by phase, its experts as plain networks, its budget."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from chessmoe.nets.checkpoints import load_checkpoint, save_checkpoint
from chessmoe.nets.model import ModelConfig, RiseNet, count_parameters, preset
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
