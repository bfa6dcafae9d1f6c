"""The records a match writes and reads: one game, and one match's summary.

``games.jsonl`` holds one :class:`GameRecord` per line and ``summary.json`` one
:class:`MatchSummary` per match; the JSON keys are the ones committed results have always used
(``to_json`` / ``from_json`` round-trip them field for field), so earlier results load
unchanged. Records written before per-move node counts existed have ``nodes_white`` and
``nodes_black`` set to ``None`` and are written back without them; records written before
per-game provenance existed have ``provenance`` ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from chessmoe._io.errors import KitError

__all__ = ["GameProvenance", "GameRecord", "MatchSummary", "OtherRunError", "summarise"]

Scores = tuple[int | None, ...]


class OtherRunError(KitError, ValueError):
    """A match or tournament directory holds games of another run (other draw rules, other
    matches or openings): resuming there would mix two designs under one summary."""


@dataclass(frozen=True)
class GameProvenance:
    """The code that played one game: the git commit its process loaded (``dirty``: tracked
    files differed from it), the kit's version, the draw rules, and the versions of the
    libraries that decide moves (python-chess's move generation, torch, ONNX Runtime), and
    which tree search the kit's MCTS players used (``None`` in records written before the
    compiled search existed: those games were played by the Python search)."""

    commit: str | None
    dirty: bool | None
    chessmoe: str | None = None
    chess: str | None = None
    torch: str | None = None
    onnxruntime: str | None = None
    draw_rules: str | None = None
    search: str | None = None  # the kit's tree search (native, python) when an MCTS player played

    def to_json(self) -> dict[str, Any]:
        # ``search`` only when known: records written before it existed round-trip unchanged
        return {k: v for k, v in self.__dict__.items() if k != "search" or v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameProvenance:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class GameRecord:
    """One finished game. ``scores_*``: each side's own score after each of its moves
    (centipawns, ``None`` when an engine gave none); ``nodes_*``: the nodes each of its
    searches reached (``None`` for an external engine). The match fields (``slot`` ...
    ``date``) are set once the game is logged as part of a match."""

    white: str
    black: str
    fen: str
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str  # see chessmoe.play.match.TERMINATIONS
    detail: str
    moves: tuple[str, ...]  # UCI
    scores_white: Scores
    scores_black: Scores
    seconds: float
    nodes_white: Scores | None = None
    nodes_black: Scores | None = None
    slot: str | None = None
    pair: int | None = None
    game: int | None = None
    opening: int | None = None
    first: str | None = None
    second: str | None = None
    first_is_white: bool | None = None
    first_score: float | None = None  # 1, 0.5 or 0 for the match's first engine
    event: str | None = None
    date: str | None = None
    provenance: GameProvenance | None = None

    @property
    def plies(self) -> int:
        return len(self.moves)

    def in_match(self, **fields: Any) -> GameRecord:
        """This game with its match fields set."""
        return replace(self, **fields)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "white": self.white, "black": self.black, "fen": self.fen, "result": self.result,
            "termination": self.termination, "detail": self.detail, "moves": list(self.moves),
            "plies": self.plies,
            "scores": {"white": list(self.scores_white), "black": list(self.scores_black)},
            "seconds": self.seconds}
        if self.nodes_white is not None or self.nodes_black is not None:
            data["nodes"] = {"white": list(self.nodes_white or ()),
                             "black": list(self.nodes_black or ())}
        for name in ("slot", "pair", "game", "opening", "first", "second", "first_is_white",
                     "first_score", "event", "date"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.provenance is not None:
            data["provenance"] = self.provenance.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        nodes = data.get("nodes")
        return cls(
            white=data["white"], black=data["black"], fen=data["fen"], result=data["result"],
            termination=data["termination"], detail=data.get("detail", ""),
            moves=tuple(data["moves"]), scores_white=tuple(data["scores"]["white"]),
            scores_black=tuple(data["scores"]["black"]), seconds=float(data["seconds"]),
            nodes_white=tuple(nodes["white"]) if nodes else None,
            nodes_black=tuple(nodes["black"]) if nodes else None,
            provenance=(GameProvenance.from_json(data["provenance"])
                        if data.get("provenance") else None),
            **{name: data.get(name) for name in (
                "slot", "pair", "game", "opening", "first", "second", "first_is_white",
                "first_score", "event", "date")})


@dataclass(frozen=True)
class MatchSummary:
    """W/D/L from the first engine's view, pentanomial pair counts (LL, LD, WL+DD, WD, WW),
    the cutechess Elo with its margin and printed line, terminations and game lengths."""

    games: int
    wins: int
    losses: int
    draws: int
    pentanomial: tuple[int, int, int, int, int]
    elo: float
    margin: float
    los: float
    draw_ratio: float
    line: str
    terminations: tuple[tuple[str, int], ...]
    mean_plies: float
    game_seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "pentanomial": list(self.pentanomial), "elo": self.elo,
                "margin": self.margin, "los": self.los, "draw_ratio": self.draw_ratio,
                "line": self.line, "terminations": dict(self.terminations),
                "mean_plies": self.mean_plies, "game_seconds": self.game_seconds}


def summarise(records: Sequence[GameRecord]) -> MatchSummary:
    """The summary of one match's games (pairs: both games of one opening)."""
    from chessmoe import elo

    scored = [r for r in records if r.first_score is not None]
    wins = sum(r.first_score == 1.0 for r in scored)
    losses = sum(r.first_score == 0.0 for r in scored)
    draws = sum(r.first_score == 0.5 for r in scored)
    by_pair: dict[int, list[float]] = {}
    for r in scored:
        by_pair.setdefault(int(r.pair or 0), []).append(float(r.first_score or 0.0))
    complete = [scores for scores in by_pair.values() if len(scores) == 2]
    penta = elo.pairs_from_games([s for pair in complete for s in pair])
    estimate = elo.trinomial(wins, losses, draws)
    terminations: dict[str, int] = {}
    for r in records:
        terminations[r.termination] = terminations.get(r.termination, 0) + 1
    return MatchSummary(
        games=len(records), wins=wins, losses=losses, draws=draws, pentanomial=penta,
        elo=estimate.elo, margin=estimate.margin, los=estimate.los,
        draw_ratio=estimate.draw_ratio, line=estimate.line(),
        terminations=tuple(sorted(terminations.items())),
        mean_plies=(sum(r.plies for r in records) / len(records)) if records else 0,
        game_seconds=round(sum(r.seconds for r in records), 1))
