"""Recorded searches: how mixed are MCTS mini-batches, and which experts evaluate them?

:func:`record` searches positions taken around the phase transitions of real games with a
mixture-of-experts evaluator, at several batch sizes, and keeps every mini-batch's phase
counts and the expert chosen. The result (``results/search/<name>/batches.jsonl`` and
``manifest.json``) drives the data-driven Fig. 3 and the batch-purity table.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import pandas as pd

from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.provenance import provenance
from chessmoe.games.pgn import iter_games
from chessmoe.phases import lichess_division
from chessmoe.search.experts import MixtureEvaluator
from chessmoe.search.mcts import MCTS, Limits, SearchConfig

__all__ = ["GatingConfig", "load_batches", "purity_table", "record", "transition_positions"]


@dataclass(frozen=True)
class GatingConfig:
    """What to record."""

    batch_sizes: tuple[int, ...] = (1, 8, 16, 32, 64)
    nodes: int = 800
    positions: int = 24  # positions searched per batch size
    offsets: tuple[int, ...] = (-4, 0, 4)  # plies around each phase change
    max_games: int = 200


def transition_positions(pgn: str | os.PathLike[str], count: int,
                         offsets: Sequence[int] = (-4, 0, 4), max_games: int = 200
                         ) -> list[tuple[str, chess.Board]]:
    """Boards (with their game's move stack) a few plies around the start of the
    middlegame and of the endgame (Lichess division) of the first games of ``pgn``."""
    found: list[tuple[str, chess.Board]] = []
    games: Any = iter_games(pgn, max_games=max_games)
    for game in games:
        board = chess.Board()
        boards = [board.copy()]
        for move in game.moves:
            board.push(move)
            boards.append(board.copy())
        division = lichess_division(boards)
        for label, ply in (("middlegame", division.middle), ("endgame", division.end)):
            if ply is None:
                continue
            for offset in offsets:
                index = ply + offset
                if 0 <= index < len(boards) - 1:
                    found.append((f"{label}{offset:+d}", boards[index]))
        if len(found) >= count:
            break
    return found[:count]


def record(bundle: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
           pgn: str | os.PathLike[str] | None = None, config: GatingConfig | None = None,
           device: str = "cpu", force: bool = False) -> dict[str, Any]:
    """Search transition positions with the bundle's mixture; write every mini-batch.

    A finished recording of the same bundle (its manifest's sha256), positions and settings
    is left as it is and its manifest returned; one of others is replaced only where it is
    not committed evidence, or with ``force`` (:func:`chessmoe._io.evidence.refuse_replacing`).
    """
    from chessmoe._io.evidence import refuse_replacing
    from chessmoe.games.sources import sample_path

    config = config or GatingConfig()
    source = Path(pgn) if pgn is not None else sample_path()
    old_path = Path(out_dir) / "manifest.json"
    if old_path.exists():
        old: dict[str, Any] = json.loads(old_path.read_text())
        changes = [what for what, same in (
            ("another bundle", old.get("bundle_manifest_sha256")
             == sha256_file(Path(bundle) / "manifest.json")),
            ("other settings", old.get("config") == json.loads(json.dumps(asdict(config)))),
            ("other positions", old.get("positions_source") == source.name)) if not same]
        if not changes and not force:
            return old
        refuse_replacing(out_dir, force=force, elsewhere="--out DIR",
                         what="finished recorded searches",
                         reason=", ".join(changes) or "recorded again")
    positions = transition_positions(source, config.positions, config.offsets,
                                     config.max_games)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for batch_size in config.batch_sizes:
        for position_id, (label, board) in enumerate(positions):
            mixture = _mixture(bundle, device)
            result = MCTS(mixture, SearchConfig(batch_size=batch_size)).search(
                board, Limits(nodes=config.nodes))
            for number, entry in enumerate(mixture.log):
                rows.append({"batch_size": batch_size, "position": position_id,
                             "where": label, "fen": board.fen(), "batch": number,
                             "size": entry.size, "counts": list(entry.counts),
                             "phase": entry.phase, "model": entry.model,
                             "best_move": result.move.uci() if result.move else None})
    with atomic_path(out / "batches.jsonl") as tmp:
        tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    manifest = {
        "kind": "chessmoe recorded searches",
        "bundle": str(bundle),
        "bundle_manifest_sha256": sha256_file(Path(bundle) / "manifest.json"),
        "positions_source": source.name,
        "config": asdict(config),
        "batches": len(rows),
        "batches_sha256": sha256_file(out / "batches.jsonl"),
        "provenance": provenance(),
    }
    atomic_write_json(out / "manifest.json", manifest)
    return manifest


def load_batches(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """The recorded mini-batches as a frame (one row per batch)."""
    path = Path(directory) / "batches.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run 'make results-search' to record "
                                "searches")
    frame = pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()])
    counts = pd.DataFrame(frame["counts"].tolist(), index=frame.index)
    counts.columns = [f"n{c}" for c in counts.columns]
    frame = pd.concat([frame, counts], axis=1)
    frame["purity"] = counts.max(axis=1) / frame["size"]
    return frame


def purity_table(batches: pd.DataFrame) -> pd.DataFrame:
    """Per batch size: batches, mean purity, share of pure batches, share of leaves
    evaluated by an expert of another phase, expert usage."""
    rows = {}
    for size, group in batches[batches["size"] > 1].groupby("batch_size"):
        leaves = group["size"].sum()
        off_phase = (group["size"] - group[[c for c in group.columns
                                            if c.startswith("n") and c[1:].isdigit()]]
                     .to_numpy()[range(len(group)), group["phase"].to_numpy()]).sum()
        usage = group.groupby("model")["size"].sum() / leaves * 100
        rows[int(size)] = {"mini-batches": len(group),
                           "mean purity %": round(group["purity"].mean() * 100, 2),
                           "pure batches %": round((group["purity"] == 1).mean() * 100, 2),
                           "leaves off their phase %": round(off_phase / leaves * 100, 2),
                           **{f"{m} %": round(v, 2) for m, v in usage.items()}}
    frame = pd.DataFrame(rows).T.fillna(0.0)
    frame["mini-batches"] = frame["mini-batches"].astype(int)
    frame.index.name = "batch size"
    return frame


def _mixture(bundle: str | os.PathLike[str], device: str) -> MixtureEvaluator:
    """A fresh mixture of ``bundle`` (its gate log starts empty), built like every other
    evaluator of the kit, through :class:`~chessmoe.search.evaluators.EvaluatorSpec`."""
    from chessmoe.search.evaluators import EvaluatorSpec

    # eager torch, the reference the committed recorded searches were made with
    evaluator, _ = EvaluatorSpec(network=str(bundle), device=device, backend="torch").build()
    if not isinstance(evaluator, MixtureEvaluator):
        raise ValueError(f"{bundle} is not a bundle of phase experts (a regular network has "
                         "no gate to record)")
    return evaluator
