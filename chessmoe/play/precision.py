"""Gates a low-precision evaluator passes before a claim reads games it played (:func:`gates`):
a faster backend (:data:`~chessmoe.search.inference.LOW_PRECISION`) compared with fp32 (ONNX
Runtime, itself within 1e-4 of eager torch) on the networks the kit's claims use.
:func:`~chessmoe.search.evaluators.passed_backends` reads which backends passed, which is how a
user's ``auto`` backend knows it may use one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_write_json
from chessmoe._io.provenance import provenance
from chessmoe.search.evaluators import GATES_FILE
from chessmoe.search.inference import cpu_has_native_bf16

__all__ = [
    "AGREEMENT_POSITIONS",
    "GATES_FILE",
    "MATCH_BOUND",
    "MAX_VALUE_ERROR",
    "MIN_AGREEMENT",
    "AgreementGate",
    "MatchGate",
    "agreement_gate",
    "gates",
    "held_out_records",
    "match_gate",
]

#: Held-out positions the agreement gate reads (a seeded draw from the test split).
AGREEMENT_POSITIONS = 1000
#: The least share of positions whose best legal move by the policy must agree with fp32.
MIN_AGREEMENT = 0.97
#: The largest mean absolute value error allowed (values lie in [-1, 1]).
MAX_VALUE_ERROR = 0.01
#: The match gate: the 95 % interval of the low-precision side's Elo must lie within this.
MATCH_BOUND = 35.0
_SEED = 20261128


@dataclass(frozen=True)
class AgreementGate:
    """One network's agreement with fp32 on ``positions`` held-out positions."""

    network: str
    positions: int
    agreement: float  # share with the same best legal move by the policy
    value_mean_error: float  # mean |value - fp32 value|
    value_max_error: float

    @property
    def passed(self) -> bool:
        return self.agreement >= MIN_AGREEMENT and self.value_mean_error <= MAX_VALUE_ERROR


@dataclass(frozen=True)
class MatchGate:
    """The precision design's match: the low-precision side's Elo and 95 % interval."""

    match: str
    games: int
    elo: float
    low: float
    high: float

    @property
    def passed(self) -> bool:
        return self.low >= -MATCH_BOUND and self.high <= MATCH_BOUND


def held_out_records(dataset_dir: str | os.PathLike[str], positions: int = AGREEMENT_POSITIONS
                     ) -> np.ndarray[Any, Any]:
    """``positions`` records drawn by a fixed seed from the dataset's test split (every phase),
    in storage order, and only positions with a legal move."""
    from chessmoe.games.datasets import DatasetStore

    store = DatasetStore(dataset_dir)
    index = store.indices("test", "no-phases")
    if index.shape[0] < positions:
        raise KitError(f"{dataset_dir}: its test split holds {index.shape[0]} positions, "
                       f"fewer than the {positions} the gate reads")
    chosen = np.sort(np.random.default_rng(_SEED).choice(index, size=positions, replace=False))
    return store.gather(chosen)


def agreement_gate(networks: Mapping[str, str | os.PathLike[str]],
                   records: np.ndarray[Any, Any], *, backend: str) -> list[AgreementGate]:
    """Each network (label -> ``model.pt``) on ``records``, by ``backend`` against ONNX
    Runtime in fp32: best legal move agreement and value error."""
    from chessmoe.encoding import legal_policy_indices, record_board
    from chessmoe.search.inference import make_backend

    legal = [legal_policy_indices(record_board(r))[1] for r in records]
    keep = np.array([len(x) > 0 for x in legal])
    records = records[keep]
    legal = [x for x, k in zip(legal, keep, strict=True) if k]
    out = []
    for label, checkpoint in networks.items():
        ref_values, ref_logits = make_backend(checkpoint, "onnx").forward(records)
        values, logits = make_backend(checkpoint, backend,  # type: ignore[arg-type]
                                      precision="bf16").forward(records)
        same = [int(np.argmax(ref_logits[i, idx]) == np.argmax(logits[i, idx]))
                for i, idx in enumerate(legal)]
        error = np.abs(values - ref_values)
        out.append(AgreementGate(label, len(records), float(np.mean(same)),
                                 float(error.mean()), float(error.max())))
    return out


def match_gate(summary_path: str | os.PathLike[str], match: str) -> MatchGate:
    """The precision match ``match`` as its tournament summary reads it (first player: the
    low-precision side)."""
    path = Path(summary_path)
    if not path.exists():
        raise KitError(f"{path} is missing: play and summarise the precision match first "
                       "(chessmoe tournament --profile precision)")
    summary = json.loads(path.read_text())
    rows = [m for m in summary["matches"] if m["name"] == match]
    if not rows:
        raise KitError(f"{path} has no match {match!r}")
    row = rows[0]
    return MatchGate(match, int(row["games"]), float(row["elo"]), float(row["low"]),
                     float(row["high"]))


def gates(results_dir: str | os.PathLike[str], dataset_dir: str | os.PathLike[str], *,
          backend: str, networks: Mapping[str, str | os.PathLike[str]], match: str,
          positions: int = AGREEMENT_POSITIONS) -> dict[str, Any]:
    """Measure both gates and write them (with thresholds and machine) to :data:`GATES_FILE`
    under ``results_dir``, the backend's entry replaced and any other kept.

    The gates: **agreement**, on held-out positions (a seeded draw from the test split of the small
    profile's dataset), the share where the best legal move by the policy is the same, and the value
    error (mean and largest absolute difference); **match**, the precision design's match, the same
    staged mixture evaluated by each backend (:func:`~chessmoe.play.grids.precision_spec`), read as
    a pentanomial Elo interval.
    """
    played = match_gate(Path(results_dir) / GATES_FILE.parent / "summary.json", match)
    records = held_out_records(dataset_dir, positions)
    agreement = agreement_gate(networks, records, backend=backend)
    entry = {
        "agreement": [{**asdict(a), "passed": a.passed} for a in agreement],
        "match": {**asdict(played), "passed": played.passed},
        "thresholds": {"min_agreement": MIN_AGREEMENT, "max_value_error": MAX_VALUE_ERROR,
                       "match_bound": MATCH_BOUND, "positions": positions},
        "cpu_native_bf16": cpu_has_native_bf16(),
        "passed": all(a.passed for a in agreement) and played.passed,
        "provenance": provenance(),
    }
    path = Path(results_dir) / GATES_FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    data[backend] = entry
    atomic_write_json(path, dict(sorted(data.items())))
    return entry
