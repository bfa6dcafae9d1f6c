"""Runs in progress, the README's block: each tournament with fewer games than its
``spec.json`` plans (:func:`chessmoe.played.tournaments_in_progress`) and each training run
without a manifest (:func:`chessmoe.nets.bundles.training_in_progress`), with what is done,
the rate measured in its own records and what is left at that rate; and the runs a begun
design still owes (:func:`training_not_begun`). Rates are wall-clock on the machine that ran
them, shared with whatever else ran beside it: an estimate of the work left, not of the time
another machine needs.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

from chessmoe.designs import registry
from chessmoe.nets.bundles import stages_not_begun, training_in_progress
from chessmoe.played import tournaments_in_progress
from chessmoe.report.blocks import Block

__all__ = ["BEGIN", "END", "progress_lines", "refresh", "training_not_begun"]

BLOCK = Block("progress", "chessmoe.report.progress", "results/")
BEGIN, END = BLOCK.begin, BLOCK.end


def training_not_begun(results: Path) -> list[tuple[str, str]]:
    """The training runs a begun design still owes that have not started (so no rate), as
    ``(<profile>/<bundle>[/<expert>], what is left)``: each begun mixture bundle's experts and
    stages not begun (:func:`~chessmoe.nets.bundles.stages_not_begun`), then each bundle a
    registered design awaits (:attr:`~chessmoe.designs.base.Design.awaited`) missing from a
    profile that has begun one of them."""
    out: list[tuple[str, str]] = []
    root = results / "experts"
    if not root.is_dir():
        return out
    for profile in sorted(p for p in root.iterdir() if p.is_dir()):
        for bundle in sorted(p for p in profile.iterdir() if p.is_dir()):
            out += stages_not_begun(results, bundle)
        for design in registry.REGISTERED:
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
    finished = _finished_hours(results)
    for name, left in _grouped(waiting):
        took = finished.get(name)
        rate = (f"{_hours(sum(took) / len(took) * 3600)} a network (its {len(took)} finished)"
                if took else "no rate yet")
        lines.append(f"| training `{name}` | {left} | - | {rate} | not timed |")
    return lines


def _wall_seconds(bundle: Path) -> float:
    """The wall-clock seconds a finished bundle's runs logged (each run's last ``time``)."""
    total = 0.0
    for log in bundle.rglob("metrics.jsonl"):
        last = 0.0
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                last = max(last, float(json.loads(line).get("time", 0.0)))
            except (ValueError, TypeError, AttributeError):
                continue  # a line cut short by a stopped run: the others carry the time
        total += last
    return total


def _finished_hours(results: Path) -> dict[str, list[float]]:
    """For each design's group of awaited networks (:func:`_grouped`'s name), the hours each
    of its finished networks (those with a ``manifest.json``) took, from their own logs."""
    out: dict[str, list[float]] = {}
    root = results / "experts"
    for design in registry.REGISTERED:
        if not design.awaited or not root.is_dir():
            continue
        for profile in sorted(p for p in root.iterdir() if p.is_dir()):
            took = [_wall_seconds(profile / b) / 3600 for b in design.awaited
                    if (profile / b / "manifest.json").is_file()]
            if took:
                out[_group_name(profile.name, design.name, design.awaited)] = took
    return out


def _group_name(profile: str, design: str, awaited: Sequence[str]) -> str:
    """How the runs-in-progress table names a design's awaited networks together
    (``small/scale-* (scale design)``)."""
    common = os.path.commonprefix(list(awaited))  # noqa: RUF071 (bundle names, not paths)
    return f"{profile}/{common}* ({design} design)"


def _grouped(waiting: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``waiting`` with the networks a design awaits collapsed into one entry per design and
    profile where there are more than three (``small/scale-* (scale design)``: 20 networks
    not begun)."""
    out = list(waiting)
    for design in registry.REGISTERED:
        owed = {b for b in design.awaited}
        for profile in sorted({n.split("/", 1)[0] for n, _ in out}):
            mine = [(n, left) for n, left in out if left == "not begun"
                    and n.split("/", 1)[0] == profile and n.split("/", 1)[1] in owed]
            if len(mine) > 3:
                first = out.index(mine[0])
                out = [e for e in out if e not in mine]
                out.insert(first, (_group_name(profile, design.name, design.awaited),
                                   f"{len(mine)} networks not begun ({mine[0][0].split('/')[1]}"
                                   f" ... {mine[-1][0].split('/')[1]})"))
    return out


def refresh(text: str, lines: Sequence[str]) -> str:
    """``text`` with the runs-in-progress block replaced by ``lines``."""
    return BLOCK.replace(text, lines)
