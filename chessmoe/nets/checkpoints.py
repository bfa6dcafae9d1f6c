"""Network checkpoints: written atomically, loaded safely (``weights_only=True``), verified.

This module is what the search layer may import from ``nets`` besides the model itself:
loading a network for play never pulls in the trainer.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import torch

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe.nets.model import ModelConfig, RiseNet
from chessmoe.nets.trunk import build_network

__all__ = ["CheckpointError", "export_onnx", "load_checkpoint", "load_model", "load_optimizer",
           "resolve_device", "save_checkpoint", "save_optimizer", "weights_sha256"]

FORMAT = "chessmoe-checkpoint-1"


class CheckpointError(KitError):
    """A checkpoint is missing, corrupt, or not a chessmoe checkpoint."""


def resolve_device(name: str) -> torch.device:
    """``auto`` is the first GPU when there is one, else the CPU; any other torch name as is."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(name)
    except RuntimeError as error:
        raise KitError(f"unknown device {name!r} ({error}); use auto, cpu, cuda or cuda:N") \
            from None


def weights_sha256(state_dict: dict[str, torch.Tensor]) -> str:
    """sha256 over every tensor's name, dtype, shape and bytes, in key order."""
    digest = hashlib.sha256()
    for key in sorted(state_dict):
        tensor = state_dict[key].detach().cpu().contiguous().reshape(-1)
        digest.update(f"{key}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def save_checkpoint(path: str | os.PathLike[str], model: RiseNet,
                    extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the model's weights and config (one rename), then its sidecar (one rename).

    ``model.pt`` holds the model's config and weights, its own metadata (iteration,
    validation loss) and a sha256 over the weights' bytes; its sidecar ``model.pt.json``
    repeats the metadata with the file's sha256 for humans and manifests."""
    path = Path(path)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    payload = {"format": FORMAT, "model_config": model.config.to_dict(), "state_dict": state,
               "meta": json.dumps(extra or {}, sort_keys=True),
               "weights_sha256": weights_sha256(state)}
    with atomic_path(path, suffix=".pt") as tmp:
        torch.save(payload, tmp)
    meta = {"file": path.name, "sha256": sha256_file(path), **(extra or {})}
    atomic_write_json(path.with_name(path.name + ".json"), meta)
    return meta


def _first_line(error: Exception) -> str:
    """The error's type and first sentence (torch's unpickling errors run to a paragraph)."""
    text = " ".join(str(error).split())
    head = text.split(". ")[0][:160]
    return f"{type(error).__name__}: {head}"


def _load_payload(path: Path, map_location: str | torch.device) -> dict[str, Any]:
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # truncated file, not a torch file, unsafe pickle
        raise CheckpointError(f"checkpoint {path} cannot be loaded ({_first_line(error)}); "
                              "retrain it or restore it from git") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a chessmoe checkpoint (format "
                              f"{payload.get('format') if isinstance(payload, dict) else '?'})")
    return payload


def load_checkpoint(path: str | os.PathLike[str], map_location: str | torch.device = "cpu"
                    ) -> RiseNet:
    """Load a checkpoint safely (``weights_only=True``), verifying it. A run killed between
    :func:`save_checkpoint`'s two renames leaves a complete new ``model.pt`` beside the
    previous sidecar: the stale sidecar is recognised (the weights check out against the
    checksum inside the file) and rewritten, so the resumed run goes on; a file whose bytes
    were changed fails the inner checksum and is refused as corrupt. A checkpoint without the
    inner checksum (the committed results') is checked against its sidecar alone."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    sidecar = path.with_name(path.name + ".json")
    recorded = json.loads(sidecar.read_text()).get("sha256") if sidecar.exists() else None
    actual = sha256_file(path)
    stale = recorded is not None and recorded != actual
    try:
        payload = _load_payload(path, map_location)
    except CheckpointError:
        if stale:
            raise CheckpointError(f"checkpoint {path} is corrupt: its sha256 differs from "
                                  f"{sidecar.name}; retrain it or restore it from git") from None
        raise
    inner = payload.get("weights_sha256")
    if inner is not None and weights_sha256(payload["state_dict"]) != inner:
        raise CheckpointError(f"checkpoint {path} is corrupt: its weights do not match the "
                              "checksum stored with them; retrain it or restore it from git")
    if stale:
        if inner is None:
            raise CheckpointError(f"checkpoint {path} is corrupt: its sha256 differs from "
                                  f"{sidecar.name}; retrain it or restore it from git")
        # a complete new model.pt beside the previous sidecar: the save was cut between its
        # two renames -- finish it
        meta = json.loads(payload.get("meta") or "{}")
        atomic_write_json(sidecar, {"file": path.name, "sha256": actual, **meta})
    try:
        model = build_network(ModelConfig.from_dict(payload["model_config"]))
        model.load_state_dict(payload["state_dict"])
    except Exception as error:  # missing keys, shape mismatch
        raise CheckpointError(f"checkpoint {path} cannot be loaded "
                              f"({_first_line(error)})") from error
    return model.eval()


def save_optimizer(path: str | os.PathLike[str], optimizer: torch.optim.Optimizer,
                   iteration: int) -> None:
    """The optimiser state that goes with the checkpoint of ``iteration`` (one rename)."""
    with atomic_path(Path(path), suffix=".pt") as tmp:
        torch.save({"iteration": iteration, "state": optimizer.state_dict()}, tmp)


def load_optimizer(path: str | os.PathLike[str], optimizer: torch.optim.Optimizer,
                   iteration: int | None, map_location: str | torch.device = "cpu") -> bool:
    """Restore the optimiser saved with the checkpoint of ``iteration``; ``False`` (and the
    optimiser untouched) when the file is missing, unreadable or from another iteration."""
    path = Path(path)
    if not path.exists():
        return False
    try:
        saved = torch.load(path, map_location=map_location, weights_only=True)
    except Exception:
        return False
    if not isinstance(saved, dict) or "state" not in saved:
        return False
    if iteration is not None and saved.get("iteration") != iteration:
        return False
    optimizer.load_state_dict(saved["state"])
    return True


def export_onnx(model: RiseNet, path: str | os.PathLike[str]) -> Path:
    """Export ``model`` (moved to the CPU, eval mode) to ONNX at ``path``, atomically, with a
    dynamic batch axis: input ``planes`` (batch, planes, 8, 8), outputs ``value``, ``wdl``,
    ``plies``, ``policy``. The trainer exports every run's best model with it and the ONNX
    Runtime backend exports (and caches) any checkpoint with it."""
    import warnings

    path = Path(path)
    model = model.to("cpu").eval()
    example = torch.zeros(1, model.config.input_planes, 8, 8)
    with atomic_path(path, suffix=".onnx") as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), str(tmp), dynamo=False, opset_version=17,
                          input_names=["planes"],
                          output_names=["value", "wdl", "plies", "policy"],
                          dynamic_axes={"planes": {0: "batch"}, "value": {0: "batch"},
                                        "wdl": {0: "batch"}, "plies": {0: "batch"},
                                        "policy": {0: "batch"}})
    return path


@lru_cache(maxsize=32)
def _cached_model(path: str, sha256: str, device: str, half: bool) -> RiseNet:
    model = load_checkpoint(path).to(device).eval()
    return model.half() if half else model


def load_model(path: str | os.PathLike[str], device: str = "auto", half: bool = False
               ) -> RiseNet:
    """Load a checkpoint once per (file content, device, precision) and share it (the
    search's networks and backends all come through here)."""
    resolved = resolve_device(device)
    return _cached_model(str(Path(path).resolve()), sha256_file(path), str(resolved),
                         half and resolved.type == "cuda")
