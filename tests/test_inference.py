"""Inference backends and the batching service (chessmoe.search.inference).

The service must give every search exactly what evaluating its mini-batch alone gives, with one
network call per network; ONNX Runtime must agree with eager fp32 within the stated tolerance
and give rows that do not depend on the batch they sit in (what makes batched games identical
to unbatched ones).
"""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest

from chessmoe.phases import phase_definition
from chessmoe.search.experts import MixtureEvaluator, NetworkEvaluator
from chessmoe.search.inference import InferenceService, make_backend
from chessmoe.search.mcts import MCTS, Limits, SearchConfig, UniformEvaluator, drive, leaf_batch

from .helpers import HashNet, random_positions

ROOT = Path(__file__).resolve().parents[1]
REGULAR = ROOT / "results" / "experts" / "small" / "regular" / "baseline" / "model.pt"
needs_committed = pytest.mark.skipif(not REGULAR.exists(),
                                     reason="the committed small experts are not here")

FENS = [
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "8/5k2/8/3K4/8/8/2R5/8 w - - 0 60",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 3 10",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 50",
]


def _batches() -> list:
    boards = [chess.Board(f) for f in FENS]
    return [leaf_batch(boards[:3]), leaf_batch(boards[2:]), leaf_batch(boards[1:2]),
            leaf_batch(boards)]


def _evaluators() -> tuple[list, list[HashNet]]:
    nets = [HashNet(s) for s in range(4)]  # three experts and a baseline
    lichess = phase_definition("lichess")
    evaluators = [
        MixtureEvaluator(nets[:3], lichess, routing="majority"),  # type: ignore[arg-type]
        MixtureEvaluator(nets[:3], lichess, routing="split"),  # type: ignore[arg-type]
        MixtureEvaluator(nets[:3], lichess, routing="soft"),  # type: ignore[arg-type]
        MixtureEvaluator(nets[:3], lichess, baseline=nets[3],  # type: ignore[arg-type]
                         single_expert=2),
        NetworkEvaluator(backend=nets[3]),  # type: ignore[arg-type]
        UniformEvaluator(),
    ]
    return evaluators, nets


def test_the_service_gives_each_request_what_it_gets_alone() -> None:
    evaluators, nets = _evaluators()
    requests = [(e, b) for e in evaluators for b in _batches()]
    alone = [e.evaluate(b) for e, b in requests]
    for net in nets:
        net.calls.clear()
    together = InferenceService().evaluate_many(requests)
    for a, t in zip(alone, together, strict=True):
        np.testing.assert_array_equal(a.values, t.values)
        assert len(a.priors) == len(t.priors)
        for pa, pt in zip(a.priors, t.priors, strict=True):
            np.testing.assert_array_equal(pa, pt)
    # one call per network however many searches asked for it
    assert all(len(net.calls) == 1 for net in nets)


def test_the_gate_decides_per_request_not_per_merged_batch() -> None:
    nets = [HashNet(s) for s in range(3)]
    mixture = MixtureEvaluator(nets, phase_definition("lichess"))  # type: ignore[arg-type]
    opening = leaf_batch([chess.Board(FENS[0]), chess.Board(FENS[1])])
    endgame = leaf_batch([chess.Board(FENS[2]), chess.Board(FENS[4]), chess.Board(FENS[4])])
    InferenceService().evaluate_many([(mixture, opening), (mixture, endgame)])
    # merged, the endgame would win 3 to 2; per request each batch keeps its own expert
    assert [entry.model for entry in mixture.log] == ["phase0", "phase2"]
    assert nets[0].calls == [2] and nets[2].calls == [3] and nets[1].calls == []


def test_interleaved_searches_equal_searches_alone() -> None:
    nets = [HashNet(s) for s in range(3)]
    mixture = MixtureEvaluator(nets, phase_definition("lichess"))  # type: ignore[arg-type]
    boards = [chess.Board(f) for f in FENS[:4]]
    limits = Limits(nodes=60)
    alone = [MCTS(mixture, SearchConfig(batch_size=8)).search(b, limits) for b in boards]
    searches = [MCTS(mixture, SearchConfig(batch_size=8)) for _ in boards]
    steps = [s.search_steps(b, limits) for s, b in zip(searches, boards, strict=True)]
    pending = {k: next(g) for k, g in enumerate(steps)}
    results = {}
    service = InferenceService()
    while pending:
        keys = sorted(pending)
        evaluations = service.evaluate_many([(mixture, pending[k]) for k in keys])
        for k, evaluation in zip(keys, evaluations, strict=True):
            try:
                pending[k] = steps[k].send(evaluation)
            except StopIteration as done:
                results[k] = done.value
                del pending[k]
    for k, a in enumerate(alone):
        b = results[k]
        assert (a.move, a.nodes, a.pv) == (b.move, b.nodes, b.pv)
        assert [(c.move, c.visits) for c in a.children] == [
            (c.move, c.visits) for c in b.children]
    assert service.calls < sum(a.batches for a in alone)  # batches were merged


def test_drive_returns_the_search_result() -> None:
    search = MCTS(UniformEvaluator(), SearchConfig(batch_size=4))
    result = drive(search.search_steps(chess.Board(), Limits(nodes=20)),
                   UniformEvaluator().evaluate)
    assert result.nodes == 20 and result.move is not None


@needs_committed
def test_onnx_agrees_with_eager_fp32_and_is_batch_invariant(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("CHESSMOE_CACHE", str(tmp_path))
    torch_net = make_backend(REGULAR, "torch")
    onnx_net = make_backend(REGULAR, "onnx")
    assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 1  # exported once, cached
    records = leaf_batch([chess.Board(f) for f in FENS * 4]).records
    tv, tl = torch_net.forward(records)
    ov, ol = onnx_net.forward(records)
    assert np.abs(tv - ov).max() < 1e-4
    assert np.abs(tl - ol).max() < 1e-3  # logits; priors after softmax agree within 1e-4
    batch = leaf_batch([chess.Board(f) for f in FENS])
    evaluation_t = NetworkEvaluator(backend=torch_net).evaluate(batch)
    evaluation_o = NetworkEvaluator(backend=onnx_net).evaluate(batch)
    for pt, po in zip(evaluation_t.priors, evaluation_o.priors, strict=True):
        assert np.abs(pt - po).max() < 1e-4
    # a row's outputs do not depend on the rows around it
    for size in (1, 3, 7):
        v, lg = onnx_net.forward(records[:size])
        np.testing.assert_array_equal(v, ov[:size])
        np.testing.assert_array_equal(lg, ol[:size])


@needs_committed
@pytest.mark.parametrize(("precision", "tolerance"), [("bf16", 0.03), ("fp16", 0.005)])
def test_reduced_precision_path_agrees_with_eager_fp32_within_stated_tolerance(
        precision: str, tolerance: float) -> None:
    """The cuda backend's precision, channels-last and torch plane-building path (run on the
    CPU without graphs): values and priors within the tolerance the module states, and the
    shared fp32 model it was given left as it was."""
    import torch

    from chessmoe.search.experts import legal_softmax, load_model
    from chessmoe.search.inference import CudaBackend

    shared = load_model(REGULAR, "cpu")
    backend = CudaBackend(shared, device="cpu", precision=precision,  # type: ignore[arg-type]
                          graphs=False)
    assert {p.dtype for p in shared.parameters()} == {torch.float32}
    assert {p.dtype for p in backend.model.parameters()} == {
        {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]}
    batch = leaf_batch(list(random_positions(48, seed=3)))
    ref_values, ref_logits = make_backend(REGULAR, "torch").forward(batch.records)
    values, logits = backend.forward(batch.records)
    assert values.dtype == np.float32 and logits.shape == ref_logits.shape
    assert 0 < np.abs(values - ref_values).max() < tolerance  # reduced, not fp32 in disguise
    for ours, ref in zip(legal_softmax(logits, batch.policy_indices),
                         legal_softmax(ref_logits, batch.policy_indices), strict=True):
        assert np.abs(ours - ref).max() < tolerance


def _cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


@needs_committed
@pytest.mark.skipif(not _cuda_available(), reason="needs a CUDA GPU")
def test_cuda_graph_replay_gives_what_the_same_network_gives_eagerly_on_the_gpu() -> None:
    """On a GPU: a replayed graph (batch padded up to its bucket) gives the rows an eager call
    of the same bf16 network gives, a batch beyond the last bucket runs eagerly, one graph is
    captured per bucket, and the values stay within bf16's tolerance of fp32."""
    from chessmoe.search.experts import load_model
    from chessmoe.search.inference import CudaBackend

    model = load_model(REGULAR, "cpu")
    graphs = CudaBackend(model, device="cuda", precision="bf16", buckets=(8, 32))
    eager = CudaBackend(model, device="cuda", precision="bf16", graphs=False)
    records = leaf_batch(list(random_positions(40, seed=5))).records
    for size in (1, 5, 8, 20, 32, 40):  # 40: beyond the last bucket, eager
        values, logits = graphs.forward(records[:size])
        ref_values, ref_logits = eager.forward(records[:size])
        assert values.shape == (size,) and logits.shape == ref_logits.shape
        np.testing.assert_allclose(values, ref_values, atol=2e-2)
        np.testing.assert_allclose(logits, ref_logits, atol=5e-2)
    assert sorted(graphs._graphs) == [8, 32]
    # a replay after a larger batch does not leak the larger batch's rows
    again, _ = graphs.forward(records[:5])
    first, _ = graphs.forward(records[:5])
    np.testing.assert_array_equal(again, first)
    fp32, _ = make_backend(REGULAR, "torch").forward(records[:32])
    assert np.abs(graphs.forward(records[:32])[0] - fp32).max() < 0.03


def test_cuda_graphs_need_a_cuda_device() -> None:
    from chessmoe.nets.model import build_model
    from chessmoe.search.inference import CudaBackend

    with pytest.raises(ValueError, match="CUDA graphs need a CUDA device"):
        CudaBackend(build_model("tiny"), device="cpu")


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend(REGULAR, "tpu")  # type: ignore[arg-type]


@needs_committed
def test_openvino_agrees_with_onnx_in_f32_and_within_bf16_tolerance_in_bf16(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenVINO reads the same ONNX export: at f32 it is ONNX Runtime's fp32 to 1e-4; at bf16
    (on a CPU that computes bf16) its values and priors move, by less than bf16's tolerance."""
    pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    from chessmoe.search.experts import legal_softmax
    from chessmoe.search.inference import cpu_has_native_bf16

    monkeypatch.setenv("CHESSMOE_CACHE", str(tmp_path))
    batch = leaf_batch(list(random_positions(48, seed=5)))
    ref_values, ref_logits = make_backend(REGULAR, "onnx").forward(batch.records)
    f32 = make_backend(REGULAR, "openvino-bf16", precision="f32")
    # its one thread is not pinned: two tournament workers pinned theirs to the same core and
    # played 0.67x ONNX Runtime's games an hour (benchmarks/glue.py), unpinned 1.06-1.2x
    assert f32.compiled.get_property("ENABLE_CPU_PINNING") is False
    assert f32.compiled.get_property("INFERENCE_NUM_THREADS") == 1
    values, logits = f32.forward(batch.records)
    assert np.abs(values - ref_values).max() < 1e-4
    assert np.abs(logits - ref_logits).max() < 1e-3
    if not cpu_has_native_bf16():
        pytest.skip("this CPU has no native bf16: OpenVINO would compute in f32")
    bf16 = make_backend(REGULAR, "openvino-bf16")
    values, logits = bf16.forward(batch.records)
    assert values.dtype == np.float32 and logits.shape == ref_logits.shape
    assert 0 < np.abs(values - ref_values).max() < 0.05  # reduced, not fp32 in disguise
    for ours, ref in zip(legal_softmax(logits, batch.policy_indices),
                         legal_softmax(ref_logits, batch.policy_indices), strict=True):
        assert len(ours) == 0 or np.abs(ours - ref).max() < 0.05  # (no moves: game over)
    # a row's outputs do not depend on the batch it sits in (a search batches freely)
    v1, _ = bf16.forward(batch.records[:1])
    assert np.abs(v1 - values[:1]).max() < 1e-6


def test_auto_picks_the_low_precision_backend_only_where_its_gates_passed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from chessmoe.search import inference

    monkeypatch.setattr(inference, "openvino_bf16_available", lambda: True)
    monkeypatch.setattr(inference, "_gpu_requested", lambda device: False)
    assert inference.choose_backend("auto", "cpu", gated=("openvino-bf16",)) == "openvino-bf16"
    assert inference.choose_backend("auto", "cpu", gated=()) in ("onnx", "torch")
    monkeypatch.setattr(inference, "openvino_bf16_available", lambda: False)
    assert inference.choose_backend("auto", "cpu", gated=("openvino-bf16",)) in ("onnx",
                                                                                  "torch")
    assert inference.choose_backend("openvino-bf16", "cpu") == "openvino-bf16"  # as named
