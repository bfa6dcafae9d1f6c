"""The games behind the figures: for each committed tournament, under which draw rules and
from which commit every game was played, read from the game records themselves
(:func:`chessmoe.played.tournament_ledger`).

A tournament's ``summary.json`` says how it was *meant* to be played; each game record's
``provenance`` says how it *was* played (a tournament spread over sessions can mix commits, and
a replay can sit beside the run it replays). ``make figures`` writes this ledger into
``figures/INDEX.md`` so a reviewer sees, for every Elo a figure prints, the rules and the code
behind its games without opening a JSONL file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from chessmoe import played
from chessmoe._io.provenance import checkout_label
from chessmoe.records import SpecError, TournamentPlan

__all__ = ["CUTECHESS", "ledger_lines"]

#: The draw rules the kit's figures are meant to rest on (cutechess-cli's own reading).
CUTECHESS = "cutechess"


def _planned_matches(tournament: Path) -> int | None:
    """Matches the tournament plans (:func:`~chessmoe.played.planned_pairs`: the
    registered ones and the design's others); ``None`` without a readable spec."""
    try:
        TournamentPlan.read(tournament / "spec.json")
    except SpecError:
        return None
    return len(played.planned_pairs(tournament, 0))


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
        ledger = played.tournament_ledger(results / folder)
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
                checkouts[checkout_label(p.commit, p.dirty)] += p.games
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
