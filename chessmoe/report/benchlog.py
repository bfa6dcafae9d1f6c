"""BENCHMARKS.md read back: the "latest" table at its top, generated from the log below it.

``make bench`` (``benchmarks/bench.py``) appends one entry per run, newest last::

    ## 2026-11-23T13:11:28+00:00 — commit e10ebaac7f94 (dirty)

    Machine: AMD EPYC, 2 cores, 23.5 GiB, GPU: none; Python 3.11.7, ...

    ### MCTS search

    | measure | value |
    |---|---|
    | uniform evaluator, batch 8 | 6,893 simulations/s (0.55 per generated position) |

    Target: uniform search >= 0.5x ... — **NOT met**.

:func:`latest` keeps each benchmark's newest section (a benchmark is a section title without
the "(issue ...)" note older entries end with), and :func:`refresh` writes them as a table
between :data:`BEGIN` and :data:`END` under the file's title, with each one's newest value,
date, commit, machine, target and whether it was met, all copied from the log.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.report.blocks import Block

__all__ = ["BEGIN", "END", "HEADLINES", "Section", "latest", "latest_table", "parse_log",
           "refresh"]

BLOCK = Block("latest", "chessmoe.report.benchlog", "the log below")
BEGIN, END = BLOCK.begin, BLOCK.end

#: The measures a benchmark's target is about (prefixes of their names), shown as its newest
#: value; a benchmark not listed here, or whose newest section has none of them, shows all.
HEADLINES: dict[str, tuple[str, ...]] = {
    "Phase-statistics pass": ("chessmoe stats pass, 1 process", "ratio (ours / baseline)"),
    "Phase dataset build": ("chessmoe build, 1 process", "ratio (ours / baseline)"),
    "Plane expansion": ("numpy, batch 1024, 1 thread",),
    "Training throughput": ("small preset, batch 256, CPU, 1 thread", "paper preset"),
    "MCTS search": ("python-chess legal-move generation", "uniform evaluator, batch 8",
                    "committed small experts (separated), mixture, onnx, batch 8,"),
    "Tournament games": ("scaling 1 -> 2 workers",),
    "Tournament games: multi-game runner vs per-game runner": ("multi-game / per-game",),
    "Network inference backends": ("batch 8",),
    "Paper scale on a GPU": ("paper network, NVIDIA", "paper grid projected"),
    "Projection against a played tournament": ("small tournament, played",
                                               "`chessmoe tournament --profile small --plan"),
    "n-tuple comparison training": ("ratio (reference / ours)",),
    "Compiled search core vs the Python search": (
        "tree alone (uniform evaluator), batch 8,",
        "UCI engine, committed small experts, default options (native search)",
        "paper grid, native search"),
    "Tournament games: compiled vs Python search": ("compiled / Python at",),
    "DeepChess comparison search": ("depth 3 (", "depth 4 (", "200-game match at depth 4"),
    "MAIS best-first search": ("1,500-node search (", "a game of the SPRT match"),
}

_ENTRY = re.compile(r"^## (\d{4}-\d{2}-\d{2})T[\d:+.\-]+ — commit (\S+)(.*)$")
_TARGET = re.compile(r"^Target: (.*) — \*\*(.+?)\*\*(.*)$")


@dataclass(frozen=True)
class Section:
    """One benchmark's section of one log entry."""

    title: str
    date: str  # YYYY-MM-DD
    commit: str  # as the entry names it (12 hex digits)
    dirty: bool
    machine: str  # the entry's Machine line, shortened: cores and GPU
    rows: tuple[tuple[str, str], ...]
    target: str
    verdict: str  # the log's own words: met, NOT met, n/a, or longer

    @property
    def benchmark(self) -> str:
        """The title without its "(issue ...)" suffix: what stays the same across runs."""
        return re.sub(r"\s*\(issues? [^)]*\)\s*$", "", self.title).strip()

    def headline(self) -> tuple[tuple[str, str], ...]:
        wanted = HEADLINES.get(self.benchmark, ())
        chosen = tuple((m, v) for m, v in self.rows if any(m.startswith(w) for w in wanted))
        return chosen or self.rows


def _machine(line: str) -> str:
    cores = re.search(r"(\d+) cores", line)
    gpu = re.search(r"NVIDIA [A-Z]\d+\w*", line)
    cpu = line.removeprefix("Machine: ").split(",", 1)[0].strip()
    parts = [f"{cpu}, {cores.group(1)} cores" if cores else cpu]
    if gpu:
        parts.append(gpu.group(0))
    return ", ".join(parts)


def _without_block(text: str) -> str:
    return BLOCK.without(text)


def parse_log(text: str) -> list[Section]:
    """Every benchmark section of every entry of BENCHMARKS.md, oldest first (the generated
    table is not read)."""
    sections: list[Section] = []
    date = commit = machine = ""
    dirty = False
    title: str | None = None
    rows: list[tuple[str, str]] = []
    target = verdict = ""

    def close() -> None:
        if title is not None:
            sections.append(Section(title, date, commit, dirty, machine, tuple(rows), target,
                                    verdict))

    for line in _without_block(text).splitlines():
        entry = _ENTRY.match(line)
        if entry or line.startswith("## "):
            close()
            title = None
            if entry:
                date, commit = entry.group(1), entry.group(2)
                dirty = "dirty" in entry.group(3)
                machine = ""
            continue
        if line.startswith("Machine: ") and title is None:
            machine = _machine(line)
        elif line.startswith("### "):
            close()
            title, rows, target, verdict = line[4:].strip(), [], "", ""
        elif title is not None and line.startswith("| ") and not line.startswith(
                ("| measure |", "|---")):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ", 1)]
            if len(cells) == 2:
                rows.append((cells[0], cells[1]))
        elif title is not None and (match := _TARGET.match(line)):
            target, verdict = match.group(1).strip(), match.group(2).strip()
    close()
    return sections


def latest(sections: Sequence[Section]) -> list[Section]:
    """Each benchmark's newest section, in the order the benchmarks first appear."""
    newest: dict[str, Section] = {}
    for section in sections:  # the log is oldest first: a later section replaces
        newest[section.benchmark] = section
    order = list(dict.fromkeys(s.benchmark for s in sections))
    return [newest[name] for name in order]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def latest_table(text: str) -> list[str]:
    """The "latest" block's lines for BENCHMARKS.md's ``text``."""
    rows = latest(parse_log(text))
    lines = ["## Latest", "",
             "Each benchmark's newest run, copied from the log below (newest last); the "
             "machine matters, so read a value with its date, commit and machine.", "",
             "| benchmark | newest value | date | commit | machine | target | met? |",
             "|---|---|---|---|---|---|---|"]
    for s in rows:
        value = "; ".join(f"{m}: {v}" for m, v in s.headline())
        commit = f"`{s.commit}`" + (" (dirty)" if s.dirty else "")
        lines.append(f"| {_cell(s.title)} | {_cell(value)} | {s.date} | {commit} | "
                     f"{_cell(s.machine)} | {_cell(s.target) or 'no target'} | "
                     f"{_cell(s.verdict) or '-'} |")
    return lines


def refresh(text: str) -> str:
    """BENCHMARKS.md's ``text`` with its "latest" block rewritten from its log (inserted
    before the first entry when it has none)."""
    if BLOCK.span(text) is not None:
        return BLOCK.replace(text, latest_table(text))
    block = BLOCK.render(latest_table(text))
    first = re.search(r"^## \d{4}-", text, re.M)
    at = first.start() if first else len(text)
    return text[:at] + block + "\n\n" + text[at:]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chessmoe.report.benchlog BENCHMARKS.md``: rewrite its "latest" table."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0] if args else "BENCHMARKS.md")
    path.write_text(refresh(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
