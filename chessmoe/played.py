"""What a tournament directory has played and what it plans, read from its files: every
match's game records (``<match>/games-*.jsonl``), the pairs each match plans (``spec.json``,
then ``summary.json`` for matches registered since), whether every planned game is played,
and the draw rules it was played under. Reports and the tournament designs' readings read
tournaments through here.
"""

from __future__ import annotations

import os
from pathlib import Path

from chessmoe._io.errors import KitError
from chessmoe.records import (
    GameRecord,
    SpecError,
    TournamentPlan,
    TournamentSummary,
    draw_rules_of,
    load_records,
)

__all__ = ["complete", "draw_rules", "load_arms", "planned_games", "planned_pairs", "read_plan",
           "rules_named"]


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
    matches are registered one at a time, as their networks are trained: ``converged``),
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

