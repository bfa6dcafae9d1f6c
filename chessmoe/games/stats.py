"""Game-phase statistics: one streaming pass over a source into tidy frames.

Output directory ``results/stats/<name>/``:

* ``positions.parquet`` -- one row per position (start position and after every
  move of every kept game): ``game``, ``ply``, ``move_number`` (the board's
  full-move number), ``majors_minors``, ``backrank_sparse``, ``tapered_alpha``, and
  for each mixedness table ``T`` in ``lichess``, ``lichess_2025``, ``engine``:
  ``mixedness_T``, ``phase_T`` (position-only Lichess phase) and ``division_T``
  (forward-only whole-game division phase).
* ``games.parquet`` -- one row per kept game: ``game``, ``source``, ``offset``,
  ``result``, ``plies``, ``date``, ``month``, ``split``, and per table
  ``middle_T``/``end_T`` (ply where the division starts that phase, -1 if never)
  and ``middle_move_T``/``end_move_T`` (the full-move number there).
* ``manifest.json`` -- source files with sizes and sha256, filters, skip counts,
  phase definition and tables, split rule, counts, checksums of the two frames,
  and provenance (package version, git commit, hardware, date). It is written
  last: a directory without it is incomplete.

The pass is split into units (byte ranges of plain PGN files, members of zip
archives, whole compressed files) that run in parallel and resume after an
interruption (:mod:`chessmoe._io.jobs`).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import chessmoe
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.jobs import Unit, run_units
from chessmoe._io.provenance import provenance
from chessmoe.games.pgn import PgnFilters, SkipCounter, SourcePiece, plan_pieces
from chessmoe.games.sources import ResolvedSource, resolve
from chessmoe.games.splits import split_to_dict
from chessmoe.phases import (
    MIXEDNESS_TABLES,
    BoardBatch,
    backrank_sparse_batch,
    division_batch,
    lichess_phase_batch,
    majors_minors_batch,
    mixedness_batch,
    tapered_alpha_batch,
)

__all__ = ["TABLE_COLUMNS", "StatsResult", "compute", "compute_and_save", "load"]

TABLE_COLUMNS = {table: table.replace("-", "_") for table in MIXEDNESS_TABLES}
_CHUNK_POSITIONS = 200_000
_RESULT_CODES = ("1-0", "1/2-1/2", "0-1")


@dataclass
class StatsResult:
    """Where a statistics pass wrote its frames, and what it skipped."""

    directory: Path
    manifest: dict[str, Any]
    skips: SkipCounter

    @property
    def positions_path(self) -> Path:
        return self.directory / "positions.parquet"

    @property
    def games_path(self) -> Path:
        return self.directory / "games.parquet"


def _extract(board: chess.Board) -> tuple[int, ...]:
    return (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns,
            board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.fullmove_number)


@dataclass(frozen=True)
class _UnitSpec:
    piece: SourcePiece
    filters: PgnFilters
    max_games: int | None


def _features(rows: list[tuple[int, ...]], starts: list[int]) -> dict[str, npt.NDArray[Any]]:
    """Per-position feature columns of consecutive whole games."""
    bits = np.array(rows, dtype=np.uint64)
    batch = BoardBatch(white=bits[:, 0], black=bits[:, 1], pawns=bits[:, 2],
                       knights=bits[:, 3], bishops=bits[:, 4], rooks=bits[:, 5],
                       queens=bits[:, 6], kings=bits[:, 7],
                       fullmove=bits[:, 8].astype(np.int32))
    starts_np = np.array(starts, dtype=np.intp)
    lengths = np.diff(np.append(starts_np, len(rows)))
    game_of = np.repeat(np.arange(len(starts)), lengths)
    cols: dict[str, npt.NDArray[Any]] = {
        "ply": (np.arange(len(rows)) - starts_np[game_of]).astype(np.int16),
        "move_number": batch.fullmove.astype(np.int16),
        "majors_minors": majors_minors_batch(batch).astype(np.uint8),
        "backrank_sparse": backrank_sparse_batch(batch),
        "tapered_alpha": tapered_alpha_batch(batch).astype(np.float32),
    }
    for table, col in TABLE_COLUMNS.items():
        mix = mixedness_batch(batch.white, batch.black, table)
        middle, end, division = division_batch(batch, starts_np, table, mix)
        cols[f"mixedness_{col}"] = mix
        cols[f"phase_{col}"] = lichess_phase_batch(batch, table, mix)
        cols[f"division_{col}"] = division
        # per game, stored under a private key and split off by the caller
        cols[f"#middle_{col}"] = middle
        cols[f"#end_{col}"] = end
        fullmove = batch.fullmove
        cols[f"#middle_move_{col}"] = np.where(
            middle >= 0, fullmove[starts_np + np.maximum(middle, 0)], -1).astype(np.int16)
        cols[f"#end_move_{col}"] = np.where(
            end >= 0, fullmove[starts_np + np.maximum(end, 0)], -1).astype(np.int16)
    return cols


def _stats_unit(unit: Unit[_UnitSpec], work: Path) -> dict[str, Any]:
    """Process one unit into ``<id>.positions.parquet`` and ``<id>.games.parquet``."""
    spec = unit.payload
    skips = SkipCounter()
    positions_path = work / f"{unit.id}.positions.parquet"
    games_rows: list[dict[str, Any]] = []
    rows: list[tuple[int, ...]] = []
    starts: list[int] = []
    chunk_games: list[dict[str, Any]] = []
    n_positions = 0
    with atomic_path(positions_path) as tmp:
        writer: pq.ParquetWriter | None = None

        def flush() -> None:
            nonlocal writer, rows, starts, chunk_games, n_positions
            if not rows:
                return
            cols = _features(rows, starts)
            first_game = len(games_rows)
            game_local = np.repeat(np.arange(first_game, first_game + len(starts)),
                                   np.diff(np.append(np.array(starts), len(rows))))
            per_position = {"game": game_local.astype(np.int32),
                            **{k: v for k, v in cols.items() if not k.startswith("#")}}
            for i, game in enumerate(chunk_games):
                for key, values in cols.items():
                    if key.startswith("#"):
                        game[key[1:]] = int(values[i])
                games_rows.append(game)
            table = pa.table(per_position)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
            writer.write_table(table)
            n_positions += len(rows)
            rows, starts, chunk_games = [], [], []

        for record in spec.piece.games(filters=spec.filters, skips=skips, extract=_extract,
                                       max_games=spec.max_games):
            starts.append(len(rows))
            rows.extend(record.boards)
            date = record.headers.get("Date") or record.headers.get("UTCDate") or ""
            chunk_games.append({"source": record.source, "offset": record.offset,
                                "result": record.result, "plies": record.plies,
                                "date": date, "has_fen": record.start_fen is not None})
            if len(rows) >= _CHUNK_POSITIONS:
                flush()
        flush()
        if writer is None:  # no kept game: write an empty frame with the right schema
            empty = _features([(0,) * 8 + (1,)], [0])
            schema = pa.table({"game": np.zeros(1, np.int32),
                               **{k: v for k, v in empty.items() if not k.startswith("#")}}
                              ).schema
            pq.write_table(schema.empty_table(), tmp, compression="zstd")
        else:
            writer.close()
    games = pd.DataFrame(games_rows)
    with atomic_path(work / f"{unit.id}.games.parquet") as tmp:
        games.to_parquet(tmp, index=False, compression="zstd")
    return {"games": len(games_rows), "positions": n_positions, "skips": skips.to_dict()}


def compute(source: ResolvedSource, out_dir: str | os.PathLike[str], *,
            filters: PgnFilters | None = None, workers: int = 1, progress: bool = True,
            max_games: int | None = None, parts: int | None = None) -> StatsResult:
    """Run the statistics pass of ``source`` and write the frames into ``out_dir``.

    Plain ``.pgn`` files are cut into ``parts`` byte ranges (default ``4 * workers``;
    one without workers), zip archives into members; the result does not depend on
    either.
    """
    filters = filters or PgnFilters()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    work = out / ".parts"
    file_records = source.file_records()
    pieces = plan_pieces(source.files, parts, workers=workers, whole=max_games is not None)
    units = [Unit(p.id, _UnitSpec(p, filters, max_games)) for p in pieces]
    plan = {"files": file_records, "filters": asdict(filters), "max_games": max_games,
            "units": [asdict(p) for p in pieces],
            "version": chessmoe.__version__}
    summaries = run_units(units, _stats_unit, work, plan, workers=workers, progress=progress,
                          desc=f"stats {source.name}")

    skips = SkipCounter()
    for unit in units:
        skips.merge(SkipCounter.from_dict(summaries[unit.id]["skips"]))
    games_frames = []
    offset = 0
    positions_tmp_ctx = atomic_path(out / "positions.parquet")
    with positions_tmp_ctx as tmp:
        writer: pq.ParquetWriter | None = None
        for unit in units:
            part = pq.ParquetFile(work / f"{unit.id}.positions.parquet")
            for batch in part.iter_batches(batch_size=_CHUNK_POSITIONS):
                table = pa.Table.from_batches([batch])
                game = table.column("game").to_numpy() + offset
                table = table.set_column(0, "game", pa.array(game.astype(np.int32)))
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
                writer.write_table(table)
            games = pd.read_parquet(work / f"{unit.id}.games.parquet")
            if len(games):
                games.insert(0, "game", np.arange(offset, offset + len(games), dtype=np.int32))
                games_frames.append(games)
            offset += int(summaries[unit.id]["games"])
        if writer is None:
            raise ValueError(f"no game of {source.spec} passed the filters:\n{skips.report()}")
        writer.close()
    games = pd.concat(games_frames, ignore_index=True)
    from chessmoe.games.splits import month_of

    months = [month_of(d) for d in games["date"]]
    games["month"] = [m or "" for m in months]
    games["split"] = source.split_rule.assign(len(games), months)
    with atomic_path(out / "games.parquet") as tmp:
        games.to_parquet(tmp, index=False, compression="zstd")
    split_counts = games["split"].value_counts().to_dict()
    manifest: dict[str, Any] = {
        "kind": "chessmoe phase statistics",
        "source": {"spec": source.spec, "name": source.name,
                   "description": source.description, "files": file_records},
        "filters": {**asdict(filters), "min_plies": filters.min_plies},
        "skips": skips.to_dict(),
        "definition": "lichess",
        "tables": list(MIXEDNESS_TABLES),
        "split": {"rule": split_to_dict(source.split_rule),
                  "description": source.split_rule.describe(),
                  "games": {k: int(v) for k, v in sorted(split_counts.items())}},
        "counts": {"games": len(games), "positions": int(games["plies"].sum() + len(games))},
        "frames": {name: {"file": f"{name}.parquet",
                          "sha256": sha256_file(out / f"{name}.parquet")}
                   for name in ("positions", "games")},
        "max_games": max_games,
        "provenance": provenance(workers=workers),
    }
    atomic_write_json(out / "manifest.json", manifest)
    shutil.rmtree(work, ignore_errors=True)
    return StatsResult(out, manifest, skips)


def compute_and_save(spec: str, *, results_dir: str | os.PathLike[str] = "results",
                     name: str | None = None, workers: int = 1,
                     data_dir: str | os.PathLike[str] | None = None, progress: bool = True,
                     max_games: int | None = None) -> StatsResult:
    """Resolve ``spec`` (see :mod:`chessmoe.games.sources`) and write ``results/stats/<name>/``."""
    source = resolve(spec, data_dir, progress=progress)
    out = Path(results_dir) / "stats" / (name or source.name)
    return compute(source, out, workers=workers, progress=progress, max_games=max_games)


class StatsMissing(FileNotFoundError):
    """A statistics directory is missing or incomplete."""


def load(directory: str | os.PathLike[str], *, verify: bool = True
         ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Load ``(positions, games, manifest)`` of a statistics directory.

    With ``verify`` the frames' sha256 must match the manifest, so a stale or
    damaged frame is reported by name instead of silently plotted.
    """
    directory = Path(directory)
    manifest_path = directory / "manifest.json"
    if not manifest_path.exists():
        raise StatsMissing(f"{manifest_path} is missing: run 'make results-stats' (or "
                           "'chessmoe stats') to compute the statistics")
    manifest: dict[str, Any] = json.loads(manifest_path.read_text())
    frames = {}
    for key in ("positions", "games"):
        path = directory / manifest["frames"][key]["file"]
        if not path.exists():
            raise StatsMissing(f"{path} is missing (listed in {manifest_path})")
        if verify and sha256_file(path) != manifest["frames"][key]["sha256"]:
            raise StatsMissing(f"{path} does not match the checksum in {manifest_path}; "
                               "recompute it with 'make results-stats'")
        frames[key] = pd.read_parquet(path)
    return frames["positions"], frames["games"], manifest
