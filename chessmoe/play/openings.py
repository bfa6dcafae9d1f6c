"""Opening suites for matches: read, fetch, generate, sample (paper App. E.3).

The paper samples 500 openings per match from an EPD suite of slightly imbalanced
positions about five plies deep (footnote 11: ``ianfab/books``, ``chess.epd``) and plays
each twice with colours swapped. The kit reads such suites, fetches that one (checked
against its known sha256), ships a suite of its own generated with Stockfish
(:func:`generate_suite`: random five-ply starts kept when the evaluation lies in a small
band), and draws seeded, disjoint samples of openings for parallel shards. Reading and
fetching suites lives in :mod:`chessmoe.games.epd` (self-play runs in ``games`` read them
too); the names are re-exported here.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from chessmoe._io.fsutil import atomic_path, atomic_write_json, sha256_file
from chessmoe.games.epd import (
    EMBEDDED_SUITE,
    PAPER_SUITE_SHA256,
    PAPER_SUITE_SIZE,
    PAPER_SUITE_URL,
    OpeningError,
    embedded_suite_path,
    fetch_paper_suite,
    read_epd,
    resolve_suite,
)

__all__ = [
    "EMBEDDED_SUITE",
    "PAPER_SUITE_SHA256",
    "PAPER_SUITE_SIZE",
    "PAPER_SUITE_URL",
    "GameSlot",
    "OpeningError",
    "SuiteRecipe",
    "embedded_suite_path",
    "fetch_paper_suite",
    "generate_suite",
    "group_seed",
    "read_epd",
    "resolve_suite",
    "schedule",
]

# --- scheduling --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSlot:
    """One game of a match: which opening, which colour the first engine plays."""

    pair: int  # index of the game pair (one opening, both colours)
    game: int  # 0 or 1 within the pair
    opening: int  # index of the opening in the suite
    fen: str
    first_is_white: bool

    @property
    def id(self) -> str:
        return f"{self.pair:05d}-{self.game}"


def schedule(fens: Sequence[str], pairs: int, seed: int) -> list[GameSlot]:
    """``pairs`` openings drawn without replacement by a seeded generator, each played
    twice: the first engine has White in game 0 and Black in game 1.

    The draw is a prefix of one seeded permutation of the suite, so a match with fewer
    pairs plays the first openings of a longer match with the same seed (arms of different
    sizes in one comparison share their openings)."""
    if pairs > len(fens):
        raise OpeningError(f"{pairs} game pairs need {pairs} openings; the suite has "
                           f"{len(fens)}")
    order = list(range(len(fens)))
    random.Random(seed).shuffle(order)
    chosen = order[:pairs]
    return [GameSlot(pair, game, index, fens[index], game == 0)
            for pair, index in enumerate(chosen) for game in (0, 1)]


def group_seed(seed: int, group: str) -> int:
    """The opening seed of a group of matches: a tournament's seed mixed with the group's
    name (sha256), so different groups draw different openings, reproducibly."""
    digest = hashlib.sha256(f"{seed}:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def shard(slots: Sequence[GameSlot], index: int, count: int) -> list[GameSlot]:
    """The ``index``-th of ``count`` disjoint shards, whole pairs kept together."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} outside 0..{count - 1}")
    return [s for s in slots if s.pair % count == index]


# --- generating the embedded suite ---------------------------------------------------------


@dataclass(frozen=True)
class SuiteRecipe:
    """How the embedded suite is made: random starts kept in an evaluation band."""

    positions: int = 2000
    plies: tuple[int, int] = (5, 5)  # random plies played from the start position
    band_cp: tuple[int, int] = (30, 120)  # |evaluation| kept (slightly imbalanced)
    depth: int = 10  # Stockfish search depth of the evaluation
    seed: int = 20261122


def generate_suite(out: str | os.PathLike[str], recipe: SuiteRecipe | None = None, *,
                   engine: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Generate a suite with Stockfish; write the EPD and ``<out>.manifest.json``."""
    import chess.engine
    from tqdm import tqdm

    from chessmoe._io.external import find_stockfish

    recipe = recipe or SuiteRecipe()
    rng = random.Random(recipe.seed)
    path = find_stockfish(engine)
    kept: list[tuple[str, int]] = []
    seen: set[str] = set()
    tried = 0
    with chess.engine.SimpleEngine.popen_uci(str(path)) as sf, \
            tqdm(total=recipe.positions, desc="openings", disable=not progress) as bar:
        sf.configure({"Threads": 1, "Hash": 16})
        version = str(sf.id.get("name", "Stockfish"))
        while len(kept) < recipe.positions:
            tried += 1
            board = chess.Board()
            for _ in range(rng.randint(*recipe.plies)):
                moves = sorted(board.legal_moves, key=lambda m: m.uci())
                board.push(rng.choice(moves))
            if board.is_game_over() or board.fen() in seen:
                continue
            info = sf.analyse(board, chess.engine.Limit(depth=recipe.depth))
            score = info["score"].white().score(mate_score=100_000)
            if score is None or not recipe.band_cp[0] <= abs(score) <= recipe.band_cp[1]:
                continue
            seen.add(board.fen())
            kept.append((board.fen(), score))
            bar.update(1)
    out = Path(out)
    with atomic_path(out) as tmp:
        tmp.write_text("".join(f"{fen}; c0 \"sf{recipe.depth} {score:+d}\";\n"
                               for fen, score in kept))
    from chessmoe._io.provenance import provenance

    scores = [s for _, s in kept]
    manifest = {
        "kind": "chessmoe opening suite", "file": out.name, "sha256": sha256_file(out),
        "positions": len(kept), "tried": tried, "engine": version,
        "recipe": asdict(recipe),
        "white_better": sum(s > 0 for s in scores), "black_better": sum(s < 0 for s in scores),
        "mean_abs_cp": round(sum(abs(s) for s in scores) / len(scores), 1),
        "command": f"python -m chessmoe.play.openings --out {out}",
        "provenance": provenance(),
    }
    atomic_write_json(out.with_name(out.name + ".manifest.json"), manifest)
    return manifest
