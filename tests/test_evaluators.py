"""EvaluatorSpec: one description of what scores the leaves, one build()."""

from __future__ import annotations

from pathlib import Path

import pytest

from chessmoe.play.match import PlayerSpec
from chessmoe.play.uci import EngineOptions
from chessmoe.search.evaluators import EvaluatorSpec, committed_bundles, committed_results
from chessmoe.search.experts import MixtureEvaluator, NetworkEvaluator
from chessmoe.search.mcts import UniformEvaluator

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "results" / "experts" / "small"
needs_committed = pytest.mark.skipif(not (SMALL / "separated" / "manifest.json").exists(),
                                     reason="the committed small experts are not here")


def test_uniform_and_bad_fields() -> None:
    evaluator, line = EvaluatorSpec(uniform=True).build()
    assert isinstance(evaluator, UniformEvaluator) and "uniform" in line
    with pytest.raises(ValueError, match="unknown routing"):
        EvaluatorSpec(routing="vote")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="phase id"):
        EvaluatorSpec(single_expert=-1)
    with pytest.raises(ValueError, match="unknown evaluator field"):
        EvaluatorSpec.from_dict({"network": "x", "Single_Expert": 2})
    spec = EvaluatorSpec(network="a", routing="split", single_expert=1, backend="onnx")
    assert EvaluatorSpec.from_dict(spec.to_dict()) == spec


@needs_committed
def test_the_spec_builds_each_kind_of_evaluator() -> None:
    single, line = EvaluatorSpec(network=str(SMALL / "regular")).build()
    assert isinstance(single, NetworkEvaluator) and "single network" in line
    mixture, line = EvaluatorSpec(network=str(SMALL / "separated"), routing="split").build()
    assert isinstance(mixture, MixtureEvaluator) and mixture.routing == "split"
    assert len(mixture.experts) == 3 and mixture.definition.name == "lichess"
    ablated, line = EvaluatorSpec(network=str(SMALL / "separated"), single_expert=2,
                                  baseline=str(SMALL / "regular"), gate="engine").build()
    assert isinstance(ablated, MixtureEvaluator) and ablated.single_expert == 2
    assert ablated.baseline is not None and ablated.definition.name == "engine"
    assert "only phase 2" in line


def test_uci_options_and_player_specs_map_to_the_same_spec() -> None:
    options = EngineOptions(Model_Directory="b", Baseline_Directory="r", Routing="soft",
                            Phase_Definition="engine", Single_Expert=1, Threads=2,
                            Device="cpu", Backend="onnx")
    player = PlayerSpec(name="p", experts="b", baseline="r", routing="soft", gate="engine",
                        single_expert=1, threads=2, device="cpu", backend="onnx")
    assert options.evaluator_spec() == player.evaluator_spec() == EvaluatorSpec(
        network="b", baseline="r", routing="soft", gate="engine", single_expert=1,
        threads=2, backend="onnx")
    assert EngineOptions().evaluator_spec().single_expert is None  # no -1 sentinel leaks


def test_committed_results_are_found_by_env_then_cwd(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine" / "experts" / "small" / "separated").mkdir(parents=True)
    (tmp_path / "mine" / "experts" / "small" / "separated" / "manifest.json").write_text("{}")
    monkeypatch.setenv("CHESSMOE_RESULTS", str(tmp_path / "mine"))
    assert committed_results() == tmp_path / "mine"
    assert committed_bundles() == (tmp_path / "mine" / "experts" / "small" / "separated",
                                   None)
    monkeypatch.delenv("CHESSMOE_RESULTS")
    monkeypatch.chdir(tmp_path / "mine" / "..")
    (tmp_path / "results" / "experts").mkdir(parents=True)
    assert committed_results() == Path("results")


def test_auto_backend_is_onnx_on_a_cpu_cuda_on_a_gpu_and_torch_without_onnx(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    import torch

    from chessmoe.search import inference

    assert EvaluatorSpec().backend == "auto" and EngineOptions().Backend == "auto"
    assert inference.choose_backend("auto", "cpu") == "onnx"
    for explicit in ("torch", "onnx", "cuda"):
        assert inference.choose_backend(explicit, "cpu") == explicit  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown backend 'tensorrt'"):
        inference.choose_backend("tensorrt", "cpu")  # type: ignore[arg-type]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert inference.choose_backend("auto", "auto") == "cuda"
    assert inference.choose_backend("auto", "cpu") == "onnx"  # a CPU device stays on the CPU
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    real_import = builtins.__import__

    def no_onnx(name: str, *args: object, **kwargs: object) -> object:
        if name == "onnxruntime":
            raise ImportError("no onnxruntime here")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    assert inference.choose_backend("auto", "auto") == "torch"


@needs_committed
def test_the_default_evaluator_runs_on_onnx_on_a_cpu_and_says_so() -> None:
    from chessmoe.search.inference import OnnxBackend

    mixture, line = EvaluatorSpec(network=str(SMALL / "staged"), device="cpu").build()
    assert isinstance(mixture, MixtureEvaluator) and line.endswith("onnx)")
    assert all(isinstance(e.backend, OnnxBackend) for e in mixture.experts)
    _, line = EvaluatorSpec(network=str(SMALL / "regular"), backend="torch").build()
    assert line.endswith("(torch)")
