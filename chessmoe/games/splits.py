"""Game-level train/validation/test splits, assigned to whole games after a pass over a
source from a small per-game table (source order, date), so they are deterministic and
independent of how the pass was spread over workers: the authors' KingBase rule
(:class:`MonthSplit`), a seeded permutation for every other source (:class:`SeededSplit`),
and the deduplication every split reader applies first (:func:`later_copies`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["DUPLICATES_POLICY", "SPLITS", "MonthSplit", "SeededSplit", "SplitRule", "game_key",
           "later_copies", "month_of", "split_from_dict"]

DUPLICATES_POLICY = ("deduplicated, first copy kept: a game whose start position and moves "
                     "equal an earlier game's (source order) is read by no split")

SPLITS = ("train", "val", "test")
_DATE = re.compile(r"^\s*(\d{4})[.\-/](\d{2})")


def game_key(start_fen: str | None, moves: Iterable[str]) -> str:
    """A game's identity for deduplication: sha256 of its start position (``None``: the
    standard start) and its moves in order (UCI, or any one fixed notation per source)."""
    text = (start_fen or "startpos") + "|" + " ".join(moves)
    return hashlib.sha256(text.encode()).hexdigest()


def later_copies(keys: Sequence[str]) -> npt.NDArray[np.bool_]:
    """``True`` for each game whose key occurred earlier in ``keys`` (the copies a
    deduplication drops; the first copy of each game is kept).

    An engine's self-play at a node limit can play the same game twice (the same opening
    and node limits give the same moves; the 150,000-game Stockfish run holds 286 such later
    copies). Readers that split games drop these before splitting, so no copy is trained on
    and held out at once, or counted twice."""
    seen: set[str] = set()
    out = np.zeros(len(keys), dtype=bool)
    for index, key in enumerate(keys):
        if key in seen:
            out[index] = True
        else:
            seen.add(key)
    return out


def month_of(date: str | None) -> str | None:
    """``'2012.09.14'`` -> ``'2012-09'``; ``None`` for unknown (``'????.??.??'``)."""
    if not date:
        return None
    match = _DATE.match(date)
    if match is None or not 1 <= int(match.group(2)) <= 12:
        return None
    return f"{match.group(1)}-{match.group(2)}"


@dataclass(frozen=True)
class SeededSplit:
    """Seeded game-level split; ``val``/``test`` are fractions (< 1) or game counts."""

    val: float = 0.1
    test: float = 0.1
    seed: int = 9
    kind: str = "seeded"

    def _count(self, size: float, n: int) -> int:
        if size < 0:
            raise ValueError("split sizes must be non-negative")
        return round(size * n) if size < 1 else int(size)

    def assign(self, n_games: int, months: list[str | None] | None = None
               ) -> npt.NDArray[np.str_]:
        """Split label of each of ``n_games`` games (source order)."""
        n_val, n_test = self._count(self.val, n_games), self._count(self.test, n_games)
        if n_val + n_test > n_games:
            raise ValueError(f"val ({n_val}) + test ({n_test}) exceed the {n_games} games")
        order = np.random.default_rng(self.seed).permutation(n_games)
        labels = np.full(n_games, "train", dtype="<U6")
        labels[order[:n_val]] = "val"
        labels[order[n_val:n_val + n_test]] = "test"
        return labels

    def describe(self) -> str:
        return (f"seeded game-level split (seed {self.seed}): val {self.val}, "
                f"test {self.test}, rest train")


@dataclass(frozen=True)
class MonthSplit:
    """The authors' KingBase rule: validation = the first 1000 kept games dated 2012-09, test =
    the first 1000 kept games dated 2017-05, every other month training; the remaining games
    of those two months are used for nothing ("unused")."""

    val_month: str = "2012-09"
    test_month: str = "2017-05"
    games_per_split: int = 1000
    kind: str = "month"

    def assign(self, n_games: int, months: list[str | None] | None = None
               ) -> npt.NDArray[np.str_]:
        if months is None or len(months) != n_games:
            raise ValueError("the month split needs the month of every game")
        labels = np.full(n_games, "train", dtype="<U6")
        taken = {"val": 0, "test": 0}
        for index, month in enumerate(months):
            for split, wanted in (("val", self.val_month), ("test", self.test_month)):
                if month == wanted:
                    if taken[split] < self.games_per_split:
                        labels[index] = split
                        taken[split] += 1
                    else:
                        labels[index] = "unused"
        return labels

    def describe(self) -> str:
        return (f"month split: val = first {self.games_per_split} games of {self.val_month}, "
                f"test = first {self.games_per_split} games of {self.test_month}, the rest "
                "of those months unused, every other month train")


SplitRule = SeededSplit | MonthSplit


def split_from_dict(data: dict[str, Any]) -> SplitRule:
    """Inverse of ``dataclasses.asdict`` for either rule."""
    kind = data.get("kind", "seeded")
    fields = {k: v for k, v in data.items() if k != "kind"}
    if kind == "seeded":
        return SeededSplit(**fields)
    if kind == "month":
        return MonthSplit(**fields)
    raise ValueError(f"unknown split kind {kind!r}")


def split_to_dict(rule: SplitRule) -> dict[str, Any]:
    return asdict(rule)
