"""``make figures``: run every notebook of the job table against committed results into a
staging folder, and replace ``figures/`` only when all of them succeeded.

Before drawing, every results folder the notebooks read is compared with its committed version
(:func:`chessmoe._io.evidence.uncommitted`); the figures are drawn either way, and
``figures/INDEX.md`` marks each artefact drawn from a folder that differs, which the run
returns (:attr:`FiguresRun.uncommitted`) for the command to warn about last."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe._io.evidence import Uncommitted, uncommitted
from chessmoe.report.artefacts import NOTEBOOK_JOBS, NotebookJob
from chessmoe.report.ledger import ledger_lines
from chessmoe.report.runner import execute

__all__ = [
    "FiguresRun",
    "MissingResults",
    "check_inputs",
    "compared_folders",
    "read_folders",
    "run_figures",
    "uncommitted_reads",
]


class MissingResults(FileNotFoundError):
    """A committed result that a figure needs is absent."""


def check_inputs(jobs: Sequence[NotebookJob], results: Path) -> None:
    """Fail loudly, naming the make target, when a needed result file is missing."""
    missing = [(need, target) for job in jobs for need, target in job.needs
               if not (results / need).exists()]
    if missing:
        lines = [f"  {results / need}  <- run: {target}" for need, target in missing]
        raise MissingResults("results needed by the figures are missing:\n" + "\n".join(lines))
    for job in jobs:
        for need, target in job.needs:
            path = results / need
            if path.suffix != ".json":
                continue
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise MissingResults(f"{path}: truncated or invalid JSON ({error}); restore it "
                                     f"from git or rerun: {target}") from None


def _sync(staging: Path, figures: Path, produced: set[str]) -> None:
    """Replace ``figures`` contents by ``staging``'s: no stale artefact survives."""
    figures.mkdir(parents=True, exist_ok=True)
    for old in figures.rglob("*"):
        if old.is_file() and str(old.relative_to(figures)) not in produced:
            old.unlink()
    for name in sorted(produced):
        target = figures / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(staging / name, target)
    for directory in sorted(figures.rglob("*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()


def read_folders(job: NotebookJob, results: Path) -> list[str]:
    """The results folders a notebook job reads, relative to ``results``: the existing
    folders its parameters name (so a replay that replaced a committed tournament is the one
    listed), or, for a job whose parameters name only the results root, the folders of the
    files it needs (a list's items and a dict's values are each a parameter's)."""
    named: list[str] = []
    for value in job.params(results, results.parent / "figures").values():
        items = (value if isinstance(value, list) else list(value.values())
                 if isinstance(value, dict) else [value])
        for item in items:
            if not isinstance(item, str):
                continue
            path = Path(item)
            if path == results or not path.is_dir() or not path.is_relative_to(results):
                continue
            folder = path.relative_to(results).as_posix()
            if folder not in named:
                named.append(folder)
    if named:
        return named
    return list(dict.fromkeys(need.rsplit("/", 1)[0] for need, _ in job.needs))


@dataclass(frozen=True)
class FiguresRun:
    """What :func:`run_figures` wrote, and the results folders it read that differ from their
    committed version (drawn from all the same; ``figures/INDEX.md`` marks them)."""

    paths: tuple[Path, ...]
    uncommitted: tuple[Uncommitted, ...] = ()

    def warning(self, results: Path) -> str | None:
        """The run's closing warning (``None`` when every folder read is as committed)."""
        if not self.uncommitted:
            return None
        listed = "; ".join(u.line(results) for u in self.uncommitted)
        return (f"warning: these figures were drawn from results that differ from the commit: "
                f"{listed}. figures/INDEX.md marks the artefacts drawn from them; restore the "
                "results (git checkout -- <folder>) or commit them, then run make figures "
                "again.")


def compared_folders(job: NotebookJob, results: Path) -> list[str]:
    """Every results folder a job reads, relative to ``results``: :func:`read_folders`, then
    the folders of the files its ``reads`` patterns match (Table 8: every result's manifest)."""
    extra = [path.parent.relative_to(results).as_posix()
             for pattern in job.reads for path in sorted(results.glob(pattern))]
    return list(dict.fromkeys([*read_folders(job, results), *extra]))


def uncommitted_reads(jobs: Sequence[NotebookJob], results: Path) -> tuple[Uncommitted, ...]:
    """Every results folder the jobs read (:func:`compared_folders`) that differs from its
    committed version (git; without git, the sha256 its manifests record)."""
    folders = list(dict.fromkeys(folder for job in jobs
                                 for folder in compared_folders(job, results)))
    return tuple(uncommitted([results / folder for folder in folders]) or ())


def _index(jobs: Sequence[NotebookJob], results: Path,
           changed: Sequence[Uncommitted] = ()) -> str:
    """``figures/INDEX.md``: every artefact with its notebook and the results it read
    (with the commit and date their manifests record, so the index changes only when
    the results do); the artefacts drawn from results that differ from the commit
    (``changed``) are marked, and the folders listed above the table."""
    differs = {u.directory.resolve(): u for u in changed}
    lines = ["# Figures and tables", "",
             "Regenerated by `make figures` from the committed `results/`. Do not edit by hand.",
             ""]
    if differs:
        listed = "; ".join(u.line(results) for u in changed)
        lines += ["**Drawn from uncommitted results.** The artefacts marked *(uncommitted "
                  "results)* read results that differ from the commit, so they are not the "
                  f"committed evidence: {listed}. Restore or commit them and run "
                  "`make figures` again.", ""]
    lines += ["| artefact | files | notebook | results read |", "|---|---|---|---|"]
    sources: dict[str, str] = {}
    tournaments: dict[str, list[str]] = {}
    for job in jobs:
        folders = read_folders(job, results)
        # a folder read beyond those listed (Table 8: every manifest) is named when it differs
        also = [f for f in compared_folders(job, results)
                if f not in folders and (results / f).resolve() in differs]
        marked = [(results / folder).resolve() in differs for folder in folders]
        names = [f"`results/{folder}`" + (" (uncommitted)" if mark else "")
                 for folder, mark in zip(folders, marked, strict=True)]
        names += [f"`results/{folder}` (uncommitted)" for folder in also]
        flag = " *(uncommitted results)*" if any(marked) or also else ""
        for folder in folders:
            if folder.startswith("tournaments/"):
                tournaments.setdefault(folder, []).append(job.notebook)
        for need, _ in job.needs:
            folder = need.rsplit("/", 1)[0]
            manifest_path = results / need
            if need.endswith("manifest.json") and manifest_path.exists():
                manifest = json.loads(manifest_path.read_text())
                prov = manifest.get("provenance", {})
                commit = (prov.get("git", {}).get("commit") or "unknown")[:12]
                sources[folder] = (f"commit {commit}, {prov.get('date', 'unknown date')}"
                                   + (", **uncommitted changes since**"
                                      if (results / folder).resolve() in differs else ""))
        inputs = ", ".join(names)
        for stem in job.figures:
            data = f", [csv]({stem}.csv)" if stem in job.data else ""
            lines.append(f"| {stem}{flag} | [png]({stem}.png), [pdf]({stem}.pdf){data} | "
                         f"`notebooks/{job.notebook}` | {inputs} |")
        for stem in job.tables:
            lines.append(f"| {stem}{flag} | [md]({stem}.md), [csv]({stem}.csv) | "
                         f"`notebooks/{job.notebook}` | {inputs} |")
    lines += ["", "## Results provenance", "", "| results | produced by |", "|---|---|"]
    lines += [f"| `results/{folder}` | {text} |" for folder, text in sorted(sources.items())]
    ledger = ledger_lines(tournaments, results)
    if ledger:
        lines += ["", *ledger]
    return "\n".join(lines) + "\n"


def _run_job(job: NotebookJob, notebooks: Path, results: Path, staging: Path, build: Path,
             kernel: str) -> float:
    start = time.monotonic()
    output = build / job.notebook
    try:
        execute(notebooks / job.notebook, output, job.params(results, staging), kernel=kernel,
                cwd=notebooks)
    except Exception as error:  # papermill wraps the cell's exception
        raise RuntimeError(f"{job.notebook} failed (executed copy: {output}):\n"
                           f"{error}") from error
    missing = [f for f in job.artefact_files() if not (staging / f).is_file()]
    if missing:
        raise RuntimeError(f"{job.notebook} did not produce: {', '.join(missing)}")
    return time.monotonic() - start


def run_figures(*, notebooks: Path, results: Path, figures: Path, build: Path,
                kernel: str = "chessmoe", jobs: Sequence[NotebookJob] = NOTEBOOK_JOBS,
                parallel: int = 2, log: Callable[[str], None] = print) -> FiguresRun:
    """Execute every figure notebook from ``results`` and replace ``figures`` atomically.

    Notebooks run ``parallel`` at a time (each in its own kernel). Outputs go to a staging
    folder first; ``figures`` is touched only when every notebook succeeded and produced
    every promised artefact. The results folders read are compared with the commit first
    (:func:`uncommitted_reads`); the run says which differ (and the index marks them).
    """
    from concurrent.futures import ThreadPoolExecutor

    check_inputs(jobs, results)
    changed = uncommitted_reads(jobs, results)
    staging = build / "figures-staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    produced: set[str] = set()
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        futures = [(job, pool.submit(_run_job, job, notebooks, results, staging, build,
                                     kernel)) for job in jobs]
        for job, future in futures:
            seconds = future.result()
            produced.update(job.artefact_files())
            log(f"  {job.notebook}: {len(job.artefact_files())} files in {seconds:.1f} s")
    (staging / "INDEX.md").write_text(_index(jobs, results, changed))
    produced.add("INDEX.md")
    _sync(staging, figures, produced)
    return FiguresRun(tuple(figures / name for name in sorted(produced)), changed)


