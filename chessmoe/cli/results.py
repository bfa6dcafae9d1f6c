"""``chessmoe results`` (the whole pipeline of a profile) and ``chessmoe notebooks``
(notebook hygiene and the figures runner)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chessmoe.cli._common import DATA_DIR_HELP, FORCE_HELP, PROFILE_NAMES, QUIET_HELP, RESULTS_HELP

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands


def _results(args: argparse.Namespace) -> int:
    from chessmoe import pipeline

    pipeline.run(args.profile, results_dir=args.results, data_dir=args.data_dir,
                 steps=args.steps, progress=not args.quiet, force=args.force)
    return 0


def _notebooks(args: argparse.Namespace) -> int:
    import time

    if args.notebooks_command == "check":
        from chessmoe.report.hygiene import check_clean

        problems = check_clean(args.paths)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run 'make nbclean' to strip outputs", file=sys.stderr)
        return 1 if problems else 0
    if args.notebooks_command == "strip":
        from chessmoe.report.hygiene import strip_outputs

        for path in strip_outputs(args.paths):
            print(f"stripped {path}")
        return 0
    from chessmoe._io.parameters import ParameterError
    from chessmoe.report.artefacts import LAYOUTS, notebook_jobs
    from chessmoe.report.make_figures import MissingResults, run_figures

    start = time.monotonic()
    try:
        run = run_figures(notebooks=args.dir.resolve(), results=args.results.resolve(),
                          figures=args.figures.resolve(), build=args.build.resolve(),
                          kernel=args.kernel, jobs=notebook_jobs(LAYOUTS[args.layout]),
                          parallel=args.parallel)
    except (MissingResults, ParameterError) as error:  # the user's to fix: exit 2
        print(f"make figures: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a notebook failed while running
        print(f"make figures: {error}", file=sys.stderr)
        return 1
    print(f"{len(run.paths)} files in {args.figures} ({time.monotonic() - start:.1f} s)")
    root = args.figures.resolve().parent
    if args.layout == "small" and (root / "REPRODUCING.md").is_file():
        from chessmoe.report.framing import check_repository
        from chessmoe.report.quotes import refresh_and_report

        refresh_and_report(root, args.figures.resolve(), args.results.resolve(), sys.stderr)
        for line in check_repository(root):  # wording that claims more than the games show
            print(f"make figures: {line}", file=sys.stderr)
    warning = run.warning(args.results.resolve())
    if warning:  # last, where it is seen: the figures are not the committed evidence
        print(f"make figures: {warning}", file=sys.stderr)
    return 0


def add_results_commands(commands: Commands) -> None:
    """``results`` and ``notebooks``."""
    res = commands.add_parser(
        "results", help="the whole pipeline of a profile (stats, datasets, experts, search, "
                        "tournament), resumable",
        description="Run every step in dependency order, skipping what is up to date.")
    res.add_argument("--profile", default="small",
                     help="the profile (default small): " + ", ".join(PROFILE_NAMES))
    res.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    res.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    res.add_argument("--steps", nargs="*", default=None,
                     help="only these steps (default all): stats, datasets, experts, search, "
                          "tournament")
    res.add_argument("--force", action="store_true", help=FORCE_HELP)
    res.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    res.set_defaults(handler=_results)

    nbs = commands.add_parser("notebooks", help="notebook hygiene and the figures runner",
                              description="check/strip notebook sources; figures: run every "
                                          "figure notebook against committed results")
    nb_commands = nbs.add_subparsers(dest="notebooks_command", metavar="SUBCOMMAND",
                                     required=True)
    for name, text in (("check", "fail if notebook sources carry outputs"),
                       ("strip", "remove outputs from notebook sources")):
        sub = nb_commands.add_parser(name, help=text)
        sub.add_argument("paths", nargs="+", help="notebook files")
    figs = nb_commands.add_parser("figures", help="regenerate every figure and table")
    figs.add_argument("--dir", type=Path, default=Path("notebooks"), help="notebook sources")
    figs.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    figs.add_argument("--figures", type=Path, default=Path("figures"),
                      help="where the figures and tables go (default: figures)")
    figs.add_argument("--build", type=Path, default=Path("build/notebooks"),
                      help="where the executed notebooks go (default: build/notebooks)")
    figs.add_argument("--kernel", default="chessmoe",
                      help="Jupyter kernel to run them in (default: chessmoe)")
    figs.add_argument("--layout", default="small", help="which profile's results to draw")
    figs.add_argument("--parallel", type=int, default=2, help="notebooks at a time")
    nbs.set_defaults(handler=_notebooks)
