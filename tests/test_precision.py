"""Faster paths checked against fp32: the precision design and its gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chessmoe._io.errors import KitError
from chessmoe.play.designs import build_design
from chessmoe.play.grids import PRECISION_BACKEND
from chessmoe.search.inference import BACKENDS, LOW_PRECISION

ROOT = Path(__file__).resolve().parents[1]  # the checkout: tests may run in another directory
REGULAR = str(ROOT / "results/experts/small/regular/baseline/model.pt")


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


def test_the_gates_pass_at_their_thresholds_and_fail_past_them() -> None:
    from chessmoe.play.precision import MATCH_BOUND, MIN_AGREEMENT, AgreementGate, MatchGate

    assert AgreementGate("n", 1000, MIN_AGREEMENT, 0.01, 0.05).passed
    assert not AgreementGate("n", 1000, MIN_AGREEMENT - 0.001, 0.001, 0.05).passed
    assert not AgreementGate("n", 1000, 0.99, 0.0101, 0.05).passed
    assert MatchGate("m", 400, 0.0, -MATCH_BOUND, MATCH_BOUND).passed
    assert not MatchGate("m", 400, 0.0, -MATCH_BOUND - 0.1, 20.0).passed
    assert not MatchGate("m", 400, 10.0, -20.0, MATCH_BOUND + 0.1).passed


def test_only_backends_whose_committed_gates_passed_are_offered(tmp_path: Path) -> None:
    from chessmoe.search.evaluators import GATES_FILE, passed_backends

    assert passed_backends(None) == () and passed_backends(tmp_path) == ()
    path = tmp_path / GATES_FILE
    path.parent.mkdir(parents=True)
    path.write_text("not json")
    assert passed_backends(tmp_path) == ()  # a broken file offers nothing
    path.write_text(json.dumps({"openvino-bf16": {"passed": True},
                                "other": {"passed": False}, "odd": [1]}))
    assert passed_backends(tmp_path) == ("openvino-bf16",)


@pytest.mark.slow
@pytest.mark.skipif(not Path(REGULAR).exists(), reason="needs the committed small experts")
def test_the_gates_are_measured_and_written_with_their_thresholds(tmp_path: Path) -> None:
    """Agreement on held-out positions of a built dataset (here the embedded sample's test
    split) and the match read from a tournament summary, written beside the match."""
    pytest.importorskip("openvino")
    from chessmoe.games.datasets import build
    from chessmoe.games.sources import resolve
    from chessmoe.play.precision import gates
    from chessmoe.search.evaluators import GATES_FILE, passed_backends

    build(resolve("sample"), tmp_path / "data", max_games=150, progress=False)
    summary = tmp_path / "results" / GATES_FILE.parent / "summary.json"
    summary.parent.mkdir(parents=True)
    summary.write_text(json.dumps({"matches": [
        {"name": "gate", "games": 400, "elo": 3.0, "low": -20.0, "high": 26.0}]}))
    entry = gates(tmp_path / "results", tmp_path / "data", backend="openvino-bf16",
                  networks={"regular": REGULAR}, match="gate", positions=60)
    [row] = entry["agreement"]
    assert row["network"] == "regular" and 0 < row["positions"] <= 60
    assert 0.8 <= row["agreement"] <= 1.0 and 0 <= row["value_mean_error"] < 0.05
    assert entry["match"] == {"match": "gate", "games": 400, "elo": 3.0, "low": -20.0,
                              "high": 26.0, "passed": True}
    assert entry["thresholds"]["min_agreement"] == 0.97
    written = json.loads((tmp_path / "results" / GATES_FILE).read_text())
    assert written["openvino-bf16"]["passed"] == entry["passed"]
    assert passed_backends(tmp_path / "results") == (
        ("openvino-bf16",) if entry["passed"] else ())
    with pytest.raises(KitError, match="no match 'other'"):
        gates(tmp_path / "results", tmp_path / "data", backend="openvino-bf16",
              networks={"regular": REGULAR}, match="other", positions=60)


def test_committed_games_and_networks_are_fp32_but_where_the_docs_name_another() -> None:
    """docs/playing-at-scale.md's precision section, checked against the committed files."""
    results = ROOT / "results"
    if not (results / "tournaments").is_dir():
        pytest.skip("no committed results here")
    for spec in sorted((results / "tournaments").glob("*/spec.json")):
        for match in json.loads(spec.read_text())["matches"]:
            for side in ("first", "second"):
                player = match[side]
                if player.get("kind", "mcts") != "mcts" or player.get("uniform"):
                    continue
                expected = ({"onnx", PRECISION_BACKEND} if spec.parent.name == "precision"
                            else {"onnx", "torch"})
                assert player["backend"] in expected, (spec, match["name"])
    for manifest in sorted((results / "experts").glob("*/*/manifest.json")):
        named = {e.get("precision", "fp32")
                 for e in json.loads(manifest.read_text())["experts"].values()}
        expected = {"bf16-autocast"} if manifest.parent.name == "regular-bf16" else {"fp32"}
        assert named == expected, manifest
