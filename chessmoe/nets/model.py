"""RISEv3.3, the network of the paper (App. E.2), with every size knob configurable
(:class:`ModelConfig`, :data:`PRESETS`): a 3x3 convolution stem, mobile inverted-bottleneck
residual blocks (some with channel attention, stochastic depth rising over the blocks), a
value head (WDL logits and plies-to-end) and a policy head (4864 logits): :class:`RiseNet`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, NamedTuple

import torch
from torch import nn

from chessmoe.encoding import N_PLANES, POLICY_PLANES

__all__ = [
    "PRESETS",
    "ModelConfig",
    "NetOutput",
    "RiseNet",
    "build_model",
    "count_parameters",
    "matched_width",
    "preset",
    "preset_overrides",
    "widened",
]


@dataclass(frozen=True)
class ModelConfig:
    """Every size knob of RISEv3.3 (defaults: the paper's network)."""

    channels: int = 256
    blocks: int = 15
    expansion_init: int = 224  # expanded channels of block 0
    expansion_step: int = 32  # added per block
    kernel5_blocks: tuple[int, ...] = (7, 11, 12, 13)  # 5x5 depthwise, fewer channels
    kernel5_reduction: int = 32  # channels removed per (block // 2) in 5x5 blocks
    attention_blocks: tuple[int, ...] = (5, 8, 12, 13, 14)
    attention: str = "dense"  # "dense" (authors' code), "eca" (Wang et al.), "none"
    stochastic_depth: float = 0.05  # drop probability of the last block (linear from 0)
    value_channels: int = 8
    policy_channels: int = 256  # hidden channels of the policy head
    input_planes: int = N_PLANES
    policy_planes: int = POLICY_PLANES
    value_from: str = "probabilities"  # "probabilities" (P(win)-P(loss)) or "logits"
    policy_kernel2: int = 3  # kernel of the policy head's output convolution (3 or 1)
    phase_heads: int = 1  # > 1: a shared trunk with a head per phase (nets.trunk)

    def __post_init__(self) -> None:
        if self.attention not in ("dense", "eca", "none"):
            raise ValueError(f"attention must be 'dense', 'eca' or 'none', not "
                             f"{self.attention!r}")
        if self.value_from not in ("probabilities", "logits"):
            raise ValueError("value_from must be 'probabilities' or 'logits'")
        if self.policy_kernel2 not in (1, 3) or self.phase_heads < 1:
            raise ValueError("policy_kernel2 must be 1 or 3 and phase_heads at least 1")
        if not 0 <= self.stochastic_depth < 1:
            raise ValueError("stochastic_depth must lie in [0, 1)")
        for name in ("kernel5_blocks", "attention_blocks"):
            bad = [b for b in getattr(self, name) if not 0 <= b < self.blocks]
            if bad:
                raise ValueError(f"{name} {bad} outside 0..{self.blocks - 1}")

    def expansion(self, block: int) -> int:
        """Expanded (depthwise) channels of ``block``."""
        channels = self.expansion_init + self.expansion_step * block
        if block in self.kernel5_blocks:
            channels -= self.kernel5_reduction * (block // 2)
        return max(channels, 1)

    def kernel(self, block: int) -> int:
        return 5 if block in self.kernel5_blocks else 3

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kernel5_blocks"] = list(self.kernel5_blocks)
        data["attention_blocks"] = list(self.attention_blocks)
        for key, default in _RECORDED_IF_SET.items():  # absent from records made before them
            if data[key] == default:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        data = dict(data)
        for key in ("kernel5_blocks", "attention_blocks"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(**data)


#: Fields recorded only where they differ from their default (the shared-trunk network's).
_RECORDED_IF_SET = {"policy_kernel2": 3, "phase_heads": 1}

PRESETS: dict[str, ModelConfig] = {
    "paper": ModelConfig(),
    "paper-eca": ModelConfig(attention="eca"),
    # CPU-sized versions of the same network (same block pattern, scaled down).
    "small": ModelConfig(channels=64, blocks=6, expansion_init=64, expansion_step=16,
                         kernel5_blocks=(3,), kernel5_reduction=16,
                         attention_blocks=(2, 4, 5), attention="eca", policy_channels=64,
                         stochastic_depth=0.0),
    "tiny": ModelConfig(channels=16, blocks=2, expansion_init=16, expansion_step=8,
                        kernel5_blocks=(1,), kernel5_reduction=8, attention_blocks=(1,),
                        attention="eca", value_channels=2, policy_channels=16,
                        stochastic_depth=0.0),
}


def preset(name: str, **overrides: Any) -> ModelConfig:
    """A named configuration, optionally with fields overridden."""
    try:
        config = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown model preset {name!r}; known: {', '.join(PRESETS)}") from None
    return replace(config, **overrides)


def preset_overrides(name: str, config: ModelConfig) -> dict[str, Any]:
    """The fields of ``config`` that differ from the preset ``name``'s: what a training
    configuration records as ``model_overrides`` so its manifest names the network."""
    base = preset(name)
    return {f.name: getattr(config, f.name) for f in fields(config)
            if getattr(config, f.name) != getattr(base, f.name)}


# --- modules -------------------------------------------------------------------------------


class _ChannelAttention(nn.Module):
    """Channel gate on a block's input: ``x * hardsigmoid(f(avgpool(x)))``, ``f`` of one of
    two kinds:

    * ``"dense"`` -- what the authors' PyTorch code computes: a ``Conv1d`` with 256 input
      and 256 output channels over the pooled vector (length 1), i.e. a dense 256 x 256
      map. It is what gives RISEv3.3 its ~5.8 M parameters, so the ``paper`` preset uses it;
    * ``"eca"`` -- Efficient Channel Attention as Wang et al. define it: a 1-D convolution
      *along* the pooled channel vector (kernel 5 for 256 channels, 5 weights). The
      ``paper-eca`` preset is RISEv3.3 with it (~4.1 M parameters)."""

    def __init__(self, channels: int, kind: str) -> None:
        super().__init__()
        t = int(abs((math.log2(channels) + 1) / 2))
        self.kernel = t if t % 2 else t + 1  # 5 for 256 channels
        self.kind = kind
        if kind == "dense":  # Conv1d over a length-1 sequence: a dense channels x channels map
            self.conv = nn.Conv1d(channels, channels, self.kernel, padding=self.kernel // 2)
        else:  # ECA: one shared 1-D kernel sliding along the channel axis
            self.conv = nn.Conv1d(1, 1, self.kernel, padding=self.kernel // 2, bias=False)
        self.gate = nn.Hardsigmoid()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = x.mean(dim=(2, 3))  # (B, C)
        if self.kind == "dense":
            weights = self.conv(pooled[:, :, None])[:, :, 0]
        else:
            weights = self.conv(pooled[:, None, :])[:, 0, :]
        gated: torch.Tensor = x * self.gate(weights)[:, :, None, None]
        return gated


class _DropPath(nn.Module):
    """Stochastic depth: drop the residual branch of a whole sample while training."""

    def __init__(self, probability: float) -> None:
        super().__init__()
        self.probability = probability

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.probability == 0.0:
            return x
        keep = 1.0 - self.probability
        mask = torch.empty((x.shape[0], 1, 1, 1), device=x.device, dtype=x.dtype).bernoulli_(keep)
        return x * mask / keep


class _Block(nn.Module):
    """Mobile inverted-bottleneck residual block (attention, when present, gates the input)."""

    def __init__(self, channels: int, expanded: int, kernel: int, attention: str | None,
                 drop: float) -> None:
        super().__init__()
        self.attention = _ChannelAttention(channels, attention) if attention else None
        self.body = nn.Sequential(
            nn.Conv2d(channels, expanded, 1, bias=False), nn.BatchNorm2d(expanded),
            nn.ReLU(inplace=True),
            nn.Conv2d(expanded, expanded, kernel, padding=kernel // 2, groups=expanded,
                      bias=False),
            nn.BatchNorm2d(expanded), nn.ReLU(inplace=True),
            nn.Conv2d(expanded, channels, 1, bias=False), nn.BatchNorm2d(channels))
        self.drop = _DropPath(drop)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.attention is not None:
            x = self.attention(x)
        out: torch.Tensor = x + self.drop(self.body(x))
        return out


class NetOutput(NamedTuple):
    """Network outputs for a batch of B positions."""

    value: torch.Tensor  # (B,) in [-1, 1]: P(win) - P(loss) for the side to move
    wdl: torch.Tensor  # (B, 3) logits: loss, draw, win
    plies: torch.Tensor  # (B,) in (0, 1): predicted plies to the end / 100
    policy: torch.Tensor  # (B, 4864) logits


class RiseNet(nn.Module):
    """RISEv3.3 built from a :class:`ModelConfig` (paper App. E.2): a 3x3 convolution stem,
    then mobile inverted-bottleneck residual blocks (1x1 expand, depthwise k x k, 1x1
    project; batch norm after each, ReLU after the first two, no activation after the
    residual add), some with channel attention applied to the block input, stochastic depth
    rising linearly over the blocks; a value head (1x1 conv to 8 planes, then WDL logits and
    plies-to-end) and a policy head (two 3x3 convolutions to 76 planes = 4864 logits). The
    outputs: :class:`NetOutput`."""

    def __init__(self, config: ModelConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or ModelConfig()
        c = config.channels
        self.stem = nn.Sequential(
            nn.Conv2d(config.input_planes, c, 3, padding=1, bias=False), nn.BatchNorm2d(c),
            nn.ReLU(inplace=True))
        drops = ([config.stochastic_depth * i / (config.blocks - 1)
                  for i in range(config.blocks)] if config.blocks > 1 else [0.0])
        self.blocks = nn.Sequential(*[
            _Block(c, config.expansion(i), config.kernel(i),
                   config.attention if (i in config.attention_blocks
                                        and config.attention != "none") else None, drops[i])
            for i in range(config.blocks)])
        v = config.value_channels
        self.value_body = nn.Sequential(nn.Conv2d(c, v, 1, bias=False), nn.BatchNorm2d(v),
                                        nn.ReLU(inplace=True), nn.Flatten())
        self.wdl_head = nn.Linear(v * 64, 3)
        self.plies_head = nn.Linear(v * 64, 1)
        p = config.policy_channels
        self.policy_head = nn.Sequential(
            nn.Conv2d(c, p, 3, padding=1, bias=False), nn.BatchNorm2d(p), nn.ReLU(inplace=True),
            nn.Conv2d(p, config.policy_planes, config.policy_kernel2,
                      padding=config.policy_kernel2 // 2, bias=False), nn.Flatten())

    def forward(self, planes: torch.Tensor) -> NetOutput:
        x = self.blocks(self.stem(planes))
        features = self.value_body(x)
        wdl = self.wdl_head(features)
        if self.config.value_from == "probabilities":
            probabilities = torch.softmax(wdl.float(), dim=1)
            value = probabilities[:, 2] - probabilities[:, 0]
        else:  # the authors' code: win logit minus loss logit (unbounded)
            value = (wdl[:, 2] - wdl[:, 0]).float()
        plies = torch.sigmoid(self.plies_head(features)[:, 0].float())
        return NetOutput(value, wdl, plies, self.policy_head(x))


def build_model(config: ModelConfig | str = "paper", **overrides: Any) -> RiseNet:
    """A freshly initialised network from a config or preset name."""
    if isinstance(config, str):
        config = preset(config, **overrides)
    elif overrides:
        config = replace(config, **overrides)
    return RiseNet(config)


def count_parameters(model: nn.Module) -> int:
    """Trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def widened(config: ModelConfig, channels: int) -> ModelConfig:
    """``config`` with every channel count scaled by ``channels / config.channels``: the
    trunk, each block's expanded channels (``expansion_init``, ``expansion_step`` and the 5x5
    blocks' ``kernel5_reduction``, rounded) and the policy head's hidden channels. Depth,
    kernels, attention blocks and the value head (8 planes, as at the paper's 256 channels)
    stay as they are."""
    if channels < 1:
        raise ValueError(f"channels must be positive, not {channels}")
    ratio = channels / config.channels
    return replace(config, channels=channels,
                   expansion_init=max(1, round(config.expansion_init * ratio)),
                   expansion_step=round(config.expansion_step * ratio),
                   kernel5_reduction=round(config.kernel5_reduction * ratio),
                   policy_channels=max(1, round(config.policy_channels * ratio)))


def matched_width(config: ModelConfig, factor: float) -> ModelConfig:
    """The :func:`widened` ``config`` whose parameter count lies closest to ``factor`` times
    its own (ties: the narrower). The parameter-matched single network is this with
    ``factor`` = the number of experts: on the ``small`` preset (64 channels, 201,469
    parameters) and 3 experts, 125 channels give 604,086 parameters, 2.998 times (124: 2.962,
    126: 3.054; scaling the depth instead lands at best on 18 blocks, 2.994 times)."""
    if factor <= 0:
        raise ValueError(f"factor must be positive, not {factor}")
    target = factor * count_parameters(RiseNet(config))

    def size(channels: int) -> int:
        return count_parameters(RiseNet(widened(config, channels)))

    low, high = 1, config.channels
    while size(high) < target:  # the parameters grow with the width: bracket, then bisect
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if size(middle) < target else (low, middle)
    best = min((low, high), key=lambda c: (abs(size(c) - target), c))
    return widened(config, best)
