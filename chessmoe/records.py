"""The records a match writes and reads: one game (:class:`GameRecord`, a line of
``games.jsonl``), its pairs (:func:`complete_pairs`, the one definition every pentanomial
count uses), a match's summary, a tournament's summary and plan (``summary.json``,
``spec.json``), a two-engine run's summary and a training log's furthest step.

They sit below every layer that writes them (``chessmoe.play``) or reads them
(``chessmoe.report``), so the reading needs nothing of the playing. Their JSON keys are the
committed results' (``to_json`` / ``from_json`` round-trip them field for field).
"""

from __future__ import annotations

import json
import logging
import math
import os
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chessmoe import elo
from chessmoe._io.errors import KitError

__all__ = [
    "GamePair",
    "GameProvenance",
    "GameRecord",
    "LoggedStep",
    "MatchSummary",
    "OtherRunError",
    "PlannedMatch",
    "PlannedPlayer",
    "SpecError",
    "SprtRecord",
    "TournamentMatch",
    "TournamentPlan",
    "TournamentSummary",
    "VersusSummary",
    "complete_pairs",
    "draw_rules_of",
    "last_logged",
    "load_records",
    "mean_nodes",
    "pentanomial_counts",
    "summarise",
]

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
    ``date``) are set once the game is logged as part of a match. A record without node
    counts reads with ``nodes_*`` ``None`` (and is written back without them); one without
    per-game provenance with ``provenance`` ``None``."""

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


def load_records(paths: Sequence[str | os.PathLike[str]]) -> list[GameRecord]:
    """Game records of several JSONL logs (one match's shards): one a slot.

    A slot recorded twice (two processes appended the same game, such as a stopped run's
    orphaned workers beside its resumed run) counts once, its first record as
    :class:`~chessmoe._io.jsonl.JsonlLog` keeps it, and the extra lines are reported as a
    warning naming the log and their number, never counted as games."""
    from chessmoe._io.jsonl import read_records

    out: list[GameRecord] = []
    seen: set[str] = set()
    for path in paths:
        extra = 0
        for raw in read_records(path).records:
            record = GameRecord.from_json(raw)
            if record.slot is not None:
                if record.slot in seen:
                    extra += 1
                    continue
                seen.add(record.slot)
            out.append(record)
        if extra:
            logging.getLogger("chessmoe").warning(
                "%s: %d record(s) of games already read (the same slot twice) skipped; "
                "each slot counts once", path, extra)
    return out


# --- game pairs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GamePair:
    """One complete game pair: its number, its opening (``None`` where the records name
    none) and the first engine's score in each of its two games, in record order."""

    pair: int
    opening: int | None
    scores: tuple[float, float]

    @property
    def score(self) -> float:
        """The first engine's mean score over the pair's two games (0, 0.25 ... 1)."""
        return (self.scores[0] + self.scores[1]) / 2


def complete_pairs(records: Iterable[GameRecord]) -> dict[int, GamePair]:
    """``pair number -> GamePair``, in the order the records first name the pairs: the one
    definition of a complete game pair every pentanomial count and pair estimate of the kit
    uses (the order is the records', so sums over the pairs add in a fixed order).

    A game belongs to a pair when its record carries the pair's number and the match's score
    for the first engine (``first_score``); a pair is complete when exactly two such games
    carry its number. A pair with one game played (a match in progress, a game lost) or a
    number recorded more than twice is no pair, and a game without a pair number is in none.
    The pair's opening is its first game's."""
    games: dict[int, list[GameRecord]] = {}
    for r in records:
        if r.pair is not None and r.first_score is not None:
            games.setdefault(r.pair, []).append(r)
    return {number: GamePair(number, both[0].opening,
                             (float(both[0].first_score or 0.0),
                              float(both[1].first_score or 0.0)))
            for number, both in games.items() if len(both) == 2}


def pentanomial_counts(records: Iterable[GameRecord]) -> tuple[int, int, int, int, int]:
    """The (LL, LD, WL+DD, WD, WW) counts of the records' complete pairs
    (:func:`complete_pairs`), from the first engine's side."""
    return elo.pairs_from_games([s for p in complete_pairs(records).values() for s in p.scores])


def mean_nodes(records: Iterable[GameRecord]) -> tuple[float | None, float | None]:
    """The mean nodes a move of the match's first and second engine over every search their
    records count (``nodes_white`` / ``nodes_black``, sided by ``first_is_white``); ``None``
    for an engine no record counts nodes for (an external engine, or no game yet)."""
    nodes: dict[bool, list[float]] = {True: [], False: []}
    for r in records:
        white_is_first = bool(r.first_is_white)
        for side_nodes, is_first in ((r.nodes_white, white_is_first),
                                     (r.nodes_black, not white_is_first)):
            nodes[is_first].extend(float(n) for n in (side_nodes or ()) if n is not None)
    return (statistics.fmean(nodes[True]) if nodes[True] else None,
            statistics.fmean(nodes[False]) if nodes[False] else None)


# --- one match -------------------------------------------------------------------------------


def _float(value: Any) -> float:
    """A JSON number as written (an integer stays one, so it is written back the same),
    ``None`` as nan."""
    if value is None:
        return math.nan
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return float(value)


@dataclass(frozen=True)
class MatchSummary:
    """W/D/L from the first engine's view, pentanomial pair counts (LL, LD, WL+DD, WD, WW),
    the cutechess Elo with its margin, the interval's ends ``[low, high]`` and printed line,
    terminations and game lengths."""

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
    low: float = math.nan  # the Elo of the score's lower 95 % bound (-inf beyond a score of 0)
    high: float = math.nan  # ... of its upper bound (+inf beyond a score of 1)

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "pentanomial": list(self.pentanomial), "elo": self.elo,
                "margin": self.margin, "low": self.low, "high": self.high, "los": self.los,
                "draw_ratio": self.draw_ratio, "line": self.line,
                "terminations": dict(self.terminations), "mean_plies": self.mean_plies,
                "game_seconds": self.game_seconds}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchSummary:
        """A summary as written; one written before the interval's ends were stored gets
        them from its W/D/L (:func:`chessmoe.elo.trinomial`, as :func:`summarise`)."""
        wins, losses, draws = int(data["wins"]), int(data["losses"]), int(data["draws"])
        if "low" in data and "high" in data:
            low, high = _float(data["low"]), _float(data["high"])
        else:
            estimate = elo.trinomial(wins, losses, draws)
            low, high = estimate.low, estimate.high
        ll, ld, mixed, wd, ww = (int(c) for c in data.get("pentanomial") or (0, 0, 0, 0, 0))
        return cls(games=int(data["games"]), wins=wins, losses=losses, draws=draws,
                   pentanomial=(ll, ld, mixed, wd, ww), elo=_float(data["elo"]),
                   margin=_float(data["margin"]), los=_float(data.get("los")),
                   draw_ratio=_float(data.get("draw_ratio")), line=str(data.get("line", "")),
                   terminations=tuple(sorted((str(k), int(v)) for k, v in
                                             (data.get("terminations") or {}).items())),
                   mean_plies=_float(data.get("mean_plies", 0)),
                   game_seconds=_float(data.get("game_seconds", 0)), low=low, high=high)


def summarise(records: Sequence[GameRecord]) -> MatchSummary:
    """The summary of one match's games: W/D/L over every scored game, the pentanomial
    counts over its complete pairs (:func:`complete_pairs`), and cutechess's Elo, margin and
    interval of the W/D/L (:func:`chessmoe.elo.trinomial`)."""
    scored = [r for r in records if r.first_score is not None]
    wins = sum(r.first_score == 1.0 for r in scored)
    losses = sum(r.first_score == 0.0 for r in scored)
    draws = sum(r.first_score == 0.5 for r in scored)
    estimate = elo.trinomial(wins, losses, draws)
    terminations: dict[str, int] = {}
    for r in records:
        terminations[r.termination] = terminations.get(r.termination, 0) + 1
    return MatchSummary(
        games=len(records), wins=wins, losses=losses, draws=draws,
        pentanomial=pentanomial_counts(records), elo=estimate.elo, margin=estimate.margin,
        los=estimate.los, draw_ratio=estimate.draw_ratio, line=estimate.line(),
        terminations=tuple(sorted(terminations.items())),
        mean_plies=(sum(r.plies for r in records) / len(records)) if records else 0,
        game_seconds=round(sum(r.seconds for r in records), 1), low=estimate.low,
        high=estimate.high)


@dataclass(frozen=True)
class SprtRecord:
    """A match's sequential test as its summary records it: the test (H0 ``elo0`` against
    H1 ``elo1``, error rates, Elo model, exact LLR or not), the complete pairs it read with
    their pentanomial counts, its LLR, stopping bounds and state ("H0 accepted", "H1
    accepted" or "continue")."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    exact: bool
    pairs: int
    pentanomial: tuple[int, int, int, int, int]
    llr: float
    lower: float
    upper: float
    state: str

    @property
    def decided(self) -> bool:
        return self.state != "continue"

    @classmethod
    def of(cls, records: Sequence[GameRecord], *, elo0: float, elo1: float, alpha: float,
           beta: float, model: str, exact: bool) -> SprtRecord:
        """The test over the records' complete pairs (:func:`complete_pairs`)."""
        counts = pentanomial_counts(records)
        result = elo.sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                          pentanomial=counts, model=model, exact=exact)
        return cls(elo0, elo1, alpha, beta, model, exact, sum(counts), counts, result.llr,
                   result.lower, result.upper, result.state)

    def to_json(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "exact": self.exact, "pairs": self.pairs,
                "pentanomial": list(self.pentanomial), "llr": self.llr, "lower": self.lower,
                "upper": self.upper, "state": self.state}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SprtRecord:
        ll, ld, mixed, wd, ww = (int(c) for c in data.get("pentanomial") or (0, 0, 0, 0, 0))
        return cls(float(data["elo0"]), float(data["elo1"]), float(data["alpha"]),
                   float(data["beta"]), str(data.get("model", "logistic")),
                   bool(data.get("exact", True)), int(data.get("pairs", ll + ld + mixed + wd + ww)),
                   (ll, ld, mixed, wd, ww), float(data["llr"]), float(data["lower"]),
                   float(data["upper"]), str(data["state"]))


# --- a tournament ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TournamentMatch:
    """One match of a tournament's summary: its name, its labels (method, batch size, nodes
    ... as the design gave them), the games it plans, its :class:`MatchSummary` and, for a
    sequential test, its :class:`SprtRecord`."""

    name: str
    labels: tuple[tuple[str, Any], ...]
    planned_games: int
    summary: MatchSummary
    sprt: SprtRecord | None = None

    def label(self, key: str, default: Any = None) -> Any:
        return dict(self.labels).get(key, default)

    @property
    def complete(self) -> bool:
        """Every planned game played, or its sequential test decided."""
        return self.summary.games == self.planned_games or (
            self.sprt is not None and self.sprt.decided)

    def to_json(self) -> dict[str, Any]:
        data = {"name": self.name, "labels": dict(self.labels),
                "planned_games": self.planned_games, **self.summary.to_json()}
        if self.sprt is not None:
            data["sprt"] = self.sprt.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentMatch:
        return cls(str(data["name"]), tuple((data.get("labels") or {}).items()),
                   int(data["planned_games"]), MatchSummary.from_json(data),
                   SprtRecord.from_json(data["sprt"]) if data.get("sprt") else None)


@dataclass(frozen=True)
class TournamentSummary:
    """A tournament directory's ``summary.json``: the design's name, opening suite (name and
    the file's record), seed and adjudication (as the play layer records it), one
    :class:`TournamentMatch` per match, whether every match is complete, and the provenance
    of the run that wrote it (``None`` before it is stamped)."""

    tournament: str
    openings: str
    openings_suite: Mapping[str, Any] | None
    seed: int
    adjudication: Mapping[str, Any]
    matches: tuple[TournamentMatch, ...]
    complete: bool
    provenance: Mapping[str, Any] | None = field(default=None, compare=False)

    def match(self, name: str) -> TournamentMatch | None:
        return next((m for m in self.matches if m.name == name), None)

    def to_json(self) -> dict[str, Any]:
        data = {"tournament": self.tournament, "openings": self.openings,
                "openings_suite": (dict(self.openings_suite)
                                   if self.openings_suite is not None else None),
                "seed": self.seed, "adjudication": dict(self.adjudication),
                "matches": [m.to_json() for m in self.matches], "complete": self.complete}
        if self.provenance is not None:
            data["provenance"] = dict(self.provenance)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentSummary:
        return cls(str(data["tournament"]), str(data["openings"]), data.get("openings_suite"),
                   int(data["seed"]), dict(data.get("adjudication") or {}),
                   tuple(TournamentMatch.from_json(m) for m in data.get("matches", [])),
                   bool(data.get("complete") is True), data.get("provenance"))

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> TournamentSummary:
        """A tournament's ``summary.json`` (``path``: the file or its directory); a file that
        is no tournament summary raises :class:`~chessmoe._io.errors.KitError` naming it."""
        file = Path(path)
        if file.is_dir():
            file = file / "summary.json"
        try:
            return cls.from_json(json.loads(file.read_text(encoding="utf-8")))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise KitError(f"{file}: not a tournament summary as the kit writes it "
                           f"({type(error).__name__}: {error}); restore it from git or "
                           "rerun the tournament with --summarise") from None


# --- a tournament's plan (spec.json) ---------------------------------------------------------


class SpecError(KitError, ValueError):
    """A tournament's ``spec.json`` is missing, or is no spec as the kit writes it."""


def draw_rules_of(adjudication: Mapping[str, Any]) -> str:
    """The draw rules an adjudication record (a spec's or a summary's) names; one written
    before the field existed was played under the claim reading."""
    return str(adjudication.get("draw_rules", "claim"))


def _frozen(value: Any) -> Any:
    """A JSON value with every object as a key-sorted tuple of items and every array as a
    tuple: equal as the JSON is equal (an object's key order aside), and immutable."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} is {type(value).__name__}, not an object")
    return value


@dataclass(frozen=True)
class PlannedPlayer:
    """One player of a planned match as the spec records it: its name and its other fields
    (``settings``, key-sorted, JSON objects and arrays as tuples)."""

    name: str
    settings: tuple[tuple[str, Any], ...] = ()

    def setting(self, key: str, default: Any = None) -> Any:
        return dict(self.settings).get(key, default)

    @property
    def kind(self) -> str:
        """``mcts`` (the kit's engine), ``uci`` or a related document's engine."""
        return str(self.setting("kind", "mcts"))

    @property
    def backend(self) -> str:
        """The network backend; a spec written before backends existed played eager torch."""
        return str(self.setting("backend", "torch"))

    @property
    def search(self) -> str | None:
        """An MCTS player's tree search (``None`` for other kinds); a spec written before the
        compiled search existed was played by the Python search."""
        return str(self.setting("search", "python")) if self.kind == "mcts" else None

    @classmethod
    def from_json(cls, data: Any, where: str = "a player") -> PlannedPlayer:
        data = _object(data, where)
        if not isinstance(data.get("name"), str):
            raise ValueError(f"{where} names no player (its 'name' is {data.get('name')!r})")
        return cls(data["name"], _frozen({k: v for k, v in data.items() if k != "name"}))


@dataclass(frozen=True)
class PlannedMatch:
    """One match a spec plans: its name, game pairs, labels (key-sorted: ``kind``, method,
    nodes ... as the design gave them), opening group (``None`` in a spec written before
    groups were recorded), sequential test (its fields, ``None`` for none) and its two
    players (``None`` where the spec records no player)."""

    name: str
    pairs: int
    labels: tuple[tuple[str, Any], ...] = ()
    openings_group: str | None = None
    sprt: tuple[tuple[str, Any], ...] | None = None
    first: PlannedPlayer | None = None
    second: PlannedPlayer | None = None

    def label(self, key: str, default: Any = None) -> Any:
        return dict(self.labels).get(key, default)

    @property
    def kind(self) -> Any:
        """The design's kind of the match (``labels.kind``: method, seed, head-to-head ...)."""
        return self.label("kind")

    @property
    def games(self) -> int:
        """The games it plans: two a pair."""
        return 2 * self.pairs

    @property
    def players(self) -> tuple[PlannedPlayer, ...]:
        """The players the spec records, first then second."""
        return tuple(p for p in (self.first, self.second) if p is not None)

    @classmethod
    def from_json(cls, data: Any, where: str = "a match") -> PlannedMatch:
        data = _object(data, where)
        if not isinstance(data.get("name"), str):
            raise ValueError(f"{where} has no name (its 'name' is {data.get('name')!r})")
        where = f"match {data['name']!r}"
        if "pairs" not in data:
            raise ValueError(f"{where} plans no 'pairs'")
        try:
            pairs = int(data["pairs"])
        except (TypeError, ValueError):
            raise ValueError(f"{where}: 'pairs' is {data['pairs']!r}, not a count") from None
        players = {side: PlannedPlayer.from_json(data[side], f"the {side} player of {where}")
                   for side in ("first", "second") if side in data}
        group = data.get("openings_group")
        return cls(data["name"], pairs,
                   _frozen(_object(data.get("labels", {}), f"the labels of {where}")),
                   None if group is None else str(group),
                   (None if data.get("sprt") is None
                    else _frozen(_object(data["sprt"], f"the sprt of {where}"))),
                   players.get("first"), players.get("second"))


@dataclass(frozen=True)
class TournamentPlan:
    """A tournament directory's ``spec.json`` as the report reads it: the matches it plans
    (:class:`PlannedMatch`, in the spec's order; none for a spec that lists none), the
    adjudication it was played under (key-sorted fields; empty where the spec records
    none) and the games a worker plays side by side (1 in a spec written before it was
    recorded). The play layer writes the file (``chessmoe.play.tournament.TournamentSpec``);
    this reads every version of it."""

    matches: tuple[PlannedMatch, ...]
    adjudication: tuple[tuple[str, Any], ...] = ()
    games_at_once: int = 1

    @property
    def planned_games(self) -> int:
        """Every match's games: two a pair."""
        return sum(m.games for m in self.matches)

    @property
    def draw_rules(self) -> str:
        """The draw rules its games were played under (:func:`draw_rules_of`)."""
        return draw_rules_of(dict(self.adjudication))

    def match(self, name: str) -> PlannedMatch | None:
        return next((m for m in self.matches if m.name == name), None)

    @classmethod
    def from_json(cls, data: Any) -> TournamentPlan:
        data = _object(data, "the spec")
        matches = data.get("matches", [])
        if not isinstance(matches, list):
            raise ValueError(f"'matches' is {type(matches).__name__}, not a list")
        try:
            games_at_once = int(data.get("games_at_once", 1))
        except (TypeError, ValueError):
            raise ValueError(f"'games_at_once' is {data['games_at_once']!r}, not a count"
                             ) from None
        return cls(tuple(PlannedMatch.from_json(m, f"matches[{k}]") for k, m in enumerate(matches)),
                   _frozen(_object(data.get("adjudication", {}), "'adjudication'")),
                   games_at_once)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> TournamentPlan:
        """A tournament's ``spec.json`` (``path``: the file or its directory); a missing,
        unreadable or malformed file raises :class:`SpecError`, one line naming it."""
        file = Path(path)
        if file.is_dir():
            file = file / "spec.json"
        try:
            text = file.read_bytes()
        except FileNotFoundError:
            raise SpecError(f"{file}: no tournament spec (the file is missing); give the "
                            "directory a tournament run wrote") from None
        except OSError as error:
            raise SpecError(f"{file}: tournament spec unreadable "
                            f"({_one_line(error.strerror or error)})") from None
        try:
            return cls.from_json(json.loads(text))
        except (TypeError, ValueError) as error:  # json's errors and the checks above
            raise SpecError(f"{file}: not a tournament spec as the kit writes it "
                            f"({_one_line(error)}); restore it from git or rerun the "
                            "tournament") from None


def _one_line(error: object) -> str:
    return " ".join(str(error).split())


# --- a two-engine run ------------------------------------------------------------------------


@dataclass(frozen=True)
class VersusSummary:
    """The first engine's result against the second in a two-engine run
    (:func:`chessmoe.play.versus.versus`): W/D/L, score, cutechess Elo with its margin and
    LOS, the pentanomial counts of its complete pairs with their Elo and margin, how games
    ended and the engines' mean nodes a move (numbers rounded as written)."""

    first: str
    second: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_margin: float
    los: float
    pentanomial: tuple[int, int, int, int, int]
    pentanomial_elo: float | None  # None: written before the pairs' Elo was
    pentanomial_margin: float | None
    terminations: dict[str, int]
    mean_nodes_first: float | None
    mean_nodes_second: float | None
    line: str

    def to_json(self) -> dict[str, Any]:
        return {name: (list(getattr(self, name)) if name == "pentanomial"
                       else dict(self.terminations) if name == "terminations"
                       else getattr(self, name))
                for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VersusSummary:
        """The summary's own fields of a run's ``summary.json`` (the players, openings,
        adjudication and provenance beside them are the run's, read where needed)."""
        ll, ld, mixed, wd, ww = (int(c) for c in data.get("pentanomial") or (0, 0, 0, 0, 0))

        def optional(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else float(value)

        return cls(str(data["first"]), str(data["second"]), int(data["games"]),
                   int(data["wins"]), int(data["draws"]), int(data["losses"]),
                   float(data["score"]), _float(data["elo"]), _float(data["elo_margin"]),
                   _float(data["los"]), (ll, ld, mixed, wd, ww), optional("pentanomial_elo"),
                   optional("pentanomial_margin"),
                   {str(k): int(v) for k, v in (data.get("terminations") or {}).items()},
                   optional("mean_nodes_first"), optional("mean_nodes_second"),
                   str(data.get("line", "")))


# --- a training run's log ---------------------------------------------------------------------


@dataclass(frozen=True)
class LoggedStep:
    """How far a training run got by its ``metrics.jsonl``: the largest ``iteration`` any
    record names and the ``time`` (seconds of training) of the last record at it, ``None``
    where that record has none."""

    iteration: int
    time: float | None


def last_logged(path: str | os.PathLike[str]) -> LoggedStep | None:
    """The furthest step of the metrics log ``path`` (:class:`LoggedStep`); ``None`` when
    the file is missing or no record names an iteration above 0. A line cut short by a
    stopped run, or a record whose ``iteration`` is not a number, is passed over: the
    others still count."""
    from chessmoe._io.jsonl import read_records

    found: LoggedStep | None = None
    for record in read_records(path).records:
        iteration, time = record.get("iteration"), record.get("time")
        if isinstance(iteration, bool) or not isinstance(iteration, (int, float)):
            continue
        if not math.isfinite(iteration) or iteration <= 0:
            continue
        if found is None or iteration >= found.iteration:
            seconds = (float(time) if isinstance(time, (int, float))
                       and not isinstance(time, bool) else None)
            found = LoggedStep(int(iteration), seconds)
    return found
