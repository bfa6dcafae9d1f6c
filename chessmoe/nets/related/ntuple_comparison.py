"""Comparison training of the n-tuple weights (``related-comparison-training-ntuple.md``):
the document's averaged-perceptron update against Stockfish's moves, the labelled positions it
learns from, and the resumable training loop (:func:`train_comparison`).

Each move is compared through the principal leaf of a search passed in as ``leaf_search``
(:mod:`chessmoe.search` is a layer above): :mod:`chessmoe.nets.related.train_ntuple` runs the
training with the one its caller gives, :func:`chessmoe.search.alphabeta.principal_leaf`.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import chess
import numpy as np

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path
from chessmoe._io.jsonl import JsonlLog
from chessmoe.nets.related.ntuple import (
    CP_PER_UNIT,
    F64,
    I64,
    LINEAR_FEATURES,
    N_LINEAR,
    N_TUPLES,
    STARTS,
    TUPLE_SIZE,
    WEIGHT_KEYS,
    Features,
    LeafLike,
    LeafSearch,
    NtupleWeights,
    extract,
    start_weights,
)

__all__ = [
    "AgreementOnTest",
    "Averager",
    "ComparisonStats",
    "LabelledPosition",
    "NtupleTrainConfig",
    "TrainOutcome",
    "Update",
    "agreement_on_test",
    "comparison_update",
    "config_record",
    "evaluate_agreement",
    "label_positions",
    "run_fingerprint",
    "sample_positions",
    "sample_test_positions",
    "train_comparison",
]


# --- comparison training -------------------------------------------------------------------


@dataclass(frozen=True)
class Update:
    """One perceptron step: dense linear deltas (N_LINEAR,) per phase and sparse tuple
    deltas at ``tuple_index`` (M,) per phase."""

    open_linear: F64
    end_linear: F64
    tuple_index: I64
    open_tuple: F64
    end_tuple: F64


def _phase_factors(alpha: float) -> tuple[float, float]:
    norm = alpha * alpha + (1.0 - alpha) * (1.0 - alpha)
    return alpha / norm, (1.0 - alpha) / norm


def comparison_update(best: Features, better: Sequence[Features], side: float) -> Update:
    """The document's tapered update for one position (its Eq. 3 and section 3.1): with
    ``S`` the moves whose principal leaf ``l_i`` scores better for the side to move than the
    desired move's leaf ``l_best``, ``w_o += 1/|S| sum (phi_o(l_best) - phi_o(l_i))`` and
    the same for ``w_e``, where ``phi_o = alpha / (alpha^2 + (1 - alpha)^2) phi`` and
    ``phi_e = (1 - alpha) / (...) phi``; times ``side`` (+1 White to move, -1 Black) because
    ``phi`` is White's view and the comparison is the side to move's."""
    if not better:
        raise ValueError("no move scored better than the desired one: nothing to update")
    scale = side / len(better)
    n = float(len(better))
    bo, be = _phase_factors(best.alpha)
    open_linear = n * bo * best.linear
    end_linear = n * be * best.linear
    index = [best.tuple_index]
    open_values = [n * bo * best.tuple_sign]
    end_values = [n * be * best.tuple_sign]
    for other in better:
        fo, fe = _phase_factors(other.alpha)
        open_linear = open_linear - fo * other.linear
        end_linear = end_linear - fe * other.linear
        index.append(other.tuple_index)
        open_values.append(-fo * other.tuple_sign)
        end_values.append(-fe * other.tuple_sign)
    all_index = np.concatenate(index)
    unique, inverse = np.unique(all_index, return_inverse=True)
    open_tuple = np.bincount(inverse, weights=np.concatenate(open_values), minlength=len(unique))
    end_tuple = np.bincount(inverse, weights=np.concatenate(end_values), minlength=len(unique))
    return Update(scale * open_linear, scale * end_linear, unique.astype(np.int64),
                  (scale * open_tuple).astype(np.float64),
                  (scale * end_tuple).astype(np.float64))


class Averager:
    """Averaged perceptron: current weights ``w`` and ``u = sum_t t * delta_t``, so the mean
    of ``w(0) .. w(t)`` is ``w - u / (t + 1)`` without storing the history."""

    def __init__(self, start: NtupleWeights, learning_rate: float = 1.0) -> None:
        self.current = start.copy()
        self.weighted = NtupleWeights(np.zeros(N_LINEAR), np.zeros(N_LINEAR),
                                      np.zeros(TUPLE_SIZE), np.zeros(TUPLE_SIZE))
        self.steps = 0
        self.learning_rate = learning_rate

    def step(self, update: Update | None) -> None:
        """Advance one training position (``None``: the desired move already won)."""
        self.steps += 1
        if update is None:
            return
        t, lr = float(self.steps), self.learning_rate
        for name in ("open_linear", "end_linear"):
            delta = lr * getattr(update, name)
            getattr(self.current, name)[:] += delta
            getattr(self.weighted, name)[:] += t * delta
        for name in ("open_tuple", "end_tuple"):
            delta = lr * getattr(update, name)
            getattr(self.current, name)[update.tuple_index] += delta
            getattr(self.weighted, name)[update.tuple_index] += t * delta

    def average(self) -> NtupleWeights:
        c = float(self.steps + 1)
        return NtupleWeights(*(getattr(self.current, k) - getattr(self.weighted, k) / c
                               for k in WEIGHT_KEYS))


@dataclass(frozen=True)
class LabelledPosition:
    """A training position (FEN) and its desired move (UCI), Stockfish's best move."""

    fen: str
    move: str


@dataclass(frozen=True)
class ComparisonStats:
    """One pass over positions: how often the desired move's leaf scored best (a tie of k
    moves counts 1/k), how many updates were made and how many positions were skipped (the
    desired move's leaf is terminal or the position has no comparable move)."""

    positions: int
    agree: float
    updates: int
    skipped: int

    @property
    def agreement(self) -> float:
        return self.agree / self.positions if self.positions else math.nan


def _compare(position: LabelledPosition, weights: NtupleWeights, config: NtupleTrainConfig,
             leaf_search: LeafSearch) -> tuple[float, Update | None, bool]:
    """``(agreement credit, update or None, skipped)`` for one position, comparing every
    move's principal leaf after a ``depth - 1``-ply + quiescence search.

    The credit is 1 when the desired move's leaf alone scores best, ``1/k`` when it ties with
    ``k - 1`` others (the chance a tie-break picks it), 0 when a move scores better."""
    board = chess.Board(position.fen)
    desired = chess.Move.from_uci(position.move)
    side = 1.0 if board.turn == chess.WHITE else -1.0
    tuples = config.tuples

    def evaluate(b: chess.Board) -> float:
        value = weights.white_eval(extract(b, tuples=tuples))
        return value if b.turn == chess.WHITE else -value

    leaves: list[tuple[chess.Move, float, LeafLike]] = []
    for move in board.legal_moves:
        board.push(move)
        leaf = leaf_search(board, evaluate, config.depth - 1)
        board.pop()
        leaves.append((move, -leaf.value, leaf))
    best = next((item for item in leaves if item[0] == desired), None)
    if best is None:
        raise KitError(f"label {position.move} is not legal in {position.fen}")
    better = [item for item in leaves if item[0] != desired and item[1] > best[1]]
    tied = [item for item in leaves if item[0] != desired and item[1] == best[1]]
    credit = 0.0 if better else 1.0 / (1 + len(tied))
    if config.ties_update:
        better += tied
    if not better:
        return credit, None, False
    comparable = [extract(item[2].board, tuples=tuples) for item in better
                  if not item[2].terminal]
    if best[2].terminal or not comparable:
        return credit, None, True
    update = comparison_update(extract(best[2].board, tuples=tuples), comparable, side)
    return credit, update, False


def evaluate_agreement(positions: Sequence[LabelledPosition], weights: NtupleWeights,
                       config: NtupleTrainConfig, leaf_search: LeafSearch, *,
                       progress: bool = False, desc: str = "held out") -> ComparisonStats:
    """Agreement with the desired moves under ``weights`` (no update; ties share credit)."""
    from tqdm import tqdm

    agree = 0.0
    skipped = 0
    for position in tqdm(positions, desc=desc, disable=not progress):
        credit, _, skip = _compare(position, weights, config, leaf_search)
        agree += credit
        skipped += skip
    return ComparisonStats(len(positions), agree, 0, skipped)


# --- data: positions and Stockfish labels -------------------------------------------------


@dataclass(frozen=True)
class NtupleTrainConfig:
    """A comparison-training run. ``depth`` is the document's d (1..4): each move is
    compared through the leaf of a (d-1)-ply + quiescence search of its child (the
    document's best result is d = 4; the kit's committed run is d = 1). ``start`` names the
    starting weights (:func:`start_weights`): ``material`` or ``pesto``."""

    positions: int = 3000
    held_out: int = 400
    depth: int = 1
    iterations: int = 4
    patience: int = 1
    learning_rate: float = 1.0
    tuples: bool = True
    # S takes the moves scoring better than the desired one, and (ties_update) those scoring
    # the same: from material-only weights most quiet moves tie, and the document's strict
    # "better" alone would learn nothing from them
    ties_update: bool = True
    label_nodes: int = 20000  # Stockfish nodes per label (the document: 200,000)
    min_ply: int = 8  # positions from this ply of a game on
    per_game: int = 4  # at most this many positions per game
    held_out_every: int = 10  # every n-th game gives held-out positions
    seed: int = 0
    start: str = "material"  # the starting weights: material (Table I) or pesto
    # a test set apart from training and selection: positions of another source's games
    # (default: the embedded Stockfish self-play sample), scored once after training
    test_positions: int = 0
    test_source: str = "sample"

    def __post_init__(self) -> None:
        if self.start not in STARTS:
            raise KitError(f"unknown n-tuple start {self.start!r}: one of {', '.join(STARTS)}")
        if not 1 <= self.depth <= 4:
            raise KitError(f"training depth d must be 1..4, got {self.depth}")
        if self.positions < 1 or self.held_out < 1 or self.iterations < 0:
            raise KitError("positions and held_out must be positive, iterations >= 0")
        if self.test_positions < 0:
            raise KitError("test_positions must be >= 0")


def sample_positions(games: Iterator[tuple[int, list[str]]], config: NtupleTrainConfig
                     ) -> tuple[list[str], list[str]]:
    """FENs for training and held-out positions from ``(game ordinal, FEN after each ply)``:
    up to ``per_game`` random plies >= ``min_ply`` per game with at least two legal moves,
    games split by ordinal (every ``held_out_every``-th game is held out)."""
    rng = random.Random(config.seed)
    train: list[str] = []
    held: list[str] = []
    for ordinal, fens in games:
        if len(train) >= config.positions and len(held) >= config.held_out:
            break
        target = held if ordinal % config.held_out_every == 0 else train
        wanted = config.held_out if target is held else config.positions
        plies = list(range(config.min_ply, len(fens)))
        rng.shuffle(plies)
        taken: list[int] = []
        for k in plies:
            if len(taken) >= config.per_game or len(target) + len(taken) >= wanted:
                break
            board = chess.Board(fens[k])
            if not board.is_game_over() and board.legal_moves.count() >= 2:
                taken.append(k)
        target.extend(fens[k] for k in sorted(taken))
    return train, held


def sample_test_positions(games: Iterator[tuple[int, list[str]]], config: NtupleTrainConfig
                          ) -> list[str]:
    """``config.test_positions`` FENs of a test set: up to ``per_game`` random plies
    >= ``min_ply`` of each game, every game used (the source is apart from the training
    and held-out games), drawn with their own seed."""
    rng = random.Random(config.seed + 7919)
    out: list[str] = []
    for _, fens in games:
        if len(out) >= config.test_positions:
            break
        plies = list(range(config.min_ply, len(fens)))
        rng.shuffle(plies)
        taken: list[int] = []
        for k in plies:
            if len(taken) >= config.per_game or len(out) + len(taken) >= config.test_positions:
                break
            board = chess.Board(fens[k])
            if not board.is_game_over() and board.legal_moves.count() >= 2:
                taken.append(k)
        out.extend(fens[k] for k in sorted(taken))
    return out


@dataclass(frozen=True)
class AgreementOnTest:
    """Agreement with the desired moves on a test set, for the start and the trained
    weights on the same positions: each with a 95 % interval, and their paired difference
    (position by position) with its own."""

    positions: int
    start_agreement: float
    start_half_width: float
    trained_agreement: float
    trained_half_width: float
    difference: float
    difference_half_width: float

    def to_json(self) -> dict[str, float]:
        return asdict(self)


def _mean_and_half_width(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def agreement_on_test(positions: Sequence[LabelledPosition], start: NtupleWeights,
                   trained: NtupleWeights, config: NtupleTrainConfig, leaf_search: LeafSearch,
                   *, progress: bool = False) -> AgreementOnTest:
    """Both weight sets on the same test positions (a tie's credit shared as in training)."""
    from tqdm import tqdm

    if not positions:
        raise KitError("no test positions: the test source gave none")
    before = [_compare(p, start, config, leaf_search)[0]
              for p in tqdm(positions, desc="test set, start weights", disable=not progress)]
    after = [_compare(p, trained, config, leaf_search)[0]
             for p in tqdm(positions, desc="test set, trained weights", disable=not progress)]
    s_mean, s_half = _mean_and_half_width(before)
    t_mean, t_half = _mean_and_half_width(after)
    d_mean, d_half = _mean_and_half_width([a - b for a, b in zip(after, before, strict=True)])
    return AgreementOnTest(len(positions), s_mean, s_half, t_mean, t_half, d_mean, d_half)



def label_positions(fens: Sequence[str], cache: Path, *, stockfish: Path, nodes: int,
                    progress: bool = True) -> dict[str, str]:
    """Stockfish's best move for each FEN at ``nodes`` nodes, cached in ``cache`` (JSONL,
    one record per FEN and node count) so a rerun labels only what is missing."""
    import chess.engine
    from tqdm import tqdm

    with JsonlLog(cache, key="key") as log:  # one labelling run a cache at a time
        labels = {r["fen"]: r["move"] for r in log if r.get("nodes") == nodes}
        missing = [fen for fen in dict.fromkeys(fens) if fen not in labels]
        if missing:
            engine = chess.engine.SimpleEngine.popen_uci(str(stockfish))
            try:
                for fen in tqdm(missing, desc="stockfish labels", disable=not progress):
                    result = engine.play(chess.Board(fen), chess.engine.Limit(nodes=nodes),
                                         game=object())
                    if result.move is None:
                        raise KitError(f"Stockfish gave no move for {fen}")
                    labels[fen] = result.move.uci()
                    log.append({"key": f"{nodes}:{fen}", "fen": fen, "nodes": nodes,
                                "move": labels[fen]})
            finally:
                engine.quit()
    return {fen: labels[fen] for fen in fens}


# --- the training loop ---------------------------------------------------------------------


@dataclass
class TrainOutcome:
    """The weights kept (best held-out agreement) and the per-iteration metrics."""

    weights: NtupleWeights
    metrics: list[dict[str, float]] = field(default_factory=list)
    best_iteration: int = 0


CHECKPOINT_VERSION: Final = 1
TEST_FIELDS: Final = ("test_positions", "test_source")


def run_fingerprint(train_set: Sequence[LabelledPosition],
                    held_out: Sequence[LabelledPosition], config: NtupleTrainConfig) -> str:
    """sha256 of the config and every labelled position (train, then held out): a
    checkpoint resumes only the run it was written by."""
    # the test set is scored after training and does not change it
    settings = {k: v for k, v in asdict(config).items() if k not in TEST_FIELDS}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for name, positions in (("train", train_set), ("held_out", held_out)):
        digest.update(name.encode())
        for position in positions:
            digest.update(f"{position.fen}|{position.move}\n".encode())
    return digest.hexdigest()


@dataclass
class _TrainState:
    """Everything a training run needs to continue exactly where it stopped: the averaged
    perceptron, the shuffle's random state, the pass in progress (``done`` positions of
    ``order`` with its running counts) and the best weights so far."""

    averager: Averager
    rng_state: object
    metrics: list[dict[str, float]]
    best: float
    best_weights: NtupleWeights
    best_iteration: int
    stale: int
    iteration: int = 0  # the pass in progress (0: none yet)
    order: list[int] = field(default_factory=list)
    done: int = 0
    agree: float = 0.0
    updates: int = 0
    skipped: int = 0
    elapsed: float = 0.0  # seconds of training before this process
    finished: bool = False


def _save_checkpoint(path: Path, state: _TrainState, fingerprint: str, elapsed: float
                     ) -> None:
    """The state (``elapsed`` seconds of training so far) as one ``.npz`` (float64
    weights, no pickles), written atomically."""
    meta = {"version": CHECKPOINT_VERSION, "fingerprint": fingerprint,
            "rng_state": state.rng_state, "metrics": state.metrics, "best": state.best,
            "best_iteration": state.best_iteration, "stale": state.stale,
            "iteration": state.iteration, "done": state.done, "agree": state.agree,
            "updates": state.updates, "skipped": state.skipped, "elapsed": elapsed,
            "finished": state.finished, "steps": state.averager.steps,
            "learning_rate": state.averager.learning_rate}
    arrays: dict[str, Any] = {  # Any: savez's keyword arguments are loosely typed
        "meta": np.asarray(json.dumps(meta)), "order": np.asarray(state.order, dtype=np.int64)}
    for key in WEIGHT_KEYS:
        arrays[f"current_{key}"] = getattr(state.averager.current, key)
        arrays[f"weighted_{key}"] = getattr(state.averager.weighted, key)
        arrays[f"best_{key}"] = getattr(state.best_weights, key)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, allow_pickle=False, **arrays)


def _load_checkpoint(path: Path, fingerprint: str) -> _TrainState:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            order = [int(k) for k in data["order"]]
            weights = {f"{prefix}_{key}": np.array(data[f"{prefix}_{key}"], dtype=np.float64)
                       for prefix in ("current", "weighted", "best") for key in WEIGHT_KEYS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise KitError(f"{path}: unreadable training checkpoint ({error}); delete it to "
                       "start the run again") from None
    if meta.get("version") != CHECKPOINT_VERSION or meta.get("fingerprint") != fingerprint:
        raise KitError(f"{path}: checkpoint of a different run (other settings, positions or "
                       "labels); delete it to start again, or rerun with the same settings")

    def record(prefix: str) -> NtupleWeights:
        return NtupleWeights(*(weights[f"{prefix}_{key}"] for key in WEIGHT_KEYS))

    averager = Averager(record("current"), float(meta["learning_rate"]))
    averager.current = record("current")
    averager.weighted = record("weighted")
    averager.steps = int(meta["steps"])
    rng_state = meta["rng_state"]
    return _TrainState(averager=averager,
                       rng_state=(rng_state[0], tuple(rng_state[1]), rng_state[2]),
                       metrics=list(meta["metrics"]), best=float(meta["best"]),
                       best_weights=record("best"), best_iteration=int(meta["best_iteration"]),
                       stale=int(meta["stale"]), iteration=int(meta["iteration"]), order=order,
                       done=int(meta["done"]), agree=float(meta["agree"]),
                       updates=int(meta["updates"]), skipped=int(meta["skipped"]),
                       elapsed=float(meta["elapsed"]), finished=bool(meta["finished"]))


def train_comparison(train_set: Sequence[LabelledPosition],
                     held_out: Sequence[LabelledPosition], config: NtupleTrainConfig,
                     leaf_search: LeafSearch, *,
                     on_iteration: Callable[[dict[str, float]], None] | None = None,
                     progress: bool = True, checkpoint: Path | None = None,
                     checkpoint_every: int = 250) -> TrainOutcome:
    """Comparison training from ``config.start``'s weights; iteration 0 is the start's
    agreement.

    Every iteration passes over ``train_set`` in a seeded order, updating after each
    position; its averaged weights are scored on ``held_out`` and the best are kept; training
    stops after ``patience`` iterations without a better held-out agreement.

    With ``checkpoint`` (a ``.npz`` path) the whole state is saved atomically every
    ``checkpoint_every`` training positions and after every held-out score, and a run that
    finds a checkpoint of the same run (:func:`run_fingerprint`) continues from it: an
    interrupted run ends with exactly the weights and metrics of an uninterrupted one (the
    ``seconds`` column aside). ``on_iteration`` is called for each iteration's record, the
    ones already in the checkpoint included, in order."""
    from tqdm import tqdm

    fingerprint = run_fingerprint(train_set, held_out, config)
    began = time.monotonic()
    if checkpoint is not None and checkpoint.is_file():
        state = _load_checkpoint(checkpoint, fingerprint)
    else:
        start = start_weights(config.start)
        rng = random.Random(config.seed)
        base = evaluate_agreement(held_out, start, config, leaf_search, progress=progress,
                                  desc="held out, start weights")
        state = _TrainState(averager=Averager(start, config.learning_rate),
                            rng_state=rng.getstate(),
                            metrics=[{"iteration": 0, "held_out_agreement": base.agreement,
                                      "held_out": base.positions, "seconds": 0.0}],
                            best=base.agreement, best_weights=start.copy(), best_iteration=0,
                            stale=0)
        if checkpoint is not None:
            _save_checkpoint(checkpoint, state, fingerprint, 0.0)
    if on_iteration:
        for record in state.metrics:
            on_iteration(record)

    def elapsed() -> float:
        return state.elapsed + time.monotonic() - began

    def save() -> None:
        if checkpoint is not None:
            _save_checkpoint(checkpoint, state, fingerprint, elapsed())

    averager = state.averager
    while not state.finished:
        if state.iteration == 0 or state.done >= len(state.order):
            if state.iteration >= config.iterations:
                break
            rng = random.Random()
            rng.setstate(state.rng_state)  # type: ignore[arg-type]
            # each pass reshuffles the previous pass's order (the first: 0 .. n-1)
            order = list(state.order) if state.order else list(range(len(train_set)))
            rng.shuffle(order)
            state.rng_state = rng.getstate()
            state.iteration += 1
            state.order, state.done = order, 0
            state.agree, state.updates, state.skipped = 0.0, 0, 0
        bar = tqdm(total=len(state.order), initial=state.done,
                   desc=f"iteration {state.iteration}", disable=not progress)
        while state.done < len(state.order):
            k = state.order[state.done]
            ok, update, skip = _compare(train_set[k], averager.current, config, leaf_search)
            averager.step(update)
            state.agree += ok
            state.updates += update is not None
            state.skipped += skip
            state.done += 1
            bar.update(1)
            if state.done % checkpoint_every == 0 and state.done < len(state.order):
                save()
        bar.close()
        averaged = averager.average()
        held = evaluate_agreement(held_out, averaged, config, leaf_search, progress=progress,
                                  desc=f"held out, iteration {state.iteration}")
        record = {"iteration": state.iteration,
                  "train_agreement": state.agree / len(train_set),
                  "updates": state.updates, "skipped": state.skipped,
                  "held_out_agreement": held.agreement, "held_out": held.positions,
                  "gamma": averaged.gamma(), "seconds": round(elapsed(), 2)}
        state.metrics.append(record)
        if on_iteration:
            on_iteration(record)
        if held.agreement > state.best:
            state.best, state.best_weights = held.agreement, averaged
            state.best_iteration, state.stale = state.iteration, 0
        else:
            state.stale += 1
            if state.stale >= config.patience:
                state.finished = True
        if state.iteration >= config.iterations:
            state.finished = True
        save()
    return TrainOutcome(state.best_weights, state.metrics, state.best_iteration)


def config_record(config: NtupleTrainConfig, **extra: object) -> dict[str, object]:
    """``config.json`` of a run: the training config, the feature layout and ``extra``."""
    return {"kind": "ntuple", "train": asdict(config), "linear_features": list(LINEAR_FEATURES),
            "tuples": {"count": N_TUPLES, "size": TUPLE_SIZE,
                       "layout": "(own type a, own/opp x type b, first square folded to 32 "
                                 "by left-right mirror, second square 64)"},
            "cp_per_unit": CP_PER_UNIT, **extra}
