"""The related documents' engines' committed runs, read into typed records: DeepChess
(its comparator epochs, its held-out accuracies against the material comparator, its learning
curve), the comparison-trained n-tuple engine (its agreement with Stockfish's move, iteration
by iteration, and on a test set apart) and the self-play value network "MAIS" (its MAE batch
by batch), each with its short matches against Stockfish; and the ``related`` tournament's
matches from their first engine's view. Every number comes from the files a run writes
(``results/related/<kind>/``); an engine whose folder is absent reads as ``None``.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe import sequential
from chessmoe._io.errors import KitError
from chessmoe._io.jsonl import read_records
from chessmoe.elo import score_from_elo
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.played import rules_named
from chessmoe.records import TournamentSummary, VersusSummary

__all__ = ["DeepChessCurvePoint", "DeepChessEpoch", "DeepChessRun", "MaisBatch", "MaisRun",
           "MaterialComparison", "NtupleIteration", "NtupleRun", "NtupleTest", "RelatedMatch",
           "VsStockfish", "finished_ntuple", "load_deepchess", "load_deepchess_curve",
           "load_mais", "load_ntuple", "load_related_matches", "ntuple_curve",
           "paired_comparison", "read_json"]


@dataclass(frozen=True)
class VsStockfish:
    """A short match of the engine against Stockfish, from the engine's point of view."""

    wins: int
    draws: int
    losses: int
    games: int
    score: float
    engine_nodes: int | None
    stockfish: str  # the Stockfish settings, in words
    # Elo and its 95 % margin with a game pair as the unit (pentanomial), when recorded
    pair_elo: float | None = None
    pair_margin: float | None = None
    pairs: int | None = None
    draw_rules: str | None = None  # as its summary records them (None: not recorded)


@dataclass(frozen=True)
class DeepChessEpoch:
    epoch: int
    train_accuracy: float
    held_out_accuracy: float


@dataclass(frozen=True)
class DeepChessRun:
    games: int
    train_positions: int
    comparator_epochs: int
    pos2vec_epochs: int
    epochs: tuple[DeepChessEpoch, ...]
    nps: float  # leaves per second of the alpha-beta search
    vs_stockfish: VsStockfish | None
    # unseen positions of the training games (the document's split is likely by position)
    held_out_position_accuracy: float | None = None
    # the material-only comparator on the very same held-out pairs (by game, by position)
    material_held_out_accuracy: float | None = None
    material_held_out_position_accuracy: float | None = None
    # network minus material on those pairs, row by row (material-paired.json), if scored
    paired_by_game: MaterialComparison | None = None
    paired_by_position: MaterialComparison | None = None


@dataclass(frozen=True)
class MaterialComparison:
    """The network's accuracy minus the material comparator's on the same pairs, with its
    95 % half-width (rows clustered by pair of positions)."""

    difference: float
    half_width: float
    units: int
    # False where the clusters are too few or one dominates: no interval, nothing decided
    estimable: bool = True
    largest_share: float = 0.0  # the largest cluster's share of the rows

    @property
    def decided(self) -> bool:
        return self.estimable and abs(self.difference) > self.half_width

    def interval(self) -> str:
        """In percentage points: ``+1.3 [+0.2, +2.4]``, or the estimate alone with why it has
        no interval."""
        if not self.estimable:
            return (f"{100 * self.difference:+.1f} (no interval: {self.units:,} clusters, the "
                    f"largest {100 * self.largest_share:.0f} % of the rows)")
        low, high = (100 * (self.difference + k * self.half_width) for k in (-1, 1))
        return f"{100 * self.difference:+.1f} [{low:+.1f}, {high:+.1f}]"

    def words(self) -> str:
        return f"{self.interval()} points, {'decided' if self.decided else 'undecided'}"


def paired_comparison(block: Any) -> MaterialComparison | None:
    if not isinstance(block, dict):
        return None
    rows = int(block["rows"])
    return MaterialComparison(float(block["difference"]), float(block["half_width"]),
                            int(block["units"]), bool(block.get("estimable", True)),
                            int(block.get("largest_cluster", 0)) / max(1, rows))


@dataclass(frozen=True)
class DeepChessCurvePoint:
    """One run of a DeepChess learning curve: trained on the first ``train_games`` games."""

    train_games: int
    held_out_accuracy: float
    held_out_position_accuracy: float | None
    material_held_out_accuracy: float | None
    paired_by_game: MaterialComparison | None = None  # network minus material, same pairs
    material_held_out_position_accuracy: float | None = None
    paired_by_position: MaterialComparison | None = None


@dataclass(frozen=True)
class RelatedMatch:
    """A match of the ``related`` tournament, from its first engine's view."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    elo: float
    margin: float  # 95 %, as cutechess computes it
    planned: int = 0  # the games the design plans (0: not recorded, taken as complete)
    sprt_state: str = ""  # a sequential test's state ("H0 accepted", "H1 accepted",
    # "continue"); "": the match has a fixed size
    sprt_words: str = ""  # its bounds, in words
    # the per-game (trinomial, cutechess) 95 % interval in Elo, as the summary stores it
    low: float = math.nan
    high: float = math.nan
    # a decided sequential test's Elo read as stopped there
    # (:func:`chessmoe.sequential.match_estimate`, in the test's model); None otherwise
    stopped: sequential.StoppedEstimate | None = None

    @property
    def partial(self) -> bool:
        """Still being played: its numbers are shown but decide no target."""
        if self.sprt_state:
            return self.sprt_state == "continue"
        return self.games < self.planned

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def score_bounds(self) -> tuple[float, float]:
        """The score's own 95 % interval with a game as the unit (the ends of the trinomial
        interval cutechess's margin comes from, :func:`chessmoe.elo.trinomial`, as the match's
        summary stores them), not the Elo margin converted back (which is not symmetric in
        score)."""
        if not self.games:
            return math.nan, math.nan
        return score_from_elo(self.low), score_from_elo(self.high)


@dataclass(frozen=True)
class NtupleIteration:
    iteration: int
    train_agreement: float | None  # None at iteration 0 (the untrained weights)
    held_out_agreement: float


@dataclass(frozen=True)
class NtupleRun:
    train_positions: int
    held_out_positions: int
    max_iterations: int  # allowed; training stops early when held-out agreement stalls
    best_iteration: int  # the iteration whose weights were kept
    iterations: tuple[NtupleIteration, ...]
    vs_untrained: VsStockfish | None  # trained (first) vs its start weights, if played
    nps: float | None  # nodes per second of the trained engine (speed.json)
    vs_stockfish: VsStockfish | None
    start: str = "material"  # the start weights: material (Table I) or pesto
    depth: int = 1  # d of the d-ply comparison training
    test: NtupleTest | None = None  # agreement on a test set apart (test.json), if scored


@dataclass(frozen=True)
class NtupleTest:
    """test.json: start and trained agreement on positions apart from training and selection,
    each with its 95 % half-width, and the paired difference."""

    positions: int
    source: str
    start: float
    start_half_width: float
    trained: float
    trained_half_width: float
    difference: float
    difference_half_width: float


@dataclass(frozen=True)
class MaisBatch:
    batch: int
    games: int
    val_mae: float
    fresh_mae: float | None  # None before the first batch of self-play
    # the document's split: every k-th self-play game, never trained on (None in older runs)
    selfplay_val_mae: float | None = None
    selfplay_zero_mae: float | None = None
    selfplay_naive_mae: float | None = None


@dataclass(frozen=True)
class MaisRun:
    games: int
    batches: tuple[MaisBatch, ...]  # batch 0 = before training
    zero_predictor_mae: float
    nps: float
    vs_stockfish: VsStockfish | None
    naive_multiple: float | None = None  # the naive baseline predicts this x naive evaluation
    # (games, MAE) of each snapshot and the final net on the one final split
    # (fixed-split.json), with that split's size; empty when not scored
    fixed_split: tuple[tuple[int, float], ...] = ()
    fixed_split_positions: int = 0

    @property
    def selfplay(self) -> tuple[MaisBatch, ...]:
        """The batches measured on the self-play validation split."""
        return tuple(b for b in self.batches if b.selfplay_val_mae is not None)


def read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise KitError(f"{path}: missing (train with `chessmoe related train ...`)")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise KitError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise KitError(f"{path}: expected a JSON object")
    return value


def _metrics(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise KitError(f"{path}: missing")
    report = read_records(path)
    if report.bad_lines:
        raise KitError(f"{path}: unreadable line(s) {report.bad_lines} (cut or corrupt log; "
                       "retrain or repair the file)")
    return report.records


def _settings(player: dict[str, Any]) -> str:
    parts = [f"{k} {v}" for k, v in sorted(player.get("options", {}).items())]
    if player.get("nodes") is not None:
        parts.append(f"{player['nodes']} nodes")
    if player.get("movetime_ms") is not None:
        parts.append(f"{player['movetime_ms']} ms")
    return ", ".join(parts)


def _vs(path: Path) -> VsStockfish | None:
    """A match summary; MAIS writes its own field names (``mais_wins`` ...)."""
    if not path.is_file():
        return None
    d = read_json(path)
    if "mais_wins" in d:
        return VsStockfish(int(d["mais_wins"]), int(d["draws"]), int(d["mais_losses"]),
                           int(d["games"]), float(d["mais_score"]), d["mais"].get("nodes"),
                           _settings(d["stockfish"]))
    result = VersusSummary.from_json(d)  # the run's players, openings and rules beside it
    return VsStockfish(result.wins, result.draws, result.losses, result.games, result.score,
                       d["players"]["first"].get("nodes"), _settings(d["players"]["second"]),
                       result.pentanomial_elo, result.pentanomial_margin,
                       int(d["openings"]["pairs"]) if isinstance(d.get("openings"), dict)
                       and "pairs" in d["openings"] else None,
                       rules_named(d.get("adjudication")))


def load_deepchess(run_dir: str | os.PathLike[str]) -> DeepChessRun | None:
    """DeepChess's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    cfg, summary = read_json(root / "config.json"), read_json(root / "summary.json")
    paired = read_json(root / "material-paired.json") if (root / "material-paired.json").is_file() \
        else {}
    epochs = tuple(DeepChessEpoch(int(r["epoch"]), float(r["train_accuracy"]),
                                  float(r["held_out_accuracy"]))
                   for r in _metrics(root / "metrics.jsonl") if r.get("phase") == "comparator")
    return DeepChessRun(int(summary["games"]), int(summary["train_positions"]),
                        int(cfg["comparator_epochs"]), int(cfg["pos2vec_epochs"]), epochs,
                        float(summary["nps"]), _vs(root / "vs-stockfish" / "summary.json"),
                        _optional(summary.get("held_out_position_accuracy_last")),
                        _optional(summary.get("material_held_out_accuracy")),
                        _optional(summary.get("material_held_out_position_accuracy")),
                        paired_comparison(paired.get("by_game")),
                        paired_comparison(paired.get("by_position")))


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


def load_deepchess_curve(curve_dir: str | os.PathLike[str]) -> tuple[DeepChessCurvePoint, ...]:
    """The points of a DeepChess learning curve (``learning_curve.json`` of
    ``chessmoe related train deepchess --set learning_curve=...``); empty when not run."""
    path = Path(curve_dir) / "learning_curve.json"
    if not path.is_file():
        return ()
    rows = read_json(path).get("rows", [])
    return tuple(DeepChessCurvePoint(int(r["train_games"]), float(r["held_out_accuracy_last"]),
                                     _optional(r.get("held_out_position_accuracy_last")),
                                     _optional(r.get("material_held_out_accuracy")),
                                     paired_comparison(r.get("material_paired_by_game")),
                                     _optional(r.get("material_held_out_position_accuracy")),
                                     paired_comparison(r.get("material_paired_by_position")))
                 for r in sorted(rows, key=lambda r: int(r["train_games"])))


def load_related_matches(tournament_dir: str | os.PathLike[str]) -> dict[str, RelatedMatch]:
    """The played matches of the ``related`` tournament by name (empty when not played)."""
    path = Path(tournament_dir) / "summary.json"
    if not path.is_file():
        return {}
    out = {}
    for m in TournamentSummary.from_json(read_json(path)).matches:
        result, test = m.summary, m.sprt
        if result.games > 0:
            words = (f"SPRT H0 {test.elo0:+.0f} Elo against H1 {test.elo1:+.0f} Elo, alpha "
                     f"{test.alpha:g}, beta {test.beta:g}, LLR {test.llr:.2f} in "
                     f"[{test.lower:.2f}, {test.upper:.2f}]" if test is not None else "")
            stopped = None
            if test is not None and test.decided and test.model in ("logistic", "normalized"):
                stopped = sequential.match_estimate(
                    elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta,
                    model=test.model, pentanomial=test.pentanomial)
            out[m.name] = RelatedMatch(m.name, result.games, result.wins, result.draws,
                                       result.losses, result.elo, result.margin,
                                       m.planned_games, test.state if test is not None else "",
                                       words, low=result.low, high=result.high,
                                       stopped=stopped)
    return out


def load_ntuple(run_dir: str | os.PathLike[str]) -> NtupleRun | None:
    """The n-tuple engine's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    cfg = read_json(root / "config.json")
    its = _ntuple_iterations(root / "metrics.jsonl")
    if not any(i.iteration == int(cfg["best_iteration"]) for i in its):
        raise KitError(f"{root / 'metrics.jsonl'}: no record of the kept iteration "
                       f"{cfg['best_iteration']} (config.json)")
    # the small run's own 40-game match; the large run plays the related tournament instead
    vs_untrained = _vs(root / "trained-vs-untrained" / "summary.json")
    speed_path = root / "trained-vs-untrained" / "speed.json"
    nps = (float(read_json(speed_path)["trained"]["nodes_per_second"])
           if speed_path.is_file() else None)
    return NtupleRun(int(cfg["data"]["train_positions"]), int(cfg["data"]["held_out_positions"]),
                     int(cfg["train"]["iterations"]), int(cfg["best_iteration"]), its,
                     vs_untrained, nps,
                     _vs(root / "vs-stockfish" / "summary.json"),
                     str(cfg["train"].get("start", "material")),
                     int(cfg["train"].get("depth", 1)), _ntuple_test(root / "test.json"))


def _ntuple_iterations(path: Path) -> tuple[NtupleIteration, ...]:
    return tuple(NtupleIteration(int(r["iteration"]),
                                 None if r.get("train_agreement") is None
                                 else float(r["train_agreement"]),
                                 float(r["held_out_agreement"]))
                 for r in _metrics(path))


def finished_ntuple(run_dir: Path) -> NtupleRun | None:
    """A run that has written its weights (so its kept iteration), or None while it
    trains or before it starts."""
    return load_ntuple(run_dir) if (run_dir / RELATED_WEIGHTS["ntuple"]).is_file() else None


def ntuple_curve(run_dir: Path) -> list[tuple[int, float]]:
    """``(iteration, held-out agreement)`` of a run that may still be training (its
    ``metrics.jsonl`` only; no weights yet), or ``[]`` when it has not started."""
    path = run_dir / "metrics.jsonl"
    if not path.is_file():
        return []
    return [(i.iteration, i.held_out_agreement) for i in _ntuple_iterations(path)]


def _ntuple_test(path: Path) -> NtupleTest | None:
    if not path.is_file():
        return None
    d = read_json(path)
    return NtupleTest(int(d["positions"]), str(d["source_name"]), float(d["start_agreement"]),
                      float(d["start_half_width"]), float(d["trained_agreement"]),
                      float(d["trained_half_width"]), float(d["difference"]),
                      float(d["difference_half_width"]))


def load_mais(run_dir: str | os.PathLike[str]) -> MaisRun | None:
    """MAIS's run, or None when its folder does not exist."""
    root = Path(run_dir)
    if not root.is_dir():
        return None
    summary = read_json(root / "summary.json")
    batches = tuple(MaisBatch(int(r["batch"]), int(r["games"]), float(r["val_mae"]),
                              _optional(r.get("fresh_mae")),
                              _optional(r.get("selfplay_val_mae")),
                              _optional(r.get("selfplay_zero_mae")),
                              _optional(r.get("selfplay_naive_mae")))
                    for r in _metrics(root / "metrics.jsonl"))
    fixed: tuple[tuple[int, float], ...] = ()
    positions = 0
    if (root / "fixed-split.json").is_file():
        data = read_json(root / "fixed-split.json")
        fixed = tuple((int(n["games"]), float(n["mae"])) for n in data["networks"])
        positions = int(data["split"]["positions"])
    return MaisRun(int(summary["games"]), batches, float(summary["val_mae_zero_predictor"]),
                   float(summary["nps"]), _vs(root / "vs-stockfish" / "summary.json"),
                   _optional(summary.get("selfplay_naive_multiple")), fixed, positions)
