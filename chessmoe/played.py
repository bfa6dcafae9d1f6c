"""What a tournament directory has played and what it plans, read from its files: its game
records, the pairs each match plans, whether every planned game is played and under which draw
rules, how far an unfinished one has got (:func:`tournaments_in_progress`), and under which
draw rules and from which checkout each match's games were played (:func:`tournament_ledger`).
Reports and the tournament designs' readings read tournaments through here.
"""

from __future__ import annotations

import heapq
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe import elo
from chessmoe._io.errors import KitError
from chessmoe.records import (
    GameRecord,
    SpecError,
    TournamentPlan,
    TournamentSummary,
    draw_rules_of,
    load_records,
    pentanomial_counts,
)

__all__ = ["MatchLedger", "PlayedBy", "TournamentProgress", "complete", "draw_rules",
           "load_arms", "makespan", "planned_games", "planned_pairs", "read_plan", "rules_named",
           "sprt_decided", "tournament_ledger", "tournament_progress", "tournaments_in_progress",
           "unrecorded"]


def planned_games(tournament: str | os.PathLike[str]) -> int | None:
    """Games the tournament plans (two per pair of every match of :func:`planned_pairs`);
    ``None`` without a readable ``spec.json``."""
    plan = read_plan(tournament)
    return None if plan is None else 2 * sum(planned_pairs(Path(tournament), 0).values())


def read_plan(tournament: str | os.PathLike[str]) -> TournamentPlan | None:
    """The tournament's ``spec.json``; ``None`` without a readable one (a tournament not
    begun, or a directory that is none)."""
    try:
        return TournamentPlan.read(Path(tournament) / "spec.json")
    except SpecError:
        return None


def load_arms(tournament: str | os.PathLike[str]) -> dict[str, list[GameRecord]]:
    """Every match's game records of a tournament directory (``<match>/games-*.jsonl``)."""
    arms: dict[str, list[GameRecord]] = {}
    for match in sorted(p for p in Path(tournament).iterdir() if p.is_dir()):
        records = load_records(sorted(match.glob("games-*.jsonl")))
        if records:
            arms[match.name] = records
    return arms



def complete(tournament: str | os.PathLike[str]) -> bool:
    """Whether the tournament has played every game it plans (``False`` without a plan)."""
    planned = planned_games(tournament)
    return (planned is not None and Path(tournament).exists()
            and sum(len(r) for r in load_arms(tournament).values()) >= planned)


def draw_rules(tournament: str | os.PathLike[str]) -> str:
    """The draw rules a tournament was played under, from its ``spec.json`` (a spec written
    before the field existed was played under the claim reading); '' without a readable
    spec."""
    plan = read_plan(tournament)
    return "" if plan is None else plan.draw_rules


def rules_named(adjudication: object) -> str | None:
    """The draw rules an adjudication record (a spec's or a summary's ``adjudication``)
    names: one written before the field existed means the claim reading; ``None`` when
    there is no record at all."""
    if not isinstance(adjudication, dict):
        return None
    return draw_rules_of(adjudication)



def planned_pairs(tournament: str | os.PathLike[str], default: int) -> dict[str, int]:
    """Pairs per match name that ``tournament`` plans: every match of its ``spec.json``, then
    every match its ``summary.json`` lists that the spec does not list yet (a design whose
    matches are registered one at a time, as their networks are trained),
    at half the summary's planned games, or ``default`` pairs where that is no even count.
    Empty without a readable spec (a tournament not begun)."""
    plan = read_plan(tournament)
    if plan is None:
        return {}
    pairs = {m.name: m.pairs for m in plan.matches}
    try:
        summary = TournamentSummary.read(Path(tournament))
    except (OSError, KitError):
        return pairs  # no summary yet (or none readable): the spec is the whole plan
    for match in summary.matches:
        if match.name not in pairs:
            even = match.planned_games > 0 and match.planned_games % 2 == 0
            pairs[match.name] = match.planned_games // 2 if even else default
    return pairs


@dataclass(frozen=True)
class TournamentProgress:
    """One unfinished tournament: games committed and planned, one worker's seconds a game
    over the unfinished matches' committed games (shard makespans over games), and the
    seconds left for one worker at each begun match's own rate (``untimed``: the games left
    in matches with no game yet; ``finished_rate``: one worker's seconds a game over its
    complete matches, the only rate those have). An SPRT match plans its cap: it may stop
    long before.

    Rates are what the records say, not a benchmark: a game's ``seconds`` is wall-clock on the
    machine that ran it, shared with whatever else ran beside it. A worker plays ``games_at_once``
    games of a shard side by side, so a shard's time is the makespan of its games' durations over
    that many lanes (:func:`makespan`), not their sum.
    """

    name: str
    games: int
    planned: int
    matches: int
    complete: int
    seconds_per_game: float
    seconds_left: float
    untimed: int
    open_sprt: int = 0  # unfinished matches that stop at their SPRT's decision
    finished_rate: float = math.nan  # seconds a game over the complete matches
    unregistered: int = 0  # games of the design's matches its spec.json does not list yet


def makespan(durations: Sequence[float], lanes: int) -> float:
    """The time ``lanes`` side-by-side lanes take for ``durations`` in order, each lane
    taking the next game as soon as its last one ends."""
    free = [0.0] * max(1, min(lanes, len(durations)))
    for seconds in durations:
        heapq.heapreplace(free, free[0] + seconds)
    return max(free) if durations else 0.0


def _spec(directory: Path) -> tuple[int, dict[str, dict[str, Any]], set[str]]:
    """``games_at_once`` (1 when the spec names none), each SPRT match's test (its fields as
    the spec records them) and the matches the spec lists (registered before their first
    game)."""
    try:
        plan = TournamentPlan.read(directory / "spec.json")
    except SpecError:
        return 1, {}, set()
    return (max(1, plan.games_at_once), {m.name: dict(m.sprt) for m in plan.matches if m.sprt},
            {m.name for m in plan.matches})


def sprt_decided(test: dict[str, Any], records: Sequence[GameRecord]) -> bool:
    """Whether ``records`` decide a match's sequential test (the spec's fields: bounds,
    error rates, model; the exact pentanomial LLR unless the spec says otherwise), as the
    tournament runner decides when to stop the match."""
    state = elo.sprt(elo0=float(test["elo0"]), elo1=float(test["elo1"]),
                     alpha=float(test.get("alpha", 0.05)), beta=float(test.get("beta", 0.05)),
                     pentanomial=pentanomial_counts(records),
                     model=str(test.get("model", "logistic")),
                     exact=bool(test.get("exact", True))).state
    return state != "continue"


def tournament_progress(directory: Path) -> TournamentProgress | None:
    """The progress of the tournament in ``directory``; ``None`` once it has every game it
    plans (or without a plan)."""
    planned = planned_pairs(directory, 0)
    if not planned:
        return None
    lanes, sequential, registered = _spec(directory)
    unregistered = 2 * sum(p for m, p in planned.items() if m not in registered)
    total = 2 * sum(planned.values())
    games = complete = untimed = open_sprt = timed = done_games = 0
    seconds = left = done_seconds = 0.0
    for match, pairs in planned.items():
        count = 0
        spent = 0.0
        every: list[GameRecord] = []
        for shard in sorted((directory / match).glob("games-*.jsonl")):
            records = load_records([shard])
            every += records
            count += len(records)
            spent += makespan([r.seconds for r in records], lanes)
        games += count
        wanted = 2 * pairs
        if match in sequential and count and sprt_decided(sequential[match], every):
            wanted = count  # its test decided: what it played is all it plans
            total -= 2 * pairs - count
        if count < wanted:
            seconds += spent
            timed += count
        else:
            done_seconds += spent
            done_games += count
        complete += count >= wanted
        missing = max(0, wanted - count)
        open_sprt += bool(missing) and match in sequential
        if count:
            left += missing * spent / count
        else:
            untimed += missing
    if games >= total:
        return None
    return TournamentProgress(directory.name, games, total, len(planned), complete,
                              seconds / timed if timed else math.nan, left, untimed,
                              open_sprt, done_seconds / done_games if done_games else math.nan,
                              unregistered)


def tournaments_in_progress(results: Path) -> list[TournamentProgress]:
    """Every tournament under ``results/tournaments`` whose games fall short of its plan."""
    root = results / "tournaments"
    found = ((tournament_progress(d) for d in sorted(root.iterdir()) if d.is_dir())
             if root.is_dir() else ())
    return [t for t in found if t is not None]


def unrecorded(rules: str) -> str:
    """The label of games whose records name no draw rules, played in a tournament whose
    ``spec.json`` names ``rules`` (:func:`chessmoe.played.draw_rules`)."""
    return f"{rules or 'unknown'} (from spec.json; the records name none)"


@dataclass(frozen=True)
class PlayedBy:
    """Games of one match played by one checkout: ``commit`` (``None``: not recorded) and
    whether its tracked files differed from it (``dirty``; ``None``: not recorded)."""

    commit: str | None
    dirty: bool | None
    games: int


@dataclass(frozen=True)
class MatchLedger:
    """One match of a tournament folder: games found, games per draw rules, games per
    checkout, and the first and last game's date (``None`` where records carry none)."""

    tournament: str
    match: str
    games: int
    draw_rules: tuple[tuple[str, int], ...]
    played_by: tuple[PlayedBy, ...]
    first_date: str | None
    last_date: str | None


def tournament_ledger(tournament: str | os.PathLike[str]) -> tuple[MatchLedger, ...]:
    """Every match folder of ``tournament`` that holds games (``<match>/games-*.jsonl``),
    in name order."""
    root = Path(tournament)
    if not root.is_dir():
        return ()
    spec_rules = unrecorded(draw_rules(root))
    out: list[MatchLedger] = []
    for match, records in load_arms(root).items():
        rules: Counter[str] = Counter()
        checkouts: Counter[tuple[str | None, bool | None]] = Counter()
        for record in records:
            prov = record.provenance
            rules[(prov.draw_rules if prov is not None else None) or spec_rules] += 1
            checkouts[(prov.commit, prov.dirty) if prov is not None else (None, None)] += 1
        dates = sorted(r.date for r in records if r.date)
        out.append(MatchLedger(
            tournament=root.name, match=match, games=len(records),
            draw_rules=tuple(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0]))),
            played_by=tuple(PlayedBy(commit, dirty, n) for (commit, dirty), n in
                            sorted(checkouts.items(), key=lambda kv: (-kv[1], str(kv[0])))),
            first_date=dates[0] if dates else None, last_date=dates[-1] if dates else None))
    return tuple(out)
