"""A rating list from game results: maximum-likelihood logistic Elo with intervals
(``chessmoe ratings FILE.pgn... [--anchor NAME=ELO]``, :func:`rating_table`).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe._io.errors import KitError
from chessmoe.elo import rating_list
from chessmoe.games.pgn import PgnFilters, SkipCounter, iter_games

__all__ = ["MatchCount", "RatingRow", "format_table", "parse_anchor", "rating_table",
           "read_results", "tournament_results"]

_SCORE = {"1-0": (1, 0, 0), "1/2-1/2": (0, 1, 0), "0-1": (0, 0, 1)}


@dataclass(frozen=True)
class MatchCount:
    """The games between two players from ``first``'s side: wins, draws, losses."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class RatingRow:
    """One line of a rating list. ``error`` is the half-width of the interval [low, high]
    (infinite or nan where the results cannot place the player: a perfect or zero score
    against the rated group, or no connection to it)."""

    rank: int
    name: str
    elo: float
    error: float
    low: float
    high: float
    points: float
    games: int


def _nothing(board: object) -> None:
    """No per-position values are needed: only the headers count."""


def read_results(paths: Sequence[str | os.PathLike[str]],
                 skips: SkipCounter | None = None) -> list[MatchCount]:
    """Per pair of players (in the order first met), their games' W/D/L from PGN headers.

    Every game with a result is counted, however short, from any starting position;
    ``*`` games and unreadable ones land in ``skips`` (reason ``unfinished`` etc.).

    Any PGN files are read (the kit's own ``games.pgn``, cutechess or fastchess output), each game
    counted once by its ``White``, ``Black`` and ``Result`` headers; skips are reported beside the
    table, never dropped silently.
    """
    filters = PgnFilters(min_full_moves=0, require_decided=True, standard_only=True,
                         require_termination=False)
    skips = skips if skips is not None else SkipCounter()
    tally: dict[tuple[str, str], Counter[str]] = {}
    for path in paths:
        for game in iter_games(path, filters=filters, skips=skips, extract=_nothing):
            white = game.headers.get("White", "?").strip() or "?"
            black = game.headers.get("Black", "?").strip() or "?"
            result = game.result
            if white == black:
                raise KitError(f"{game.source} at byte {game.offset}: {white!r} plays itself; "
                               "give the players distinct names")
            key = (white, black) if (black, white) not in tally else (black, white)
            flip = key != (white, black)
            w, d, lost = _SCORE[result]
            if flip:
                w, lost = lost, w
            tally.setdefault(key, Counter()).update({"w": w, "d": d, "l": lost})
    return [MatchCount(a, b, c["w"], c["d"], c["l"]) for (a, b), c in tally.items()]


def tournament_results(directory: str | os.PathLike[str]) -> list[MatchCount]:
    """W/D/L of every match of a kit tournament directory (``<match>/games-*.jsonl``), from
    each match's first engine's side; a match with no game yet is left out."""
    from chessmoe.records import load_records

    out = []
    root = Path(directory)
    for match in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        records = load_records(sorted(match.glob("games-*.jsonl")))
        named = [r for r in records if r.first and r.second and r.first_score is not None]
        if not named:
            continue
        wins = sum(r.first_score == 1.0 for r in named)
        draws = sum(r.first_score == 0.5 for r in named)
        out.append(MatchCount(str(named[0].first), str(named[0].second), wins, draws,
                              len(named) - wins - draws))
    return out


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME=ELO`` (or a bare ``NAME``, rated 0) -> (name, elo)."""
    name, sep, value = text.rpartition("=")
    if not sep:
        return text, 0.0
    try:
        elo = float(value)
    except ValueError:
        raise KitError(f"--anchor needs NAME=ELO, got {text!r}") from None
    if not name or not math.isfinite(elo):
        raise KitError(f"--anchor needs NAME=ELO with a finite ELO, got {text!r}")
    return name, elo


def rating_table(matches: Iterable[MatchCount], *, anchor: str | None = None,
                 anchor_elo: float = 0.0, level: float = 0.95) -> list[RatingRow]:
    """The rating list, best first, ranks 1.. (players that cannot be placed come last).

    Every player is rated with :func:`chessmoe.elo.rating_list` (Bradley-Terry on the score, draws
    half a win, the standard ``10^(d/400)`` scale). The anchor is 0 unless given a value; without an
    anchor the rated players' mean is 0. For two players the difference is exactly their match's Elo
    as cutechess prints it, so a star-shaped tournament anchored at its centre reproduces each
    match's line.
    """
    matches = list(matches)
    rows = [(m.first, m.second, m.wins, m.draws, m.losses) for m in matches]
    known = {name for m in matches for name in (m.first, m.second)}
    if anchor is not None and anchor not in known:
        raise KitError(f"anchor {anchor!r} played no game; players: {', '.join(sorted(known))}")
    ratings = rating_list(rows, anchor=anchor, level=level)
    points: dict[str, float] = {}
    games: dict[str, int] = {}
    for m in matches:
        n = m.wins + m.draws + m.losses
        points[m.first] = points.get(m.first, 0.0) + m.wins + m.draws / 2
        points[m.second] = points.get(m.second, 0.0) + m.losses + m.draws / 2
        games[m.first] = games.get(m.first, 0) + n
        games[m.second] = games.get(m.second, 0) + n
    shift = anchor_elo if anchor is not None else 0.0
    table = []
    for rank, r in enumerate(ratings, start=1):
        half = (r.high - r.low) / 2 if math.isfinite(r.high - r.low) else math.inf
        if math.isnan(r.elo):
            half = math.nan
        table.append(RatingRow(rank, r.name, r.elo + shift, half, r.low + shift,
                               r.high + shift, points[r.name], games[r.name]))
    return table


def _number(x: float) -> str:
    if math.isnan(x):
        return "?"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:.0f}"


def format_table(rows: Sequence[RatingRow]) -> str:
    """A fixed-width table: rank, name, rating, error, points, games (and the interval)."""
    width = max([len("name")] + [len(r.name) for r in rows])
    lines = [f"{'rank':>4}  {'name':<{width}}  {'rating':>7}  {'error':>6}  "
             f"{'interval':>15}  {'points':>7}  {'games':>6}"]
    for r in rows:
        error = "?" if math.isnan(r.error) else ("inf" if math.isinf(r.error)
                                                  else f"{r.error:.0f}")
        interval = f"[{_number(r.low)}, {_number(r.high)}]"
        lines.append(f"{r.rank:>4}  {r.name:<{width}}  {_number(r.elo):>7}  {error:>6}  "
                     f"{interval:>15}  {r.points:>7g}  {r.games:>6}")
    return "\n".join(lines)
