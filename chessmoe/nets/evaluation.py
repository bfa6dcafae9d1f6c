"""Table 1: every expert of a bundle, and their mixture, scored on the four test sets
(:func:`evaluate_bundle`), on the whole test split or a seeded subset that every bundle of a
dataset shares (:func:`sampled_test_index`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from chessmoe._io.fsutil import atomic_write_json, sha256_file
from chessmoe._io.provenance import provenance
from chessmoe.games.datasets import DatasetStore
from chessmoe.nets.checkpoints import load_checkpoint, resolve_device
from chessmoe.nets.recipes import test_sets
from chessmoe.nets.training import TrainConfig, per_sample_terms, summarise

__all__ = ["TEST_SUBSET_SEED", "evaluate_bundle", "index_sha256", "sampled_test_index"]

TEST_SUBSET_SEED: Final = 20240101


def sampled_test_index(index: npt.NDArray[np.int64],
                       samples: int | None) -> npt.NDArray[np.int64]:
    """``samples`` of the test ``index`` drawn without replacement by a fixed seed, in
    storage order (sequential reads); all of it when ``samples`` is None or not smaller.

    Drawn with numpy's legacy ``RandomState``, whose stream numpy keeps fixed across
    versions, so a bundle evaluated on another machine later reads the same positions
    (``evaluation.json`` records their hash as ``test_index_sha256``)."""
    if samples is None or samples >= index.shape[0]:
        return index
    chosen = np.random.RandomState(TEST_SUBSET_SEED).permutation(index.shape[0])[:samples]
    return index[np.sort(chosen)]


def index_sha256(index: npt.NDArray[np.int64]) -> str:
    """The hash of a sample index (little-endian int64), to show two evaluations read the
    same positions."""
    return hashlib.sha256(np.ascontiguousarray(index, dtype="<i8").tobytes()).hexdigest()


def evaluate_bundle(bundle: str | os.PathLike[str], dataset_dir: str | os.PathLike[str], *,
                    config: TrainConfig | None = None, device: str = "auto",
                    batch_size: int = 1024, test_samples: int | None = None) -> dict[str, Any]:
    """Every expert of a bundle, and their mixture, on the four test sets.

    The mixture evaluates each test position with the expert of the position's own
    phase (under the bundle's definition). ``test_samples`` evaluates a seeded subset of
    the test positions instead of all of them: the same subset for every bundle of a
    dataset (its hash is recorded), so bundles stay paired, and each mean carries its
    standard error (``loss_se``). Writes and returns ``<bundle>/evaluation.json``.
    """
    bundle = Path(bundle)
    manifest = json.loads((bundle / "manifest.json").read_text())
    definition = manifest["definition"]
    store = DatasetStore(dataset_dir)
    full = store.indices("test", "no-phases", definition)
    index = sampled_test_index(full, test_samples)
    sampled = index.shape[0] < full.shape[0]
    inputs = {"experts": {k: v["sha256"] for k, v in manifest["experts"].items()},
              "dataset_manifest_sha256": sha256_file(Path(dataset_dir) / "manifest.json"),
              **({"test_index_sha256": index_sha256(index)} if sampled else {})}
    existing = bundle / "evaluation.json"
    if existing.exists() and config is None:
        previous: dict[str, Any] = json.loads(existing.read_text())
        if previous.get("inputs") == inputs:
            return previous  # same experts, same test positions
    config = config or TrainConfig.from_dict(manifest["train_config"])
    names = manifest["phase_names"]
    torch_device = resolve_device(device)
    per_expert: dict[str, dict[str, np.ndarray]] = {}
    for name in manifest["experts"]:
        model = load_checkpoint(bundle / name / "model.pt").to(torch_device)
        per_expert[name] = per_sample_terms(model, store, index, config, torch_device,
                                            batch_size, definition=definition)
    phase = next(iter(per_expert.values()))["phase"].astype(np.int64)
    if phase.size and not (phase.min() >= 0 and phase.max() < len(names)):
        raise ValueError(f"{bundle}: test positions carry phase ids outside "
                         f"0..{len(names) - 1} under {definition}")
    masks = {"no-phases": np.ones(phase.shape[0], dtype=bool),
             **{n: phase == p for p, n in enumerate(names)}}
    sets = test_sets(definition)
    results: dict[str, Any] = {}
    for name, terms in per_expert.items():
        results[name] = {s: summarise({k: v[masks[s]] for k, v in terms.items()}, config)
                         for s in sets}
    if all(f"phase{p}" in per_expert for p in range(len(names))):
        mixture = {k: np.zeros_like(v) for k, v in per_expert["phase0"].items()}
        for p in range(len(names)):
            chosen = phase == p
            for key in mixture:
                mixture[key][chosen] = per_expert[f"phase{p}"][key][chosen]
        results["mixture"] = {s: summarise({k: v[masks[s]] for k, v in mixture.items()},
                                           config) for s in sets}
    out = {"bundle": bundle.name, "regime": manifest["regime"], "a": manifest["a"],
           "definition": definition, "test_positions": int(index.shape[0]),
           "test_set_positions": int(full.shape[0]),
           "test_samples": test_samples if sampled else None,
           "loss": "0.01 * value MSE + 0.99 * policy cross-entropy (the validation loss)",
           "results": results, "inputs": inputs, "provenance": provenance()}
    atomic_write_json(bundle / "evaluation.json", out)
    return out
