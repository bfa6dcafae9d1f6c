"""The games behind the figures: for each committed tournament, under which draw rules and
from which commit every game was played, read from the game records themselves.

A tournament's ``summary.json`` says how it was *meant* to be played; each game record's
``provenance`` says how it *was* played (a tournament spread over sessions can mix commits, and
a replay can sit beside the run it replays). ``make figures`` writes this ledger into
``figures/INDEX.md`` so a reviewer sees, for every Elo a figure prints, the rules and the code
behind its games without opening a JSONL file.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe import played
from chessmoe.records import SpecError, TournamentPlan

__all__ = ["CUTECHESS", "BundleRecord", "MatchLedger", "PlayedBy", "bundle_records",
           "dirty_bundles", "ledger_lines", "tournament_ledger", "unrecorded"]

#: The draw rules the kit's figures are meant to rest on (cutechess-cli's own reading).
CUTECHESS = "cutechess"


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
    spec_rules = unrecorded(played.draw_rules(root))
    out: list[MatchLedger] = []
    for match, records in played.load_arms(root).items():
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


def _planned_matches(tournament: Path) -> int | None:
    """Matches the tournament plans (:func:`~chessmoe.played.planned_pairs`: the
    registered ones and the design's others); ``None`` without a readable spec."""
    try:
        TournamentPlan.read(tournament / "spec.json")
    except SpecError:
        return None
    return len(played.planned_pairs(tournament, 0))


def _checkout(commit: str | None, dirty: bool | None) -> str:
    if commit is None:
        return "commit not recorded"
    state = {True: "dirty", False: "clean", None: "state not recorded"}[dirty]
    return f"`{commit[:8]}` {state}"


def _count(pairs: Sequence[tuple[str, int]]) -> str:
    return "; ".join(f"{name}: {n:,}" for name, n in pairs)


def ledger_lines(folders: Mapping[str, Sequence[str]], results: Path) -> list[str]:
    """Markdown lines of ``figures/INDEX.md``'s ledger: one row per tournament folder of
    ``folders`` (results-relative folder -> the notebooks reading it), with its matches and
    games (against those planned), games per draw rules, games per checkout and dates; and a
    first line that counts the games not played under cutechess rules, naming where."""
    rows: list[str] = []
    total = 0
    other: Counter[str] = Counter()
    for folder, readers in sorted(folders.items()):
        ledger = tournament_ledger(results / folder)
        if not ledger:
            continue
        games = sum(m.games for m in ledger)
        planned, matches = played.planned_games(results / folder), _planned_matches(
            results / folder)
        of_games = f" of {planned:,} planned" if planned is not None else ""
        of_matches = f" of {matches}" if matches is not None else ""
        rules: Counter[str] = Counter()
        checkouts: Counter[str] = Counter()
        for m in ledger:
            rules.update(dict(m.draw_rules))
            for p in m.played_by:
                checkouts[_checkout(p.commit, p.dirty)] += p.games
        total += games
        other[folder] += games - rules[CUTECHESS]
        dates = sorted({d for m in ledger for d in (m.first_date, m.last_date) if d})
        span = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else "-"
        reader = ", ".join(f"`{r}`" for r in readers)
        rows.append(f"| `results/{folder}` | {len(ledger)}{of_matches} | {games:,}{of_games} | "
                    f"{_count(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])))} | "
                    f"{_count(sorted(checkouts.items(), key=lambda kv: (-kv[1], kv[0])))} | "
                    f"{span} | {reader} |")
    if not rows:
        return []
    elsewhere = {f: n for f, n in other.items() if n}
    verdict = (f"All {total:,} game{'s' if total != 1 else ''} behind these figures were "
               "played under cutechess rules."
               if not elsewhere else
               f"{total - sum(elsewhere.values()):,} of the {total:,} games behind these "
               f"figures were played under cutechess rules; the others are in "
               + ", ".join(f"`results/{f}` ({n:,})" for f, n in sorted(elsewhere.items()))
               + ".")
    return ["## Games behind the figures", "",
            "Read from every game record's own provenance (`games-*.jsonl`), not from the "
            "tournament's summary. " + verdict, "",
            "| tournament | matches played | games | draw rules (games) | played by (games) "
            "| dates | read by |", "|---|---|---|---|---|---|---|", *rows]


@dataclass(frozen=True)
class BundleRecord:
    """One provenance record of a trained bundle: which file (``phase0/config.json``: the
    run's start; ``.../summary.json``: its end; ``manifest.json``, ``evaluation.json``), the
    commit it names, whether the checkout's tracked files differed from it, and which
    (``changed``, repository paths; ``None`` where the record does not list them all)."""

    file: str
    commit: str
    dirty: bool
    changed: tuple[str, ...] | None = None

    def differs_outside(self, bundle: str) -> bool:
        """Whether the checkout may have differed from the commit in anything but the files
        of ``bundle`` (its repository path, ``results/experts/small/regular-converged``): a
        run resumed from its own state, written after its commit, records those files as
        changed and still ran the commit's code. A dirty record without the full list of
        changed files counts as differing."""
        if not self.dirty:
            return False
        if self.changed is None:
            return True
        inside = bundle.rstrip("/") + "/"
        return any(not path.startswith(inside) for path in self.changed)


def bundle_records(bundle: str | os.PathLike[str]) -> list[BundleRecord]:
    """Every provenance record of a bundle directory: each expert's ``config.json`` and
    ``summary.json``, each stage's of a staged expert (``phase0/stages/stage1-middlegame/``),
    then the bundle's ``dataset-manifest.json`` (the dataset copy it trained on),
    ``manifest.json`` and ``evaluation.json``."""
    root = Path(bundle)
    files = [*sorted(root.glob("*/config.json")), *sorted(root.glob("*/summary.json")),
             *sorted(root.glob("*/stages/*/config.json")),
             *sorted(root.glob("*/stages/*/summary.json")),
             root / "dataset-manifest.json", root / "manifest.json", root / "evaluation.json"]
    out = []
    for path in files:
        if not path.is_file():
            continue
        git = json.loads(path.read_text()).get("provenance", {}).get("git")
        if isinstance(git, dict) and "commit" in git:
            listed = git.get("changed")
            changed = (tuple(str(c) for c in listed) if isinstance(listed, list)
                       and git.get("changed_count") == len(listed) else None)
            out.append(BundleRecord(str(path.relative_to(root)), str(git["commit"]),
                                    bool(git.get("dirty")), changed))
    return out


def dirty_bundles(experts: str | os.PathLike[str]) -> dict[str, list[BundleRecord]]:
    """The bundles under ``experts`` with a record written from a checkout whose tracked files
    differed from its commit (training, its manifest or its evaluation), with those records;
    :meth:`BundleRecord.differs_outside` tells a record whose checkout differed only in the
    bundle's own files (a resumed run's state) from one that may have run other code."""
    out = {}
    for bundle in sorted(p for p in Path(experts).iterdir() if p.is_dir()):
        dirty = [r for r in bundle_records(bundle) if r.dirty]
        if dirty:
            out[bundle.name] = dirty
    return out
