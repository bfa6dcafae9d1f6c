"""Self-play runs at scale: Stockfish games from the opening suite, grown shard by shard.

``chessmoe data selfplay-run --out DIR`` grows a *run directory* (:func:`grow`):
``manifest.json`` (settings, engine, opening suite, every shard with its sha256, the
duplicate games) and ``shard-00000.pgn.gz``, ... Game ``i`` is a function of the settings
alone (:func:`game_plan`, :func:`play_planned`), so the games do not depend on workers,
interruptions or resumptions. Commit the manifest with the shards it lists.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import multiprocessing as mp
import os
import random
import re
import signal
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Final

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from chessmoe._io.errors import KitError
from chessmoe._io.external import find_stockfish
from chessmoe._io.fsutil import (
    BusyError,
    atomic_write_bytes,
    atomic_write_json,
    hold_lock,
    sha256_file,
)
from chessmoe._io.provenance import provenance, utc_now
from chessmoe.games.epd import read_epd, resolve_suite
from chessmoe.rules import DrawRules, rules_outcome

__all__ = [
    "RUN_KIND",
    "GamePlan",
    "GrowResult",
    "PlayedGame",
    "RunError",
    "RunSettings",
    "find_duplicates",
    "game_plan",
    "grow",
    "is_run",
    "play_planned",
    "read_manifest",
    "run_settings",
    "run_shards",
    "shard_name",
]

RUN_KIND: Final = "chessmoe self-play run"
MANIFEST: Final = "manifest.json"
FORMAT: Final = 2  # 2: gzip shards (.pgn.gz); 1: plain .pgn shards
DRAW_RULES: Final[DrawRules] = "cutechess"
CRASHES_IN_A_ROW: Final = 3  # an engine that crashes this often in a row stops the run


class RunError(KitError):
    """A run directory cannot be grown or read as asked; the message says why and what to do."""


@dataclass(frozen=True)
class RunSettings:
    """What decides the games of a run (all of it is checked when a run is resumed)."""

    nodes: int = 1000
    spread: float = 0.2
    seed: int = 20261125
    max_plies: int = 600
    shard_games: int = 1000
    hash_mb: int = 16
    openings: str = "embedded"

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise RunError(f"nodes={self.nodes}: the node limit must be at least 1")
        if not 0 <= self.spread < 1:
            raise RunError(f"spread={self.spread}: expected a fraction in [0, 1)")
        if self.max_plies < 1 or self.shard_games < 1 or self.hash_mb < 1:
            raise RunError("max_plies, shard_games and hash_mb must be positive")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class GamePlan:
    """Everything that decides game ``index`` of a run (a pure function of the settings)."""

    index: int
    opening: int  # index into the suite
    fen: str
    white_nodes: int
    black_nodes: int


@dataclass(frozen=True)
class PlayedGame:
    """One finished game (``pgn`` set) or one skipped game (``error`` set)."""

    index: int
    opening: int
    pgn: str = ""
    plies: int = 0
    result: str = "*"
    termination: str = ""
    error: str = ""


@dataclass(frozen=True)
class GrowResult:
    """What one ``grow`` call did, and the run's manifest afterwards."""

    directory: Path
    manifest: dict[str, Any]
    played: int  # games written by this call
    skipped: tuple[dict[str, Any], ...]  # games skipped by this call (engine crashes)
    discarded: tuple[str, ...]  # leftovers of an interrupted run that were removed
    seconds: float

    @property
    def games_per_second(self) -> float:
        done = self.played + len(self.skipped)
        return done / self.seconds if self.seconds > 0 else 0.0


# --- the games -----------------------------------------------------------------------------


def _side_nodes(rng: random.Random, settings: RunSettings) -> int:
    return max(1, round(settings.nodes * (1 + settings.spread * rng.uniform(-1, 1))))


def game_plan(settings: RunSettings, fens: Sequence[str], index: int) -> GamePlan:
    """Opening and node limits of game ``index``: pair ``index // 2`` plays opening
    ``pair mod len(fens)`` (suite file order), at node limits drawn uniformly within
    ``nodes * (1 +- spread)`` by a generator seeded by (seed, pair), its second game with the
    limits' colours swapped. (Without the spread the suite's 2,000 openings would give only
    2,000 distinct games.)"""
    pair, second = divmod(index, 2)
    # Seeding with a string is deterministic across runs and platforms (sha512 of the text).
    rng = random.Random(f"chessmoe-selfplay-run:{settings.seed}:{pair}")
    first, other = _side_nodes(rng, settings), _side_nodes(rng, settings)
    white, black = (other, first) if second else (first, other)
    opening = pair % len(fens)
    return GamePlan(index=index, opening=opening, fen=fens[opening], white_nodes=white,
                    black_nodes=black)


def play_planned(engine: chess.engine.SimpleEngine, plan: GamePlan, settings: RunSettings,
                 engine_name: str, suite_name: str) -> PlayedGame:
    """Play one planned game to its end; engine failures propagate (the caller skips).

    Stockfish with one thread, a fixed hash and ``ucinewgame`` before every game is
    deterministic at a node limit. Games end under the cutechess reading of the rules
    (:func:`chessmoe.rules.rules_outcome`), with no score adjudication (endgames are played
    out); a game reaching ``max_plies`` plies is drawn there (``max_plies``, the cap
    :class:`chessmoe.play.match.Adjudication` also uses). The PGN headers name the engine,
    both node limits, the opening (suite and index), the draw rules, result and termination."""
    board = chess.Board(plan.fen)
    while True:
        ended = rules_outcome(board, DRAW_RULES)
        if ended is not None:
            result, termination = ended
            break
        if len(board.move_stack) >= settings.max_plies:
            result, termination = "1/2-1/2", "max_plies"
            break
        nodes = plan.white_nodes if board.turn == chess.WHITE else plan.black_nodes
        played = engine.play(board, chess.engine.Limit(nodes=nodes), game=plan.index)
        if played.move is None or played.move not in board.legal_moves:
            raise chess.engine.EngineError(f"no legal move from the engine in {board.fen()}")
        board.push(played.move)

    game = chess.pgn.Game.from_board(board)  # sets FEN and SetUp from the opening
    headers = game.headers
    headers["Event"] = "chessmoe self-play"
    headers["Site"] = "chessmoe"
    headers["Date"] = "????.??.??"  # shard bytes depend on the settings alone
    headers["Round"] = str(plan.index + 1)
    headers["White"] = f"{engine_name} nodes {plan.white_nodes}"
    headers["Black"] = f"{engine_name} nodes {plan.black_nodes}"
    headers["Result"] = result
    headers["Engine"] = engine_name
    headers["WhiteNodes"] = str(plan.white_nodes)
    headers["BlackNodes"] = str(plan.black_nodes)
    headers["OpeningSuite"] = suite_name
    headers["OpeningIndex"] = str(plan.opening)
    headers["GameIndex"] = str(plan.index)
    headers["DrawRules"] = DRAW_RULES
    headers["Termination"] = "adjudication" if termination == "max_plies" else "normal"
    headers["TerminationDetail"] = termination
    headers["PlyCount"] = str(len(board.move_stack))
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return PlayedGame(index=plan.index, opening=plan.opening, pgn=game.accept(exporter),
                      plies=len(board.move_stack), result=result, termination=termination)


# --- engines -------------------------------------------------------------------------------


def _open_engine(path: str, hash_mb: int, nodes: int = 0) -> chess.engine.SimpleEngine:
    """One Stockfish, one thread, in its own process group (a Ctrl-C reaches only the
    kit, which stops it in order). A command unanswered for 10 s (plus 1 s per 20,000 nodes
    of the limit) counts as a hung engine."""
    try:
        engine = chess.engine.SimpleEngine.popen_uci(path, setpgrp=True,
                                                     timeout=10.0 + nodes / 20_000)
    except (chess.engine.EngineError, OSError, TimeoutError) as error:
        raise RunError(f"engine {path} did not start as a UCI engine: "
                       f"{error or type(error).__name__}") from None
    try:
        engine.configure({"Threads": 1, "Hash": hash_mb})
    except (chess.engine.EngineError, TimeoutError) as error:
        engine.close()
        raise RunError(f"engine {path} refused Threads=1/Hash={hash_mb}: {error}") from None
    return engine


def _engine_name(path: str) -> str:
    engine = _open_engine(path, 16)
    try:
        return str(engine.id.get("name", "unknown engine"))
    finally:
        engine.close()


_ENGINE_ERRORS: Final = (chess.engine.EngineError, TimeoutError, OSError)


class _Player:
    """One engine process playing planned games; restarts the engine after a crash."""

    def __init__(self, path: str, settings: RunSettings, engine_name: str,
                 suite_name: str) -> None:
        self.path, self.settings = path, settings
        self.engine_name, self.suite_name = engine_name, suite_name
        self.engine: chess.engine.SimpleEngine | None = None
        self.crashes_in_a_row = 0

    def play(self, plan: GamePlan) -> PlayedGame:
        if self.engine is None:
            nodes = round(self.settings.nodes * (1 + self.settings.spread)) + 1
            self.engine = _open_engine(self.path, self.settings.hash_mb, nodes)
        try:
            played = play_planned(self.engine, plan, self.settings, self.engine_name,
                                  self.suite_name)
        except _ENGINE_ERRORS as error:
            self.close()
            self.crashes_in_a_row += 1
            message = str(error) or type(error).__name__
            if self.crashes_in_a_row >= CRASHES_IN_A_ROW:
                raise RunError(f"engine {self.path} failed in {self.crashes_in_a_row} games "
                               f"in a row (last: game {plan.index}: {message}); stopped, the "
                               "shards written so far are kept") from None
            return PlayedGame(index=plan.index, opening=plan.opening, error=message)
        self.crashes_in_a_row = 0
        return played

    def close(self) -> None:
        if self.engine is not None:
            with contextlib.suppress(Exception):
                self.engine.close()
            self.engine = None


_WORKER: dict[str, Any] = {}


def _worker_init(path: str, settings: RunSettings, engine_name: str, suite_name: str) -> None:
    # The parent handles Ctrl-C: it drops the unfinished shard and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["player"] = _Player(path, settings, engine_name, suite_name)
    _WORKER["parent"] = os.getppid()


def _worker_play(plan: GamePlan) -> PlayedGame:
    if os.getppid() != _WORKER["parent"]:  # the parent was killed: play nothing more
        _WORKER["player"].close()
        os._exit(1)
    played: PlayedGame = _WORKER["player"].play(plan)
    return played


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """A SIGTERM stops a run as Ctrl-C does: workers stopped, the unfinished shard dropped."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# --- the run directory ---------------------------------------------------------------------


def shard_name(number: int, run_format: int = FORMAT) -> str:
    """The file name of shard ``number`` in a run of ``run_format``."""
    return f"shard-{number:05d}.pgn" + (".gz" if run_format >= 2 else "")


def is_run(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds a self-play run's manifest."""
    path = Path(directory) / MANIFEST
    if not path.is_file():
        return False
    try:
        return bool(json.loads(path.read_text()).get("kind") == RUN_KIND)
    except (OSError, json.JSONDecodeError, AttributeError):
        return False


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the run in ``directory`` (a :class:`RunError` if there is none)."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{directory} is not a self-play run: no {MANIFEST}") from None
    except (OSError, json.JSONDecodeError) as error:
        raise RunError(f"{path} cannot be read: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != RUN_KIND:
        raise RunError(f"{path} is not a self-play run's manifest (kind "
                       f"{manifest.get('kind') if isinstance(manifest, dict) else None!r})")
    return manifest


def run_settings(directory: str | os.PathLike[str]) -> RunSettings | None:
    """The settings of the run in ``directory``, or None when it holds no run yet."""
    return RunSettings.from_dict(read_manifest(directory)["settings"]) if is_run(
        directory) else None


def run_shards(directory: str | os.PathLike[str], *, verify: bool = True) -> tuple[Path, ...]:
    """The run's shards in game order, each checked against the manifest's sha256."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    paths = []
    for shard in manifest["shards"]:
        path = directory / shard["file"]
        if not path.is_file():
            raise RunError(f"{path} is missing (the run's manifest lists it); grow the run "
                           "again into a new directory or restore the file")
        if verify and sha256_file(path) != shard["sha256"]:
            raise RunError(f"{path}: sha256 differs from the run's manifest (changed or "
                           "damaged since it was written); restore it or regrow the run")
        paths.append(path)
    if not paths:
        raise RunError(f"{directory}: the self-play run holds no finished shard yet; grow it "
                       "with 'chessmoe data selfplay-run --out DIR'")
    return tuple(paths)


_HEADER = re.compile(r'^\[(\w+) "(.*)"\]$')
_NOT_A_MOVE = re.compile(r"^(\d+\.(\.\.)?|1-0|0-1|1/2-1/2|\*)$")


def _shard_games(path: Path) -> Iterator[tuple[int, str | None, list[str]]]:
    """``(game index, FEN header, SAN moves)`` of each game of a shard, read from the text
    this module writes (headers, a blank line, the movetext; a blank line between games):
    about a hundred times faster than parsing the moves, for :func:`find_duplicates`."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        text = handle.read()
    for block in re.split(r"\n\s*\n(?=\[Event )", text.strip()):
        head, _, body = block.partition("\n\n")
        headers: dict[str, str] = {}
        for line in head.splitlines():
            match = _HEADER.match(line)
            if match:
                headers[match.group(1)] = match.group(2)
        if "GameIndex" not in headers:
            raise RunError(f"{path}: a game without a GameIndex header (not a run's shard)")
        yield (int(headers["GameIndex"]), headers.get("FEN"),
               [t for t in body.split() if not _NOT_A_MOVE.match(t)])


def find_duplicates(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The run's exact duplicate games: each game whose opening position and moves equal an
    earlier game's (:func:`chessmoe.games.splits.game_key` over the FEN and SAN moves), as
    ``[game, first copy]`` pairs, with their count and the games checked (the manifest's
    ``duplicates`` record). Two pairs that draw the same opening and node limits play the
    same game again: the shards keep every game as played, and readers that split the games
    keep the first copy (:data:`chessmoe.games.splits.DUPLICATES_POLICY`)."""
    from chessmoe.games.splits import DUPLICATES_POLICY, game_key

    first: dict[str, int] = {}
    copies: list[list[int]] = []
    checked = 0
    for path in run_shards(directory):
        for index, fen, moves in _shard_games(path):
            key = game_key(fen, moves)
            checked += 1
            if key in first:
                copies.append([index, first[key]])
            else:
                first[key] = index
    return {"games_checked": checked, "count": len(copies),
            "share": round(len(copies) / checked, 6) if checked else 0.0,
            "identity": "the FEN header and the moves (SAN), in order",
            "policy": DUPLICATES_POLICY, "later_copies": copies,
            "provenance": provenance()}


def _refresh_duplicates(directory: Path, manifest: dict[str, Any]) -> None:
    """Record the run's duplicates in its manifest when they were not counted over every
    game it holds (called under the run's lock)."""
    if not manifest["shards"]:
        return
    recorded = manifest.get("duplicates")
    if isinstance(recorded, dict) and \
            recorded.get("games_checked") == manifest["totals"]["games"]:
        return
    manifest["duplicates"] = find_duplicates(directory)
    atomic_write_json(directory / MANIFEST, manifest)


def _suite(spec: str) -> tuple[dict[str, Any], list[str]]:
    path = resolve_suite(spec)
    fens = read_epd(path)
    return {"spec": spec, "file": path.name, "sha256": sha256_file(path),
            "positions": len(fens)}, fens


def _identity(settings: RunSettings, engine_name: str, suite: dict[str, Any]
              ) -> dict[str, Any]:
    """What a resumed run must share with the run on disk (the suite by content, not by
    where it was read from)."""
    return {"settings": {k: v for k, v in asdict(settings).items() if k != "openings"},
            "engine": engine_name, "draw_rules": DRAW_RULES, "format": FORMAT,
            "openings": {"sha256": suite["sha256"], "positions": suite["positions"]}}


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """The first difference between two identities, in words."""
    for key in ("engine", "draw_rules", "format"):
        if old.get(key) != new[key]:
            return f"{key} {old.get(key)!r} in the run, {new[key]!r} now"
    for key, value in new["settings"].items():
        if old.get("settings", {}).get(key) != value:
            return f"{key}={old.get('settings', {}).get(key)!r} in the run, {key}={value!r} now"
    if old.get("openings") != new["openings"]:
        return (f"opening suite sha256 {str(old.get('openings', {}).get('sha256'))[:12]} in "
                f"the run, {new['openings']['sha256'][:12]} now")
    return "settings differ"


def _run_identity(manifest: dict[str, Any]) -> dict[str, Any]:
    settings = {k: v for k, v in manifest.get("settings", {}).items() if k != "openings"}
    suite = manifest.get("openings", {})
    return {"settings": settings, "engine": manifest.get("engine", {}).get("name"),
            "draw_rules": manifest.get("draw_rules"), "format": manifest.get("format"),
            "openings": {"sha256": suite.get("sha256"), "positions": suite.get("positions")}}


def _totals(shards: Sequence[dict[str, Any]]) -> dict[str, Any]:
    results: Counter[str] = Counter()
    terminations: Counter[str] = Counter()
    for shard in shards:
        results.update(shard["results"])
        terminations.update(shard["terminations"])
    games = sum(int(s["games"]) for s in shards)
    plies = sum(int(s["plies"]) for s in shards)
    return {"games": games, "skipped": sum(len(s["skipped"]) for s in shards),
            "attempted": sum(int(s["attempted"]) for s in shards), "plies": plies,
            "plies_mean": round(plies / games, 2) if games else None,
            "bytes": sum(int(s["bytes"]) for s in shards),
            "results": dict(sorted(results.items())),
            "terminations": dict(sorted(terminations.items()))}


def _clean(directory: Path, manifest: dict[str, Any]) -> list[str]:
    """Remove what an interrupted run left: temporary files and shards not yet listed."""
    listed = {s["file"] for s in manifest["shards"]}
    removed = []
    for path in sorted(directory.iterdir()):
        name = path.name
        stray_temp = name.startswith(".") and name.endswith(".tmp")
        stray_shard = (name.startswith("shard-") and name.endswith((".pgn", ".pgn.gz"))
                       and name not in listed)
        if path.is_file() and (stray_temp or stray_shard):
            path.unlink()
            removed.append(name)
    return removed


def _foreign(directory: Path) -> bool:
    """A directory with files in it but no run: not ours to write into."""
    return (directory.is_dir() and not is_run(directory)
            and any(p.name != ".lock" for p in directory.iterdir()))


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """One process grows a run at a time."""
    try:
        handle = hold_lock(directory / ".lock", str(directory))
    except BusyError as error:  # a RunError, as every refusal of this module
        raise RunError(str(error)) from None
    try:
        yield
    finally:
        handle.close()


def _shard_record(number: int, first: int, games: Sequence[PlayedGame], path: Path,
                  seconds: float, pgn_sha256: str) -> dict[str, Any]:
    kept = [g for g in games if not g.error]
    return {"file": path.name, "number": number, "first_game": first,
            "attempted": len(games), "games": len(kept),
            "skipped": [{"game": g.index, "opening": g.opening, "error": g.error}
                        for g in games if g.error],
            "plies": sum(g.plies for g in kept),
            "results": dict(sorted(Counter(g.result for g in kept).items())),
            "terminations": dict(sorted(Counter(g.termination for g in kept).items())),
            "sha256": sha256_file(path), "bytes": path.stat().st_size,
            "pgn_sha256": pgn_sha256,
            "seconds": round(seconds, 2), "written": utc_now()}


def _shard_bytes(games: Sequence[PlayedGame]) -> bytes:
    """The PGN text of a shard's kept games (what ``pgn_sha256`` of its record hashes)."""
    return "".join(g.pgn.strip() + "\n\n" for g in games if not g.error).encode("utf-8")


def _write_shard(path: Path, games: Sequence[PlayedGame]) -> str:
    """Write the shard; return the sha256 of its uncompressed games (``pgn_sha256``, to
    compare runs across zlib builds). A gzip shard has no time, file name or OS in its header,
    so the same games give the same bytes under one zlib build (about 290 bytes a game)."""
    data = _shard_bytes(games)
    digest = hashlib.sha256(data).hexdigest()
    if path.name.endswith(".gz"):
        # no time, no file name and the "unknown" OS byte in the header (gzip.compress lets
        # zlib write its own OS byte, which differs between platforms); the deflate stream
        # itself is zlib's, so other zlib builds may compress the same games differently:
        # pgn_sha256 in the shard's record compares the games themselves
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer,
                           mtime=0) as stream:
            stream.write(data)
        data = buffer.getvalue()
    atomic_write_bytes(path, data)
    return digest


def _played(plans: Sequence[GamePlan], pool: Any, player: _Player | None
            ) -> Iterator[PlayedGame]:
    if pool is not None:
        yield from pool.imap(_worker_play, plans)
    else:
        assert player is not None
        for plan in plans:
            yield player.play(plan)


def grow(out: str | os.PathLike[str], games: int, settings: RunSettings | None = None, *,
         workers: int = 1, engine: str | os.PathLike[str] | None = None,
         progress: bool = True, command: str | None = None) -> GrowResult:
    """Grow the run in ``out`` to ``games`` games (attempted: crashed games count, named).

    ``settings`` None means the run's own (a new run: the defaults). Resuming with other
    settings, another engine version or another opening suite raises :class:`RunError`;
    anything the manifest does not list is dropped, and format-1 runs (plain ``.pgn``
    shards) are read, never grown.
    Shards are written whole (temporary file + rename), then the manifest lists them
    (atomically); games of a shard still in flight when the run is interrupted are dropped,
    as is a shard file the manifest does not list, so nothing is duplicated or half-written.
    Worker processes drive one Stockfish each; a game whose engine crashes is skipped (named
    in the shard's record) and the engine restarted.
    """
    if games < 1:
        raise RunError(f"games={games}: expected at least 1")
    if workers < 1:
        raise RunError(f"workers={workers}: expected at least 1")
    started = time.monotonic()
    directory = Path(out)
    if directory.exists() and not directory.is_dir():
        raise RunError(f"{directory} is a file; a self-play run is a directory")
    if _foreign(directory):
        raise RunError(f"{directory} is not empty and holds no self-play run; choose a new "
                       "or empty directory")
    if settings is None:
        settings = run_settings(directory) or RunSettings()
    # Engine and suite first: a missing binary or suite leaves nothing behind.
    engine_path = str(find_stockfish(engine))
    engine_name = _engine_name(engine_path)
    suite, fens = _suite(settings.openings)
    wanted = _identity(settings, engine_name, suite)

    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory), _sigterm_interrupts():
        # Read under the lock: another process may have grown the run meanwhile.
        existing = read_manifest(directory) if is_run(directory) else None
        if _foreign(directory):
            raise RunError(f"{directory} is not empty and holds no self-play run; choose a "
                           "new or empty directory")
        if existing is not None and _run_identity(existing) != wanted:
            raise RunError(f"{directory} was grown with other settings ("
                           f"{_difference(_run_identity(existing), wanted)}); resume it with "
                           "the run's settings or grow a new directory")
        manifest: dict[str, Any] = existing or {
            "kind": RUN_KIND, "format": FORMAT, "target_games": 0,
            "settings": asdict(settings),
            "engine": {"name": engine_name, "threads": 1, "hash_mb": settings.hash_mb},
            "openings": suite, "draw_rules": DRAW_RULES,
            "adjudication": f"none; a game reaching {settings.max_plies} plies is drawn "
                            "(max_plies)",
            "assignment": "game i: pair p = i // 2 plays opening p mod positions (suite file "
                          "order); both sides' node limits are drawn uniformly within "
                          "nodes * (1 +- spread) by random.Random('chessmoe-selfplay-run:"
                          "{seed}:{p}'); the pair's second game swaps them between colours",
            "shards": [], "totals": _totals([]), "sessions": []}
        discarded = _clean(directory, manifest)
        start = int(manifest["totals"]["attempted"])
        played_now = 0
        skipped_now: list[dict[str, Any]] = []
        if start >= games:  # nothing to add: the run already holds that many games
            _refresh_duplicates(directory, manifest)
            return GrowResult(directory=directory, manifest=manifest, played=0, skipped=(),
                              discarded=tuple(discarded), seconds=time.monotonic() - started)
        manifest["target_games"] = max(int(manifest["target_games"]), games)
        manifest["sessions"].append({
            "games": games, "workers": workers, "engine_path": engine_path,
            "command": command, "discarded": discarded, "provenance": provenance()})
        atomic_write_json(directory / MANIFEST, manifest)
        bar = tqdm(total=max(games, start), initial=start, desc="self-play", unit="game",
                   disable=not progress, smoothing=0.05)
        pool = None
        player = None
        try:
            if workers > 1 and games - start > 1:
                ctx = mp.get_context("spawn")
                pool = ctx.Pool(min(workers, games - start), initializer=_worker_init,
                                initargs=(engine_path, settings, engine_name, suite["file"]))
            else:
                player = _Player(engine_path, settings, engine_name, suite["file"])
            first = start
            while first < games:
                number = len(manifest["shards"])
                last = min(first + settings.shard_games, games)
                plans = [game_plan(settings, fens, i) for i in range(first, last)]
                shard_started = time.monotonic()
                results: list[PlayedGame] = []
                for game in _played(plans, pool, player):
                    results.append(game)
                    if game.error:
                        skipped_now.append({"game": game.index, "opening": game.opening,
                                            "error": game.error})
                        if progress:
                            tqdm.write(f"game {game.index}: engine failed ({game.error}); "
                                       "skipped")
                    bar.update(1)
                    bar.set_postfix(skipped=len(skipped_now), refresh=False)
                path = directory / shard_name(number, int(manifest["format"]))
                pgn_sha256 = _write_shard(path, results)
                manifest["shards"].append(_shard_record(
                    number, first, results, path, time.monotonic() - shard_started,
                    pgn_sha256))
                manifest["totals"] = _totals(manifest["shards"])
                atomic_write_json(directory / MANIFEST, manifest)
                played_now += sum(1 for g in results if not g.error)
                first = last
        finally:
            bar.close()
            if pool is not None:
                pool.terminate()  # also on Ctrl-C: the unfinished shard is dropped
                pool.join()
            if player is not None:
                player.close()
        _refresh_duplicates(directory, manifest)
    return GrowResult(directory=directory, manifest=manifest, played=played_now,
                      skipped=tuple(skipped_now), discarded=tuple(discarded),
                      seconds=time.monotonic() - started)
