"""The shared-trunk mixture: one trunk, a policy and value head per phase, chosen by the gate.

Phase specialisation without more compute: a position costs one trunk and one head, and the
network holds about the regular network's parameters and cost per position
(:func:`trunk_config`). In training, :class:`PhaseHeadNet` routes each position to its own
phase's head; in search, :meth:`PhaseHeadNet.expert` gives one phase's network as a plain
:class:`~chessmoe.nets.model.RiseNet`, so a trained trunk bundle is read, gated and played like
any mixture of experts.
"""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from typing import cast

import torch
from torch import nn

from chessmoe.nets.model import ModelConfig, NetOutput, RiseNet, count_parameters

__all__ = ["TOLERANCE", "PhaseHeadNet", "build_network", "multiply_adds", "run_network",
           "trunk_config"]

#: How far the shared-trunk mixture's parameters and cost per position may lie from the
#: regular network's (a fraction of it).
TOLERANCE = 0.10


def multiply_adds(config: ModelConfig) -> int:
    """Multiply-adds of one position through ``config``'s network (convolutions and dense
    layers; one head of a shared-trunk network)."""
    from torch.utils.flop_counter import FlopCounterMode

    model = RiseNet(replace(config, phase_heads=1)).eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(torch.zeros(1, config.input_planes, 8, 8))
    return int(counter.get_total_flops() // 2)


def trunk_config(regular: ModelConfig, phases: int = 3) -> ModelConfig:
    """The shared-trunk version of ``regular``: ``phases`` heads with a 1x1 policy output (a
    3x3 output convolution per phase would hold 44 k parameters each at the small size and
    break the parameter budget), and the narrowest trunk (``regular``'s channels, else up to a
    third more, depth kept) for which a shared policy width brings the parameters and
    multiply-adds per position both within :data:`TOLERANCE` of ``regular``'s, with the width
    whose larger relative miss is smallest (widening the trunk only as far as needed keeps the
    policy head near ``regular``'s: a wider trunk would fit the budget with a starved head).
    Raises when no choice brings both within :data:`TOLERANCE` of ``regular``'s."""
    from chessmoe.nets.model import widened

    params = count_parameters(RiseNet(regular))
    cost = multiply_adds(regular)

    def config_of(channels: int, width: int) -> ModelConfig:
        return replace(widened(regular, channels), policy_channels=width, policy_kernel2=1,
                       phase_heads=phases)

    def size(config: ModelConfig) -> int:
        return count_parameters(PhaseHeadNet(config))

    def widest(channels: int, limit: float) -> int:
        """The widest shared policy width whose parameters stay below ``limit``."""
        low, high = 1, 4 * regular.policy_channels
        while high - low > 1:  # the parameters grow with the width
            middle = (low + high) // 2
            low, high = (middle, high) if size(config_of(channels, middle)) <= limit \
                else (low, middle)
        return low

    best: tuple[float, int, int, float, float] | None = None
    for channels in range(regular.channels, regular.channels * 4 // 3 + 1):
        if size(config_of(channels, 1)) > params * (1 + TOLERANCE):
            break  # wider trunks hold more than the budget even with the narrowest head
        first, last = widest(channels, params), widest(channels, params * (1 + TOLERANCE))
        step = max(1, (last - first) // 40)  # the cost grows with the width
        for width in {*range(first, last + 1, step), last}:
            config = config_of(channels, width)
            p = size(config) / params - 1
            c = multiply_adds(config) / cost - 1
            best = min(best or (math.inf, 0, 0, 0.0, 0.0), (max(abs(p), abs(c)), channels,
                                                            width, p, c))
        if best is not None and best[0] <= TOLERANCE:
            break  # the narrowest trunk that fits: the policy head keeps its width
    assert best is not None
    worst, channels, width, p, c = best
    if worst > TOLERANCE:
        raise ValueError(f"no trunk brings the shared-trunk mixture within {TOLERANCE:.0%} of "
                         f"the regular network (best: {channels} channels, policy width "
                         f"{width}: parameters {p:+.1%}, cost {c:+.1%})")
    return config_of(channels, width)


class _Head(nn.Module):
    """One phase's value head and policy output."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        net = RiseNet(replace(config, phase_heads=1))
        self.value_body: nn.Sequential = net.value_body
        self.wdl_head: nn.Linear = net.wdl_head
        self.plies_head: nn.Linear = net.plies_head
        self.policy_out = cast(nn.Conv2d, net.policy_head[3])


class PhaseHeadNet(RiseNet):
    """A trunk shared by every phase and one head per phase (``config.phase_heads``): the
    regular network's stem and residual blocks and the first convolution of its policy head
    are shared; each phase has its own value head and its own policy output (a 1x1
    convolution to the 76 policy planes). Each position goes through its own phase's head
    (its label under the gate's definition)."""

    def __init__(self, config: ModelConfig) -> None:
        if config.phase_heads < 2:
            raise ValueError("a shared-trunk network has two or more phase heads")
        nn.Module.__init__(self)
        self.config = config
        one = RiseNet(replace(config, phase_heads=1))
        self.stem, self.blocks = one.stem, one.blocks
        self.policy_shared = nn.Sequential(*list(one.policy_head)[:3])
        self.heads = nn.ModuleList(_Head(config) for _ in range(config.phase_heads))

    def forward(self, planes: torch.Tensor, phase: torch.Tensor | None = None) -> NetOutput:
        """Every position through its own phase's head (``phase``: one id a position)."""
        if phase is None:
            raise ValueError("a shared-trunk network needs each position's phase")
        x = self.blocks(self.stem(planes))
        hidden = self.policy_shared(x)
        outputs = [self._head(k, x, hidden) for k in range(self.config.phase_heads)]
        chosen = phase.long().to(planes.device)

        def pick(field: int) -> torch.Tensor:
            stacked = torch.stack([o[field] for o in outputs])  # (heads, B, ...)
            index = chosen.view(1, -1, *([1] * (stacked.dim() - 2))).expand(
                1, *stacked.shape[1:])
            return stacked.gather(0, index)[0]

        return NetOutput(pick(0), pick(1), pick(2), pick(3))

    def _head(self, k: int, x: torch.Tensor, hidden: torch.Tensor) -> NetOutput:
        head = cast(_Head, self.heads[k])
        features = head.value_body(x)
        wdl = head.wdl_head(features)
        value, plies = self._value_and_plies(wdl, head.plies_head(features))
        return NetOutput(value, wdl, plies, torch.flatten(head.policy_out(hidden), 1))

    def _value_and_plies(self, wdl: torch.Tensor, plies: torch.Tensor
                         ) -> tuple[torch.Tensor, torch.Tensor]:
        if self.config.value_from == "probabilities":
            probabilities = torch.softmax(wdl.float(), dim=1)
            value = probabilities[:, 2] - probabilities[:, 0]
        else:
            value = (wdl[:, 2] - wdl[:, 0]).float()
        return value, torch.sigmoid(plies[:, 0].float())

    def expert(self, k: int) -> RiseNet:
        """Phase ``k``'s network on its own: the trunk, the shared convolution and head ``k``
        as a plain :class:`RiseNet` (weights copied)."""
        net = RiseNet(replace(self.config, phase_heads=1))
        head = cast(_Head, self.heads[k])
        net.stem, net.blocks = copy.deepcopy(self.stem), copy.deepcopy(self.blocks)
        net.value_body = copy.deepcopy(head.value_body)
        net.wdl_head, net.plies_head = (copy.deepcopy(head.wdl_head),
                                        copy.deepcopy(head.plies_head))
        net.policy_head = nn.Sequential(*copy.deepcopy(list(self.policy_shared)),
                                        copy.deepcopy(head.policy_out), nn.Flatten())
        return net.eval()


def build_network(config: ModelConfig) -> RiseNet:
    """A freshly initialised network of ``config``: a shared-trunk network when it has phase
    heads, else a plain :class:`RiseNet` (what checkpoints and the trainer build)."""
    return PhaseHeadNet(config) if config.phase_heads > 1 else RiseNet(config)


def run_network(model: RiseNet, planes: torch.Tensor, phase: torch.Tensor) -> NetOutput:
    """``model`` on ``planes``: a shared-trunk network routes each position to its phase's
    head (``phase``, the gate's label), a plain network ignores the phase."""
    if isinstance(model, PhaseHeadNet):
        return model(planes, phase)  # type: ignore[no-any-return]
    return model(planes)  # type: ignore[no-any-return]
