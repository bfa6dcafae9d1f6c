"""The compiled per-batch glue (chessmoe.search.native.glue) equals its numpy definitions bit
for bit: planes, the gate's phases and the softmax over legal moves, on real and on fuzzed
input; and whole searches, batched or not, are the same with either."""

from __future__ import annotations

import itertools

import chess
import numpy as np
import pytest

from chessmoe.encoding import POLICY_SIZE, RECORD_DTYPE, records_to_planes
from chessmoe.phases import PHASE_DEFINITIONS, BoardBatch, phase_definition
from chessmoe.search.experts import MixtureEvaluator, NetworkEvaluator
from chessmoe.search.inference import InferenceService, legal_softmax
from chessmoe.search.mcts import Limits, SearchConfig, leaf_batch
from chessmoe.search.native import glue
from chessmoe.search.native.search import NativeMCTS

from .helpers import HashNet, random_positions


def _fuzzed_records(n: int, seed: int) -> np.ndarray:
    """Records of random bytes: every field at values no real position has (overlapping
    pieces, turn 7, castling 255, repetition 9, is960 3, squares past 64, any halfmove)."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=(n, RECORD_DTYPE.itemsize), dtype=np.uint8)
    raw[: n // 2, 72:89] = rng.integers(0, 70, size=(n // 2, 17))  # some valid squares
    raw[: n // 3, 90:93] = rng.integers(0, 3, size=(n // 3, 3))
    return raw.view(RECORD_DTYPE).reshape(n)


def _game_records() -> np.ndarray:
    """Records of random games' positions (histories, repetitions, promotions, en passant)."""
    return leaf_batch(list(random_positions(300, seed=3))).records


def test_planes_are_records_to_planes_bit_for_bit() -> None:
    for records in (_game_records(), _fuzzed_records(2000, 1)):
        ours, theirs = glue.planes(records), records_to_planes(records)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype == np.float32
        np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))


def test_records_with_more_fields_take_the_numpy_definition() -> None:
    """Dataset samples carry more fields than a leaf record: the same planes, by numpy."""
    records = _game_records()[:20]
    wider = np.zeros(len(records), dtype=[*RECORD_DTYPE.descr, ("phase", "u1")])
    for name in RECORD_DTYPE.names or ():
        wider[name] = records[name]
    np.testing.assert_array_equal(glue.planes(wider), records_to_planes(records))


@pytest.mark.parametrize("name", PHASE_DEFINITIONS)
def test_phases_are_each_definitions_own(name: str) -> None:
    definition = phase_definition(name)
    for records in (_game_records(), _fuzzed_records(3000, 2)):
        ours, counts = glue.gate(records, definition)
        theirs = definition.phases(BoardBatch.from_columns(records))
        assert ours.dtype == np.int8
        np.testing.assert_array_equal(ours, theirs)
        np.testing.assert_array_equal(counts, np.bincount(theirs, minlength=len(counts)))
    # every phase occurs in the games, so each branch of the rule was compared
    assert set(glue.gate(_game_records(), definition)[0]) == set(range(definition.n_phases))


def _segments(rng: np.random.Generator, sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    policy = rng.integers(0, POLICY_SIZE, size=int(offsets[-1]))
    return policy.astype(np.int64), offsets


def test_the_legal_softmax_is_numpys_bit_for_bit() -> None:
    """Every row length up to 218 (and past numpy's 128-term block), wide and narrow logits,
    repeated indices, -inf and NaN logits: the same float32 bits as the numpy definition."""
    rng = np.random.default_rng(4)
    sizes = [*range(1, 219), 127, 128, 129, 218, 1, 2]
    policy, offsets = _segments(rng, sizes)
    for scale in (0.01, 1.0, 8.0, 60.0):
        logits = (rng.standard_normal((len(sizes), POLICY_SIZE)) * scale).astype(np.float32)
        logits[3, policy[offsets[3]]] = -np.inf
        logits[7, policy[offsets[7] + 1]] = np.inf
        logits[9, policy[offsets[9]]] = np.nan
        ours = glue.legal_softmax_flat(logits, policy, offsets)
        split = [policy[offsets[i]:offsets[i + 1]] for i in range(len(sizes))]
        with np.errstate(invalid="ignore"):  # inf - inf, as the rows above ask
            theirs = np.concatenate(legal_softmax(logits, split))
        np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))
        # numpy's exp on the whole batch equals its exp row by row (what lets the service
        # take one softmax over many searches' rows)
        for i in (0, 17, 128, len(sizes) - 1):
            alone = legal_softmax(logits[i:i + 1], [split[i]])[0]
            np.testing.assert_array_equal(alone.view(np.uint32),
                                          ours[offsets[i]:offsets[i + 1]].view(np.uint32))


def test_row_sums_are_numpys_reduceat_bit_for_bit() -> None:
    """The softmax's denominators: numpy's ``add.reduceat`` order, which differs from
    ``sum()`` in the last bit of about one row in three (too rarely to show in float32
    priors, so checked here in float64)."""
    rng = np.random.default_rng(8)
    sizes = [*range(1, 219), 300, 500, 900]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    values = rng.exponential(size=int(offsets[-1])) * rng.choice([1e-3, 1.0, 1e3],
                                                                  size=int(offsets[-1]))
    expected = np.add.reduceat(values, offsets[:-1])
    ours = np.array([glue.segment_sum(values, lo, hi)
                     for lo, hi in itertools.pairwise(offsets.tolist())])
    np.testing.assert_array_equal(ours.view(np.uint64), expected.view(np.uint64))


def _search_everything(monkeypatch: pytest.MonkeyPatch, glue_kind: str) -> list[object]:
    """Batched native searches (through the service) with a mixture and a single network;
    every root's moves, visits and priors."""
    monkeypatch.setenv("CHESSMOE_GLUE", glue_kind)
    nets = [HashNet(s) for s in range(4)]
    evaluators = [MixtureEvaluator(nets[:3], phase_definition("lichess")),  # type: ignore[arg-type]
                  NetworkEvaluator(backend=nets[3])]  # type: ignore[arg-type]
    boards = [chess.Board(), *random_positions(5, seed=9, max_plies=60)]
    jobs = [(NativeMCTS(e, SearchConfig(batch_size=8)), b) for e in evaluators for b in boards]
    steps = [search.search_steps(board, Limits(nodes=120)) for search, board in jobs]
    pending = {k: next(s) for k, s in enumerate(steps)}
    found: dict[int, object] = {}
    service = InferenceService()
    while pending:
        keys = sorted(pending)
        answers = service.evaluate_many([(jobs[k][0].evaluator, pending[k]) for k in keys])
        for k, answer in zip(keys, answers, strict=True):
            try:
                pending[k] = steps[k].send(answer)
            except StopIteration as done:
                found[k] = [(c.move, c.visits, c.prior) for c in done.value.children]
                del pending[k]
    return [found[k] for k in range(len(jobs))]


def test_batched_searches_are_the_same_with_the_numpy_glue(
        monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = _search_everything(monkeypatch, "compiled")
    reference = _search_everything(monkeypatch, "numpy")
    assert compiled == reference
    assert all(any(visits for _, visits, _ in root) for root in compiled)


def test_where_numba_cannot_compile_the_numpy_definitions_give_the_same_evaluation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine without numba (or with NUMBA_DISABLE_JIT, or no cache it may write) still
    evaluates with a network: the numpy definitions run, with the same numbers."""
    import numba

    from chessmoe.search import inference

    batch = leaf_batch(list(random_positions(12, seed=4)))
    mixture = MixtureEvaluator([HashNet(s) for s in range(3)],  # type: ignore[misc]
                               phase_definition("lichess"))
    compiled = mixture.evaluate(batch)
    assert inference.compiled_glue() is not None
    inference._compiled_module.cache_clear()
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    try:
        assert inference.compiled_glue() is None
        reference = mixture.evaluate(batch)
    finally:
        inference._compiled_module.cache_clear()
    np.testing.assert_array_equal(compiled.values, reference.values)
    for ours, theirs in zip(compiled.priors, reference.priors, strict=True):
        np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))
