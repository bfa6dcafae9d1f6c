"""Notebook plumbing: parameter validation, execution with papermill, hygiene checks,
and the ``make figures`` runner.

Every notebook follows one pattern::

    from chessmoe.report import notebooks as nb          # first code cell
    _before = nb.snapshot(globals())

    stats_dir = "../results/stats/..."            # the cell tagged "parameters": literals only

    p = nb.parameters(PhaseStatsParams, globals(), _before)   # validates, returns a dataclass

papermill only warns about unknown parameters; :func:`parameters` turns a
misspelt or unknown name, or a value of the wrong type, into an error that lists
the known parameters. The runner checks names before starting a kernel too.

Command line (``python -m chessmoe.report.notebooks``): ``check`` / ``strip`` notebook
sources, ``run`` one notebook with parameters, ``figures`` to regenerate every
artefact into ``figures/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
import json
import shutil
import sys
import time
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, Union

__all__ = [
    "NOTEBOOK_JOBS",
    "DatasetsParams",
    "EloExplorerParams",
    "ExpertLossesParams",
    "NotebookJob",
    "ParameterError",
    "PhaseStatsParams",
    "PlayingStrengthParams",
    "SearchGatingParams",
    "SetupParams",
    "TournamentParams",
    "TrainExpertsParams",
    "assert_artefacts",
    "check_clean",
    "execute",
    "parameters",
    "snapshot",
    "strip_outputs",
]

D = TypeVar("D")


class ParameterError(TypeError):
    """An unknown, misspelt or mistyped notebook parameter."""


# --- in-notebook parameter validation --------------------------------------------------


def snapshot(namespace: Mapping[str, Any]) -> frozenset[str]:
    """The names defined before the parameters cell."""
    return frozenset(namespace)


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple):
        args = typing.get_args(hint)
        if not isinstance(value, (list, tuple)):
            return False
        item = args[0] if args else Any
        return all(_type_ok(v, item) for v in value)
    if origin is dict:
        key, val = typing.get_args(hint) or (Any, Any)
        return isinstance(value, dict) and all(
            _type_ok(k, key) and _type_ok(v, val) for k, v in value.items())
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _describe(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def parameters(cls: type[D], namespace: Mapping[str, Any], before: Iterable[str]) -> D:
    """Collect the parameters defined since ``before`` into ``cls`` (a dataclass).

    Raises :class:`ParameterError` for a name ``cls`` does not declare (with the
    closest known names) or a value whose type does not match the declaration.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    hints = typing.get_type_hints(cls)
    known = [f.name for f in dataclasses.fields(cls)]
    new = [n for n in namespace if n not in set(before) and not n.startswith("_")
           and not isinstance(namespace[n], types.ModuleType)]
    unknown = [n for n in new if n not in known]
    if unknown:
        hints_text = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints_text.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ParameterError(f"unknown notebook parameter(s) {', '.join(hints_text)}; this "
                             f"notebook takes: {', '.join(known)}")
    values = {n: namespace[n] for n in known if n in namespace}
    for name, value in values.items():
        if not _type_ok(value, hints[name]):
            raise ParameterError(f"parameter {name!r} must be {_describe(hints[name])}, got "
                                 f"{value!r} ({type(value).__name__})")
    return cls(**values)


def assert_artefacts(paths: Iterable[str | Path]) -> list[Path]:
    """Fail unless every promised artefact exists and is not empty (last notebook cell)."""
    missing = [Path(p) for p in paths if not Path(p).is_file() or Path(p).stat().st_size == 0]
    if missing:
        raise FileNotFoundError("promised artefacts missing: " + ", ".join(map(str, missing)))
    return [Path(p) for p in paths]


# --- parameter declarations of the notebooks -----------------------------------------------


@dataclass
class PhaseStatsParams:
    """``01_phase_statistics.ipynb``."""

    stats_dir: str = "../results/stats/lichess-2013-01-first5000"
    compare_dirs: list[str] = field(default_factory=lambda: [
        "../results/stats/selfplay-sample"])
    figures_dir: str = "../figures"
    table: str = "lichess"
    max_move: int = 80
    positions_split: str = "test"
    games_split: str = "train"
    distribution_split: str = "all"


@dataclass
class DatasetsParams:
    """``02_datasets.ipynb``."""

    source: str = "lichess-2013-01:5000"
    compare_sources: list[str] = field(default_factory=lambda: ["sample"])
    definition: str = "lichess"
    build: bool = False
    val: float = 0.1
    test: float = 0.1
    seed: int = 9
    workers: int = 1
    results_dir: str = "../results"
    data_dir: str = "../data"
    figures_dir: str = "../figures"


@dataclass
class TrainExpertsParams:
    """``03_train_experts.ipynb``."""

    profile: str = "smoke"
    regimes_to_train: list[str] = field(default_factory=lambda: [
        "regular", "separated", "staged", "weighted"])
    a_values: list[float] = field(default_factory=lambda: [4.0, 10.0])
    phases: list[int] = field(default_factory=list)
    data: str = ""
    results_dir: str = "../results"
    data_dir: str = "../data"
    workers: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExpertLossesParams:
    """``04_expert_losses.ipynb``."""

    experts_dir: str = "../results/experts/small"
    figures_dir: str = "../figures"


@dataclass
class SearchGatingParams:
    """``08_search_gating.ipynb``."""

    search_dir: str = "../results/search/small-separated"
    figures_dir: str = "../figures"
    batch_size: int = 8
    live_search: bool = False
    live_fen: str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8"


@dataclass
class TournamentParams:
    """``05_tournaments.ipynb``."""

    profile: str = "small"
    experts_root: str = "../results/experts/small"
    out_dir: str = "../results/tournaments/small"
    pairs: int = 0
    workers: int = 2
    executor: str = "local"
    dask_address: str = ""


@dataclass
class PlayingStrengthParams:
    """``06_playing_strength.ipynb``."""

    tournament_dir: str = "../results/tournaments/small"
    figures_dir: str = "../figures"


@dataclass
class EloExplorerParams:
    """``07_elo_explorer.ipynb``."""

    wins: int = 60
    draws: int = 30
    losses: int = 40
    pentanomial: list[int] = field(default_factory=list)
    level: float = 0.95
    elo0: float = 0.0
    elo1: float = 10.0
    figures_dir: str = "../figures"
    interactive: bool = True


@dataclass
class SetupParams:
    """``09_setup.ipynb``."""

    results_dir: str = "../results"
    tournament_dir: str = "../results/tournaments/small"
    figures_dir: str = "../figures"


# --- hygiene -------------------------------------------------------------------------------


def _notebooks(paths: Sequence[str | Path]) -> list[Path]:
    found: list[Path] = []
    for path in map(Path, paths):
        found.extend(sorted(path.glob("*.ipynb")) if path.is_dir() else [path])
    return found


def check_clean(paths: Sequence[str | Path]) -> list[str]:
    """Problems of notebook sources: outputs, execution counts, missing parameters cell."""
    import nbformat

    problems = []
    for path in _notebooks(paths):
        notebook = nbformat.read(path, as_version=4)
        tagged = 0
        for index, cell in enumerate(notebook.cells):
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                tagged += 1
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                problems.append(f"{path}: cell {index} has outputs")
            if cell.get("execution_count") is not None:
                problems.append(f"{path}: cell {index} has an execution count")
        if tagged != 1:
            problems.append(f"{path}: needs exactly one cell tagged 'parameters' "
                            f"(found {tagged})")
    return problems


def strip_outputs(paths: Sequence[str | Path]) -> list[Path]:
    """Remove outputs and execution counts from notebook sources; return changed files."""
    import nbformat

    changed = []
    for path in _notebooks(paths):
        notebook = nbformat.read(path, as_version=4)
        dirty = False
        for cell in notebook.cells:
            if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
                cell["outputs"], cell["execution_count"] = [], None
                dirty = True
            for key in ("execution", "papermill"):
                if key in cell.get("metadata", {}):
                    del cell["metadata"][key]
                    dirty = True
        if dirty:
            nbformat.write(notebook, path)
            changed.append(path)
    return changed


# --- execution ---------------------------------------------------------------------------


def declared_parameters(notebook: str | Path) -> dict[str, Any]:
    """The parameters a notebook declares (papermill's inspection of its parameters cell)."""
    import papermill

    return dict(papermill.inspect_notebook(str(notebook)))


@functools.cache
def private_kernel_manager() -> type:
    """A kernel manager whose kernels talk over IPC sockets in a private temporary folder.

    Jupyter's default is TCP on localhost without encryption (ipykernel warns about it on
    every start); IPC sockets in a fresh ``mkdtemp`` folder (mode 0700) are neither
    reachable from other users nor shared between kernels started side by side, and the
    folder is removed when the kernel shuts down.
    """
    import tempfile

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class PrivateKernelManager(AsyncKernelManager):
        @default("transport")
        def _private_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _private_ip(self) -> str:
            return str(Path(tempfile.mkdtemp(prefix="chessmoe-kernel-")) / "kernel")

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart and self.transport == "ipc":
                shutil.rmtree(Path(self.ip).parent, ignore_errors=True)

    return PrivateKernelManager


def execute(notebook: str | Path, output: str | Path, params: Mapping[str, Any], *,
            kernel: str = "chessmoe", cwd: str | Path | None = None,
            progress: bool = False) -> Path:
    """Execute ``notebook`` into ``output`` with ``params``; unknown names fail first."""
    import papermill

    declared = declared_parameters(notebook)
    unknown = [k for k in params if k not in declared]
    if unknown:
        raise ParameterError(f"{Path(notebook).name}: unknown parameter(s) {unknown}; it "
                             f"takes {sorted(declared)}")
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(str(notebook), str(output), parameters=dict(params),
                               kernel_name=kernel, progress_bar=progress,
                               cwd=str(cwd or Path(notebook).parent), log_output=False,
                               kernel_manager_class=private_kernel_manager())
    return Path(output)


# --- the figures runner --------------------------------------------------------------------


@dataclass(frozen=True)
class NotebookJob:
    """A notebook ``make figures`` executes: its parameters, inputs and artefacts."""

    notebook: str
    params: Callable[[Path, Path], dict[str, Any]]  # (results dir, staging dir) -> params
    needs: tuple[tuple[str, str], ...]  # (results-relative file, make target producing it)
    figures: tuple[str, ...] = ()  # stems saved as .png + .pdf
    tables: tuple[str, ...] = ()  # stems saved as .csv + .md

    def artefact_files(self) -> list[str]:
        return ([f"{s}.{e}" for s in self.figures for e in ("png", "pdf")]
                + [f"{s}.{e}" for s in self.tables for e in ("csv", "md")])


@dataclass(frozen=True)
class ResultsLayout:
    """Which results folders a set of figures reads (the committed small profile, or the
    smoke profile that ``make test`` builds in a temporary directory)."""

    stats: str = "lichess-2013-01-first5000"
    stats_compare: tuple[str, ...] = ("selfplay-sample",)
    dataset: str = "lichess-2013-01:5000"
    dataset_compare: tuple[str, ...] = ("sample",)
    experts: str = "small"
    tournament: str = "small"
    search: str = "small-separated"


LAYOUTS: dict[str, ResultsLayout] = {
    "small": ResultsLayout(),
    "smoke": ResultsLayout(stats="selfplay-sample", stats_compare=(), dataset="sample",
                           dataset_compare=(), experts="smoke", tournament="smoke",
                           search="smoke-separated"),
}


def notebook_jobs(layout: ResultsLayout | None = None) -> tuple[NotebookJob, ...]:
    """The figure notebooks and what each reads and writes, for a results layout."""
    from chessmoe.games.sources import source_name

    lay = layout or ResultsLayout()
    training_figures = ("fig04-staged-endgame-loss", "fig14-schedules", "fig16-regular-training",
                        *(f"fig{n}-{regime}-{phase}-expert" for regime, first in (
                            ("separated", 17), ("staged", 20), ("weighted", 23))
                          for n, phase in zip(range(first, first + 3),
                                              ("opening", "middlegame", "endgame"),
                                              strict=True)))
    stats_target = {"lichess-2013-01-first5000": "make results-stats SOURCE=lichess-2013-01:5000",
                    "selfplay-sample": "make results-stats SOURCE=sample"}
    return (
        NotebookJob(
            notebook="01_phase_statistics.ipynb",
            params=lambda results, out: {
                "stats_dir": str(results / "stats" / lay.stats),
                "compare_dirs": [str(results / "stats" / c) for c in lay.stats_compare],
                "figures_dir": str(out)},
            needs=tuple((f"stats/{n}/manifest.json", stats_target.get(n, "make results"))
                        for n in (lay.stats, *lay.stats_compare)),
            figures=("fig02-phase-distribution", "fig08-mixedness", "fig09-pieces",
                     "fig10-sparse-backrank", "fig11-phase-starts", "fig12-results-by-phase",
                     "fig13-phase-coverage"),
            tables=("extras/phase-stats-vs-paper", "extras/phase-label-agreement")),
        NotebookJob(
            notebook="02_datasets.ipynb",
            params=lambda results, out: {"results_dir": str(results), "figures_dir": str(out),
                                         "source": lay.dataset,
                                         "compare_sources": list(lay.dataset_compare)},
            needs=tuple((f"datasets/{source_name(s)}/manifest.json",
                         f"make datasets SOURCE={s}")
                        for s in (lay.dataset, *lay.dataset_compare)),
            tables=("table3-positions-per-phase", "table4-games-per-phase",
                    "table6-input-representation", "extras/input-planes",
                    "extras/dataset-sizes-by-definition",
                    *(f"extras/dataset-sizes-{source_name(s)}" for s in lay.dataset_compare))),
        NotebookJob(
            notebook="04_expert_losses.ipynb",
            params=lambda results, out: {"experts_dir": str(results / "experts" / lay.experts),
                                         "figures_dir": str(out)},
            needs=tuple((f"experts/{lay.experts}/{b}/evaluation.json",
                         f"make experts PROFILE={lay.experts}")
                        for b in ("regular", "separated", "staged", "weighted-a4",
                                  "weighted-a10")),
            figures=training_figures,
            tables=("table1-expert-losses", "extras/table1-paper", "table5-sample-weights",
                    "table7-hyperparameters")),
        NotebookJob(
            notebook="06_playing_strength.ipynb",
            params=lambda results, out: {
                "tournament_dir": str(results / "tournaments" / lay.tournament),
                "figures_dir": str(out)},
            needs=((f"tournaments/{lay.tournament}/summary.json",
                    f"make tournament PROFILE={lay.tournament}"),),
            figures=("fig05-moe-vs-single", "fig06-single-expert-nodes",
                     "fig07-phase-definitions", "fig26-elo-separated", "fig27-elo-staged",
                     "fig28-elo-weighted", "fig29-single-expert-movetime"),
            tables=("table2-elo-gains", "extras/table2-paper")),
        NotebookJob(
            notebook="07_elo_explorer.ipynb",
            params=lambda results, out: {"figures_dir": str(out), "interactive": False},
            needs=(),
            figures=("extras/elo-explorer",)),
        NotebookJob(
            notebook="09_setup.ipynb",
            params=lambda results, out: {
                "results_dir": str(results), "figures_dir": str(out),
                "tournament_dir": str(results / "tournaments" / lay.tournament)},
            needs=((f"tournaments/{lay.tournament}/summary.json",
                    f"make tournament PROFILE={lay.tournament}"),),
            figures=("fig15-match-command",),
            tables=("table8-setup",)),
        NotebookJob(
            notebook="08_search_gating.ipynb",
            params=lambda results, out: {"search_dir": str(results / "search" / lay.search),
                                         "figures_dir": str(out)},
            needs=((f"search/{lay.search}/batches.jsonl", "make results-search"),),
            figures=("fig01-moe-in-mcts", "fig03-minibatch-gating"),
            tables=("extras/batch-purity",)),
    )


NOTEBOOK_JOBS: tuple[NotebookJob, ...] = notebook_jobs()


class MissingResults(FileNotFoundError):
    """A committed result that a figure needs is absent."""


def check_inputs(jobs: Sequence[NotebookJob], results: Path) -> None:
    """Fail loudly, naming the make target, when a needed result file is missing."""
    missing = [(need, target) for job in jobs for need, target in job.needs
               if not (results / need).exists()]
    if missing:
        lines = [f"  {results / need}  <- run: {target}" for need, target in missing]
        raise MissingResults("results needed by the figures are missing:\n" + "\n".join(lines))


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


def _index(jobs: Sequence[NotebookJob], results: Path) -> str:
    """``figures/INDEX.md``: every artefact with its notebook and the results it read
    (with the commit and date their manifests record, so the index changes only when
    the results do)."""
    lines = ["# Figures and tables", "",
             "Regenerated by `make figures` from the committed `results/`. Do not edit by hand.",
             "", "| artefact | files | notebook | results read |", "|---|---|---|---|"]
    sources: dict[str, str] = {}
    for job in jobs:
        names = []
        for need, _ in job.needs:
            folder = need.rsplit("/", 1)[0]
            names.append(f"`results/{folder}`")
            manifest_path = results / need
            if need.endswith("manifest.json") and manifest_path.exists():
                manifest = json.loads(manifest_path.read_text())
                prov = manifest.get("provenance", {})
                commit = (prov.get("git", {}).get("commit") or "unknown")[:12]
                sources[folder] = f"commit {commit}, {prov.get('date', 'unknown date')}"
        inputs = ", ".join(names)
        for stem in job.figures:
            lines.append(f"| {stem} | [png]({stem}.png), [pdf]({stem}.pdf) | "
                         f"`notebooks/{job.notebook}` | {inputs} |")
        for stem in job.tables:
            lines.append(f"| {stem} | [md]({stem}.md), [csv]({stem}.csv) | "
                         f"`notebooks/{job.notebook}` | {inputs} |")
    lines += ["", "## Results provenance", "", "| results | produced by |", "|---|---|"]
    lines += [f"| `results/{folder}` | {text} |" for folder, text in sorted(sources.items())]
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
                parallel: int = 2, log: Callable[[str], None] = print) -> list[Path]:
    """Execute every figure notebook from ``results`` and replace ``figures`` atomically.

    Notebooks run ``parallel`` at a time (each in its own kernel). Outputs go to a staging
    folder first; ``figures`` is touched only when every notebook succeeded and produced
    every promised artefact.
    """
    from concurrent.futures import ThreadPoolExecutor

    check_inputs(jobs, results)
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
    (staging / "INDEX.md").write_text(_index(jobs, results))
    produced.add("INDEX.md")
    _sync(staging, figures, produced)
    return [figures / name for name in sorted(produced)]


# --- command line ------------------------------------------------------------------------


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chessmoe.report.notebooks",
                                     description="Notebook hygiene and execution.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="fail if notebook sources carry outputs")
    check.add_argument("paths", nargs="+")
    strip = sub.add_parser("strip", help="remove outputs from notebook sources")
    strip.add_argument("paths", nargs="+")
    run = sub.add_parser("run", help="execute one notebook with parameters")
    run.add_argument("notebook", type=Path)
    run.add_argument("output", type=Path)
    run.add_argument("-p", "--param", nargs=2, action="append", default=[],
                     metavar=("NAME", "VALUE"), help="VALUE is JSON, else a string")
    run.add_argument("--kernel", default="chessmoe")
    figs = sub.add_parser("figures", help="regenerate every figure and table")
    figs.add_argument("--notebooks", type=Path, default=Path("notebooks"))
    figs.add_argument("--results", type=Path, default=Path("results"))
    figs.add_argument("--figures", type=Path, default=Path("figures"))
    figs.add_argument("--build", type=Path, default=Path("build/notebooks"))
    figs.add_argument("--kernel", default="chessmoe")
    figs.add_argument("--layout", default="small", choices=sorted(LAYOUTS),
                      help="which profile's results to draw")
    figs.add_argument("--parallel", type=int, default=2, help="notebooks at a time")
    args = parser.parse_args(argv)

    if args.command == "check":
        problems = check_clean(args.paths)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run 'make nbclean' to strip outputs", file=sys.stderr)
        return 1 if problems else 0
    if args.command == "strip":
        for path in strip_outputs(args.paths):
            print(f"stripped {path}")
        return 0
    if args.command == "run":
        params = {name: _parse_value(value) for name, value in args.param}
        try:
            execute(args.notebook, args.output, params, kernel=args.kernel)
        except ParameterError as error:
            print(error, file=sys.stderr)
            return 2
        return 0
    start = time.monotonic()
    try:
        paths = run_figures(notebooks=args.notebooks.resolve(), results=args.results.resolve(),
                            figures=args.figures.resolve(), build=args.build.resolve(),
                            kernel=args.kernel, jobs=notebook_jobs(LAYOUTS[args.layout]),
                            parallel=args.parallel)
    except (MissingResults, RuntimeError, ParameterError) as error:
        print(f"make figures: {error}", file=sys.stderr)
        return 1
    print(f"{len(paths)} files in {args.figures} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
