"""``chessmoe tournament``, ``parity``, ``openings``, ``elo`` and ``ratings``: matches,
their opening suites, and what their results say."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chessmoe.cli._common import (
    DATA_DIR_HELP,
    FORCE_HELP,
    PROFILE_NAMES,
    QUIET_HELP,
    RESULTS_HELP,
    at_least,
)

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands


def _tournament(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe.play import designs, tournament

    chosen = config.profile(args.profile)
    experts = args.experts or Path("results") / "experts" / config.experts_of(chosen)
    spec = designs.build_design(chosen.tournament.design, experts,
                                pairs=args.pairs or chosen.tournament.pairs)
    if args.match:
        spec = tournament.only_matches(spec, args.match)
    if args.trained_only:
        waiting = designs.untrained(spec)
        spec = designs.trained_only(spec)
        if spec.matches and waiting and not args.quiet:
            ready = len(spec.matches)
            has = "match has its" if ready == 1 else "matches have their"
            print(f"chessmoe tournament: {ready} {has} engines; the others wait for "
                  f"{len(waiting)} bundles to be trained")
    out = args.out or Path("results") / "tournaments" / args.profile
    if args.search == "auto":
        spec = tournament.with_recorded_search(spec, out)
        resumed = sorted({m.first.search for m in spec.matches if m.first.kind == "mcts"}
                         | {m.second.search for m in spec.matches if m.second.kind == "mcts"})
        if "python" in resumed:
            print(f"chessmoe tournament: matches recorded in {out} by the python search "
                  "resume with it (one match, one search); new matches use the native one")
    else:
        spec = tournament.with_search(spec, args.search)
    if not spec.matches:
        name = config.experts_of(chosen)
        print(f"chessmoe tournament: the {chosen.tournament.design} design has no match to play "
              f"yet under {experts}: each match waits for both of its engines' bundles (make "
              f"experts PROFILE={name}, and make controls PROFILE={name} for the controls)",
              file=sys.stderr)
        return 2
    if args.status:
        print(tournament.format_progress(tournament.progress(spec, out)))
        return 0
    if args.summarise:
        if not (Path(out) / "spec.json").is_file():
            print(f"chessmoe tournament: {out} holds no tournament (no spec.json), so there "
                  "is nothing to summarise", file=sys.stderr)
            return 2
        tournament.summarise_tournament(spec, out)
        print(tournament.format_progress(tournament.progress(spec, out)))
        print(f"wrote {Path(out) / 'summary.json'} from the games played so far")
        return 0
    if args.measure_games and (not args.plan or min(args.measure_games) <= 0):
        print("chessmoe tournament: --measure-games takes positive node limits and goes with "
              "--plan", file=sys.stderr)
        return 2
    if args.plan:
        from chessmoe.play import projection

        gpus = tournament.gpu_count() if args.gpus is None else args.gpus
        plan_search = "native" if args.search == "auto" else args.search
        preset = "paper" if args.profile == "paper" else "small"
        backend = "cuda" if gpus else "onnx" if args.profile != "paper" else "torch"
        device = "cuda" if gpus else "cpu"
        if args.measure_games:
            rates = [projection.measure_games(
                preset=preset, backend=backend, device=device, nodes=n,
                games_at_once=spec.games_at_once, workers=args.workers, gpus=gpus,
                search=plan_search) for n in args.measure_games]
            print(projection.format_rates(rates))
            rows = projection.project_from_games(tournament.projection_parts(spec), rates,
                                                 workers=args.workers)
            print(projection.format_projection(rows, "projected from the measured games"))
            return 0
        calibration = projection.calibrate(
            preset=preset, backend=backend, device=device, batch=256 if gpus else 64,
            cpu_workers=args.workers, gpus=gpus, search=plan_search)
        rows = projection.project(tournament.projection_parts(spec), calibration)
        print(projection.format_projection(rows, calibration))
        return 0
    if args.register:
        # a design is recorded before its networks are trained (pre-registration): the
        # record names bundle paths, not weights, so nothing here needs them to exist
        recorded = tournament.register(spec, out, data_dir=args.data_dir, force=args.force)
        print(f"recorded the {spec.name} design in {Path(out) / 'spec.json'} "
              f"({len(recorded)} matches); commit it before the first "
              "game so that the games' records name a clean checkout")
        return 0
    missing = designs.untrained(spec)
    if missing:
        print(f"chessmoe tournament: {_untrained_line(missing, config.experts_of(chosen))}",
              file=sys.stderr)
        return 2
    def say_if_dirty() -> None:
        from chessmoe._io.provenance import git_commit

        note = dirty_note(git_commit())
        if note:
            print(note, file=sys.stderr)

    if args.dask is not None:
        with tournament.dask_client(args.dask or None, workers=args.workers) as client:
            summary = tournament.run_dask(spec, out, client, data_dir=args.data_dir,
                                          force=args.force, before_play=say_if_dirty,
                                          progress=not args.quiet)
    else:
        summary = tournament.run_local(spec, out, workers=args.workers,
                                       gpu_workers=args.gpu_workers, gpus=args.gpus,
                                       data_dir=args.data_dir, progress=not args.quiet,
                                       force=args.force, before_play=say_if_dirty)
    for match in summary.matches:
        print(f"{match.name:40s} {match.summary.games:5d} games  {match.summary.line}")
    return 0 if summary.complete else 1


def dirty_note(git: Mapping[str, Any]) -> str | None:
    """One line before a run plays, where the checkout's tracked files differ from its commit
    (``git``: :func:`~chessmoe._io.provenance.git_commit`): every game it plays will say
    dirty, often only because a finished run rewrote its own ``summary.json`` or
    ``games.pgn``. ``None`` for a clean checkout or outside git."""
    if not git.get("dirty"):
        return None
    changed = list(git.get("changed") or [])
    count = int(git.get("changed_count") or len(changed))
    shown = ", ".join(changed[:3]) + (", ..." if count > 3 else "")
    return (f"chessmoe tournament: note: the checkout differs from commit "
            f"{str(git.get('commit'))[:7]} in {count} tracked file{'s' if count != 1 else ''} "
            f"({shown}), so the games this run plays will say dirty in their records; commit "
            "or restore them first (git checkout -- FILE) for clean records")


def _untrained_line(missing: list[str], profile: str) -> str:
    """One line naming the bundles a tournament needs that are not trained, grouped by the
    command that trains them (``chessmoe train --profile small --control regular-wide``)."""
    from chessmoe.nets.names import train_command

    commands: dict[str, list[str]] = {}
    for bundle in missing:
        commands.setdefault(train_command(Path(bundle).name, profile), []).append(bundle)
    return "; ".join(f"{', '.join(bundles)} {'is' if len(bundles) == 1 else 'are'} not "
                     f"trained (no manifest.json): train with '{command}'"
                     for command, bundles in commands.items())


def _parity(args: argparse.Namespace) -> int:
    from chessmoe._io.errors import KitError
    from chessmoe.play import parity

    if not (Path(args.tournament) / "spec.json").is_file():
        raise KitError(f"{args.tournament} is not a tournament directory (no spec.json)")
    manager = parity.find_manager(args.manager)
    if manager is None:
        raise KitError("cutechess-cli not found: build it with 'make cutechess' (needs Qt 6), "
                       "or name it with --manager or $CUTECHESS")
    out = args.out or Path("results") / "parity" / f"{Path(args.tournament).name}.json"
    try:
        report = parity.run_parity(args.tournament, manager, args.games, out,
                                   matches=args.match or None, progress=not args.quiet)
    except ValueError as error:
        raise KitError(str(error)) from None
    for termination, (agree, total) in report.by_termination().items():
        print(f"{termination:24s} {agree:4d} of {total:4d} end the same under {report.manager}")
    print(f"{report.agreeing} of {len(report.games)} games agree; report: {out}")
    return 0 if report.agreeing == len(report.games) else 1


def _openings(args: argparse.Namespace) -> int:
    from chessmoe.play.openings import SuiteRecipe, generate_suite

    manifest = generate_suite(args.out, SuiteRecipe(positions=args.positions, seed=args.seed),
                              engine=args.engine)
    print(json.dumps({k: manifest[k] for k in ("positions", "tried", "mean_abs_cp")}))
    return 0


def _elo(args: argparse.Namespace) -> int:
    from chessmoe import elo, sequential

    try:
        lines = elo.report_lines(
            wins=args.wins, losses=args.losses, draws=args.draws,
            pentanomial_counts=args.pentanomial,
            sprt_bounds=tuple(args.sprt) if args.sprt else None, alpha=args.alpha,
            beta=args.beta, model=args.model, z=elo.Z_EXACT if args.exact_z
            else elo.Z_CUTECHESS)
        if args.sprt:
            stopped = sequential.match_estimate(
                elo0=args.sprt[0], elo1=args.sprt[1], alpha=args.alpha, beta=args.beta,
                model=args.model, wins=args.wins, draws=args.draws, losses=args.losses,
                pentanomial=args.pentanomial)
            if stopped is not None:
                lines.append(f"If the match stopped at this decision: {stopped.text()}; the "
                             "fixed-length Elo above is biased by the stop")
    except ValueError as error:
        print(f"chessmoe elo: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def _ratings(args: argparse.Namespace) -> int:
    from chessmoe.games.pgn import SkipCounter
    from chessmoe.games.ratings import format_table, parse_anchor, rating_table, read_results

    anchor, anchor_elo = parse_anchor(args.anchor) if args.anchor else (None, 0.0)
    skips = SkipCounter()
    matches = read_results(args.pgn, skips)
    if not matches:
        print(f"chessmoe ratings: no rated game in {len(args.pgn)} file(s) "
              f"({skips.summary()})", file=sys.stderr)
        return 2
    print(format_table(rating_table(matches, anchor=anchor, anchor_elo=anchor_elo,
                                    level=args.level)))
    if skips.skipped:
        print(f"games not rated: {skips.summary()}")
    return 0


def add_tournament_commands(commands: Commands) -> None:
    """``tournament``, ``parity``, ``openings``, ``elo``, ``ratings`` and ``precision``."""
    tourn = commands.add_parser(
        "tournament", help="run a tournament profile (small, powered, replicated, related, "
                           "ratings-cutechess, paper, ...; 'chessmoe config show' lists them), "
                           "resumable",
        description="Play every match of a tournament profile against the regular bundle; "
                    "logs, PGNs and summary.json go to OUT. Rerun to resume.")
    tourn.add_argument("--search", default="auto", choices=("auto", "native", "python"),
                       help="tree search of the kit's MCTS players: auto (the default: a match "
                            "recorded in --out resumes with the search that played it, the "
                            "python one for matches recorded before the native one existed; "
                            "new matches use native), native or python")
    tourn.add_argument("--profile", default="small",
                       help="the tournament profile (default small): " + ", ".join(PROFILE_NAMES))
    tourn.add_argument("--experts", type=Path, default=None,
                       help="expert bundles (default: results/experts/<the profile's experts>)")
    tourn.add_argument("--out", type=Path, default=None,
                       help="tournament directory (default: results/tournaments/<profile>)")
    tourn.add_argument("--pairs", type=int, default=None, help="game pairs per match")
    tourn.add_argument("--match", nargs="+", default=None, metavar="NAME",
                       help="play only these matches of the design (the others can be added "
                            "to the same directory later), e.g. --profile related --match "
                            "mais-vs-mais-at-200")
    tourn.add_argument("--trained-only", action="store_true",
                       help="play only the matches whose engines' bundles are trained (a "
                            "design trained over days, such as scale, plays each match once "
                            "both its networks exist; rerun to add the others)")
    tourn.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    tourn.add_argument("--gpu-workers", type=int, default=None,
                       help="GPU units in flight (default: every worker when GPUs are present)")
    tourn.add_argument("--gpus", type=int, default=None,
                       help="GPUs to pin workers to, round-robin (default: all visible)")
    tourn.add_argument("--status", action="store_true",
                       help="print how many games of each match OUT holds and what is left, "
                            "then exit (plays and writes nothing)")
    tourn.add_argument("--summarise", action="store_true",
                       help="write OUT/summary.json (and each match's games.pgn) from the "
                            "games played so far, then exit (plays nothing): a partial "
                            "tournament, each match with its planned games, to commit "
                            "while it is still being played")
    tourn.add_argument("--register", action="store_true",
                       help="record the design (OUT/spec.json, with the matches a run of "
                            "these options would add) and exit without playing, so it can be "
                            "committed before the first game and the games' records stay "
                            "clean")
    tourn.add_argument("--plan", action="store_true",
                       help="calibrate on this machine and print the projected wall time of "
                            "every part instead of playing")
    tourn.add_argument("--measure-games", type=int, nargs="+", default=None, metavar="NODES",
                       help="with --plan: calibrate by playing random networks of the "
                            "profile's size through the real runner at these node limits")
    tourn.add_argument("--dask", nargs="?", const="", default=None, metavar="ADDRESS",
                       help="run on Dask: a scheduler's address (its workers may start in any "
                            "directory, but must see --experts and --out at the paths this "
                            "command gives them: docs/playing-at-scale.md), or none for a "
                            "local cluster of --workers processes")
    tourn.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    tourn.add_argument("--force", action="store_true", help=FORCE_HELP)
    tourn.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    tourn.set_defaults(handler=_tournament)

    par = commands.add_parser(
        "parity", help="replay a tournament's games under cutechess-cli and compare endings",
        description="Each recorded game is played again by cutechess-cli between two replay "
                    "engines giving the recorded moves and scores, under the tournament's "
                    "adjudication; the report says, per termination, how many games the "
                    "manager ends at the same ply with the same result and reason.")
    par.add_argument("tournament", type=Path, help="tournament directory (with spec.json)")
    par.add_argument("--games", type=int, default=100,
                     help="games to replay, round-robin over the matches")
    par.add_argument("--match", nargs="*", default=None, help="only these matches")
    par.add_argument("--manager", default=None, help="cutechess-cli binary")
    par.add_argument("--out", type=Path, default=None,
                     help="report (default: results/parity/<tournament>.json)")
    par.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    par.set_defaults(handler=_parity)

    openings = commands.add_parser("openings", help="generate an opening suite with Stockfish "
                                                    "(the embedded suite's recipe)")
    openings.add_argument("--out", type=Path, required=True, help="EPD file to write")
    openings.add_argument("--positions", type=at_least(1), default=2000,
                          help="positions in the suite (default 2000)")
    openings.add_argument("--seed", type=int, default=20261122,
                          help="seed of the random openings (default 20261122)")
    openings.add_argument("--engine", default=None, help="UCI engine (default: Stockfish)")
    openings.set_defaults(handler=_openings)

    elo = commands.add_parser(
        "elo", help="cutechess-style Elo, interval, LOS and draw ratio of a match result",
        description="Prints 'Elo difference: X +/- Y, LOS: Z %, DrawRatio: W %' as cutechess "
                    "does (nan/inf included), then pentanomial and SPRT figures when asked.")
    elo.add_argument("--wins", type=int, help="games won by the first player")
    elo.add_argument("--losses", type=int, help="games it lost")
    elo.add_argument("--draws", type=int, help="games drawn")
    elo.add_argument("--pentanomial", type=int, nargs=5, metavar=("LL", "LD", "DD", "WD", "WW"),
                     help="game pairs by their two results (one opening, both colours)")
    elo.add_argument("--sprt", type=float, nargs=2, metavar=("ELO0", "ELO1"),
                     help="SPRT of H0: ELO0 against H1: ELO1, the exact generalized LLR of "
                          "fishtest and fastchess (as the Elo explorer) on the pentanomial "
                          "counts when given, else on W/D/L; a decided test also gets the "
                          "estimate corrected for a stop there")
    elo.add_argument("--alpha", type=float, default=0.05,
                     help="SPRT false-positive rate (default 0.05)")
    elo.add_argument("--beta", type=float, default=0.05,
                     help="SPRT false-negative rate (default 0.05)")
    elo.add_argument("--model", choices=("normalized", "logistic"), default="normalized",
                     help="Elo model of the SPRT bounds (default normalized)")
    elo.add_argument("--exact-z", action="store_true",
                     help="use z = 1.959964 instead of cutechess's 1.957162 for the margin")
    elo.set_defaults(handler=_elo)

    ratings = commands.add_parser(
        "ratings", help="a maximum-likelihood rating list from PGN files",
        description="Rate every player of the PGN files (any tournament manager's output) "
                    "by maximum likelihood on the standard Elo scale (draws half a win); one "
                    "row per player: rank, name, rating, error (interval half-width), points, "
                    "games. Two players' difference equals their match's cutechess Elo.")
    ratings.add_argument("pgn", nargs="+", type=Path, metavar="FILE.pgn",
                         help="PGN files of the games to rate")
    ratings.add_argument("--anchor", default=None, metavar="NAME=ELO",
                         help="fix this player's rating (default: the players' mean is 0)")
    ratings.add_argument("--level", type=float, default=0.95,
                         help="confidence level of the intervals (default 0.95)")
    ratings.set_defaults(handler=_ratings)

    precision = commands.add_parser(
        "precision", help="measure a low-precision backend's gates against fp32 and commit "
                          "them (results/tournaments/precision/gates.json)",
        description="The gates a low-precision evaluator passes before claims read its games: "
                    "best-move agreement and value error with fp32 on 1,000 held-out positions "
                    "of the small profile's test split, and the precision design's match "
                    "(play it first: chessmoe tournament --profile precision).")
    precision.add_argument("--backend", default="openvino-bf16",
                           help="the low-precision backend (default openvino-bf16)")
    precision.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    precision.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    precision.set_defaults(handler=_precision)


def _precision(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe.nets.regimes import profile_dataset
    from chessmoe.play.designs import build_design
    from chessmoe.play.grids import PRECISION_GATE_BUNDLE
    from chessmoe.play.precision import gates
    from chessmoe.search.experts import load_bundle
    from chessmoe.search.inference import LOW_PRECISION

    if args.backend not in LOW_PRECISION:
        print(f"chessmoe precision: {args.backend!r} is not a low-precision backend; known: "
              f"{', '.join(LOW_PRECISION)}", file=sys.stderr)
        return 2
    experts = Path(args.results) / "experts" / "small"
    bundle = load_bundle(experts / PRECISION_GATE_BUNDLE)
    networks = {f"{PRECISION_GATE_BUNDLE}/phase{i}": str(path)
                for i, path in enumerate(bundle.expert_paths())}
    networks["regular"] = str(experts / "regular" / "baseline" / "model.pt")
    gate_match = build_design("precision", str(experts)).matches[-1].name
    dataset = profile_dataset(config.profile("small").training, data_dir=args.data_dir,
                              progress=False)
    entry = gates(args.results, dataset, backend=args.backend, networks=networks,
                  match=gate_match)
    for row in entry["agreement"]:
        print(f"{row['network']}: best move agrees on {row['agreement']:.1%} of "
              f"{row['positions']} positions, value error mean {row['value_mean_error']:.4f} "
              f"max {row['value_max_error']:.4f}: {'passed' if row['passed'] else 'FAILED'}")
    match = entry["match"]
    print(f"{match['match']}: {match['elo']:+.1f} [{match['low']:+.1f}, {match['high']:+.1f}] "
          f"over {match['games']} games: {'passed' if match['passed'] else 'FAILED'}")
    print(f"{args.backend}: {'passed' if entry['passed'] else 'FAILED'}")
    return 0
