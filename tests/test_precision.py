"""Faster paths checked against fp32: the precision design and its gates."""

from __future__ import annotations

from chessmoe.play.designs import PRECISION_BACKEND, build_design
from chessmoe.search.inference import BACKENDS, LOW_PRECISION


def test_the_precision_design_plays_each_faster_path_against_fp32() -> None:
    spec = build_design("precision", "results/experts/small")
    training, gate = spec.matches
    # bf16 training: both networks evaluated in fp32, so only the training differs
    assert (training.first.experts, training.second.experts) == (
        "results/experts/small/regular-bf16", "results/experts/small/regular")
    assert training.first.backend == training.second.backend == "onnx"
    assert training.pairs * 2 == 200
    # the evaluator gate: the same network on both sides, only the backend differs
    assert gate.first.experts == gate.second.experts == "results/experts/small/staged"
    assert (gate.first.backend, gate.second.backend) == (PRECISION_BACKEND, "onnx")
    assert gate.pairs * 2 == 400
    assert PRECISION_BACKEND in LOW_PRECISION and PRECISION_BACKEND in BACKENDS
    assert {m.openings_group for m in spec.matches} == {"precision"}
    assert all((m.first.nodes, m.first.batch_size) == (100, 8) for m in spec.matches)
