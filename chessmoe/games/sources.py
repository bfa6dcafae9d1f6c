"""Game sources by name: the embedded sample, KingBase Lite 2019, Lichess months, self-play
runs, paths and their concatenations, resolved to files (:func:`resolve`) in the data
directory (``$CHESSMOE_DATA`` or ``./data``) and fetched when missing.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path, sha256_file
from chessmoe.games.datadir import default_data_dir
from chessmoe.games.fetch import FetchError  # the one error of a failed download
from chessmoe.games.splits import MonthSplit, SeededSplit, SplitRule

__all__ = [
    "COMMITTED_RUNS",
    "LICHESS_EXCERPT",
    "SAMPLE_FILE",
    "FetchError",
    "ResolvedSource",
    "SourceNotFound",
    "committed_runs",
    "default_data_dir",
    "export_sample",
    "fetch",
    "lichess_excerpt",
    "resolve",
    "results_name",
    "sample_manifest",
    "sample_path",
    "source_name",
]

SAMPLE_FILE = "selfplay-sf15.pgn.gz"
_PGN_SUFFIXES = (".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.zst", ".zip")
_LICHESS = re.compile(r"^lichess-(\d{4}-\d{2})(?::(\d+))?$")
_SELFPLAY = "selfplay:"
#: Where the kit commits the self-play runs it grows (``results/selfplay`` of the checkout):
#: a run longer than one machine's session is committed shard by shard and resumed from there.
COMMITTED_RUNS = Path("results") / "selfplay"


def committed_runs() -> Path:
    """:data:`COMMITTED_RUNS` of the checkout this package runs from (whatever the working
    directory: notebooks run in ``notebooks/``), else of the working directory."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout / COMMITTED_RUNS if (checkout / "results").is_dir() else COMMITTED_RUNS


class SourceNotFound(KitError, FileNotFoundError):
    """A source spec names no file, directory or known database; the message says what to
    run or pass instead."""


#: The first 5,000 games of Lichess 2013-01 (``chessmoe data fetch lichess-2013-01 --first
#: 5000`` writes it into the data directory): the related engines' training source.
LICHESS_EXCERPT = "lichess_db_standard_rated_2013-01_first5000.pgn"


def lichess_excerpt(data_dir: Path | None = None, *, or_sample: bool = False) -> Path:
    """The Lichess excerpt in ``data_dir`` (the file itself or the folder holding it), else in
    :func:`default_data_dir`; with ``or_sample`` the embedded sample when neither has it and no
    ``data_dir`` was named. Otherwise a :class:`KitError` saying where it looked and how to
    get the file."""
    named = [data_dir, data_dir / LICHESS_EXCERPT] if data_dir is not None else []
    candidates = [*named, default_data_dir() / LICHESS_EXCERPT]
    for path in candidates:
        if path.is_file():
            return path
    if or_sample and data_dir is None:
        return sample_path()
    raise KitError(f"{LICHESS_EXCERPT} not found (looked in "
                   f"{', '.join(str(p) for p in candidates[1 if named else 0:])}): run "
                   "'chessmoe data fetch lichess-2013-01 --first 5000' or pass the folder "
                   "holding it")


def sample_path() -> Path:
    """Path of the embedded self-play sample (``.pgn.gz``)."""
    path = Path(str(resources.files("chessmoe") / "data" / "sample" / SAMPLE_FILE))
    if not path.exists():
        raise FileNotFoundError(f"the embedded sample {path} is missing from this install")
    return path


def sample_manifest() -> dict[str, Any]:
    """The manifest shipped beside the sample (recipe, seed, counts, engine version)."""
    manifest = sample_path().with_name(SAMPLE_FILE + ".manifest.json")
    data: dict[str, Any] = json.loads(manifest.read_text())
    return data


def export_sample(out: str | os.PathLike[str]) -> Path:
    """Copy the sample to ``out``: gzip as is for ``.gz``, else decompressed."""
    target = Path(out)
    with atomic_path(target) as tmp:
        if target.name.endswith(".gz"):
            shutil.copyfile(sample_path(), tmp)
        else:
            tmp.write_bytes(gzip.decompress(sample_path().read_bytes()))
    return target


@dataclass(frozen=True)
class ResolvedSource:
    """A source spec resolved to files, with the name its results are stored under."""

    spec: str
    name: str
    files: tuple[Path, ...]
    description: str
    split_rule: SplitRule = field(default_factory=SeededSplit)

    def file_records(self, checksums: bool = True) -> list[dict[str, Any]]:
        """Name, size and (optionally) sha256 of each file, for manifests."""
        return [{"file": f.name, "bytes": f.stat().st_size,
                 **({"sha256": sha256_file(f)} if checksums else {})} for f in self.files]


def _pgn_files(directory: Path) -> tuple[Path, ...]:
    files = sorted(p for p in directory.rglob("*")
                   if p.is_file() and p.name.lower().endswith(_PGN_SUFFIXES))
    if not files:
        raise SourceNotFound(f"{directory}: no PGN files (.pgn, .pgn.gz, .pgn.bz2, .pgn.zst, "
                             ".zip) under it; check the path")
    return tuple(files)


def _strip_suffix(name: str) -> str:
    for suffix in sorted(_PGN_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _parts(spec: str) -> list[str] | None:
    """The sources an ``A+B`` spec joins (None: not a joined spec)."""
    if "+" not in spec or Path(spec).exists():
        return None
    parts = spec.split("+")
    if any(not part for part in parts):
        raise SourceNotFound(f"source {spec!r}: an empty part between '+' signs")
    return parts


def source_name(spec: str) -> str:
    """The results name of a source spec, without looking for or fetching its files."""
    parts = _parts(spec)
    if parts is not None:
        return "+".join(source_name(part) for part in parts)
    if spec.startswith(_SELFPLAY):
        return "selfplay-" + Path(spec[len(_SELFPLAY):]).name
    if spec == "sample":
        return "selfplay-sample"
    if spec == "kingbase":
        return "kingbase-lite-2019"
    match = _LICHESS.match(spec)
    if match:
        month, first = match.group(1), match.group(2)
        return f"lichess-{month}" + (f"-first{int(first)}" if first else "")
    path = Path(spec)
    return path.name if path.is_dir() else _strip_suffix(path.name)


def results_name(spec: str, tag: str = "") -> str:
    """The name a source's statistics and datasets are stored under
    (``results/stats/<it>``, ``results/datasets/<it>``, ``DATA_DIR/datasets/<it>``): the
    source's own name, and ``-<tag>`` after it for a profile that cuts its sources (the smoke
    profile's ``selfplay-sample-smoke``), so that a cut never lands on the whole source's
    committed results. The one home of these names: the pipeline writes and the figures read
    through it."""
    name = source_name(spec)
    return f"{name}-{tag}" if tag else name


def resolve(spec: str, data_dir: str | os.PathLike[str] | None = None, *,
            fetch_missing: bool = True, progress: bool = True) -> ResolvedSource:
    """Resolve a source spec to files, fetching named sources when missing. A spec is one of

    * ``sample`` -- the embedded Stockfish self-play sample shipped in the package;
    * ``kingbase`` -- KingBase Lite 2019 (archive.org), fetched into the data directory;
    * ``lichess-YYYY-MM`` -- a Lichess standard rated month (``.pgn.zst``);
    * ``lichess-YYYY-MM:N`` -- the first N games of that month (a plain ``.pgn``);
    * ``selfplay:NAME`` -- the self-play run ``DATA_DIR/selfplay/NAME`` or the one the kit
      commits as ``results/selfplay/NAME`` of its checkout (both: refused, name the path; or
      the run directory ``NAME``) grown by ``chessmoe data selfplay-run``: its shards in game
      order, each checked against the run's manifest (sha256) before it is read;
    * a path to a PGN file (``.pgn``, ``.gz``, ``.bz2``, ``.zst``, ``.zip``) or a directory
      of them (a self-play run directory is read as ``selfplay:`` reads it);
    * ``A+B`` -- the games of source ``A``, then those of ``B`` (e.g.
      ``selfplay:sf15-n1000+lichess-2013-01:5000``), split by one seeded rule."""
    data = Path(data_dir) if data_dir is not None else default_data_dir()
    parts = _parts(spec)
    if parts is not None:
        return _joined(spec, [resolve(part, data, fetch_missing=fetch_missing,
                                      progress=progress) for part in parts])
    if spec.startswith(_SELFPLAY):
        named = Path(spec[len(_SELFPLAY):])
        own, committed = data / "selfplay" / named, committed_runs() / named
        if named.is_dir():
            run = named
        elif own.is_dir() and committed.is_dir() and own.resolve() != committed.resolve():
            raise SourceNotFound(f"self-play run {named} is both in {own.parent} and in "
                                 f"{committed.parent}; name the one to read by its path "
                                 "(or remove the other)")
        else:
            run = own if own.is_dir() else committed
        if not run.is_dir():
            raise SourceNotFound(f"self-play run {named} not found in {own.parent} or "
                                 f"{COMMITTED_RUNS}; grow it with 'chessmoe data selfplay-run "
                                 f"--out {COMMITTED_RUNS / named}'")
        return _selfplay_run(spec, run, "selfplay-" + named.name)
    if spec == "sample":
        return ResolvedSource(spec, "selfplay-sample", (sample_path(),),
                              "embedded Stockfish 15.1 self-play sample (chessmoe recipe)")
    if spec == "kingbase":
        pgn_dir = data / "kingbase" / "pgn"
        if not (pgn_dir.exists() and any(pgn_dir.rglob("*.pgn"))):
            if not fetch_missing:
                raise SourceNotFound(f"KingBase not found under {pgn_dir}; run "
                                        "'chessmoe data fetch kingbase'")
            fetch("kingbase", data_dir=data, progress=progress)
        return ResolvedSource(spec, "kingbase-lite-2019", _pgn_files(pgn_dir),
                              "KingBase Lite 2019 (archive.org item KingBaseLite2019)",
                              split_rule=MonthSplit())
    match = _LICHESS.match(spec)
    if match:
        month, first = match.group(1), match.group(2)
        if first is None:
            path = data / f"lichess_db_standard_rated_{month}.pgn.zst"
            name, what = f"lichess-{month}", f"Lichess standard rated games of {month}"
        else:
            path = data / f"lichess_db_standard_rated_{month}_first{int(first)}.pgn"
            name = f"lichess-{month}-first{int(first)}"
            what = f"first {int(first)} Lichess standard rated games of {month}"
        if fetch_missing:  # reuses a present file, after checking a known checksum
            fetch(f"lichess-{month}", data_dir=data, first=int(first) if first else None,
                  progress=progress)
        elif not path.exists():
            raise SourceNotFound(f"{path} not found; run 'chessmoe data fetch "
                                    f"lichess-{month}" + (f" --first {first}'" if first
                                                          else "'"))
        return ResolvedSource(spec, name, (path,), what + " (database.lichess.org, CC0)")
    path = Path(spec)
    if path.is_dir():
        from chessmoe.games.selfplay_run import is_run

        if is_run(path):
            return _selfplay_run(spec, path, path.name)
        return ResolvedSource(spec, path.name, _pgn_files(path), f"PGN files under {path}")
    if path.is_file():
        return ResolvedSource(spec, _strip_suffix(path.name), (path,), f"PGN file {path}")
    raise SourceNotFound(
        f"unknown source {spec!r}: not 'sample', 'kingbase', 'lichess-YYYY-MM[:N]' or an "
        "existing PGN path")


def _selfplay_run(spec: str, run: Path, name: str) -> ResolvedSource:
    """A self-play run's shards in game order, each verified against its manifest."""
    from chessmoe.games.selfplay_run import read_manifest, run_shards

    files = run_shards(run)  # a RunError (one line) for a missing or changed shard
    manifest = read_manifest(run)
    settings = manifest["settings"]
    totals = manifest["totals"]
    return ResolvedSource(spec, name, files,
                          f"{totals['games']} {manifest['engine']['name']} self-play games at "
                          f"{settings['nodes']} nodes (+-{settings['spread']:.0%}) from "
                          f"{manifest['openings']['file']} ({run})")


def _joined(spec: str, sources: list[ResolvedSource]) -> ResolvedSource:
    """Several sources read one after another, under one seeded split."""
    if any(not isinstance(s.split_rule, SeededSplit) for s in sources):
        raise SourceNotFound(f"source {spec!r}: only sources split by a seeded rule can be "
                             "joined (KingBase is split by month)")
    return ResolvedSource(spec, "+".join(s.name for s in sources),
                          tuple(f for s in sources for f in s.files),
                          " + ".join(s.description for s in sources))


def fetch(name: str, data_dir: str | os.PathLike[str] | None = None, *,
          first: int | None = None, progress: bool = True) -> list[Path]:
    """Download a named public database into the data directory; return its PGN files."""
    from chessmoe.games import fetch as _fetch

    data = Path(data_dir) if data_dir is not None else default_data_dir()
    data.mkdir(parents=True, exist_ok=True)
    if name == "kingbase":
        if first is not None:
            raise FetchError("--first applies to Lichess months only")
        return _fetch.fetch_kingbase(data, progress=progress)
    match = _LICHESS.match(name)
    if match and match.group(2) is None:
        return [_fetch.fetch_lichess_month(match.group(1), data, first=first,
                                           progress=progress)]
    raise FetchError(f"unknown database {name!r}; known: kingbase, lichess-YYYY-MM")
