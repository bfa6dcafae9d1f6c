"""EvaluatorSpec: one description of what scores the leaves, one build()."""

from __future__ import annotations

import os
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
        threads=2, device="cpu", backend="onnx")
    assert EngineOptions().evaluator_spec().single_expert is None  # no -1 sentinel leaks
    assert EngineOptions().evaluator_spec().network is None  # nor an empty path


# every field away from both contexts' defaults, so a round trip that drops one fails
EVERY_FIELD = EvaluatorSpec(network="bundles/separated", baseline="bundles/regular",
                            routing="soft", gate="engine", single_expert=1, device="cuda:1",
                            backend="onnx", threads=3, uniform=True)


def test_the_probe_spec_differs_from_every_default_in_every_field() -> None:
    for defaults in (EvaluatorSpec(), EvaluatorSpec.recorded()):
        same = [k for k in EvaluatorSpec.__dataclass_fields__
                if getattr(EVERY_FIELD, k) == getattr(defaults, k)]
        assert not same, same


def test_uci_options_round_trip_every_evaluator_field() -> None:
    options = EngineOptions.from_evaluator_spec(EVERY_FIELD, Batch_Size=16, Nodes=50)
    assert options.evaluator_spec() == EVERY_FIELD
    assert (options.Model_Directory, options.Baseline_Directory, options.Routing,
            options.Phase_Definition, options.Single_Expert, options.Device, options.Backend,
            options.Threads, options.Uniform) == ("bundles/separated", "bundles/regular",
                                                  "soft", "engine", 1, "cuda:1", "onnx", 3,
                                                  True)
    assert (options.Batch_Size, options.Nodes) == (16, 50)  # the search's, beside them
    assert EngineOptions.from_evaluator_spec(options.evaluator_spec(),
                                             Batch_Size=16, Nodes=50) == options
    assert EngineOptions.from_evaluator_spec(EvaluatorSpec()) == EngineOptions()


def test_player_specs_round_trip_every_evaluator_field_and_keep_their_flat_record() -> None:
    player = PlayerSpec.mcts("p", EVERY_FIELD, nodes=50, batch_size=16)
    assert player.evaluator_spec() == EVERY_FIELD
    record = player.to_dict()  # the flat fields committed spec.json files hold
    assert {k: record[k] for k in ("experts", "baseline", "routing", "gate", "single_expert",
                                   "uniform", "device", "threads", "backend")} == {
        "experts": "bundles/separated", "baseline": "bundles/regular", "routing": "soft",
        "gate": "engine", "single_expert": 1, "uniform": True, "device": "cuda:1",
        "threads": 3, "backend": "onnx"}
    assert PlayerSpec(**{**record, "command": (), "options": ()}) == player
    assert (record["name"], record["kind"], record["nodes"], record["batch_size"]) == (
        "p", "mcts", 50, 16)
    with pytest.raises(TypeError):  # the evaluator's fields come from the evaluator only
        PlayerSpec.mcts("p", EVERY_FIELD, backend="torch")


def test_each_context_has_its_defaults_from_one_home() -> None:
    """A user's engine (UCI options, ``chessmoe uci``/``analyse``, EvaluatorSpec itself): device
    and backend auto. A tournament player: cpu and torch, as the committed tournaments record
    (resuming them must not change the backend their games were played with)."""
    from chessmoe.cli import build_parser, evaluator_spec_from_args
    from chessmoe.search import evaluators

    assert (evaluators.DEFAULT_DEVICE, evaluators.DEFAULT_BACKEND) == ("auto", "auto")
    assert (evaluators.RECORDED_DEVICE, evaluators.RECORDED_BACKEND) == ("cpu", "torch")
    user = EvaluatorSpec()
    assert (user.network, user.device, user.backend, user.routing, user.threads,
            user.uniform) == (None, "auto", "auto", "majority", 1, False)
    assert EvaluatorSpec.recorded() == EvaluatorSpec(device="cpu", backend="torch")
    assert EvaluatorSpec.recorded(backend="onnx").backend == "onnx"  # a field named wins
    assert EngineOptions().evaluator_spec() == user
    assert (EngineOptions().Device, EngineOptions().Backend) == ("auto", "auto")
    for command in (["analyse", "startpos"], ["uci"]):
        assert evaluator_spec_from_args(build_parser().parse_args(command)) == user
    player = PlayerSpec(name="p")
    assert player.evaluator_spec() == EvaluatorSpec.recorded()
    assert (player.device, player.backend) == ("cpu", "torch")
    assert PlayerSpec.mcts("p") == player


def _argv(spec: EvaluatorSpec) -> list[str]:
    """``spec`` spelled as the CLI's evaluator arguments."""
    argv = ["--routing", spec.routing, "--device", spec.device, "--backend", spec.backend,
            "--threads", str(spec.threads)]
    for flag, value in (("--experts", spec.network), ("--baseline", spec.baseline),
                        ("--gate", spec.gate), ("--single-expert", spec.single_expert)):
        if value is not None:
            argv += [flag, str(value)]
    return argv + (["--uniform"] if spec.uniform else [])


@pytest.mark.parametrize("command", [["analyse", "startpos"], ["uci"]])
def test_cli_arguments_round_trip_every_evaluator_field(command: list[str]) -> None:
    from chessmoe.cli import build_parser, evaluator_spec_from_args
    from chessmoe.cli.engine import _engine_options

    args = build_parser().parse_args([*command, *_argv(EVERY_FIELD), "--batch-size", "16"])
    assert evaluator_spec_from_args(args) == EVERY_FIELD
    options = _engine_options(args)  # what chessmoe uci hands the engine
    assert options.evaluator_spec() == EVERY_FIELD and options.Batch_Size == 16


def test_without_a_network_the_build_refuses_in_one_line_unless_uniform(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from chessmoe._io.errors import KitError
    from chessmoe.cli import main
    from chessmoe.search import evaluators

    monkeypatch.setattr(evaluators, "committed_bundles", lambda profile="small": (None, None))
    for spec in (EvaluatorSpec(), EvaluatorSpec.recorded(), PlayerSpec(name="p").evaluator_spec(),
                 EngineOptions().evaluator_spec()):
        with pytest.raises(KitError, match="committed small experts were not found") as error:
            spec.build()
        assert "\n" not in str(error.value) and "--uniform" in str(error.value)
    evaluator, line = EvaluatorSpec(uniform=True).build()
    assert isinstance(evaluator, UniformEvaluator) and "uniform" in line
    assert main(["analyse", "startpos", "--nodes", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chessmoe analyse: no network named") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert main(["analyse", "startpos", "--nodes", "5", "--uniform"]) == 0


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
    from chessmoe.search.evaluators import passed_backends
    from chessmoe.search.inference import OnnxBackend, openvino_bf16_available

    if "openvino-bf16" in passed_backends(committed_results()) and openvino_bf16_available():
        pytest.skip("the low-precision backend's gates passed: auto runs it here")
    mixture, line = EvaluatorSpec(network=str(SMALL / "staged"), device="cpu").build()
    assert isinstance(mixture, MixtureEvaluator) and line.endswith("onnx)")
    assert all(isinstance(e.backend, OnnxBackend) for e in mixture.experts)
    _, line = EvaluatorSpec(network=str(SMALL / "regular"), backend="torch").build()
    assert line.endswith("(torch)")


@pytest.mark.slow
@needs_committed
@pytest.mark.parametrize("backend", ["onnx", "openvino-bf16"])
def test_an_engine_on_a_cpu_backend_searches_without_importing_torch(
        backend: str, tmp_path: Path) -> None:
    """ONNX Runtime and OpenVINO read the cached export: once it exists, building the evaluator
    and searching never import torch (about 1.3 s of an engine's first 'bestmove')."""
    import subprocess
    import sys

    pytest.importorskip("onnxruntime" if backend == "onnx" else "openvino")
    env = {**os.environ, "CHESSMOE_CACHE": str(tmp_path)}
    code = (
        "import sys, chess\n"
        "from chessmoe.search.evaluators import EvaluatorSpec\n"
        "from chessmoe.search.mcts import leaf_batch\n"
        f"evaluator, _ = EvaluatorSpec(network={str(SMALL / 'staged')!r}, "
        f"backend={backend!r}).build()\n"
        "evaluator.evaluate(leaf_batch([chess.Board()]))\n"
        "print('torch' in sys.modules)\n")
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=600, check=True)  # exports (needs torch) once
    assert first.stdout.split()[-1] == "True"
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=600, check=True)
    assert again.stdout.split()[-1] == "False", again.stderr
