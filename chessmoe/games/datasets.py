"""Phase datasets: build once from PGN, read as index views (paper sec. 2.2, App. E.1).

Every position with a played move is stored once as a sample (:data:`SAMPLE_DTYPE`) in
memory-mapped ``.npy`` shards, with its phase under every registered definition: the paper's
four datasets under any definition, in any split, are index sets (:class:`DatasetStore`).
:func:`build` writes the shards resumably; :class:`PhaseDataset` is the torch view.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import chess
import numpy as np
import numpy.typing as npt
import pandas as pd

import chessmoe
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.jobs import Unit, run_units
from chessmoe._io.provenance import provenance
from chessmoe.encoding import (
    NO_SQUARE,
    RECORD_DTYPE,
    castling_bits,
    legal_ep_square,
    policy_indices,
    records_to_planes,
    records_to_planes_torch,
    records_to_torch,
)
from chessmoe.games.pgn import (
    PgnFilters,
    SkipCounter,
    SourcePiece,
    no_games_error,
    plan_pieces,
)
from chessmoe.games.sources import ResolvedSource
from chessmoe.games.splits import SPLITS, SplitRule, month_of, split_to_dict
from chessmoe.phases import PHASE_DEFINITIONS, BoardBatch, phase_definition

if TYPE_CHECKING:
    import torch

__all__ = [
    "DATASET_NAMES",
    "PHASE_COLUMNS",
    "SAMPLE_DTYPE",
    "Batch",
    "DatasetError",
    "DatasetStore",
    "PhaseDataset",
    "build",
    "build_source",
    "dataset_evidence",
    "dataset_tables",
]

PHASE_COLUMNS: Final = {name: "phase_" + name.replace("-", "_") for name in PHASE_DEFINITIONS}
SAMPLE_DTYPE: Final = np.dtype(
    [(name, RECORD_DTYPE[name]) for name in RECORD_DTYPE.names or ()]
    + [("policy", "<u2"), ("value", "i1"), ("plies_to_end", "<u2"), ("game", "<u4"),
       ("ply", "<u2")]
    + [(column, "i1") for column in PHASE_COLUMNS.values()])
"""One training sample (115 bytes): the compact position record of :mod:`chessmoe.encoding`,
the policy target (the played move), the value target (the result from the side to move),
plies to the end (``len(moves) - 1 - ply``), the game (shard-local id) and ply, and the phase
id under *every* registered definition (``phase_lichess``, ..., ``phase_movecount5``).
Storing once costs one pass and 1x the disk; materialising the phase datasets would double
it per definition (``make bench`` measures both)."""

DATASET_NAMES: Final = ("no-phases",)  # plus one per phase of the definition
DEFAULT_SHARD_SIZE: Final = 1 << 20
_CHUNK: Final = 1 << 16
_WHITE_RESULT: Final = {"1-0": 1, "1/2-1/2": 0, "0-1": -1}


class DatasetError(RuntimeError):
    """A dataset directory is incomplete, damaged or asked for something it lacks."""


# --- extraction (one tuple per board, inside the PGN parse) ------------------------------


class _Extractor:
    """Per-board values for a sample; tracks repetitions within the current game."""

    def __init__(self) -> None:
        self.seen: dict[tuple[Any, ...], int] = {}
        self.clamped = 0  # positions whose full-move number exceeds the uint16 column

    def __call__(self, board: chess.Board) -> tuple[int, ...]:
        if not board.move_stack or board.halfmove_clock == 0:
            self.seen.clear()  # a new game, or an irreversible move: no earlier repeats
        ep = legal_ep_square(board)
        castling = castling_bits(board)
        black, white = board.occupied_co  # indexed by colour: [BLACK, WHITE]
        key = (white, black, board.pawns, board.knights, board.bishops, board.rooks,
               board.queens, board.kings, board.turn, castling, ep)
        repeats = self.seen.get(key, 0)
        self.seen[key] = repeats + 1
        if board.fullmove_number > 65535:
            self.clamped += 1
        return (white, black, board.pawns, board.knights, board.bishops, board.rooks,
                board.queens, board.kings, board.checkers_mask(), ep, castling,
                int(board.turn), min(repeats, 2), min(board.halfmove_clock, 65535),
                min(board.fullmove_number, 65535))


_EXTRACT_FIELDS: Final = ("white", "black", "pawns", "knights", "bishops", "rooks", "queens",
                          "kings", "checkers", "ep_square", "castling", "turn", "repetition",
                          "halfmove", "fullmove")
_EXTRACT_DTYPE: Final = np.dtype([(f, RECORD_DTYPE[f]) for f in _EXTRACT_FIELDS])


def _samples(boards: list[tuple[int, ...]], moves: list[tuple[int, int, int]],
             starts: list[int], games: list[dict[str, Any]]) -> npt.NDArray[Any]:
    """Samples of consecutive whole games: ``boards``/``moves`` are aligned (the board
    before each move), ``starts`` the offset of each game, ``games`` its facts."""
    n = len(boards)
    out = np.zeros(n, dtype=SAMPLE_DTYPE)
    extracted = np.array(boards, dtype=_EXTRACT_DTYPE)
    for name in _EXTRACT_FIELDS:
        out[name] = extracted[name]
    move_array = np.array(moves, dtype=np.int64).reshape(n, 3)
    start = np.array(starts, dtype=np.int64)
    lengths = np.diff(np.append(start, n))
    game_of = np.repeat(np.arange(len(starts)), lengths)
    ply = np.arange(n) - start[game_of]
    back = np.arange(n)[:, None] - 1 - np.arange(8)[None, :]
    valid = back >= start[game_of][:, None]
    clipped = np.clip(back, 0, None)
    last = np.where(valid[:, :, None], move_array[clipped][:, :, :2], NO_SQUARE)
    out["last_moves"] = last.astype(np.uint8)
    white = out["turn"].astype(bool)
    out["policy"] = policy_indices(move_array[:, 0], move_array[:, 1], move_array[:, 2],
                                   white).astype(np.uint16)
    result = np.array([_WHITE_RESULT[g["result"]] for g in games], dtype=np.int8)[game_of]
    out["value"] = np.where(white, result, -result)
    out["plies_to_end"] = (lengths[game_of] - 1 - ply).astype(np.uint16)
    out["game"] = np.array([g["game"] for g in games], dtype=np.uint32)[game_of]
    out["ply"] = ply.astype(np.uint16)
    batch = BoardBatch.from_columns(out)
    for name, column in PHASE_COLUMNS.items():
        out[column] = phase_definition(name).phases(batch)
    return out


@dataclass(frozen=True)
class _UnitSpec:
    piece: SourcePiece
    filters: PgnFilters
    max_games: int | None
    shard_size: int


def _build_unit(unit: Unit[_UnitSpec], work: Path) -> dict[str, Any]:
    """Turn one source piece into shards ``<id>-NNN.npy`` and a games table."""
    spec = unit.payload
    skips = SkipCounter()
    games: list[dict[str, Any]] = []
    shards: list[dict[str, Any]] = []
    pending: list[npt.NDArray[Any]] = []
    pending_rows = 0
    boards: list[tuple[int, ...]] = []
    moves: list[tuple[int, int, int]] = []
    starts: list[int] = []
    chunk_games: list[dict[str, Any]] = []

    def write_shard(block: npt.NDArray[Any]) -> None:
        path = work / f"{unit.id}-{len(shards):03d}.npy"
        with atomic_path(path, suffix=".npy") as tmp, open(tmp, "wb") as handle:
            np.save(handle, block, allow_pickle=False)
        shards.append({"file": path.name, "positions": int(block.shape[0]),
                       "games": int(np.unique(block["game"]).size),
                       "sha256": sha256_file(path)})

    def flush_chunk(final: bool) -> None:
        nonlocal boards, moves, starts, chunk_games, pending_rows
        if boards:
            pending.append(_samples(boards, moves, starts, chunk_games))
            pending_rows += len(boards)
            boards, moves, starts, chunk_games = [], [], [], []
        while pending_rows >= spec.shard_size or (final and pending_rows):
            block = np.concatenate(pending)
            cut = min(spec.shard_size, block.shape[0])
            # never split a game across shards: cut after the last complete game
            if cut < block.shape[0]:
                game_at_cut = block["game"][cut]
                while cut > 0 and block["game"][cut - 1] == game_at_cut:
                    cut -= 1
                if cut == 0:
                    cut = int(np.searchsorted(block["game"], game_at_cut, side="right"))
            write_shard(block[:cut])
            rest = block[cut:]
            pending[:] = [rest] if rest.shape[0] else []
            pending_rows = int(rest.shape[0])

    extractor = _Extractor()
    for record in spec.piece.games(filters=spec.filters, skips=skips, extract=extractor,
                                   max_games=spec.max_games):
        game_id = len(games)
        date = record.headers.get("Date") or record.headers.get("UTCDate") or ""
        facts = {"game": game_id, "source": record.source, "offset": record.offset,
                 "result": record.result, "plies": record.plies, "date": date}
        games.append(facts)
        starts.append(len(boards))
        boards.extend(record.boards[:-1])  # the final position has no move to learn
        moves.extend((m.from_square, m.to_square, m.promotion or 0) for m in record.moves)
        chunk_games.append(facts)
        if len(boards) >= _CHUNK:
            flush_chunk(final=False)
    flush_chunk(final=True)
    table = pd.DataFrame(games, columns=["game", "source", "offset", "result", "plies",
                                         "date"])
    with atomic_path(work / f"{unit.id}.games.parquet") as tmp:
        table.to_parquet(tmp, index=False)
    return {"games": len(games), "positions": int(sum(s["positions"] for s in shards)),
            "shards": shards, "skips": skips.to_dict(), "clamped_fullmove": extractor.clamped}


# --- building --------------------------------------------------------------------------


def _counts(store: DatasetStore) -> dict[str, Any]:
    """Per definition, split and dataset: positions and contributing games."""
    split = store.sample_split()
    game = store.column("game_global")
    n_games = len(store.games)
    counts: dict[str, Any] = {}
    for name, column in PHASE_COLUMNS.items():
        definition = phase_definition(name)
        phase = store.column(column)
        per_split: dict[str, Any] = {}
        for split_name in SPLITS:
            in_split = split == split_name
            rows = {"no-phases": {"positions": int(in_split.sum()),
                                  "games": int((np.bincount(game[in_split], minlength=n_games)
                                                > 0).sum())}}
            for pid, pname in enumerate(definition.phase_names):
                mask = in_split & (phase == pid)
                rows[pname] = {"positions": int(mask.sum()),
                               "games": int((np.bincount(game[mask], minlength=n_games)
                                             > 0).sum())}
            per_split[split_name] = rows
        counts[name] = per_split
    return counts


def build(source: ResolvedSource, out_dir: str | os.PathLike[str], *,
          definition: str = "lichess", split_rule: SplitRule | None = None,
          filters: PgnFilters | None = None, workers: int = 1, parts: int | None = None,
          shard_size: int = DEFAULT_SHARD_SIZE, max_games: int | None = None,
          progress: bool = True, force: bool = False) -> dict[str, Any]:
    """Build the sample store of ``source`` into ``out_dir``; return the manifest.

    ``definition`` is the default phase definition of the store (every registered one is
    stored); ``split_rule`` defaults to the source's (the month split for KingBase). A
    store already built from the same files with the same settings is reused (``force``
    rebuilds it).

    The source is cut into pieces (zip members, byte ranges); worker processes turn pieces
    into shards, written atomically; ``<out>/.parts`` records finished pieces so an
    interrupted build resumes where it stopped and yields byte-identical shards. Splits are
    assigned per game afterwards (:mod:`chessmoe.games.splits`). The manifest (written last)
    lists source files with checksums, filters, skip counts, split rule, every shard with its
    sha256, and per definition the positions and games of each phase dataset and split.
    """
    phase_definition(definition)  # fail early on an unknown name
    filters = filters or PgnFilters()
    rule = split_rule or source.split_rule
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    work = out / ".parts"
    file_records = source.file_records()
    pieces = plan_pieces(source.files, parts, workers=workers, whole=max_games is not None)
    units = [Unit(p.id, _UnitSpec(p, filters, max_games, shard_size)) for p in pieces]
    plan = {"files": file_records, "filters": asdict(filters), "max_games": max_games,
            "shard_size": shard_size, "units": [asdict(p) for p in pieces],
            "version": chessmoe.__version__, "dtype": SAMPLE_DTYPE.descr}
    wanted = _wanted(file_records, filters, rule, definition, max_games)
    if not force and (out / "manifest.json").exists():
        try:
            existing = DatasetStore(out)
        except DatasetError:
            existing = None
        if existing is not None and _content_of(existing.manifest) == wanted:
            return existing.manifest  # up to date: same files, filters, split and format
    summaries = run_units(units, _build_unit, work, plan, workers=workers, progress=progress,
                          desc=f"dataset {source.name}")

    # Move shards into place and merge the per-unit game tables (global game ids).
    skips = SkipCounter()
    shards: list[dict[str, Any]] = []
    tables = []
    offset = 0
    for unit in units:
        summary = summaries[unit.id]
        skips.merge(SkipCounter.from_dict(summary["skips"]))
        for shard in summary["shards"]:
            shutil.copyfile(work / shard["file"], out / shard["file"])  # keep parts intact
            shards.append({**shard, "game_offset": offset})
        table = pd.read_parquet(work / f"{unit.id}.games.parquet")
        table["game"] = table["game"] + offset
        tables.append(table)
        offset += int(summary["games"])
    if offset == 0:
        raise no_games_error(source.spec, skips)
    games = pd.concat(tables, ignore_index=True)
    months = [month_of(d) for d in games["date"]]
    games["month"] = [m or "" for m in months]
    games["split"] = rule.assign(len(games), months)
    with atomic_path(out / "games.parquet") as tmp:
        games.to_parquet(tmp, index=False)
    manifest: dict[str, Any] = {
        "kind": "chessmoe phase dataset store",
        "source": {"spec": source.spec, "name": source.name,
                   "description": source.description, "files": file_records},
        "filters": {**asdict(filters), "min_plies": filters.min_plies},
        "skips": skips.to_dict(),
        "definition": definition,
        "definitions": list(PHASE_COLUMNS),
        "split": {"rule": split_to_dict(rule), "description": rule.describe(),
                  "games": {k: int(v) for k, v in
                            sorted(games["split"].value_counts().items())}},
        "sample_dtype": [list(d) for d in SAMPLE_DTYPE.descr],
        "shards": shards,
        "games_table": {"file": "games.parquet", "sha256": sha256_file(out / "games.parquet")},
        "totals": {"games": len(games),
                   "positions": int(sum(s["positions"] for s in shards)),
                   "bytes": int(sum((out / s["file"]).stat().st_size for s in shards))},
        "max_games": max_games,
        "provenance": provenance(workers=workers, parts=parts, shard_size=shard_size),
    }
    clamped = sum(int(summaries[unit.id].get("clamped_fullmove", 0)) for unit in units)
    if clamped:  # FEN starts past move 65535: stored as 65535, counted here
        manifest["clamped"] = {"fullmove": clamped}
    # Counts are read back from the shards just written: what the manifest says is on disk.
    store = DatasetStore(out, manifest=manifest)
    manifest["datasets"] = _counts(store)
    atomic_write_json(out / "manifest.json", manifest)
    shutil.rmtree(work, ignore_errors=True)
    return manifest


def build_source(spec: str, *, data_dir: str | os.PathLike[str] | None = None,
                 out: str | os.PathLike[str] | None = None,
                 results_dir: str | os.PathLike[str] | None = None, name: str | None = None,
                 force: bool = False, progress: bool = True,
                 **options: Any) -> tuple[Path, dict[str, Any]]:
    """Resolve a source spec, build its store (default ``DATA_DIR/datasets/<name>``) and,
    with ``results_dir``, record the manifest as ``results_dir/datasets/<name>/manifest.json``
    (``name``: default the source's; :func:`chessmoe.games.sources.results_name` gives a
    profile's). ``options`` go to :func:`build`.

    A recorded manifest describing the same dataset (:func:`dataset_evidence`) is left as it
    is; one describing another is replaced only where it is not committed evidence, or with
    ``force`` (:func:`chessmoe._io.evidence.refuse_replacing`), and a build that could only
    end in that refusal (other source files, filters, split, definition or game limit) is
    refused before it starts."""
    from chessmoe.games.sources import default_data_dir, resolve

    source = resolve(spec, data_dir, progress=progress)
    stored = name or source.name
    base = Path(data_dir) if data_dir is not None else default_data_dir()
    target = Path(out) if out is not None else base / "datasets" / stored
    record = Path(results_dir) / "datasets" / stored / "manifest.json" \
        if results_dir is not None else None
    old = json.loads(record.read_text()) if record is not None and record.exists() else None
    if record is not None and old is not None and not force:
        rule = options.get("split_rule") or source.split_rule
        filters = options.get("filters") or PgnFilters()
        wanted = _wanted(source.file_records(), filters, rule,
                         options.get("definition", "lichess"), options.get("max_games"))
        before = {k: v for k, v in _content_of(old).items() if k != "version"}
        differ = sorted(k for k, v in wanted.items() if k != "version" and before.get(k) != v)
        if differ:
            _refuse_record(record, old, force, f"other {', '.join(differ)}")
    manifest = build(source, target, progress=progress, **options)
    if record is not None:
        if old is not None and dataset_evidence(old) == dataset_evidence(manifest):
            return target, manifest  # the recorded manifest describes this very dataset
        if old is not None:
            _refuse_record(record, old, force, "other samples, games or counts")
        atomic_write_json(record, manifest)
    return target, manifest


def _refuse_record(record: Path, old: dict[str, Any], force: bool, reason: str) -> None:
    from chessmoe._io.evidence import refuse_replacing

    refuse_replacing(record.parent, force=force, elsewhere="--results DIR",
                     what=f"the recorded manifest of dataset {old['source']['name']}",
                     reason=reason)


def dataset_evidence(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a dataset manifest says about the data, as far as two builds of one dataset must
    agree: everything but its provenance, its source's description (it can name a local path)
    and how the samples were cut into shards and pieces (that follows the build's workers and
    shard size: ``shards``, the byte total, and the build plan's fingerprint ``plan_sha256``
    that earlier versions recorded; the games table's sha256 and every count stay)."""
    out = {k: v for k, v in manifest.items()
           if k not in ("provenance", "shards", "plan_sha256")}
    out["source"] = {k: v for k, v in manifest["source"].items() if k != "description"}
    out["totals"] = {k: v for k, v in manifest["totals"].items() if k != "bytes"}
    return json.loads(json.dumps(out))  # type: ignore[no-any-return]


def _wanted(file_records: list[dict[str, Any]], filters: PgnFilters, rule: SplitRule,
            definition: str, max_games: int | None) -> dict[str, Any]:
    """What decides a store's samples, as :func:`_content_of` reads it back from a manifest."""
    return json.loads(json.dumps(  # type: ignore[no-any-return]
        {"files": file_records, "filters": {**asdict(filters), "min_plies": filters.min_plies},
         "split": split_to_dict(rule), "definition": definition, "max_games": max_games,
         "dtype": [list(d) for d in SAMPLE_DTYPE.descr], "version": chessmoe.__version__},
        default=str))


def _content_of(manifest: dict[str, Any]) -> dict[str, Any]:
    """What decides a store's samples, read back from its manifest (the layout of shards
    and the number of workers do not)."""
    return {"files": manifest["source"]["files"], "filters": manifest["filters"],
            "split": manifest["split"]["rule"], "definition": manifest["definition"],
            "max_games": manifest.get("max_games"), "dtype": manifest["sample_dtype"],
            "version": manifest["provenance"]["software"]["chessmoe"]}


# --- loading -----------------------------------------------------------------------------


@dataclass
class Batch:
    """One training batch (tensors on the requested device)."""

    planes: torch.Tensor  # (B, 52, 8, 8) float32
    policy: torch.Tensor  # (B,) int64, index into 4864
    value: torch.Tensor  # (B,) float32 in {-1, 0, 1}, side to move
    wdl: torch.Tensor  # (B,) int64: 0 loss, 1 draw, 2 win
    plies_to_end: torch.Tensor  # (B,) float32, raw plies
    phase: torch.Tensor  # (B,) int64 under the chosen definition
    weight: torch.Tensor  # (B,) float32 sample weights (ones without a weighting)
    index: npt.NDArray[np.int64] = field(repr=False)  # global sample indices


class DatasetStore:
    """The shards of a built dataset, memory-mapped, with split- and phase-aware views: a
    missing or damaged shard is reported by name, :meth:`indices` selects a dataset, and
    :meth:`batches` yields seeded, shuffled :class:`Batch` es with planes expanded in
    vectorised numpy or torch (CPU or GPU)."""

    def __init__(self, directory: str | os.PathLike[str], *, verify: bool = False,
                 manifest: dict[str, Any] | None = None) -> None:
        self.directory = Path(directory)
        if manifest is None:
            path = self.directory / "manifest.json"
            if not path.exists():
                raise DatasetError(f"{path} is missing: the dataset was not built (or not "
                                   "to the end); run 'chessmoe data build' again to resume")
            manifest = json.loads(path.read_text())
        self.manifest: dict[str, Any] = manifest
        self.shards: list[npt.NDArray[Any]] = []
        for shard in manifest["shards"]:
            path = self.directory / shard["file"]
            if not path.exists():
                raise DatasetError(f"shard {shard['file']} is missing from {self.directory}")
            if verify and sha256_file(path) != shard["sha256"]:
                raise DatasetError(f"shard {shard['file']} is corrupt (sha256 differs from "
                                   "the manifest); rebuild the dataset")
            try:
                array = np.load(path, mmap_mode="r", allow_pickle=False)
            except (ValueError, OSError) as error:
                raise DatasetError(f"shard {shard['file']} cannot be read: {error}") from error
            if array.dtype != SAMPLE_DTYPE or array.shape != (shard["positions"],):
                raise DatasetError(f"shard {shard['file']} has dtype/shape {array.dtype}/"
                                   f"{array.shape}, expected {shard['positions']} samples")
            self.shards.append(array)
        self.offsets = np.cumsum([0] + [s.shape[0] for s in self.shards])
        games_path = self.directory / manifest["games_table"]["file"]
        if not games_path.exists():
            raise DatasetError(f"{games_path} is missing")
        self.games = pd.read_parquet(games_path)
        self._columns: dict[str, npt.NDArray[Any]] = {}

    def __len__(self) -> int:
        return int(self.offsets[-1])

    @property
    def definition(self) -> str:
        return str(self.manifest["definition"])

    def verify(self) -> list[str]:
        """Names of shards whose sha256 differs from the manifest (or that are missing)."""
        bad = []
        for shard in self.manifest["shards"]:
            path = self.directory / shard["file"]
            if not path.exists() or sha256_file(path) != shard["sha256"]:
                bad.append(shard["file"])
        return bad

    def column(self, name: str) -> npt.NDArray[Any]:
        """A field over all samples (``game_global``: game id across the whole store)."""
        if name not in self._columns:
            if name == "game_global":
                parts = [s["game"].astype(np.int64) + meta["game_offset"]
                         for s, meta in zip(self.shards, self.manifest["shards"], strict=True)]
            else:
                parts = [np.asarray(s[name]) for s in self.shards]
            self._columns[name] = np.concatenate(parts) if parts else np.zeros(0)
        return self._columns[name]

    def sample_split(self) -> npt.NDArray[np.str_]:
        """The split label of every sample (from its game)."""
        labels: npt.NDArray[np.str_] = self.games["split"].to_numpy().astype("<U6")
        split: npt.NDArray[np.str_] = labels[self.column("game_global")]
        return split

    def indices(self, split: str = "train", dataset: str | int = "no-phases",
                definition: str | None = None) -> npt.NDArray[np.int64]:
        """Global sample indices of one dataset: ``no-phases`` or a phase name (or id)
        of ``definition`` (default: the store's), in one split (or ``"all"``)."""
        name = definition or self.definition
        if name not in PHASE_COLUMNS:
            raise DatasetError(f"unknown definition {name!r}; stored: {', '.join(PHASE_COLUMNS)}")
        mask = np.ones(len(self), dtype=bool)
        if split != "all":
            if split not in SPLITS:
                raise DatasetError(f"unknown split {split!r}; known: all, {', '.join(SPLITS)}")
            mask &= self.sample_split() == split
        if dataset != "no-phases":
            names = phase_definition(name).phase_names
            if isinstance(dataset, int):
                if not 0 <= dataset < len(names):
                    raise DatasetError(f"phase id {dataset} outside 0..{len(names) - 1}")
                phase_id = dataset
            elif dataset in names:
                phase_id = names.index(dataset)
            else:
                raise DatasetError(f"unknown dataset {dataset!r} for {name}; known: "
                                   f"no-phases, {', '.join(names)}")
            mask &= self.column(PHASE_COLUMNS[name]) == phase_id
        return np.flatnonzero(mask).astype(np.int64)

    def gather(self, indices: npt.ArrayLike) -> npt.NDArray[Any]:
        """Samples at global ``indices``, in that order (read shard by shard)."""
        index = np.asarray(indices, dtype=np.int64)
        out = np.empty(index.shape[0], dtype=SAMPLE_DTYPE)
        shard_of = np.searchsorted(self.offsets, index, side="right") - 1
        for shard in np.unique(shard_of):
            rows = np.flatnonzero(shard_of == shard)
            local = index[rows] - self.offsets[shard]
            order = np.argsort(local, kind="stable")
            out[rows[order]] = self.shards[shard][local[order]]
        return out

    def batches(self, indices: npt.ArrayLike, batch_size: int, *, shuffle: bool = True,
                seed: int = 0, epoch: int = 0, definition: str | None = None,
                weights: Sequence[float] | Callable[[npt.NDArray[np.int8]],
                                                    npt.NDArray[np.float32]] | None = None,
                device: str | torch.device | None = None, normalize: bool = True,
                drop_last: bool = False, expand_on_device: bool = False,
                start_batch: int = 0) -> Iterator[Batch]:
        """Batches over ``indices``; the order is a permutation seeded by (seed, epoch).

        ``start_batch`` skips that many batches of the epoch without reading them (to
        resume a run where it stopped).

        ``weights`` gives each sample a loss weight from its phase id (a sequence indexed
        by phase, or a function of the phase array). With ``expand_on_device`` the
        planes are expanded by torch on ``device`` (e.g. the GPU) instead of numpy.
        """
        import torch

        index = np.asarray(indices, dtype=np.int64)
        if shuffle:
            index = index[np.random.default_rng([seed, epoch]).permutation(index.shape[0])]
        column = PHASE_COLUMNS[definition or self.definition]
        for start in range(start_batch * batch_size, index.shape[0], batch_size):
            chosen = index[start:start + batch_size]
            if drop_last and chosen.shape[0] < batch_size:
                return
            samples = self.gather(chosen)
            phase = samples[column]
            if weights is None:
                weight = np.ones(chosen.shape[0], dtype=np.float32)
            elif callable(weights):
                weight = np.asarray(weights(phase), dtype=np.float32)
            else:
                weight = np.asarray(weights, dtype=np.float32)[phase]
            if expand_on_device:
                planes = records_to_planes_torch(records_to_torch(samples, device),
                                                 normalize=normalize)
            else:
                planes = torch.from_numpy(records_to_planes(samples, normalize)).to(device)
            value = samples["value"].astype(np.int64)
            yield Batch(
                planes=planes,
                policy=torch.from_numpy(samples["policy"].astype(np.int64)).to(device),
                value=torch.from_numpy(value.astype(np.float32)).to(device),
                wdl=torch.from_numpy(value + 1).to(device),
                plies_to_end=torch.from_numpy(samples["plies_to_end"].astype(np.float32)
                                              ).to(device),
                phase=torch.from_numpy(phase.astype(np.int64)).to(device),
                weight=torch.from_numpy(weight).to(device),
                index=chosen,
            )


def _torch_dataset_base() -> type:
    import torch.utils.data

    return torch.utils.data.Dataset


class PhaseDataset(_torch_dataset_base()):  # type: ignore[misc]
    """``torch.utils.data.Dataset`` of one phase dataset; items are dicts of tensors.

    Supports ``__getitems__`` so a ``DataLoader`` fetches and expands whole batches.
    """

    def __init__(self, store: DatasetStore, split: str = "train",
                 dataset: str = "no-phases", definition: str | None = None,
                 normalize: bool = True) -> None:
        self.store = store
        self.definition = definition or store.definition
        self.index = store.indices(split, dataset, self.definition)
        self.normalize = normalize

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def __getitem__(self, i: int) -> dict[str, Any]:
        return self.__getitems__([i])[0]

    def __getitems__(self, items: Sequence[int]) -> list[dict[str, Any]]:
        import torch

        samples = self.store.gather(self.index[np.asarray(items, dtype=np.int64)])
        planes = torch.from_numpy(records_to_planes(samples, self.normalize))
        column = PHASE_COLUMNS[self.definition]
        return [{"planes": planes[k], "policy": int(s["policy"]), "value": float(s["value"]),
                 "wdl": int(s["value"]) + 1, "plies_to_end": float(s["plies_to_end"]),
                 "phase": int(s[column])} for k, s in enumerate(samples)]


def dataset_tables(manifest: dict[str, Any], definition: str | None = None
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Paper Tables 3 (positions) and 4 (games) of a dataset manifest: rows Train/Val/
    Test, columns No-Phases and the definition's phases."""
    name = definition or manifest["definition"]
    try:
        counts = manifest["datasets"][name]
    except KeyError:
        raise DatasetError(f"the manifest has no counts for definition {name!r}") from None
    phase_names = list(phase_definition(name).phase_names)
    frames = []
    for key in ("positions", "games"):
        rows = {split.capitalize() if split != "val" else "Val":
                [counts[split][d][key] for d in ["no-phases", *phase_names]]
                for split in SPLITS}
        frame = pd.DataFrame.from_dict(rows, orient="index",
                                       columns=["No-Phases", *[p.capitalize() if " " not in p
                                                               else p for p in phase_names]])
        frame.index.name = "Dataset/Phase"
        frames.append(frame)
    return frames[0], frames[1]
