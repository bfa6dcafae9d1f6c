"""Table 1: every expert of a bundle, and their mixture, scored on the four test sets
(:func:`evaluate_bundle`), on the whole test split or a seeded subset that every bundle of a
dataset shares (:func:`sampled_test_index`)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from chessmoe._io.fsutil import atomic_write_json, sha256_file
from chessmoe._io.provenance import provenance
from chessmoe.games.datasets import PHASE_COLUMNS, DatasetStore
from chessmoe.nets.bundles import PAIRED_LOSSES, PairedLoss, read_manifest
from chessmoe.nets.checkpoints import load_checkpoint, resolve_device
from chessmoe.nets.recipes import test_sets
from chessmoe.nets.training import TrainConfig, per_sample_terms, summarise

__all__ = ["TEST_SUBSET_SEED", "clustered_se", "compare_bundles", "evaluate_bundle",
           "index_sha256", "sampled_test_index"]

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


def _expert_terms(bundle: Path, manifest: dict[str, Any], store: DatasetStore,
                  index: npt.NDArray[np.int64], config: TrainConfig, device: str,
                  batch_size: int) -> tuple[dict[str, dict[str, np.ndarray]], np.ndarray]:
    """Every expert's loss terms on the positions ``index`` and each position's phase id
    under the bundle's definition (checked against its phase names)."""
    definition, names = manifest["definition"], manifest["phase_names"]
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
    return per_expert, phase


def _mixture_terms(per_expert: dict[str, dict[str, np.ndarray]], phase: np.ndarray,
                   phases: int) -> dict[str, np.ndarray] | None:
    """Each position's terms from its own phase's expert; ``None`` for a bundle without an
    expert per phase (a single network)."""
    if not all(f"phase{p}" in per_expert for p in range(phases)):
        return None
    mixture = {k: np.zeros_like(v) for k, v in per_expert["phase0"].items()}
    for p in range(phases):
        chosen = phase == p
        for key in mixture:
            mixture[key][chosen] = per_expert[f"phase{p}"][key][chosen]
    return mixture


def _own_phase_terms(bundle: Path, manifest: dict[str, Any], store: DatasetStore,
                     index: npt.NDArray[np.int64], phase: npt.NDArray[np.int64],
                     config: TrainConfig, device: str, batch_size: int
                     ) -> dict[str, np.ndarray]:
    """The terms Table 1's mixture row (or a single network's row) averages, position by
    position: each position of ``index`` through its own phase's expert only (``phase``: its
    phase id), a third of the work of scoring every expert on every position."""
    torch_device = resolve_device(device)
    experts = manifest["experts"]
    phases = len(manifest["phase_names"])
    if not all(f"phase{p}" in experts for p in range(phases)):
        model = load_checkpoint(bundle / "baseline" / "model.pt").to(torch_device)
        return per_sample_terms(model, store, index, config, torch_device, batch_size,
                                definition=manifest["definition"])
    out: dict[str, np.ndarray] = {}
    for p in range(phases):
        rows = np.flatnonzero(phase == p)
        model = load_checkpoint(bundle / f"phase{p}" / "model.pt").to(torch_device)
        terms = per_sample_terms(model, store, index[rows], config, torch_device, batch_size,
                                 definition=manifest["definition"])
        for key, values in terms.items():
            out.setdefault(key, np.zeros(index.shape[0], dtype=values.dtype))[rows] = values
    return out


def clustered_se(values: npt.NDArray[np.float64], clusters: npt.NDArray[np.int64]) -> float:
    """The standard error of ``values``' mean with the observations clustered
    (``clusters``: one label each; the sandwich estimator with the small-sample factor
    G / (G - 1)); 0 for fewer than two clusters."""
    n = values.shape[0]
    _, label = np.unique(clusters, return_inverse=True)
    groups = int(label.max()) + 1 if n else 0
    if groups < 2:
        return 0.0
    sums = np.bincount(label, weights=values - values.mean(), minlength=groups)
    return float(np.sqrt(groups / (groups - 1) * np.sum(sums ** 2)) / n)


def compare_bundles(experts: str | os.PathLike[str], first: str, second: str,
                    dataset_dir: str | os.PathLike[str], *,
                    test_sets: Sequence[str] = ("no-phases",), device: str = "auto",
                    batch_size: int = 1024) -> list[PairedLoss]:
    """``first``'s test loss minus ``second``'s, position by position on the whole test split
    of each of ``test_sets`` (``no-phases`` or a phase: its positions among them, as Table 1
    cuts them; every set from one pass of each network; a mixture scoring each position with
    its own phase's expert, as Table 1 does), with the standard error clustered by game;
    recorded in ``experts``'
    :data:`~chessmoe.nets.bundles.PAIRED_LOSSES` (replacing earlier records of the pair on
    those sets) with the experts' hashes and provenance, and returned in ``test_sets``'
    order."""
    root = Path(experts)
    if first == second:
        raise ValueError(f"compare two different bundles, not {first} with itself")
    manifests = {}
    for name in (first, second):
        manifest = read_manifest(root / name)
        if manifest is None:
            raise FileNotFoundError(f"{root / name}/manifest.json: no trained bundle {name}")
        manifests[name] = manifest
    definitions = {m["definition"] for m in manifests.values()}
    if len(definitions) != 1:
        raise ValueError(f"{first} and {second} split by different phase definitions "
                         f"({', '.join(sorted(definitions))})")
    definition = definitions.pop()
    configs = {name: TrainConfig.from_dict(m["train_config"]) for name, m in manifests.items()}
    factors = {(c.val_value_factor, c.val_policy_factor) for c in configs.values()}
    if len(factors) != 1:
        raise ValueError(f"{first} and {second} weigh the validation loss differently")
    names = manifests[first]["phase_names"]
    for test_set in test_sets:
        if test_set != "no-phases" and test_set not in names:
            raise ValueError(f"unknown test set {test_set!r}; known: no-phases, "
                             f"{', '.join(names)}")
    dataset_sha = sha256_file(Path(dataset_dir) / "manifest.json")
    for name in manifests:  # Table 1's positions, or the differences are not Table 1's
        evaluation = root / name / "evaluation.json"
        recorded = (json.loads(evaluation.read_text()).get("inputs", {})
                    .get("dataset_manifest_sha256") if evaluation.is_file() else None)
        if recorded is not None and recorded != dataset_sha:
            raise ValueError(f"{name} was evaluated on another dataset than {dataset_dir} "
                             f"(its evaluation.json names manifest {recorded[:12]}...)")
    store = DatasetStore(dataset_dir)
    index = store.indices("test", "no-phases", definition)
    games = store.column("game_global")[index].astype(np.int64)
    value_factor, policy_factor = factors.pop()
    phase = store.column(PHASE_COLUMNS[definition])[index].astype(np.int64)
    if phase.size and not (phase.min() >= 0 and phase.max() < len(names)):
        raise ValueError(f"{dataset_dir}: test positions carry phase ids outside "
                         f"0..{len(names) - 1} under {definition}")
    chosen: dict[str, dict[str, npt.NDArray[np.float64]]] = {}
    for name, manifest in manifests.items():
        terms = _own_phase_terms(root / name, manifest, store, index, phase, configs[name],
                                 device, batch_size)
        policy, value = terms["policy"].astype(np.float64), terms["value"].astype(np.float64)
        chosen[name] = {"loss": value_factor * value + policy_factor * policy,
                        "policy": policy, "value": value}
    results: list[PairedLoss] = []
    for test_set in test_sets:
        keep = (np.ones(phase.shape[0], dtype=bool) if test_set == "no-phases"
                else phase == names.index(test_set))  # as Table 1 cuts its phase test sets
        a, b = ({k: v[keep] for k, v in chosen[n].items()} for n in (first, second))
        difference = a["loss"] - b["loss"]
        results.append(PairedLoss(
            first, second, test_set, int(keep.sum()), int(np.unique(games[keep]).size),
            float(difference.mean()), clustered_se(difference, games[keep]),
            float(np.mean(a["policy"] - b["policy"])), float(np.mean(a["value"] - b["value"]))))
    path = root / PAIRED_LOSSES
    pair = {first, second}
    kept = [] if not path.is_file() else [
        r for r in json.loads(path.read_text())["comparisons"]
        if not (r["test_set"] in test_sets and {r["first"], r["second"]} == pair)]
    inputs = {"experts": {n: {k: v["sha256"] for k, v in m["experts"].items()}
                          for n, m in manifests.items()},
              "dataset_manifest_sha256": dataset_sha}
    made = provenance()
    atomic_write_json(path, {"what": "paired test-loss differences (chessmoe compare): first "
                                     "minus second on the same positions, standard error "
                                     "clustered by game",
                             "comparisons": [*kept, *({**r.to_dict(), "inputs": inputs,
                                                       "provenance": made} for r in results)]})
    return results


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
    per_expert, phase = _expert_terms(bundle, manifest, store, index, config, device,
                                      batch_size)
    masks = {"no-phases": np.ones(phase.shape[0], dtype=bool),
             **{n: phase == p for p, n in enumerate(names)}}
    sets = test_sets(definition)
    results: dict[str, Any] = {}
    for name, terms in per_expert.items():
        results[name] = {s: summarise({k: v[masks[s]] for k, v in terms.items()}, config)
                         for s in sets}
    mixture = _mixture_terms(per_expert, phase, len(names))
    if mixture is not None:
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
