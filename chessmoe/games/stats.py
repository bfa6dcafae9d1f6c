"""Game-phase statistics: one streaming pass over a source into tidy frames in
``results/stats/<name>/`` (:func:`compute`), split into units that run in parallel and resume
after an interruption (:mod:`chessmoe._io.jobs`), and read back by :func:`load`.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import chess
import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import chessmoe
from chessmoe import paper
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.jobs import Unit, run_units
from chessmoe._io.provenance import provenance
from chessmoe.games.pgn import PgnFilters, SkipCounter, SourcePiece, no_games_error, plan_pieces
from chessmoe.games.sources import ResolvedSource, resolve
from chessmoe.games.splits import month_of, split_to_dict
from chessmoe.phases import (
    MIXEDNESS_TABLES,
    BoardBatch,
    Phase,
    backrank_sparse_batch,
    division_batch,
    lichess_phase_batch,
    majors_minors_batch,
    mixedness_batch,
    tapered_alpha_batch,
)

__all__ = ["TABLE_COLUMNS", "PhaseStats", "StatsResult", "compute", "compute_and_save", "ensure",
           "games_reaching", "label_agreement", "label_agreement_table", "load", "load_stats",
           "paper_comparison", "phase_starts", "summary_metrics", "table_column"]

TABLE_COLUMNS = {table: table.replace("-", "_") for table in MIXEDNESS_TABLES}
_CHUNK_POSITIONS = 32_768  # positions per chunk; the peak memory of the pass follows it
_RESULT_CODES = ("1-0", "1/2-1/2", "0-1")
_PHASE_NAMES = tuple(phase.name.lower() for phase in Phase)


@dataclass
class StatsResult:
    """Where a statistics pass wrote its frames, and what it skipped."""

    directory: Path
    manifest: dict[str, Any]
    skips: SkipCounter
    computed: bool = True  # False: the directory was up to date and left as it was

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


def _features(bits: npt.NDArray[np.uint64], starts: list[int]
              ) -> dict[str, npt.NDArray[Any]]:
    """Per-position feature columns of consecutive whole games (``bits``: one row of
    :func:`_extract` values per position)."""
    rows = bits
    batch = BoardBatch(white=bits[:, 0], black=bits[:, 1], pawns=bits[:, 2],
                       knights=bits[:, 3], bishops=bits[:, 4], rooks=bits[:, 5],
                       queens=bits[:, 6], kings=bits[:, 7],
                       fullmove=bits[:, 8].astype(np.int32))  # <= MAX_FULLMOVE + plies
    starts_np = np.array(starts, dtype=np.intp)
    lengths = np.diff(np.append(starts_np, len(rows)))
    game_of = np.repeat(np.arange(len(starts)), lengths)
    cols: dict[str, npt.NDArray[Any]] = {
        # int32: FEN headers may start a game at any move number up to MAX_FULLMOVE
        "ply": (np.arange(len(rows)) - starts_np[game_of]).astype(np.int32),
        "move_number": batch.fullmove.astype(np.int32),
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
            middle >= 0, fullmove[starts_np + np.maximum(middle, 0)], -1).astype(np.int32)
        cols[f"#end_move_{col}"] = np.where(
            end >= 0, fullmove[starts_np + np.maximum(end, 0)], -1).astype(np.int32)
    return cols


def _stats_unit(unit: Unit[_UnitSpec], work: Path) -> dict[str, Any]:
    """Process one unit into ``<id>.positions.parquet`` and ``<id>.games.parquet``.

    Both frames are written a chunk of games at a time, so memory does not grow with the
    size of the unit.
    """
    spec = unit.payload
    skips = SkipCounter()
    # Each game's boards become one uint64 array at once (72 bytes a position, not a
    # tuple of Python ints), so the chunk in memory is small and the same at any input size.
    rows: list[npt.NDArray[np.uint64]] = []
    n_rows = 0
    starts: list[int] = []
    chunk_games: list[dict[str, Any]] = []
    n_positions = 0
    n_games = 0
    with atomic_path(work / f"{unit.id}.positions.parquet") as tmp, \
            atomic_path(work / f"{unit.id}.games.parquet") as games_tmp:
        writer: pq.ParquetWriter | None = None
        games_writer: pq.ParquetWriter | None = None

        def flush() -> None:
            nonlocal writer, games_writer, rows, n_rows, starts, chunk_games, n_positions
            nonlocal n_games
            if not rows:
                return
            cols = _features(np.concatenate(rows), starts)
            game_local = np.repeat(np.arange(n_games, n_games + len(starts)),
                                   np.diff(np.append(np.array(starts), n_rows)))
            per_position = {"game": game_local.astype(np.int32),
                            **{k: v for k, v in cols.items() if not k.startswith("#")}}
            for i, game in enumerate(chunk_games):
                for key, values in cols.items():
                    if key.startswith("#"):
                        game[key[1:]] = int(values[i])
            table = pa.table(per_position)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
            writer.write_table(table)
            games_table = pa.Table.from_pandas(pd.DataFrame(chunk_games), preserve_index=False)
            if games_writer is None:
                games_writer = pq.ParquetWriter(games_tmp, games_table.schema,
                                                compression="zstd")
            games_writer.write_table(games_table)
            n_positions += n_rows
            n_games += len(chunk_games)
            rows, starts, chunk_games, n_rows = [], [], [], 0

        for record in spec.piece.games(filters=spec.filters, skips=skips, extract=_extract,
                                       max_games=spec.max_games):
            starts.append(n_rows)
            rows.append(np.array(record.boards, dtype=np.uint64))
            n_rows += len(record.boards)
            date = record.headers.get("Date") or record.headers.get("UTCDate") or ""
            chunk_games.append({"source": record.source, "offset": record.offset,
                                "result": record.result, "plies": record.plies,
                                "date": date, "has_fen": record.start_fen is not None})
            if n_rows >= _CHUNK_POSITIONS:
                flush()
        flush()
        if writer is None or games_writer is None:  # no kept game: empty frames
            empty = _features(np.array([(0,) * 8 + (1,)], dtype=np.uint64), [0])
            schema = pa.table({"game": np.zeros(1, np.int32),
                               **{k: v for k, v in empty.items() if not k.startswith("#")}}
                              ).schema
            pq.write_table(schema.empty_table(), tmp, compression="zstd")
            pd.DataFrame().to_parquet(games_tmp, index=False, compression="zstd")
        else:
            writer.close()
            games_writer.close()
    return {"games": n_games, "positions": n_positions, "skips": skips.to_dict()}


def compute(source: ResolvedSource, out_dir: str | os.PathLike[str], *,
            filters: PgnFilters | None = None, workers: int = 1, progress: bool = True,
            max_games: int | None = None, parts: int | None = None) -> StatsResult:
    """Run the statistics pass of ``source`` and write the frames into ``out_dir``.

    Plain ``.pgn`` files are cut into ``parts`` byte ranges (default ``4 * workers``;
    one without workers), zip archives into members; the result does not depend on
    either. ``out_dir`` receives:

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
    n_games = sum(int(summaries[unit.id]["games"]) for unit in units)
    if n_games == 0:
        raise no_games_error(source.spec, skips)
    offset = 0
    with atomic_path(out / "positions.parquet") as tmp:
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
            offset += int(summaries[unit.id]["games"])
        assert writer is not None  # n_games > 0
        writer.close()
    # Games: months first (the split rule needs them all), then the frame in batches.
    months: list[str | None] = []
    for unit in units:
        if summaries[unit.id]["games"]:
            dates = pq.read_table(work / f"{unit.id}.games.parquet", columns=["date"])
            months += [month_of(d) for d in dates.column("date").to_pylist()]
    splits = source.split_rule.assign(n_games, months)
    plies = 0
    offset = 0
    with atomic_path(out / "games.parquet") as tmp:
        games_writer: pq.ParquetWriter | None = None
        for unit in units:
            if not summaries[unit.id]["games"]:
                continue
            part = pq.ParquetFile(work / f"{unit.id}.games.parquet")
            for batch in part.iter_batches(batch_size=_CHUNK_POSITIONS // 50):
                games = batch.to_pandas()
                ids = np.arange(offset, offset + len(games))
                games.insert(0, "game", ids.astype(np.int32))
                games["month"] = [months[i] or "" for i in ids]
                games["split"] = splits[ids]
                plies += int(games["plies"].sum())
                table = pa.Table.from_pandas(games, preserve_index=False)
                if games_writer is None:
                    games_writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
                games_writer.write_table(table)
                offset += len(games)
        assert games_writer is not None
        games_writer.close()
    labels, label_counts = np.unique(splits, return_counts=True)
    split_counts = {str(k): int(v) for k, v in zip(labels, label_counts, strict=True)}
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
        "counts": {"games": n_games, "positions": plies + n_games},
        "frames": {name: {"file": f"{name}.parquet",
                          "sha256": sha256_file(out / f"{name}.parquet")}
                   for name in ("positions", "games")},
        "max_games": max_games,
        "provenance": provenance(workers=workers),
    }
    atomic_write_json(out / "manifest.json", manifest)
    shutil.rmtree(work, ignore_errors=True)
    return StatsResult(out, manifest, skips)


def _changes(old: dict[str, Any], source: ResolvedSource, max_games: int | None,
             filters: PgnFilters) -> list[str]:
    """What a statistics pass of ``source`` would change in the finished result whose
    manifest is ``old``: nothing when it read the same files (sha256) with the same filters
    and game limit."""
    changes = []
    if old.get("source", {}).get("files") != source.file_records():
        changes.append("other source files")
    if old.get("max_games") != max_games:
        changes.append(f"max_games {old.get('max_games')} -> {max_games}")
    if old.get("filters") != json.loads(json.dumps(
            {**asdict(filters), "min_plies": filters.min_plies})):
        changes.append("other filters")
    return changes


def ensure(source: ResolvedSource, out_dir: str | os.PathLike[str], *, workers: int = 1,
           progress: bool = True, max_games: int | None = None, force: bool = False,
           elsewhere: str = "--name NAME") -> StatsResult:
    """The statistics of ``source`` in ``out_dir``: left as they are when a finished pass read
    the same files with the same settings (``computed`` false), computed (or resumed) when
    the directory holds no finished pass; a finished pass of other inputs is replaced only
    where it is not committed evidence, or with ``force``
    (:func:`chessmoe._io.evidence.refuse_replacing`; ``elsewhere`` names the option that
    writes somewhere else)."""
    from chessmoe._io.evidence import refuse_replacing

    out = Path(out_dir)
    manifest_path = out / "manifest.json"
    filters = PgnFilters()
    if manifest_path.exists():
        old: dict[str, Any] = json.loads(manifest_path.read_text())
        changes = _changes(old, source, max_games, filters)
        if not changes and not force:
            return StatsResult(out, old, SkipCounter.from_dict(old["skips"]), computed=False)
        refuse_replacing(out, force=force, elsewhere=elsewhere,
                         what=f"the finished statistics of {old['source']['name']}",
                         reason=", ".join(changes) or "recomputed")
    return compute(source, out, filters=filters, workers=workers, progress=progress,
                   max_games=max_games)


def compute_and_save(spec: str, *, results_dir: str | os.PathLike[str] = "results",
                     name: str | None = None, workers: int = 1,
                     data_dir: str | os.PathLike[str] | None = None, progress: bool = True,
                     max_games: int | None = None, force: bool = False) -> StatsResult:
    """Resolve ``spec`` (see :mod:`chessmoe.games.sources`) and write ``results/stats/<name>/``
    (:func:`ensure`: up to date is left alone, a committed result is not replaced without
    ``force``)."""
    source = resolve(spec, data_dir, progress=progress)
    out = Path(results_dir) / "stats" / (name or source.name)
    return ensure(source, out, workers=workers, progress=progress, max_games=max_games,
                  force=force, elsewhere="--name NAME or --results DIR")


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


# --- the directory read back as frames, and the statistics the paper quotes from them -------


@dataclass
class PhaseStats:
    """The frames of one statistics directory, with split-aware views.

    Labelling conventions (``docs/phases.md``): the *position-only* phase (``phase_T`` for
    mixedness table ``T``) is the Lichess phase of each position alone, the label the phase
    datasets use; the *division* phase (``division_T``) is the forward-only split of each whole
    game, used for phase start moves and for games reaching a phase; a phase's *start move* is
    the full-move number of its first board.
    """

    directory: Path
    positions: pd.DataFrame
    games: pd.DataFrame
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.manifest["source"]["name"])

    @property
    def description(self) -> str:
        return str(self.manifest["source"]["description"])

    @cached_property
    def _split_of_position(self) -> np.ndarray:
        split_by_game = self.games.set_index("game")["split"]
        lookup = np.empty(int(self.games["game"].max()) + 1, dtype=object)
        lookup[split_by_game.index.to_numpy()] = split_by_game.to_numpy()
        split: np.ndarray = lookup[self.positions["game"].to_numpy()]
        return split

    def positions_in(self, split: str = "all") -> pd.DataFrame:
        """Positions of games in ``split`` (``"all"`` for every kept game)."""
        if split == "all":
            return self.positions
        self._check_split(split)
        return self.positions[self._split_of_position == split]

    def games_in(self, split: str = "all") -> pd.DataFrame:
        if split == "all":
            return self.games
        self._check_split(split)
        return self.games[self.games["split"] == split]

    def _check_split(self, split: str) -> None:
        known = sorted(set(self.games["split"]))
        if split not in known:
            raise ValueError(f"split {split!r} not in {self.directory} (has {known})")




def load_stats(directory: str | os.PathLike[str]) -> PhaseStats:
    """A statistics directory written by :func:`compute` as frames (checksums verified)."""
    positions, games, manifest = load(directory)
    return PhaseStats(Path(directory), positions, games, manifest)


def table_column(table: str) -> str:
    """The frames' column suffix of a mixedness table (an unknown table is an error)."""
    try:
        return TABLE_COLUMNS[table]
    except KeyError:
        raise ValueError(f"unknown mixedness table {table!r}; known: "
                         f"{', '.join(TABLE_COLUMNS)}") from None




def phase_starts(games: pd.DataFrame, table: str) -> tuple[pd.Series, pd.Series]:
    """The full-move numbers at which the games' middlegames and endgames start (division)."""
    col = table_column(table)
    middle = games.loc[games[f"middle_{col}"] >= 0, f"middle_move_{col}"]
    end = games.loc[games[f"end_{col}"] >= 0, f"end_move_{col}"]
    return middle, end




def games_reaching(stats: PhaseStats, split: str, table: str) -> pd.DataFrame:
    """Per game: whether it contributes a position to each (position-only) phase."""
    col = table_column(table)
    positions = stats.positions_in(split)
    reach = pd.crosstab(positions["game"], positions[f"phase_{col}"]).reindex(
        columns=range(3), fill_value=0) > 0
    games = stats.games_in(split).set_index("game")
    return reach.reindex(games.index, fill_value=False)




def summary_metrics(stats: PhaseStats, *, table: str = "lichess",
                    split: str = "all") -> dict[str, float]:
    """The paper's KingBase statistics (``paper.KINGBASE_STATS`` keys) for this data."""
    col = table_column(table)
    games = stats.games_in(split)
    positions = stats.positions_in(split)
    middle, end = phase_starts(games, table)
    reach = games_reaching(stats, split, table)
    phase_share = positions[f"phase_{col}"].value_counts(normalize=True).reindex(
        range(3), fill_value=0) * 100
    results = games.set_index("game")["result"]

    def draws(mask: pd.Series) -> float:
        subset = results[mask]
        return float((subset == "1/2-1/2").mean() * 100) if len(subset) else float("nan")

    return {
        "middlegame_start_mean": float(middle.mean()),
        "middlegame_start_std": float(middle.std()),
        "endgame_start_mean": float(end.mean()),
        "endgame_start_std": float(end.std()),
        "games_reaching_middlegame_pct": float(reach[1].mean() * 100),
        "games_reaching_endgame_pct": float(reach[2].mean() * 100),
        "positions_opening_pct": float(phase_share[0]),
        "positions_middlegame_pct": float(phase_share[1]),
        "positions_endgame_pct": float(phase_share[2]),
        "white_wins_pct": float((results == "1-0").mean() * 100),
        "draws_pct": float((results == "1/2-1/2").mean() * 100),
        "black_wins_pct": float((results == "0-1").mean() * 100),
        "draws_reaching_middlegame_pct": draws(reach[1]),
        "draws_reaching_endgame_pct": draws(reach[2]),
    }


def paper_comparison(stats_list: list[PhaseStats], *, table: str = "lichess",
                     split: str = "all") -> pd.DataFrame:
    """The paper's KingBase numbers beside the same statistics of each source."""
    columns: dict[str, pd.Series] = {"paper (KingBase)": pd.Series(paper.KINGBASE_STATS)}
    for stats in stats_list:
        columns[stats.name] = pd.Series(summary_metrics(stats, table=table, split=split))
    frame = pd.DataFrame(columns)
    frame.index.name = "statistic"
    return frame.round(2)


def label_agreement(stats: PhaseStats, split: str = "all") -> pd.DataFrame:
    """Per mixedness table: share of positions whose position-only phase differs from
    the division phase, and each labelling's phase shares."""
    positions = stats.positions_in(split)
    rows = {}
    for table, col in TABLE_COLUMNS.items():
        phase, division = positions[f"phase_{col}"], positions[f"division_{col}"]
        row = {"differ_pct": float((phase != division).mean() * 100)}
        for p, label in enumerate(_PHASE_NAMES):
            row[f"{label}_pct_position_only"] = float((phase == p).mean() * 100)
            row[f"{label}_pct_division"] = float((division == p).mean() * 100)
        rows[table] = row
    frame = pd.DataFrame(rows).T
    frame.index.name = "table"
    return frame.round(2)


def label_agreement_table(stats_list: list[PhaseStats], split: str = "all") -> pd.DataFrame:
    """:func:`label_agreement` of several sources, one row per (source, table)."""
    frames = []
    for stats in stats_list:
        frame = label_agreement(stats, split)
        frame.index = [f"{stats.name} / {table}" for table in frame.index]
        frames.append(frame)
    table = pd.concat(frames)
    table.index.name = "source / table"
    return table
