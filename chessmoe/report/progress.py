"""Runs in progress, read from the committed results: each tournament with fewer games than
its ``spec.json`` plans and each training run without a manifest, with what is done, the rate
measured in its own records and what is left at that rate.

Rates are what the records say, not a benchmark: a game's ``seconds`` and a training log's
``time`` are wall-clock on the machine that ran them, shared with whatever else ran beside
it, so a table row is an estimate of the work left, not of the time another machine needs.
A worker plays ``games_at_once`` games of a shard side by side, so a shard's time is the
makespan of its games' durations over that many lanes (each lane takes the next game when
its last one ends), not their sum. A match without a game has no rate and its games are
counted as left but not timed.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe import elo
from chessmoe.designs.registry import REGISTERED
from chessmoe.played import planned_pairs
from chessmoe.records import (
    GameRecord,
    SpecError,
    TournamentPlan,
    last_logged,
    load_records,
    pentanomial_counts,
)
from chessmoe.report.blocks import Block

__all__ = ["BEGIN", "END", "TournamentProgress", "TrainingProgress", "makespan", "progress_lines",
           "refresh", "sprt_decided", "tournaments_in_progress", "training_in_progress",
           "training_not_begun"]

BLOCK = Block("progress", "chessmoe.report.progress", "results/")
BEGIN, END = BLOCK.begin, BLOCK.end


@dataclass(frozen=True)
class TournamentProgress:
    """One unfinished tournament: games committed and planned, one worker's seconds a game
    over the unfinished matches' committed games (shard makespans over games), and the
    seconds left for one worker at each begun match's own rate (``untimed``: the games left
    in matches with no game yet; ``finished_rate``: one worker's seconds a game over its
    complete matches, the only rate those have). An SPRT match plans its cap: it may stop
    long before."""

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


@dataclass(frozen=True)
class TrainingProgress:
    """One unfinished training run (a bundle part without a manifest beside it): the last
    iteration its log records, the iterations planned, and the mean seconds an iteration."""

    name: str
    iterations: int
    planned: int
    seconds_per_iteration: float
    capped: bool = False  # stops once its validation loss stops improving: at most planned

    @property
    def seconds_left(self) -> float:
        return (self.planned - self.iterations) * self.seconds_per_iteration


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


def _tournament(directory: Path) -> TournamentProgress | None:
    planned = planned_pairs(directory, 0)
    if not planned:
        return None
    lanes, sequential, registered = _spec(directory)
    unregistered = 2 * sum(p for m, p in planned.items() if m not in registered)
    total = 2 * sum(planned.values())
    games = complete = untimed = open_sprt = timed = done_games = 0
    seconds = left = done_seconds = 0.0
    for match, pairs in planned.items():
        played = 0
        spent = 0.0
        every: list[GameRecord] = []
        for shard in sorted((directory / match).glob("games-*.jsonl")):
            records = load_records([shard])
            every += records
            played += len(records)
            spent += makespan([r.seconds for r in records], lanes)
        games += played
        wanted = 2 * pairs
        if match in sequential and played and sprt_decided(sequential[match], every):
            wanted = played  # its test decided: what it played is all it plans
            total -= 2 * pairs - played
        if played < wanted:
            seconds += spent
            timed += played
        else:
            done_seconds += spent
            done_games += played
        complete += played >= wanted
        missing = max(0, wanted - played)
        open_sprt += bool(missing) and match in sequential
        if played:
            left += missing * spent / played
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
    found = (_tournament(d) for d in sorted(root.iterdir()) if d.is_dir()) if root.is_dir() else ()
    return [t for t in found if t is not None]


def _epoch_cap(results: Path, config: dict[str, Any]) -> int:
    """The iterations a run without a fixed count plans (its epochs over its training set,
    whose size the dataset's committed manifest records: ``results/datasets/<name>``)."""
    from chessmoe.nets.training import epoch_iterations

    data, train = config["data"], config["train"]
    manifest = json.loads((results / "datasets" / Path(data["dataset_dir"]).name
                           / "manifest.json").read_text(encoding="utf-8"))
    positions = manifest["datasets"][data["definition"]]["train"][data["train"]]["positions"]
    return epoch_iterations(float(train["epochs"]), int(train["batch_size"]), int(positions))


def _training(results: Path, run: Path, name: str) -> TrainingProgress | None:
    try:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
        fixed = config["train"]["iterations"]
        planned = int(fixed) if fixed is not None else _epoch_cap(results, config)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    last = last_logged(run / "metrics.jsonl")
    if last is None or last.time is None or last.iteration >= planned:
        return None
    done = last.iteration
    stops = config["train"].get("patience") is not None  # may stop before what it plans
    return TrainingProgress(name, done, planned, last.time / done, capped=stops)


def _runs(bundle: Path) -> list[Path]:
    """The training runs of an unfinished bundle: each expert's directory, and each stage's
    of a staged expert (``<expert>/stages/stage2-endgame``), that has a ``config.json`` and
    no ``summary.json`` (a finished run writes one)."""
    found = [*bundle.glob("*/config.json"), *bundle.glob("*/stages/*/config.json")]
    return sorted(c.parent for c in found if not (c.parent / "summary.json").exists())


def training_in_progress(results: Path) -> list[TrainingProgress]:
    """Every training run under ``results/experts/<profile>/<bundle>/<expert>`` (or a stage of
    a staged expert, ``<expert>/stages/<stage>``) whose bundle has no ``manifest.json`` yet (a
    finished bundle writes one), that has not written its ``summary.json`` and whose log stops
    short of the iterations its ``config.json`` plans."""
    out: list[TrainingProgress] = []
    root = results / "experts"
    if not root.is_dir():
        return out
    for bundle in sorted(p for p in root.glob("*/*") if p.is_dir()):
        if (bundle / "manifest.json").exists():
            continue
        for run in _runs(bundle):
            parts = run.relative_to(bundle).parts
            where = parts[0] if len(parts) == 1 else f"{parts[0]}/{parts[-1]}"
            found = _training(results, run, f"{bundle.parent.name}/{bundle.name}/{where}")
            if found is not None:
                out.append(found)
    return out


def _phase_count(results: Path, config: dict[str, Any]) -> int | None:
    """The phases of the definition a run's ``config.json`` trains on (its dataset's committed
    manifest: every split but ``no-phases``); ``None`` where that cannot be read."""
    try:
        data = config["data"]
        manifest = json.loads((results / "datasets" / Path(data["dataset_dir"]).name
                               / "manifest.json").read_text(encoding="utf-8"))
        return sum(1 for s in manifest["datasets"][data["definition"]]["train"]
                   if s != "no-phases")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def training_not_begun(results: Path) -> list[tuple[str, str]]:
    """The training runs a begun design still owes that have not started (so no rate): each
    bundle a registered design awaits (:attr:`~chessmoe.designs.base.Design.awaited`) missing
    from a profile that has begun one of them, and each expert (``phase<p>``) missing from a
    mixture bundle that has begun but has no ``manifest.json``, and the stages a begun staged
    expert has not started (one a phase); as ``(<profile>/<bundle>[/<expert>], what is
    left)``."""
    out: list[tuple[str, str]] = []
    root = results / "experts"
    if not root.is_dir():
        return out
    for profile in sorted(p for p in root.iterdir() if p.is_dir()):
        for bundle in sorted(p for p in profile.iterdir() if p.is_dir()):
            begun = sorted(bundle.glob("phase*/config.json"))
            if (bundle / "manifest.json").exists() or not begun:
                continue
            try:
                config = json.loads(begun[0].read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            phases = _phase_count(results, config) or 0
            for p in range(phases):
                expert = bundle / f"phase{p}"
                if not expert.is_dir():
                    out.append((f"{profile.name}/{bundle.name}/phase{p}", "not begun"))
                    continue
                stages = [s for s in (expert / "stages").glob("*") if s.is_dir()]
                if stages and len(stages) < phases:  # staged: one stage a phase
                    left = phases - len(stages)
                    out.append((f"{profile.name}/{bundle.name}/phase{p}",
                                f"{left} more stage{'s' if left > 1 else ''} not begun"))
        for design in REGISTERED:
            if any((profile / b).is_dir() for b in design.awaited):
                out += [(f"{profile.name}/{b}", "not begun") for b in design.awaited
                        if not (profile / b).is_dir()]
    return out


def _hours(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours:.1f} h" if hours < 10 else f"{hours:.0f} h"


def progress_lines(results: Path) -> list[str]:
    """The README's table of runs in progress (one line saying there is none otherwise)."""
    tournaments = tournaments_in_progress(results)
    training = training_in_progress(results)
    waiting = training_not_begun(results)
    if not tournaments and not training and not waiting:
        return ["No run is in progress: every tournament has its planned games and every "
                "training run its manifest."]
    lines = ["Runs that need more sessions (`make results` and `chessmoe tournament` resume "
             "them). Rates are the runs' own records: wall-clock on the 2-core machine that "
             "ran them, shared with the other runs, one worker each.", "",
             "| run | done | planned | measured rate | left at that rate |",
             "|---|---|---|---|---|"]
    for t in tournaments:
        left = _hours(t.seconds_left) + " of one worker"
        if t.open_sprt:
            left = f"at most {left} ({t.open_sprt} SPRT match stops at its decision)"
        if t.untimed:
            not_begun = f"{t.untimed:,} games of matches not begun (no rate of their own yet"
            if t.unregistered:
                not_begun = (f"{t.untimed:,} games of matches not begun ({t.unregistered:,} of "
                             "them in matches not registered yet: each waits for its "
                             "networks; no rate of their own yet")
            if not math.isnan(t.finished_rate):
                not_begun += (f"; {'then ' if t.unregistered else ''}about "
                              f"{_hours(t.untimed * t.finished_rate)} at its complete "
                              f"matches' {t.finished_rate:.1f} s a game")
            not_begun += ")"
            left = f"{left}, and {not_begun}" if t.seconds_left > 0 else not_begun
        rate = (f"{t.seconds_per_game:.0f} s a game" if not math.isnan(t.seconds_per_game)
                else f"{t.finished_rate:.1f} s a game (its complete matches)"
                if not math.isnan(t.finished_rate) else "no game yet")
        lines.append(f"| tournament `{t.name}` | {t.games:,} games ({t.complete} of "
                     f"{t.matches} matches complete) | {t.planned:,} games | {rate} | {left} |")
    for r in training:
        planned, left = f"{r.planned:,}", _hours(r.seconds_left)
        if r.capped:
            planned = f"at most {planned} (until its validation loss stops improving)"
            left = f"at most {left}"
        lines.append(f"| training `{r.name}` | {r.iterations:,} iterations logged | "
                     f"{planned} | {r.seconds_per_iteration:.2f} s an iteration | {left} |")
    lines += [f"| training `{name}` | {left} | - | no rate yet | not timed |"
              for name, left in waiting]
    return lines


def refresh(text: str, lines: Sequence[str]) -> str:
    """``text`` with the runs-in-progress block replaced by ``lines``."""
    return BLOCK.replace(text, lines)
