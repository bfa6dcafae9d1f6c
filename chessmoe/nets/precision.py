"""The precision a training run computes in: fp32, or bf16 autocast on a GPU or on a CPU that
computes bf16 natively (fp32 is the recipe of every committed network; a run names its
precision in its summary and its bundle's manifest)."""

from __future__ import annotations

from typing import Any, Protocol

import torch

from chessmoe._io.errors import KitError

__all__ = ["Precisions", "autocast_context", "cpu_computes_bf16", "training_precision"]


class Precisions(Protocol):
    """The two autocast choices of a run's configuration (a
    :class:`~chessmoe.nets.training.TrainConfig`): on a GPU and on the CPU."""

    @property
    def amp(self) -> str: ...

    @property
    def cpu_amp(self) -> str: ...


def cpu_computes_bf16() -> bool:
    """Whether this CPU computes bf16 natively (AVX512_BF16 or AMX, as oneDNN reports it):
    where it does not, bf16 autocast is emulated and slower than fp32."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a build without oneDNN
        return False


def training_precision(config: Precisions, device: torch.device) -> str:
    """What a run computes its forward pass in on ``device``: ``fp32``, ``bf16-autocast`` or
    ``fp16-autocast`` (recorded in its summary and its bundle's manifest)."""
    if device.type == "cuda" and config.amp != "off":
        return f"{config.amp}-autocast"
    if device.type == "cpu" and config.cpu_amp != "off":
        return f"{config.cpu_amp}-autocast"
    return "fp32"


def autocast_context(config: Precisions, device: torch.device) -> Any:
    precision = training_precision(config, device)
    if device.type == "cuda" and precision != "fp32":
        dtype = torch.bfloat16 if config.amp == "bf16" else torch.float16
        return torch.autocast("cuda", dtype=dtype)
    if device.type == "cpu" and precision != "fp32":
        if not cpu_computes_bf16():
            raise KitError("cpu_amp=bf16: this CPU has neither AVX512_BF16 nor AMX, so bf16 "
                           "would be emulated and slower than fp32; train with cpu_amp=off")
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return torch.autocast("cpu", enabled=False)


# --- the trainer -------------------------------------------------------------------------
