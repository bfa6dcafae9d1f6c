"""The ``chessmoe`` command line (also ``python -m chessmoe``).

Subcommands import their modules lazily so that ``chessmoe --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# chessmoe.config.PROFILES' names, for help texts without importing torch (a test keeps
# them equal)
PROFILE_NAMES = ("smoke", "small", "small-cutechess", "powered", "replicated", "settings",
                 "seeds-long", "ratings", "ratings-cutechess", "related", "medium", "paper")

__all__ = ["build_parser", "main"]

Handler = Callable[[argparse.Namespace], int]


def _data_sample(args: argparse.Namespace) -> int:
    from chessmoe.games import sources

    path = sources.sample_path()
    if args.out:
        target = sources.export_sample(args.out)
        print(f"wrote {target}")
    else:
        print(path)
        if args.info:
            print(json.dumps(sources.sample_manifest(), indent=2))
    return 0


_SAMPLE_ONLY = ("random_plies", "skill", "resign_cp", "resign_plies")
_RUN_ONLY = ("spread", "shard_games", "hash", "openings")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _apply(flags: list[str]) -> str:
    return "applies" if len(flags) == 1 else "apply"


def _data_selfplay(args: argparse.Namespace) -> int:
    name = args.out.name.lower()
    if name.endswith((".pgn", ".pgn.gz")):
        return _data_selfplay_sample(args)
    return _data_selfplay_run(args)


def _data_selfplay_sample(args: argparse.Namespace) -> int:
    """``--out FILE.pgn[.gz]``: the embedded sample's recipe, one file."""
    from chessmoe.games.selfplay import SelfPlayConfig, generate

    wrong = [_flag(k) for k in _RUN_ONLY if getattr(args, k) is not None]
    if wrong:
        print(f"chessmoe data selfplay: {', '.join(wrong)} {_apply(wrong)} to a run directory, "
              "not to the sample's recipe (--out FILE.pgn[.gz])", file=sys.stderr)
        return 2
    default = SelfPlayConfig()
    nodes = tuple(args.nodes) if args.nodes is not None else default.nodes
    if len(nodes) != 2:
        print("chessmoe data selfplay: the sample's recipe takes --nodes MIN MAX",
              file=sys.stderr)
        return 2

    def pick(value: Any, fallback: Any) -> Any:
        return fallback if value is None else value

    try:
        config = SelfPlayConfig(
            games=pick(args.games, default.games), seed=pick(args.seed, default.seed),
            random_plies=tuple(pick(args.random_plies, default.random_plies)),
            skill=tuple(pick(args.skill, default.skill)), nodes=(nodes[0], nodes[1]),
            resign_cp=pick(args.resign_cp, default.resign_cp),
            resign_plies=pick(args.resign_plies, default.resign_plies),
            max_plies=pick(args.max_plies, default.max_plies))
    except ValueError as error:
        print(f"chessmoe data selfplay: {error}", file=sys.stderr)
        return 2
    manifest = generate(args.out, config, workers=args.workers, engine=args.engine,
                        progress=not args.quiet,
                        command="chessmoe " + " ".join(sys.argv[1:]))
    print(json.dumps(manifest["counts"], indent=2))
    return 0


def _data_selfplay_run(args: argparse.Namespace) -> int:
    """``--out DIR``: grow a self-play run (``chessmoe.games.selfplay_run``)."""
    import dataclasses

    from chessmoe.games.selfplay_run import RunSettings, grow, read_manifest, run_settings

    wrong = [_flag(k) for k in _SAMPLE_ONLY if getattr(args, k) is not None]
    if wrong:
        print(f"chessmoe data selfplay: {', '.join(wrong)} {_apply(wrong)} to the sample's "
              "recipe (--out FILE.pgn[.gz]), not to a run directory", file=sys.stderr)
        return 2
    if args.nodes is not None and len(args.nodes) != 1:
        print("chessmoe data selfplay: a run takes one --nodes N (the sample's recipe "
              "takes MIN MAX)", file=sys.stderr)
        return 2
    existing = run_settings(args.out)
    games = args.games
    if games is None:
        if existing is None:
            print("chessmoe data selfplay: --games N is needed to start a run",
                  file=sys.stderr)
            return 2
        games = int(read_manifest(args.out)["target_games"])
    given = {"nodes": args.nodes[0] if args.nodes else None, "spread": args.spread,
             "seed": args.seed, "max_plies": args.max_plies, "shard_games": args.shard_games,
             "hash_mb": args.hash, "openings": args.openings}
    settings = dataclasses.replace(existing or RunSettings(),
                                   **{k: v for k, v in given.items() if v is not None})
    result = grow(args.out, games, settings, workers=args.workers, engine=args.engine,
                  progress=not args.quiet, command="chessmoe " + " ".join(sys.argv[1:]))
    totals = result.manifest["totals"]
    for name in result.discarded:
        print(f"discarded {name} (left by an interrupted run)")
    print(f"{result.directory}: {totals['games']} games in {len(result.manifest['shards'])} "
          f"shards, {totals['skipped']} skipped, {totals['bytes'] / 1e6:.2f} MB")
    duplicates = result.manifest.get("duplicates")
    if isinstance(duplicates, dict):
        print(f"duplicates: {duplicates['count']} later copies of earlier games "
              f"({100 * duplicates['share']:.2f} %), read by no split (first copy kept)")
    if result.played or result.skipped:
        print(f"this session: {result.played} games in {result.seconds:.1f} s "
              f"({result.games_per_second:.2f} games/s)")
    else:
        print(f"nothing to play: the run already holds {totals['attempted']} games "
              f"(asked for {games})")
    for skip in result.skipped:
        print(f"skipped game {skip['game']} (opening {skip['opening']}): {skip['error']}")
    return 0


def _data_fetch(args: argparse.Namespace) -> int:
    from chessmoe.games import sources

    try:
        paths = sources.fetch(args.name, data_dir=args.data_dir, first=args.first,
                              progress=not args.quiet)
    except sources.FetchError as error:
        print(f"chessmoe data fetch: {error}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


def _data_build(args: argparse.Namespace) -> int:
    from chessmoe.games import datasets
    from chessmoe.games.splits import SeededSplit

    rule = None
    if args.val is not None or args.test is not None or args.seed is not None:
        if args.source == "kingbase":
            print("chessmoe data build: KingBase uses the paper's month split; --val/--test/"
                  "--seed apply to other sources", file=sys.stderr)
            return 2
        default = SeededSplit()
        rule = SeededSplit(val=default.val if args.val is None else args.val,
                           test=default.test if args.test is None else args.test,
                           seed=default.seed if args.seed is None else args.seed)
    out, manifest = datasets.build_source(
        args.source, data_dir=args.data_dir, out=args.out, results_dir=args.results,
        progress=not args.quiet, definition=args.definition, split_rule=rule,
        workers=args.workers, shard_size=args.shard_size, max_games=args.max_games,
        force=args.force)
    print(out)
    positions, games = datasets.dataset_tables(manifest)
    print(positions.to_string())
    print(games.to_string())
    return 0


def _train(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe._io.overrides import parse_overrides
    from chessmoe.nets import regimes
    from chessmoe.nets.training import TrainConfig

    overrides = parse_overrides(TrainConfig, args.set or [])
    chosen = config.profile(args.profile)
    if args.controls:
        return _train_controls(args, chosen, overrides)
    try:
        result = regimes.train_profile(
            chosen.training, config.experts_of(chosen), results_dir=args.results,
            data_dir=args.data_dir,
            regimes=args.regime, a=args.a, phases=args.phase, workers=args.workers,
            overrides=overrides, definitions=args.definitions, progress=not args.quiet,
            balanced=args.balanced, force=args.force)
    except (ValueError, FileNotFoundError) as error:
        print(f"chessmoe train: {error}", file=sys.stderr)
        return 2
    for name, manifest in result.items():
        experts = ", ".join(f"{k} {v['best_val_loss']:.4f}" for k, v in
                            manifest["experts"].items())
        print(f"{name}: {experts}")
    return 0


def _train_controls(args: argparse.Namespace, chosen: Any, overrides: dict[str, Any]) -> int:
    """``chessmoe train --controls``: the extra regular seeds and the equal-iteration
    separated experts next to the profile's bundles (``nets.controls``)."""
    from dataclasses import replace

    from chessmoe import config
    from chessmoe.nets.controls import train_controls
    from chessmoe.nets.training import EXECUTION_OPTIONS

    # what a control learns is fixed (the regular network's configuration); how it runs is not
    learning = {k: v for k, v in overrides.items() if k not in EXECUTION_OPTIONS}
    fixed = [flag for flag, value in (("--regime", args.regime), ("--a", args.a),
                                      ("--balanced", args.balanced),
                                      ("--phase", args.phase),
                                      ("--definitions", args.definitions),
                                      ("--workers", args.workers), ("--set", learning))
             if value]
    if fixed:
        print(f"chessmoe train: --controls trains fixed bundles; drop {', '.join(fixed)} "
              f"(--set takes only {', '.join(EXECUTION_OPTIONS)} with --controls)",
              file=sys.stderr)
        return 2
    plan = replace(chosen.training, train=replace(chosen.training.train, **overrides))
    try:
        done = train_controls(plan, config.experts_of(chosen),
                              results_dir=args.results,
                              data_dir=args.data_dir.resolve() if args.data_dir else None,
                              progress=not args.quiet)
    except (ValueError, FileNotFoundError) as error:
        print(f"chessmoe train: {error}", file=sys.stderr)
        return 2
    for bundle in done:
        print(bundle)
    return 0


def _engine_options(args: argparse.Namespace) -> Any:
    """The engine arguments as the UCI engine's options: the one description the CLI, the
    UCI front end and :class:`~chessmoe.search.evaluators.EvaluatorSpec` share."""
    from chessmoe.play.uci import EngineOptions

    return EngineOptions(Batch_Size=args.batch_size, Nodes=args.nodes,
                         Fixed_Movetime=args.movetime or 0,
                         Model_Directory=str(args.experts or ""),
                         Baseline_Directory=str(args.baseline or ""),
                         Phase_Definition=args.gate or "", Routing=args.routing,
                         Single_Expert=-1 if args.single_expert is None else args.single_expert,
                         Device=args.device, Backend=args.backend, Uniform=args.uniform,
                         Search=args.search)


def _uci(args: argparse.Namespace) -> int:
    from chessmoe.play.uci import run_uci

    return run_uci(_engine_options(args), engine=args.player)


def _ratings(args: argparse.Namespace) -> int:
    from chessmoe.games.pgn import SkipCounter
    from chessmoe.report.ratings import format_table, parse_anchor, rating_table, read_results

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


def _related_train(args: argparse.Namespace) -> int:
    from chessmoe.play.players import train

    out = args.out or Path("results") / "related" / args.engine
    path = train(args.engine, out, profile=args.profile, data_dir=args.data_dir,
                 overrides=args.set or [])
    print(f"{args.engine}: trained into {path}")
    return 0


def _related_vs_stockfish(args: argparse.Namespace) -> int:
    from chessmoe.play.versus import vs_stockfish

    run = args.run or Path("results") / "related" / args.engine
    summary = vs_stockfish(args.engine, run, pairs=args.pairs, seed=args.seed,
                           stockfish=args.stockfish)
    print(f"{args.engine} ({run}) vs Stockfish Skill Level 0: {summary.wins}-{summary.draws}-"
          f"{summary.losses} over {summary.games} games; {summary.line}; in {run / 'vs-stockfish'}")
    return 0


def _related_fixed_split(args: argparse.Namespace) -> int:
    from chessmoe._io.errors import KitError
    from chessmoe.play.players.mais import FIXED_SPLIT, score_on_final_split

    run = args.run or Path("results") / "related" / "mais"
    if not (run / "config.json").is_file():
        raise KitError(f"{run} holds no MAIS run (no config.json)")
    out = score_on_final_split(run)
    split = out["split"]
    print(f"mais {run}: split {split['name']} ({split['positions']:,} positions, from "
          f"{split['file']}); zero {out['zero_mae']:,.0f}, {out['naive_multiple']:g} x naive "
          f"{out['naive_mae']:,.0f}")
    for row in out["networks"]:
        print(f"  net after {row['games']:,} games: MAE {row['mae']:,.0f}")
    print(f"written to {run / FIXED_SPLIT}")
    return 0


def _related_level_material(args: argparse.Namespace) -> int:
    from chessmoe._io.errors import KitError
    from chessmoe.play.players.deepchess import LEVEL_FILE, level_material

    run = args.run or Path("results") / "related" / "deepchess"
    if not (run / "config.json").is_file() or not (run / "summary.json").is_file():
        raise KitError(f"{run} holds no finished DeepChess run (config.json, summary.json)")
    if args.level_pairs < 1:
        raise KitError(f"--level-pairs {args.level_pairs}: expected at least 1")
    out = level_material(run, data_dir=args.data_dir, level_pairs=args.level_pairs)

    def line(name: str, part: dict[str, float] | None) -> str:
        if part is None:
            return f"  {name}: no rows"
        return (f"  {name}: {part['rows']:,} rows, network {100 * part['network']:.1f} %, "
                f"material {100 * part['material']:.1f} %, difference "
                f"{100 * part['difference']:+.1f} +- {100 * part['half_width']:.1f} points")

    for held in ("by_game", "by_position", "by_game_without_copies"):
        if held in out:
            print(f"{held}:")
            for name in ("all", "material_tied", "both_level", "level_draw"):
                if name in out[held]:
                    print(line(name, out[held][name]))
    copies = out["by_game_without_copies"]["held_out_games_copying_a_training_game"]
    print(f"held-out games that copy a training game: {copies}")
    print(f"written to {run / LEVEL_FILE}")
    return 0


def _analyse(args: argparse.Namespace) -> int:
    import chess

    from chessmoe.play.engine import Player, value_to_cp
    from chessmoe.search.mcts import Limits, SearchConfig

    try:
        board = chess.Board() if args.fen == "startpos" else chess.Board(args.fen)
    except ValueError as error:
        print(f"chessmoe analyse: bad FEN: {error}", file=sys.stderr)
        return 2
    for uci in args.moves or []:
        try:
            board.push_uci(uci)
        except ValueError as error:
            print(f"chessmoe analyse: move {uci!r} in {board.fen()}: {error}", file=sys.stderr)
            return 2
    try:
        evaluator, description = _engine_options(args).evaluator_spec().build()
    except ValueError as error:  # e.g. a phase the bundle has no expert for
        print(f"chessmoe analyse: {error}", file=sys.stderr)
        return 2
    print(description)
    player = Player(evaluator, SearchConfig(batch_size=args.batch_size), search_kind=args.search)
    result = player.play(board, Limits(nodes=args.nodes, movetime_ms=args.movetime))
    print(f"position  {board.fen()}")
    print(f"best move {board.san(result.move) if result.move else '-'}   value "
          f"{result.value:+.3f} (cp {value_to_cp(result.value):+d})")
    print(f"pv        {board.variation_san(result.pv)}")
    print(f"search    {result.nodes} nodes, {result.simulations} simulations, "
          f"{result.batches} batches, {result.seconds:.2f} s ({result.nps:.0f} nodes/s), "
          f"depth {result.depth:.1f}, seldepth {result.seldepth}, collisions "
          f"{result.collisions}")
    print("move      visits      Q   prior")
    for child in result.children[: args.top]:
        q = "   -  " if child.q is None else f"{child.q:+.3f}"
        print(f"{board.san(child.move):8s} {child.visits:7d} {q} {child.prior:.3f}")
    usage = getattr(evaluator, "usage", None)
    if usage is not None:
        info = usage()
        print(f"experts   {info}")
    return 0


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``least`` (argparse prints the one line)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is below {least}")
        return value

    return parse


_QUIET = "no progress bars"
_FORCE = ("replace a finished, committed result this run would change (without it the "
          "command stops, naming the directory)")
_DATA_DIR = "data directory (default: $CHESSMOE_DATA or ./data)"
_RESULTS = "results directory (default: results)"


def _add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--experts", type=Path, default=None,
                        help="expert bundle (default: the kit's committed small experts, "
                             "else a uniform evaluator)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="regular bundle (for --single-expert)")
    parser.add_argument("--uniform", action="store_true", help="no network at all")
    parser.add_argument("--routing", default="majority", choices=("majority", "split", "soft"),
                        help="which expert evaluates a mini-batch: the one most of its leaves "
                             "belong to (majority, the paper's), each leaf its own (split), "
                             "or a phase-weighted blend (soft)")
    parser.add_argument("--gate", default=None,
                        help="phase definition of the gate (default: the bundle's)")
    parser.add_argument("--single-expert", type=_count(0), default=None,
                        help="use only this phase's expert, the baseline elsewhere")
    parser.add_argument("--batch-size", type=_count(1), default=8,
                        help="leaves evaluated together per mini-batch (default 8)")
    parser.add_argument("--nodes", type=_count(1), default=800,
                        help="nodes per search (default 800)")
    parser.add_argument("--movetime", type=_count(1), default=None, help="ms per move")
    parser.add_argument("--device", default="auto",
                        help="auto (cuda when present, else cpu), cpu, cuda or cuda:N")
    parser.add_argument("--backend", default="auto", choices=("auto", "torch", "onnx", "cuda"),
                        help="network backend (auto: cuda on a GPU, ONNX Runtime on a CPU; "
                             "torch: eager fp32, the reference)")
    _add_search_argument(parser)


def _add_search_argument(parser: argparse.ArgumentParser) -> None:
    from chessmoe.search.kinds import DEFAULT_SEARCH, SEARCH_KINDS

    parser.add_argument("--search", default=DEFAULT_SEARCH, choices=SEARCH_KINDS,
                        help="tree search: native (compiled, the default) or python (the "
                             "reference it is tested against move for move)")


def _elo(args: argparse.Namespace) -> int:
    from chessmoe import elo

    try:
        lines = elo.report_lines(
            wins=args.wins, losses=args.losses, draws=args.draws,
            pentanomial_counts=args.pentanomial,
            sprt_bounds=tuple(args.sprt) if args.sprt else None, alpha=args.alpha,
            beta=args.beta, model=args.model, z=elo.Z_EXACT if args.exact_z
            else elo.Z_CUTECHESS)
    except ValueError as error:
        print(f"chessmoe elo: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def _search(args: argparse.Namespace) -> int:
    import torch

    from chessmoe.search.gating import GatingConfig, record

    torch.set_num_threads(1)
    path = Path(args.out) / "manifest.json"
    before = path.read_bytes() if path.exists() else None
    manifest = record(args.bundle, args.out,
                      config=GatingConfig(nodes=args.nodes, positions=args.positions),
                      force=args.force)
    if before is not None and path.read_bytes() == before:
        print(f"{args.out}: up to date ({manifest['batches']} mini-batches of the same bundle "
              "and settings; --force records them again)")
    else:
        print(f"{manifest['batches']} mini-batches recorded in {args.out}")
    return 0


def _search_parity(args: argparse.Namespace) -> int:
    from chessmoe.search.native.parity import record_parity

    experts = args.experts or Path("results") / "experts" / "small"
    if not experts.is_dir():
        print(f"chessmoe search-parity: {experts} holds no expert bundles (name them with "
              "--experts)", file=sys.stderr)
        return 2
    rows = record_parity(experts, args.out, positions=args.positions, nodes=args.nodes)
    for row in rows:
        print(f"{row['label']}: {row['same_move']}/{row['positions']} same move, "
              f"{row['same_visits']} same root visits, {row['same_batches']} same batches")
    return 0 if all(row["exact"] for row in rows) else 1


def _openings(args: argparse.Namespace) -> int:
    from chessmoe.play.openings import SuiteRecipe, generate_suite

    manifest = generate_suite(args.out, SuiteRecipe(positions=args.positions, seed=args.seed),
                              engine=args.engine)
    print(json.dumps({k: manifest[k] for k in ("positions", "tried", "mean_abs_cp")}))
    return 0


def _config(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe._io.overrides import parse_overrides
    from chessmoe.nets.training import TrainConfig

    print(config.show(args.profile, parse_overrides(TrainConfig, args.set or [])))
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
    from chessmoe.report.artefacts import LAYOUTS, notebook_jobs
    from chessmoe.report.make_figures import MissingResults, run_figures
    from chessmoe.report.params import ParameterError

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
        from chessmoe.report.quotes import report_stale

        report_stale(root, sys.stderr)
    warning = run.warning(args.results.resolve())
    if warning:  # last, where it is seen: the figures are not the committed evidence
        print(f"make figures: {warning}", file=sys.stderr)
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe.play import designs, tournament

    chosen = config.profile(args.profile)
    experts = args.experts or Path("results") / "experts" / config.experts_of(chosen)
    spec = designs.build_design(chosen.tournament.design, experts,
                                   pairs=args.pairs or chosen.tournament.pairs)
    if args.match:
        spec = tournament.only_matches(spec, args.match)
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
    if args.dask is not None:
        client = tournament.dask_client(args.dask or None, workers=args.workers)
        summary = tournament.run_dask(spec, out, client, data_dir=args.data_dir,
                                      force=args.force)
    else:
        summary = tournament.run_local(spec, out, workers=args.workers,
                                       gpu_workers=args.gpu_workers, gpus=args.gpus,
                                       data_dir=args.data_dir, progress=not args.quiet,
                                       force=args.force)
    for match in summary.matches:
        print(f"{match.name:40s} {match.summary.games:5d} games  {match.summary.line}")
    return 0 if summary.complete else 1


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


def _results(args: argparse.Namespace) -> int:
    from chessmoe import pipeline

    pipeline.run(args.profile, results_dir=args.results, data_dir=args.data_dir,
                 steps=args.steps, progress=not args.quiet, force=args.force)
    return 0


def _stats(args: argparse.Namespace) -> int:
    from chessmoe.games import stats

    result = stats.compute_and_save(args.source, results_dir=args.results, name=args.name,
                                    workers=args.workers, data_dir=args.data_dir,
                                    progress=not args.quiet, max_games=args.max_games,
                                    force=args.force)
    print(result.directory if result.computed else f"{result.directory}: up to date (the "
          "same source files and settings; --force recomputes)")
    print(result.skips.report())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for tests and docs)."""
    # torch-free modules: the engines' names and their Stockfish check from their one home
    from chessmoe.play.players import RELATED_KINDS
    from chessmoe.play.versus import STOCKFISH_CHECK_NODES, STOCKFISH_CHECK_OPPONENT_NODES

    own_nodes = ", ".join(f"{kind} {nodes}" for kind, nodes in STOCKFISH_CHECK_NODES.items())
    parser = argparse.ArgumentParser(
        prog="chessmoe",
        description="Reproducibility kit for 'Checkmating One, by Using Many' "
                    "(mixture of experts + MCTS in chess).")
    from chessmoe import __version__

    parser.add_argument("--version", action="version", version=f"chessmoe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    data = commands.add_parser("data", help="game sources and datasets: sample, self-play, "
                               "fetch, build",
                               description="Game sources for the kit.")
    data_commands = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND",
                                        required=True)

    sample = data_commands.add_parser(
        "sample", help="locate or export the embedded self-play sample",
        description="Print the path of the embedded Stockfish self-play sample, show its "
                    "manifest (--info) or copy it out (--out).")
    sample.add_argument("--out", type=Path, help="copy the sample PGN (.pgn or .pgn.gz) here")
    sample.add_argument("--info", action="store_true", help="print the sample's manifest")
    sample.set_defaults(handler=_data_sample)

    selfplay = data_commands.add_parser(
        "selfplay", help="grow a self-play run of Stockfish games from the opening suite "
                         "(or regenerate the sample)",
        description="--out DIR grows a run directory: Stockfish games from the opening suite "
                    "at a node limit (default 1000 +-20% per side), the cutechess draw rules, "
                    "gzip PGN shards written whole plus manifest.json. Parallel (--workers), "
                    "resumable (rerun, with the same or a larger --games), refused with other "
                    "settings. --out FILE.pgn[.gz] plays the embedded sample's recipe instead "
                    "(two Stockfish settings drawn per game after random plies).")
    selfplay.add_argument("--out", type=Path, required=True,
                          help="run directory, or a .pgn/.pgn.gz file for the sample's recipe")
    selfplay.add_argument("--games", type=_count(1), default=None,
                          help="games of the run in all (default: the run's target; the "
                               "sample: 3000)")
    selfplay.add_argument("--seed", type=int, default=None,
                          help="seed of the node limits (run) or of the recipe (sample)")
    selfplay.add_argument("--workers", type=_count(1), default=1,
                          help="parallel engines, one process each")
    selfplay.add_argument("--engine", help="Stockfish binary (default: found on PATH)")
    selfplay.add_argument("--nodes", type=_count(1), nargs="+", default=None,
                          metavar="N",
                          help="run: nodes per move (default 1000); sample: MIN MAX, drawn "
                               "log-uniformly (default 500 30000)")
    selfplay.add_argument("--max-plies", type=_count(1), default=None,
                          help="longer games are drawn (run: 600; sample: 400)")
    selfplay.add_argument("--spread", type=float, default=None,
                          help="run: each side's node limit is drawn within nodes * (1 +- "
                               "spread) per game pair (default 0.2)")
    selfplay.add_argument("--shard-games", type=_count(1), default=None,
                          help="run: games per shard (default 1000)")
    selfplay.add_argument("--hash", type=_count(1), default=None, metavar="MB",
                          help="run: Stockfish hash (default 16)")
    selfplay.add_argument("--openings", default=None,
                          help="run: opening suite, embedded | paper | an EPD path "
                               "(default: embedded)")
    selfplay.add_argument("--random-plies", type=int, nargs=2, default=None,
                          metavar=("MIN", "MAX"), help="sample: random plies (default 2 6)")
    selfplay.add_argument("--skill", type=int, nargs=2, default=None, metavar=("MIN", "MAX"),
                          help="sample: Skill Level range (default 4 20)")
    selfplay.add_argument("--resign-cp", type=int, default=None, help="sample (default 1000)")
    selfplay.add_argument("--resign-plies", type=int, default=None, help="sample (default 8)")
    selfplay.add_argument("--quiet", action="store_true", help="no progress bar")
    selfplay.set_defaults(handler=_data_selfplay)

    fetch = data_commands.add_parser(
        "fetch", help="download a public game database (KingBase Lite 2019, Lichess month)",
        description="Download and verify a public database into the data directory. Names: "
                    "'kingbase' (KingBase Lite 2019, archive.org) or 'lichess-YYYY-MM' "
                    "(a Lichess standard rated month; --first N keeps the first N games).")
    fetch.add_argument("name", help="kingbase | lichess-YYYY-MM")
    fetch.add_argument("--first", type=int, help="Lichess: keep only the first N games")
    fetch.add_argument("--data-dir", type=Path, default=None,
                       help="where downloads go (default: $CHESSMOE_DATA or ./data)")
    fetch.add_argument("--quiet", action="store_true", help=_QUIET)
    fetch.set_defaults(handler=_data_fetch)

    build = data_commands.add_parser(
        "build", help="build the phase datasets (sample shards + manifest) of a source",
        description="One pass over a source into memory-mappable shards of training samples "
                    "(position record, policy/value/plies targets, phase ids under every "
                    "registered definition) with train/val/test splits per game. The four "
                    "datasets (no-phases and one per phase) of any definition are views. "
                    "Resumable: rerun the same command after an interruption.")
    build.add_argument("--source", default="sample",
                       help="sample | lichess-YYYY-MM[:N] | kingbase | a PGN path")
    build.add_argument("--definition", default="lichess",
                       help="default phase definition of the datasets (all are stored)")
    build.add_argument("--out", type=Path, help="output directory (default: "
                       "DATA_DIR/datasets/<source name>)")
    build.add_argument("--results", type=Path, default=None,
                       help="also copy the manifest to RESULTS/datasets/<name>/manifest.json")
    build.add_argument("--val", type=float, default=None,
                       help="validation size: fraction (< 1) or number of games (default 0.1)")
    build.add_argument("--test", type=float, default=None,
                       help="test size: fraction (< 1) or number of games (default 0.1)")
    build.add_argument("--seed", type=int, default=None, help="split seed (default 9)")
    build.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    build.add_argument("--shard-size", type=int, default=1 << 20,
                       help="samples per shard (default 1048576)")
    build.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    build.add_argument("--max-games", type=int, default=None,
                       help="stop after this many games (tests, quick looks)")
    build.add_argument("--force", action="store_true", help=_FORCE)
    build.add_argument("--quiet", action="store_true", help=_QUIET)
    build.set_defaults(handler=_data_build)

    train = commands.add_parser(
        "train", help="train experts: every regime of a profile, or one regime/expert",
        description="Train the regimes of a profile (smoke | small | medium | paper) into "
                    "RESULTS/experts/PROFILE/<bundle>/ and evaluate each bundle on the test "
                    "sets (Table 1). Resumable: rerun after an interruption.")
    train.add_argument("--profile", default="small",
                       help="smoke | small | powered | medium | paper (chessmoe config show NAME)")
    train.add_argument("--regime", nargs="*", default=None,
                       help="regular separated staged weighted (default: all)")
    train.add_argument("--a", type=float, nargs="*", default=None,
                       help="weighting factors for the weighted regime (default: 4 10)")
    train.add_argument("--balanced", action="store_true",
                       help="weighted regime: rescale the weights to mean 1 over the training "
                            "data's phase shares (bundle weighted-a<a>-balanced; not the "
                            "paper's recipe, whose weights average 1 over equal shares)")
    train.add_argument("--phase", type=int, nargs="*", default=None,
                       help="train only these experts (phase ids)")
    train.add_argument("--definitions", nargs="*", default=None,
                       help="separated experts under these further phase definitions (Fig. 7;"
                            " default with no --regime: the profile's)")
    train.add_argument("--results", type=Path, default=Path("results"), help=_RESULTS)
    train.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    train.add_argument("--workers", type=int, default=None,
                       help="parallel training processes (default: the profile's)")
    train.add_argument("--set", nargs="+", action="extend", metavar="KEY=VALUE",
                       help="override training options, e.g. --set epochs=1 batch_size=128 "
                            "(repeatable)")
    train.add_argument("--controls", action="store_true",
                       help="train the profile's controls instead of its regimes: the regular "
                            "network under two more seeds, separated experts given the "
                            "regular network's iterations each, and the regular network "
                            "trained for their total (needs the regular bundle)")
    train.add_argument("--force", action="store_true", help=_FORCE)
    train.add_argument("--quiet", action="store_true", help=_QUIET)
    train.set_defaults(handler=_train)

    uci = commands.add_parser(
        "uci", help="run the UCI engine on stdin/stdout",
        description="A UCI engine: MCTS with a mixture of experts (or one network, or a "
                    "uniform evaluator). UCI options can change everything later.")
    _add_engine_arguments(uci)
    uci.add_argument("--player", default="moe",
                     choices=("moe", *RELATED_KINDS),
                     help="which engine answers: the paper's MoE MCTS (default) or a related "
                          "document's engine (--experts then names its trained weights)")
    uci.set_defaults(handler=_uci)

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

    related = commands.add_parser(
        "related", help="the related documents' engines (DeepChess, n-tuple, MAIS)",
        description="Train the engines of the related documents at a profile's scale.")
    related_commands = related.add_subparsers(dest="related_command", required=True)
    related_train = related_commands.add_parser(
        "train", help="train one related engine into results/related/ENGINE")
    related_train.add_argument("engine", choices=RELATED_KINDS,
                               help="the engine to train")
    related_train.add_argument("--profile", default="small", choices=("smoke", "small", "large"),
                               help="scale (large: the issue-22 scale, CPU hours; not every "
                                    "engine has one)")
    related_train.add_argument("--out", type=Path, default=None,
                               help="run directory (default: results/related/ENGINE)")
    related_train.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    related_train.add_argument("--set", nargs="+", action="extend", metavar="KEY=VALUE",
                               help="override fields of the engine's training config, e.g. "
                                    "ntuple depth=2 start=pesto, deepchess "
                                    "learning_curve=5000,20000, mais validation=selfplay")
    related_train.set_defaults(handler=_related_train)
    related_vs = related_commands.add_parser(
        "vs-stockfish", help="10 games of a trained related engine against Stockfish",
        description="Play a related engine's run against Stockfish at Skill Level 0 "
                    f"({STOCKFISH_CHECK_OPPONENT_NODES} nodes a move; the engine at its own "
                    f"nodes: {own_nodes}) on paired openings of the embedded suite, into "
                    "RUN/vs-stockfish (resumable). The games show complete play; at 10 games "
                    "they rate nothing.")
    related_vs.add_argument("engine", choices=RELATED_KINDS,
                            help="the engine the run holds")
    related_vs.add_argument("--run", type=Path, default=None,
                            help="run directory (default: results/related/ENGINE)")
    related_vs.add_argument("--pairs", type=int, default=5,
                            help="opening pairs, two games each (default 5)")
    related_vs.add_argument("--seed", type=int, default=12,
                            help="seed of the opening schedule (default 12)")
    related_vs.add_argument("--stockfish", default=None,
                            help="Stockfish binary (default: $STOCKFISH, PATH, usual places)")
    related_vs.set_defaults(handler=_related_vs_stockfish)
    related_split = related_commands.add_parser(
        "fixed-split", help="score a MAIS run's nets on its final self-play validation split",
        description="Recompute a MAIS run's self-play validation split (every k-th game, k = "
                    "10 by default) from its committed record of held-out games "
                    "(selfplay-holdout.jsonl) and score every kept snapshot and the final "
                    "net on it, beside the zero and naive baselines, into RUN/fixed-split.json.")
    related_split.add_argument("--run", type=Path, default=None,
                               help="MAIS run directory (default: results/related/mais)")
    related_split.set_defaults(handler=_related_fixed_split)
    related_level = related_commands.add_parser(
        "level-material", help="a DeepChess run's held-out accuracy where material is level",
        description="Read a finished DeepChess run's positions again from its source (checked "
                    "against its summary) and compare the network with the material-only "
                    "comparator on held-out pairs whose material balances are equal (where "
                    "material can only guess), into RUN/level-material.json.")
    related_level.add_argument("--run", type=Path, default=None,
                               help="DeepChess run directory (default: "
                                    "results/related/deepchess)")
    related_level.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    related_level.add_argument("--level-pairs", type=int, default=20_000,
                               help="pairs of level material drawn beyond the summary's "
                                    "(default 20,000; each in both orders)")
    related_level.set_defaults(handler=_related_level_material)

    analyse = commands.add_parser(
        "analyse", help="search one position and print the search summary",
        description="Search FEN (after optional MOVES) and print the best move, the PV, the "
                    "root moves' visits, Q and priors, and which experts evaluated.")
    analyse.add_argument("fen", help="a FEN (quote it), or 'startpos'")
    analyse.add_argument("moves", nargs="*", help="UCI moves played from FEN first")
    analyse.add_argument("--top", type=int, default=8, help="root moves listed")
    _add_engine_arguments(analyse)
    analyse.set_defaults(handler=_analyse)

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
                     help="SPRT of H0: ELO0 against H1: ELO1 on the pentanomial counts")
    elo.add_argument("--alpha", type=float, default=0.05,
                     help="SPRT false-positive rate (default 0.05)")
    elo.add_argument("--beta", type=float, default=0.05,
                     help="SPRT false-negative rate (default 0.05)")
    elo.add_argument("--model", choices=("normalized", "logistic"), default="normalized",
                     help="Elo model of the SPRT bounds (default normalized)")
    elo.add_argument("--exact-z", action="store_true",
                     help="use z = 1.959964 instead of cutechess's 1.957162 for the margin")
    elo.set_defaults(handler=_elo)

    search = commands.add_parser("search", help="record gated searches of an expert bundle "
                                                "(Fig. 3: mini-batch purity)")
    search.add_argument("--bundle", type=Path, required=True, help="expert bundle to search")
    search.add_argument("--out", type=Path, required=True, help="output directory")
    search.add_argument("--nodes", type=_count(1), default=800,
                        help="nodes of each recorded search (default 800)")
    search.add_argument("--positions", type=_count(1), default=24,
                        help="positions near phase changes to search (default 24)")
    search.add_argument("--force", action="store_true", help=_FORCE)
    search.set_defaults(handler=_search)

    parity = commands.add_parser(
        "search-parity", help="compare the compiled search with the Python search move for "
                              "move on the committed small experts",
        description="Search each position with both tree searches (fresh trees, the same "
                    "evaluator, fixed nodes) and record whether moves, root visits and every "
                    "mini-batch agree, one JSON file per configuration (resumable).")
    parity.add_argument("--experts", type=Path, default=None,
                        help="directory of the small profile's bundles (default "
                             "results/experts/small)")
    parity.add_argument("--out", type=Path, default=Path("results/search/native-parity"),
                        help="output directory (default results/search/native-parity)")
    parity.add_argument("--positions", type=_count(1), default=1000,
                        help="positions per configuration (default 1000)")
    parity.add_argument("--nodes", type=_count(1), default=100,
                        help="nodes per search (default 100)")
    parity.set_defaults(handler=_search_parity)

    openings = commands.add_parser("openings", help="generate an opening suite with Stockfish "
                                                    "(the embedded suite's recipe)")
    openings.add_argument("--out", type=Path, required=True, help="EPD file to write")
    openings.add_argument("--positions", type=_count(1), default=2000,
                          help="positions in the suite (default 2000)")
    openings.add_argument("--seed", type=int, default=20261122,
                          help="seed of the random openings (default 20261122)")
    openings.add_argument("--engine", default=None, help="UCI engine (default: Stockfish)")
    openings.set_defaults(handler=_openings)

    conf = commands.add_parser("config", help="show a profile: every field, its value and "
                                              "what it means",
                               description="The one config root (chessmoe.config): "
                                           + ", ".join(PROFILE_NAMES) + ".")
    conf_commands = conf.add_subparsers(dest="config_command", metavar="SUBCOMMAND",
                                        required=True)
    conf_show = conf_commands.add_parser("show", help="print a documented profile")
    conf_show.add_argument("profile", help="a profile name: " + ", ".join(PROFILE_NAMES))
    conf_show.add_argument("--set", nargs="+", action="extend", metavar="KEY=VALUE",
                           help="training overrides, parsed by each field's type, e.g. "
                                "--set epochs=1 batch_size=128 (repeatable)")
    conf.set_defaults(handler=_config)

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
    figs.add_argument("--results", type=Path, default=Path("results"), help=_RESULTS)
    figs.add_argument("--figures", type=Path, default=Path("figures"),
                      help="where the figures and tables go (default: figures)")
    figs.add_argument("--build", type=Path, default=Path("build/notebooks"),
                      help="where the executed notebooks go (default: build/notebooks)")
    figs.add_argument("--kernel", default="chessmoe",
                      help="Jupyter kernel to run them in (default: chessmoe)")
    figs.add_argument("--layout", default="small", help="which profile's results to draw")
    figs.add_argument("--parallel", type=int, default=2, help="notebooks at a time")
    nbs.set_defaults(handler=_notebooks)

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
    tourn.add_argument("--plan", action="store_true",
                       help="calibrate on this machine and print the projected wall time of "
                            "every part instead of playing")
    tourn.add_argument("--measure-games", type=int, nargs="+", default=None, metavar="NODES",
                       help="with --plan: calibrate by playing random networks of the "
                            "profile's size through the real runner at these node limits")
    tourn.add_argument("--dask", nargs="?", const="", default=None, metavar="ADDRESS",
                       help="run on Dask (a scheduler address; none: a LocalCluster)")
    tourn.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    tourn.add_argument("--force", action="store_true", help=_FORCE)
    tourn.add_argument("--quiet", action="store_true", help=_QUIET)
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
    par.add_argument("--quiet", action="store_true", help=_QUIET)
    par.set_defaults(handler=_parity)

    res = commands.add_parser(
        "results", help="the whole pipeline of a profile (stats, datasets, experts, search, "
                        "tournament), resumable",
        description="Run every step in dependency order, skipping what is up to date.")
    res.add_argument("--profile", default="small",
                     help="the profile (default small): " + ", ".join(PROFILE_NAMES))
    res.add_argument("--results", type=Path, default=Path("results"), help=_RESULTS)
    res.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    res.add_argument("--steps", nargs="*", default=None,
                     help="only these steps (default all): stats, datasets, experts, search, "
                          "tournament")
    res.add_argument("--force", action="store_true", help=_FORCE)
    res.add_argument("--quiet", action="store_true", help=_QUIET)
    res.set_defaults(handler=_results)

    stats = commands.add_parser(
        "stats", help="game-phase statistics frames of a PGN source",
        description="One streaming pass over a source producing per-position and per-game "
                    "frames (Parquet) and a manifest under RESULTS/stats/NAME/.")
    stats.add_argument("--source", default="sample",
                       help="sample | lichess-2013-01 | kingbase | a PGN path")
    stats.add_argument("--name", help="results sub-directory (default: from the source)")
    stats.add_argument("--results", type=Path, default=Path("results"), help=_RESULTS)
    stats.add_argument("--data-dir", type=Path, default=None, help=_DATA_DIR)
    stats.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    stats.add_argument("--max-games", type=int, default=None,
                       help="stop after this many games (tests, quick looks)")
    stats.add_argument("--force", action="store_true", help=_FORCE)
    stats.add_argument("--quiet", action="store_true", help=_QUIET)
    stats.set_defaults(handler=_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``chessmoe`` command."""
    from chessmoe._io.errors import KitError

    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except KitError as error:  # a problem the user can fix: one line, no traceback
        print(f"chessmoe {args.command}: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as error:
        # a path the user named does not exist (or is the wrong kind): one line, no traceback
        print(f"chessmoe {args.command}: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"chessmoe {args.command}: interrupted (long jobs resume where they stopped)",
              file=sys.stderr)
        return 130
