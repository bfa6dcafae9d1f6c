"""Evaluators: one network, and the mixture-of-experts gate with its routings."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pytest
import torch

from chessmoe.encoding import POLICY_SIZE
from chessmoe.nets.model import build_model
from chessmoe.phases import lichess_phase, phase_definition
from chessmoe.search.experts import (
    GateDecision,
    MixtureEvaluator,
    NetworkEvaluator,
    legal_softmax,
    mixture_from_bundle,
    soft_memberships,
)
from chessmoe.search.mcts import MCTS, Evaluation, LeafBatch, Limits, SearchConfig, leaf_batch

OPENING = chess.Board()
MIDDLEGAME = chess.Board("r4rk1/pp3ppp/2n1bn2/8/3P4/2N1BN2/PP3PPP/R4RK1 w - - 0 15")
ENDGAME = chess.Board("8/5pk1/6p1/8/3R4/6P1/5PK1/2r5 w - - 0 40")
assert [int(lichess_phase(b)) for b in (OPENING, MIDDLEGAME, ENDGAME)] == [0, 1, 2]


class Stub:
    """A fake expert network: constant value, zero logits (uniform priors), remembers the
    size of every call it served."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.seen: list[int] = []

    def forward(self, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.seen.append(len(records))
        return (np.full(len(records), self.value, dtype=np.float32),
                np.zeros((len(records), 4864), dtype=np.float32))

    def evaluate(self, batch: LeafBatch) -> Evaluation:
        values, _ = self.forward(batch.records)
        return Evaluation(values, [np.full(len(m), 1 / len(m), dtype=np.float32)
                                   for m in batch.moves])


def _mixture(routing: str = "majority", single: int | None = None,
             definition: str = "lichess") -> tuple[MixtureEvaluator, list[Stub], Stub]:
    stubs = [Stub(0.1), Stub(0.2), Stub(0.3)]
    baseline = Stub(-0.5)
    mixture = MixtureEvaluator(stubs, phase_definition(definition), routing=routing,  # type: ignore[arg-type]
                               baseline=baseline, single_expert=single)  # type: ignore[arg-type]
    return mixture, stubs, baseline


@pytest.mark.parametrize(("boards", "expert"), [
    ([OPENING, OPENING, OPENING, ENDGAME, MIDDLEGAME], 0),
    ([ENDGAME, ENDGAME, MIDDLEGAME, OPENING], 2),
    ([OPENING, OPENING, ENDGAME, ENDGAME], 0),  # tie: the lowest phase id
    ([MIDDLEGAME, ENDGAME, ENDGAME, MIDDLEGAME], 1),  # tie between 1 and 2
    ([ENDGAME], 2),
])
def test_majority_vote_picks_one_expert_for_the_whole_batch(boards: list[chess.Board],
                                                            expert: int) -> None:
    mixture, stubs, baseline = _mixture()
    result = mixture.evaluate(leaf_batch(boards))
    assert stubs[expert].seen == [len(boards)]
    assert all(not s.seen for i, s in enumerate(stubs) if i != expert) and not baseline.seen
    assert np.allclose(result.values, [0.1, 0.2, 0.3][expert])
    assert mixture.log[-1].phase == expert and mixture.log[-1].model == f"phase{expert}"
    counts = mixture.log[-1].counts
    assert sum(counts) == len(boards) and counts[expert] == max(counts)


def test_the_root_is_evaluated_by_its_own_phase_expert() -> None:
    mixture, stubs, _ = _mixture()
    MCTS(mixture, SearchConfig(batch_size=8)).search(ENDGAME, Limits(nodes=40))
    assert mixture.log[0] == GateDecision(size=1, counts=(0, 0, 1), phase=2, model="phase2")
    assert stubs[2].seen[0] == 1


def test_split_routing_sends_each_phase_to_its_expert() -> None:
    mixture, stubs, _ = _mixture("split")
    result = mixture.evaluate(leaf_batch([OPENING, ENDGAME, OPENING, MIDDLEGAME]))
    assert [s.seen for s in stubs] == [[2], [1], [1]]
    assert result.values.tolist() == pytest.approx([0.1, 0.3, 0.1, 0.2])


def test_soft_routing_mixes_all_experts_by_membership() -> None:
    mixture, stubs, _ = _mixture("soft")
    batch = leaf_batch([OPENING, MIDDLEGAME, ENDGAME])
    weights = soft_memberships(batch)
    assert np.allclose(weights.sum(axis=1), 1.0) and (weights >= 0).all()
    assert weights[0].tolist() == pytest.approx([1.0, 0.0, 0.0])  # full material
    assert weights[2].tolist() == pytest.approx([0.0, 0.0, 1.0])  # NPM below 3915
    result = mixture.evaluate(batch)
    assert all(s.seen == [3] for s in stubs)
    assert result.values.tolist() == pytest.approx((weights @ np.array([0.1, 0.2, 0.3])).tolist())
    for priors in result.priors:
        assert priors.sum() == pytest.approx(1.0)
    four = [Stub(0.0) for _ in range(4)]
    with pytest.raises(ValueError, match="three phases"):
        MixtureEvaluator(four, phase_definition("movecount4"), routing="soft")  # type: ignore[arg-type]


def test_single_expert_ablation_uses_the_baseline_elsewhere() -> None:
    mixture, stubs, baseline = _mixture(single=2)
    mixture.evaluate(leaf_batch([ENDGAME, ENDGAME, OPENING]))
    mixture.evaluate(leaf_batch([OPENING, OPENING, ENDGAME]))
    assert stubs[2].seen == [3] and baseline.seen == [3]
    assert not stubs[0].seen and not stubs[1].seen
    assert [e.model for e in mixture.log] == ["phase2", "baseline"]
    with pytest.raises(ValueError, match="baseline"):
        MixtureEvaluator(stubs, phase_definition("lichess"), single_expert=1)  # type: ignore[arg-type]


def test_the_gate_table_is_independent_of_training_labels() -> None:
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bc4"):  # lichess mixedness 106, engine 162
        board.push_san(san)
    lichess, lichess_stubs, _ = _mixture()
    engine, engine_stubs, _ = _mixture(definition="engine")
    lichess.evaluate(leaf_batch([board]))
    engine.evaluate(leaf_batch([board]))
    assert lichess_stubs[0].seen == [1] and engine_stubs[1].seen == [1]


def test_usage_reports_purity() -> None:
    mixture, _, _ = _mixture()
    mixture.evaluate(leaf_batch([OPENING, OPENING, ENDGAME, MIDDLEGAME]))
    mixture.evaluate(leaf_batch([ENDGAME, ENDGAME]))
    usage = mixture.usage()
    assert usage["batches"] == 2 and usage["mean_purity"] == pytest.approx((0.5 + 1.0) / 2)
    assert usage["positions_per_model"] == {"phase0": 4, "phase2": 2}


def test_legal_softmax_matches_a_reference() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(3, POLICY_SIZE)).astype(np.float32)
    index = [np.array([5, 17, 300]), np.array([42]), np.array([0, 4863])]
    for row, (got, idx) in enumerate(zip(legal_softmax(logits, index), index, strict=True)):
        expected = np.exp(logits[row, idx]) / np.exp(logits[row, idx]).sum()
        assert got == pytest.approx(expected, rel=1e-5)


def test_network_evaluator_gives_values_and_priors_over_legal_moves() -> None:
    torch.manual_seed(0)
    network = NetworkEvaluator(build_model("tiny"), device="cpu")
    batch = leaf_batch([OPENING, MIDDLEGAME, ENDGAME])
    result = network.evaluate(batch)
    assert result.values.shape == (3,) and (np.abs(result.values) <= 1).all()
    for priors, moves in zip(result.priors, batch.moves, strict=True):
        assert priors.shape == (len(moves),) and priors.sum() == pytest.approx(1.0, rel=1e-5)
    assert network.calls == 1 and network.positions == 3


@pytest.mark.slow
def test_mixture_from_a_trained_bundle(tmp_path: Path) -> None:
    from chessmoe.games.datasets import build
    from chessmoe.games.sources import resolve
    from chessmoe.nets.regimes import BundleSpec, train_all
    from chessmoe.nets.training import TrainConfig

    dataset = tmp_path / "data"
    build(resolve("sample"), dataset, max_games=40, progress=False)
    config = TrainConfig(model="tiny", batch_size=16, iterations=4, eval_every=2,
                         eval_samples=32, log_every=2, device="cpu", threads=1)
    train_all(tmp_path / "experts", dataset, config,
              bundles=(BundleSpec("regular"), BundleSpec("separated")), progress=False,
              evaluate=False)
    mixture = mixture_from_bundle(tmp_path / "experts" / "separated", device="cpu",
                                  single_expert=0)
    assert mixture.baseline is not None and len(mixture.experts) == 3
    result = MCTS(mixture, SearchConfig(batch_size=4)).search(chess.Board(), Limits(nodes=30))
    assert result.move in chess.Board().legal_moves
    assert mixture.usage()["batches"] >= 8


def test_split_routing_gives_each_row_its_own_experts_priors() -> None:
    """Each leaf gets the priors (right length) and value of its own phase's expert, as if
    that expert had evaluated it alone."""
    from .helpers import HashNet

    nets = [HashNet(11), HashNet(12), HashNet(13)]
    mixture = MixtureEvaluator(nets, phase_definition("lichess"),  # type: ignore[arg-type]
                               routing="split")
    boards = [OPENING, ENDGAME, MIDDLEGAME, OPENING, ENDGAME]
    batch = leaf_batch(boards)
    phases = mixture.phases(batch)
    assert sorted(set(phases.tolist())) == [0, 1, 2]
    result = mixture.evaluate(batch)
    for row, board in enumerate(boards):
        alone = NetworkEvaluator(backend=nets[int(phases[row])]).evaluate(  # type: ignore[arg-type]
            leaf_batch([board]))
        assert len(result.priors[row]) == len(batch.moves[row]) == board.legal_moves.count()
        np.testing.assert_allclose(result.priors[row], alone.priors[0], rtol=1e-6)
        assert result.values[row] == pytest.approx(float(alone.values[0]))
    assert mixture.log[-1].model == "phase0+phase1+phase2"


# Two positions between the phase limits (non-pawn material, Stockfish's values):
# QUEENS: each side Q, 2R, B, N = 6654, alpha = (13308 - 3915) / (15258 - 3915) = 9393 / 11343
# ROOKS: each side 2R, B = 3390, alpha = (6780 - 3915) / 11343 = 2865 / 11343
QUEENS = chess.Board("r1b1k2r/pp3ppp/2nq4/8/8/2NQ4/PP3PPP/R1B1K2R w KQkq - 0 12")
ROOKS = chess.Board("r1b1k2r/pp3ppp/8/8/8/8/PP3PPP/R1B1K2R w KQkq - 0 30")


class Peaked(Stub):
    """A fake expert whose policy puts (almost) all its mass on one policy index."""

    def __init__(self, value: float, index: int) -> None:
        super().__init__(value)
        self.index = index

    def forward(self, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values, logits = super().forward(records)
        logits[:, self.index] = 60.0
        return values, logits


def test_soft_routing_between_the_phase_limits_mixes_by_hand_memberships() -> None:
    a_queens, a_rooks = 9393 / 11343, 2865 / 11343
    # opening max(0, 2a - 1), endgame max(0, 1 - 2a), middlegame the rest
    queens = [2 * a_queens - 1, 2 - 2 * a_queens, 0.0]  # 0.6562, 0.3438, 0
    rooks = [0.0, 2 * a_rooks, 1 - 2 * a_rooks]  # 0, 0.5052, 0.4948
    batch = leaf_batch([QUEENS])
    target = int(batch.policy_indices[0][3])
    stubs = [Peaked(0.1, target), Stub(0.2), Stub(0.3)]
    mixture = MixtureEvaluator(stubs, phase_definition("lichess"), routing="soft")  # type: ignore[arg-type]
    weights = soft_memberships(leaf_batch([QUEENS, ROOKS]))
    assert weights[0].tolist() == pytest.approx(queens)
    assert weights[1].tolist() == pytest.approx(rooks)
    result = mixture.evaluate(batch)
    assert float(result.values[0]) == pytest.approx(0.1 * queens[0] + 0.2 * queens[1], rel=1e-6)
    moves = len(batch.moves[0])
    expected = np.full(moves, queens[1] / moves)  # the uniform experts' share
    expected[3] += queens[0]  # the peaked expert's share, all on its move
    assert result.priors[0] == pytest.approx(expected, abs=1e-6)
    # the log names the phase with the largest membership, not the gate's lichess phase
    assert [int(lichess_phase(b)) for b in (QUEENS, ROOKS)] == [1, 2]
    assert mixture.log[-1] == GateDecision(1, (0, 1, 0), 0, "soft")
    mixture.evaluate(leaf_batch([ROOKS]))
    assert mixture.log[-1] == GateDecision(1, (0, 0, 1), 1, "soft")
    assert float(mixture.evaluate(leaf_batch([ROOKS])).values[0]) == pytest.approx(
        0.2 * rooks[1] + 0.3 * rooks[2], rel=1e-6)
    # two rows: memberships summed per phase, 0.656 / 0.849 / 0.495: the middlegame
    mixture.evaluate(leaf_batch([QUEENS, ROOKS]))
    assert mixture.log[-1] == GateDecision(2, (0, 1, 1), 1, "soft")
