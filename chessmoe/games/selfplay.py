"""The kit's own game generator: Stockfish self-play with varied strength (:func:`generate`;
the embedded sample ``chessmoe/data/sample`` was made with it). Each game starts with a few
uniformly random plies, then each side plays with its own ``Skill Level`` and node limit
drawn per game, so that game lengths, phases and results vary the way real games do.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import math
import multiprocessing as mp
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
from tqdm import tqdm

from chessmoe._io.external import find_stockfish
from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe._io.jobs import follow_parent
from chessmoe._io.jsonl import JsonlLog, lock_path
from chessmoe._io.provenance import provenance

__all__ = ["SelfPlayConfig", "SideSettings", "game_settings", "generate", "play_game"]


@dataclass(frozen=True)
class SelfPlayConfig:
    """The self-play recipe. Ranges are inclusive; node limits are drawn log-uniformly."""

    games: int = 3000
    seed: int = 20261122
    random_plies: tuple[int, int] = (2, 6)
    skill: tuple[int, int] = (4, 20)
    nodes: tuple[int, int] = (500, 30000)
    resign_cp: int = 1000
    resign_plies: int = 8
    max_plies: int = 400
    hash_mb: int = 16

    def __post_init__(self) -> None:
        for name in ("random_plies", "skill", "nodes"):
            low, high = getattr(self, name)
            if low > high or low < 0:
                raise ValueError(f"{name} must be an increasing non-negative range, "
                                 f"got {(low, high)}")
        if not 0 <= self.skill[0] <= self.skill[1] <= 20:
            raise ValueError("Skill Level must lie in 0..20")
        if self.nodes[0] < 1:
            raise ValueError("node limits must be positive")
        if self.games < 1:
            raise ValueError("games must be positive")


@dataclass(frozen=True)
class SideSettings:
    """How one side plays in one game."""

    skill: int
    nodes: int


@dataclass(frozen=True)
class GameSettings:
    """Everything random about one game, derived from (seed, index) alone."""

    index: int
    random_moves: tuple[str, ...]
    white: SideSettings
    black: SideSettings


@dataclass
class _PlayedGame:
    index: int
    pgn: str
    plies: int
    result: str
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)


def _rng(seed: int, index: int) -> random.Random:
    # Seeding with a string is deterministic across runs (sha512 of the text).
    return random.Random(f"chessmoe-selfplay:{seed}:{index}")


def _side(rng: random.Random, config: SelfPlayConfig) -> SideSettings:
    skill = rng.randint(*config.skill)
    low, high = config.nodes
    nodes = round(math.exp(rng.uniform(math.log(low), math.log(high))))
    return SideSettings(skill=skill, nodes=max(low, min(high, nodes)))


def game_settings(config: SelfPlayConfig, index: int) -> GameSettings:
    """The random opening and per-side strength of game ``index`` (pure function)."""
    rng = _rng(config.seed, index)
    white, black = _side(rng, config), _side(rng, config)
    board = chess.Board()
    moves: list[str] = []
    for _ in range(rng.randint(*config.random_plies)):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    return GameSettings(index=index, random_moves=tuple(moves), white=white, black=black)


def _score_white(info: chess.engine.InfoDict) -> int | None:
    score = info.get("score")
    if score is None:
        return None
    return score.white().score(mate_score=100_000)


def play_game(engine: chess.engine.SimpleEngine, config: SelfPlayConfig, index: int,
              engine_name: str = "Stockfish") -> _PlayedGame:
    """Play game ``index`` of the recipe with ``engine`` and return it as PGN text."""
    settings = game_settings(config, index)
    board = chess.Board()
    for uci in settings.random_moves:
        board.push_uci(uci)
    sides = {chess.WHITE: settings.white, chess.BLACK: settings.black}
    run_side: bool | None = None  # which side the current resign run favours
    run_length = 0
    result, detail = "*", "unterminated"
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            detail = outcome.termination.name.lower()
            break
        if board.ply() >= config.max_plies:
            result, detail = "1/2-1/2", "max_plies_adjudication"
            break
        side = sides[board.turn]
        played = engine.play(board, chess.engine.Limit(nodes=side.nodes), game=index,
                             info=chess.engine.INFO_SCORE,
                             options={"Skill Level": side.skill})
        if played.move is None:
            raise RuntimeError(f"engine returned no move in game {index} at {board.fen()}")
        score = _score_white(played.info)
        board.push(played.move)
        if score is not None and abs(score) >= config.resign_cp:
            favoured = score > 0
            run_length = run_length + 1 if run_side is favoured else 1
            run_side = favoured
        else:
            run_side, run_length = None, 0
        if run_length >= config.resign_plies:
            result = "1-0" if run_side else "0-1"
            detail = "resign_adjudication"
            break

    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "chessmoe self-play sample"
    game.headers["Site"] = "local"
    game.headers["Date"] = _dt.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = str(index + 1)
    for color, side in (("White", settings.white), ("Black", settings.black)):
        game.headers[color] = f"{engine_name} skill {side.skill} nodes {side.nodes}"
    game.headers["Result"] = result
    game.headers["Termination"] = "adjudication" if "adjudication" in detail else "normal"
    game.headers["TerminationDetail"] = detail
    game.headers["RandomPlies"] = str(len(settings.random_moves))
    game.headers["PlyCount"] = str(board.ply())
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return _PlayedGame(index=index, pgn=game.accept(exporter), plies=board.ply(),
                       result=result, detail=detail)


# --- worker pool -----------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(engine_path: str, hash_mb: int) -> None:
    follow_parent()
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    engine.configure({"Threads": 1, "Hash": hash_mb})
    _WORKER["engine"] = engine
    _WORKER["name"] = engine.id.get("name", "Stockfish")


def _worker_play(args: tuple[SelfPlayConfig, int]) -> _PlayedGame:
    config, index = args
    return play_game(_WORKER["engine"], config, index, engine_name=_WORKER["name"])


def engine_version(engine_path: str | Path) -> str:
    """The engine's ``id name`` (e.g. ``Stockfish 15.1``)."""
    with chess.engine.SimpleEngine.popen_uci(str(engine_path)) as engine:
        return str(engine.id.get("name", "unknown"))


def _iter_played(config: SelfPlayConfig, todo: list[int], workers: int,
                 engine_path: str) -> Iterator[_PlayedGame]:
    if workers <= 1:
        _worker_init(engine_path, config.hash_mb)
        try:
            for index in todo:
                yield _worker_play((config, index))
        finally:
            _WORKER.pop("engine").quit()
        return
    ctx = mp.get_context("spawn")
    with ctx.Pool(workers, initializer=_worker_init,
                  initargs=(engine_path, config.hash_mb)) as pool:
        yield from pool.imap_unordered(_worker_play, [(config, i) for i in todo])


def generate(out: str | Path, config: SelfPlayConfig | None = None, workers: int = 1,
             engine: str | None = None, progress: bool = True,
             command: str | None = None) -> dict[str, Any]:
    """Generate ``config.games`` games into ``out`` (``.pgn`` or ``.pgn.gz``).

    Games end by the rules (mate, stalemate, threefold repetition, fifty moves, insufficient
    material), by resignation adjudication (both engines' scores beyond a threshold for a run
    of plies) or at a ply cap (adjudicated a draw). The per-game choices (random plies,
    skills, node limits) come from a seeded generator keyed by the game index, so they do not
    depend on how games are spread over workers. Stockfish itself is deterministic at a fixed
    node count with one thread, but its ``Skill Level`` move picker is seeded from the clock,
    so a rerun reproduces the recipe and the distribution, not the identical moves.

    Finished games are logged to ``<out>.parts.jsonl`` as they complete, so an
    interrupted run resumes with the games still missing. When all are done the
    PGN (sorted by game index) and ``<out>.manifest.json`` are written atomically
    and the log is removed. Returns the manifest.
    """
    config = config or SelfPlayConfig()
    out = Path(out)
    engine_path = str(find_stockfish(engine))
    version = engine_version(engine_path)
    with JsonlLog(out.with_name(out.name + ".parts.jsonl"), key="index") as log:
        # held until the sample is written: a second run is refused, not played twice
        todo = [i for i in range(config.games) if not log.done(i)]
        bar = tqdm(total=config.games, initial=config.games - len(todo), desc="self-play",
                   unit="game", disable=not progress)
        for played in _iter_played(config, todo, workers, engine_path):
            log.append(asdict(played))
            bar.update(1)
        bar.close()
        manifest = _write_sample(out, config, workers, version, command,
                                 sorted(log, key=lambda r: int(r["index"])))
        log.path.unlink(missing_ok=True)
        lock_path(log.path).unlink(missing_ok=True)  # while held: no one else has it open
    return manifest


def _write_sample(out: Path, config: SelfPlayConfig, workers: int, version: str,
                  command: str | None, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Write the sample (games in index order) and its manifest; return the manifest."""
    text = "".join(r["pgn"].strip() + "\n\n" for r in records)  # a blank line after each
    with atomic_path(out) as tmp:
        if out.suffix == ".gz":
            # mtime=0 keeps the archive bytes a function of the games alone.
            with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                       filename="") as gz:
                gz.write(text.encode("utf-8"))
        else:
            tmp.write_text(text, encoding="utf-8")
    plies = [int(r["plies"]) for r in records]
    manifest: dict[str, Any] = {
        "kind": "chessmoe self-play sample",
        "file": out.name,
        "sha256": sha256_file(out),
        "bytes": out.stat().st_size,
        "engine": version,
        "recipe": {**asdict(config), "threads_per_engine": 1,
                   "note": "per-game settings from random.Random('chessmoe-selfplay:"
                           "{seed}:{index}'); Stockfish Skill Level picks moves with a "
                           "clock-seeded generator, so reruns reproduce the recipe, not "
                           "the identical moves"},
        "command": command or f"chessmoe data selfplay-sample --games {config.games} --seed "
                              f"{config.seed} --workers {workers} --out {out}",
        "counts": {
            "games": len(records),
            "plies": sum(plies),
            "results": dict(Counter(str(r["result"]) for r in records)),
            "terminations": dict(Counter(str(r["detail"]) for r in records)),
            "plies_min": min(plies), "plies_max": max(plies),
            "plies_mean": round(sum(plies) / len(plies), 2),
        },
        "provenance": provenance(),
    }
    atomic_write_json(out.with_name(out.name + ".manifest.json"), manifest)
    return manifest
