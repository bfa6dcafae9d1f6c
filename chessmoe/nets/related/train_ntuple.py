"""Comparison-training runs of the n-tuple engine (``related-comparison-training-ntuple.md``):
:func:`train` (``chessmoe related train ntuple``) labels positions with Stockfish's best move and
runs the document's comparison training into a run directory, resumably.

Contract: this module imports nothing above the nets layer; the d-ply search each move is
compared through is the ``search`` its caller passes in
(:data:`chessmoe.play.players.ntuple.SEARCH_STEPS`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from chessmoe._io.errors import KitError
from chessmoe._io.external import StockfishNotFound, find_stockfish
from chessmoe._io.fsutil import atomic_write_json, atomic_write_text, sha256_file
from chessmoe._io.overrides import parse_overrides
from chessmoe._io.provenance import provenance
from chessmoe.games.pgn import PgnFilters, iter_games
from chessmoe.nets.related.ntuple import LeafSearch, NtupleWeights, save_weights, start_weights
from chessmoe.nets.related.ntuple_comparison import (
    LabelledPosition,
    NtupleTrainConfig,
    agreement_on_test,
    config_record,
    label_positions,
    sample_positions,
    sample_test_positions,
    train_comparison,
)

__all__ = ["CHECKPOINT", "PROFILES", "TEST_FILE", "find_excerpt", "train"]

CHECKPOINT = "checkpoint.npz"  # a run in progress (removed once its weights are written)

PROFILES: dict[str, NtupleTrainConfig] = {
    "smoke": NtupleTrainConfig(positions=12, held_out=6, depth=1, iterations=1, label_nodes=500,
                         per_game=3, test_positions=6),
    "small": NtupleTrainConfig(positions=2000, held_out=300, depth=1, iterations=3,
                         label_nodes=20000),
    # the scale the related results use: >= 50K Stockfish-labelled positions (the excerpt's ~4,500
    # training games give up to 12 each); run it with --set depth=1 and --set depth=2, and
    # --set start=pesto for the tuned linear start (hours of CPU: labels, then d-ply passes)
    "large": NtupleTrainConfig(positions=50000, held_out=5000, depth=1, iterations=6, patience=2,
                         label_nodes=20000, per_game=12, test_positions=5000),
}


def find_excerpt(data_dir: Path | None) -> Path:
    """The Lichess excerpt: under ``data_dir``, else in the data directory (``data/``), else
    (no ``data_dir`` named) the kit's embedded self-play sample, as the other engines do."""
    from chessmoe.games.sources import lichess_excerpt

    return lichess_excerpt(data_dir, or_sample=True)


def _games(path: Path) -> Iterator[tuple[int, list[str]]]:
    filters = PgnFilters(require_termination=False)
    for game in iter_games(path, filters=filters, extract=lambda b: b.fen()):
        yield game.ordinal, game.boards


def train(out_dir: Path, *, profile: str, data_dir: Path | None, search: LeafSearch,
          overrides: Sequence[str] = ()) -> Path:
    """Comparison training at ``profile`` ("smoke": seconds; "small": CPU minutes; "large":
    CPU hours) with ``overrides`` (``KEY=VALUE`` of :class:`NtupleTrainConfig`) into ``out_dir``;
    Stockfish labels are cached in ``out_dir/labels.jsonl``.

    Positions come from the Lichess excerpt; each move is compared through the principal
    leaves of ``search``. The run directory holds ``weights.npz`` + ``config.json`` (the trained
    weights), ``untrained/`` (the start weights, for the trained-vs-untrained match),
    ``metrics.jsonl`` (held-out agreement with Stockfish's move per iteration) and
    ``provenance.json``; while it trains ``checkpoint.npz`` holds the whole state, so the same
    command after an interruption ends with the same weights. With ``test_positions`` the
    start and the trained weights are scored once more on another source's games
    (``test_source``), a set apart from the training and held-out positions (``test.json``)."""
    if profile not in PROFILES:
        raise KitError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    config = replace(PROFILES[profile], **parse_overrides(NtupleTrainConfig, overrides))
    try:
        stockfish = find_stockfish()
    except StockfishNotFound as error:
        raise KitError(f"n-tuple training labels positions with Stockfish: {error}") from None
    excerpt = find_excerpt(data_dir)
    progress = profile != "smoke"
    out_dir.mkdir(parents=True, exist_ok=True)
    train_fens, held_fens = sample_positions(_games(excerpt), config)
    labels = label_positions(train_fens + held_fens, out_dir / "labels.jsonl",
                             stockfish=stockfish, nodes=config.label_nodes,
                             progress=progress)
    train_set = [LabelledPosition(fen, labels[fen]) for fen in train_fens]
    held_out = [LabelledPosition(fen, labels[fen]) for fen in held_fens]
    metrics_path = out_dir / "metrics.jsonl"
    checkpoint = out_dir / CHECKPOINT
    if checkpoint.is_file() and progress:
        print(f"ntuple: resuming from {checkpoint}", flush=True)
    logged: list[dict[str, float]] = []

    def log(record: dict[str, float]) -> None:
        # this run's metrics only (labels stay cached), rewritten whole: a resumed run
        # replays the records its checkpoint holds, so nothing is lost or written twice
        logged.append(record)
        atomic_write_text(metrics_path, "".join(json.dumps(r, sort_keys=True) + "\n"
                                                for r in logged))
        if progress:
            print(f"ntuple: {record}", flush=True)

    outcome = train_comparison(train_set, held_out, config, search,
                               on_iteration=log, progress=progress, checkpoint=checkpoint)
    data = {"file": excerpt.name, "sha256": sha256_file(excerpt),
            "train_positions": len(train_set), "held_out_positions": len(held_out),
            "labels": f"Stockfish ({stockfish}) best move at {config.label_nodes} nodes"}
    note = ("the document's start: Table I material, all else 0" if config.start == "material"
            else "the PeSTO start: piece values and mirror-averaged tables (tuned linear)")
    save_weights(out_dir / "untrained", start_weights(config.start),
                 config_record(replace(config, iterations=0), profile=profile, note=note))
    save_weights(out_dir, outcome.weights,
                 config_record(config, profile=profile, best_iteration=outcome.best_iteration,
                               data=data))
    atomic_write_json(out_dir / "provenance.json",
                      provenance(profile=profile, config=asdict(config), data=data,
                                 stockfish=str(stockfish)))
    if config.test_positions:
        _score_test_set(out_dir, config, outcome.weights, search, stockfish=stockfish,
                        data_dir=data_dir, progress=progress)
    checkpoint.unlink(missing_ok=True)  # the run is complete: the next one starts afresh
    return out_dir


TEST_FILE = "test.json"


def _score_test_set(out_dir: Path, config: NtupleTrainConfig, trained: NtupleWeights,
                    search: LeafSearch, *, stockfish: Path, data_dir: Path | None,
                    progress: bool) -> None:
    """``test.json``: the start and the trained weights' agreement with Stockfish's move on
    ``config.test_positions`` positions of ``config.test_source``'s games, a set apart from
    the training and held-out (selection) positions, labelled like them."""
    from chessmoe.games import sources

    source = sources.resolve(config.test_source, data_dir, fetch_missing=False)
    fens: list[str] = []
    for path in source.files:
        fens += sample_test_positions(_games(path), replace(
            config, test_positions=config.test_positions - len(fens)))
        if len(fens) >= config.test_positions:
            break
    labels = label_positions(fens, out_dir / "labels.jsonl", stockfish=stockfish,
                             nodes=config.label_nodes, progress=progress)
    test_set = [LabelledPosition(fen, labels[fen]) for fen in fens]
    result = agreement_on_test(test_set, start_weights(config.start), trained, config,
                               search, progress=progress)
    atomic_write_json(out_dir / TEST_FILE, {
        "source": config.test_source, "source_name": source.name,
        "source_files": source.file_records(),
        "what": "agreement with Stockfish's best move (a tie's credit shared); 95 % "
                "intervals by position; difference = trained minus start, position by "
                "position",
        "start_weights": config.start, **result.to_json()})
