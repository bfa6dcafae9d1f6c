"""``chessmoe data`` (sample, self-play, fetch, build) and ``chessmoe stats``: game
sources, datasets and their statistics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chessmoe.cli._common import DATA_DIR_HELP, FORCE_HELP, QUIET_HELP, RESULTS_HELP, at_least

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands


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


_PGN_SUFFIXES = (".pgn", ".pgn.gz")
_SAMPLE_ONLY = ("random_plies", "skill", "resign_cp", "resign_plies")
_RUN_ONLY = ("spread", "shard_games", "hash", "openings")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _apply(flags: list[str]) -> str:
    return "applies" if len(flags) == 1 else "apply"


def _is_pgn(path: Path) -> bool:
    return path.name.lower().endswith(_PGN_SUFFIXES)


def _data_selfplay_sample(args: argparse.Namespace) -> int:
    """``data selfplay-sample``: the embedded sample's recipe, into one PGN file."""
    if not _is_pgn(args.out):
        print("chessmoe data selfplay-sample: --out is the PGN file to write (FILE.pgn or "
              "FILE.pgn.gz); a run directory is grown by 'chessmoe data selfplay-run'",
              file=sys.stderr)
        return 2
    return _play_sample(args, "chessmoe data selfplay-sample")


def _data_selfplay_run(args: argparse.Namespace) -> int:
    """``data selfplay-run``: grow a self-play run directory."""
    if _is_pgn(args.out):
        print("chessmoe data selfplay-run: --out is a run directory, not a PGN file; the "
              "sample's recipe into one file is 'chessmoe data selfplay-sample'",
              file=sys.stderr)
        return 2
    return _grow_run(args, "chessmoe data selfplay-run")


def _data_selfplay(args: argparse.Namespace) -> int:
    """``data selfplay``, the old spelling of both: ``--out FILE.pgn[.gz]`` is
    ``selfplay-sample``, any other ``--out`` ``selfplay-run``; a notice names the new one."""
    prog = "chessmoe data selfplay"
    sample = _is_pgn(args.out)
    new = "selfplay-sample" if sample else "selfplay-run"
    print(f"{prog}: this spelling is deprecated; use 'chessmoe data {new}' (same options)",
          file=sys.stderr)
    wrong = [_flag(k) for k in (_RUN_ONLY if sample else _SAMPLE_ONLY)
             if getattr(args, k) is not None]
    if wrong and sample:
        print(f"{prog}: {', '.join(wrong)} {_apply(wrong)} to a run directory, not to the "
              "sample's recipe (--out FILE.pgn[.gz])", file=sys.stderr)
        return 2
    if wrong:
        print(f"{prog}: {', '.join(wrong)} {_apply(wrong)} to the sample's recipe (--out "
              "FILE.pgn[.gz]), not to a run directory", file=sys.stderr)
        return 2
    if args.nodes is not None and sample and len(args.nodes) != 2:
        print(f"{prog}: the sample's recipe takes --nodes MIN MAX", file=sys.stderr)
        return 2
    if args.nodes is not None and not sample and len(args.nodes) != 1:
        print(f"{prog}: a run takes one --nodes N (the sample's recipe takes MIN MAX)",
              file=sys.stderr)
        return 2
    if args.nodes is not None:  # as the new commands parse it
        args.nodes = tuple(args.nodes) if sample else args.nodes[0]
    return _play_sample(args, prog) if sample else _grow_run(args, prog)


def _play_sample(args: argparse.Namespace, prog: str) -> int:
    """The sample's recipe into ``args.out`` (``args.nodes``: MIN, MAX or None)."""
    from chessmoe.games.selfplay import SelfPlayConfig, generate

    default = SelfPlayConfig()
    nodes = tuple(args.nodes) if args.nodes is not None else default.nodes

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
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    manifest = generate(args.out, config, workers=args.workers, engine=args.engine,
                        progress=not args.quiet,
                        command="chessmoe " + " ".join(sys.argv[1:]))
    print(json.dumps(manifest["counts"], indent=2))
    return 0


def _grow_run(args: argparse.Namespace, prog: str) -> int:
    """Grow the run ``args.out`` (``chessmoe.games.selfplay_run``; ``args.nodes``: N or
    None)."""
    import dataclasses

    from chessmoe.games.selfplay_run import RunSettings, grow, read_manifest, run_settings

    existing = run_settings(args.out)
    games = args.games
    if games is None:
        if existing is None:
            print(f"{prog}: --games N is needed to start a run", file=sys.stderr)
            return 2
        games = int(read_manifest(args.out)["target_games"])
    given = {"nodes": args.nodes, "spread": args.spread,
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


def _add_selfplay_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """How the self-play commands run Stockfish (the same for a run and the sample)."""
    parser.add_argument("--workers", type=at_least(1), default=1,
                        help="parallel engines, one process each")
    parser.add_argument("--engine", help="Stockfish binary (default: found on PATH)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_selfplay_commands(commands: Commands) -> None:
    """``data selfplay-run``, ``data selfplay-sample`` and ``data selfplay``, the old
    spelling of both."""
    run = commands.add_parser(
        "selfplay-run", help="grow a self-play run of Stockfish games from the opening suite "
                             "(resumable)",
        description="Grow a run directory: Stockfish games from the opening suite at a node "
                    "limit (default 1000 +-20% per side), the cutechess draw rules, gzip PGN "
                    "shards written whole plus manifest.json. Parallel (--workers), resumable "
                    "(rerun, with the same or a larger --games), refused with other settings.")
    run.add_argument("--out", type=Path, required=True, metavar="DIR",
                     help="run directory (created, resumed or grown)")
    run.add_argument("--games", type=at_least(1), default=None,
                     help="games of the run in all (default: the run's target; needed to "
                          "start one)")
    run.add_argument("--seed", type=int, default=None,
                     help="seed of the node limits (default: the run's, else 20261125)")
    run.add_argument("--nodes", type=at_least(1), default=None, metavar="N",
                     help="nodes per move (default 1000)")
    run.add_argument("--spread", type=float, default=None,
                     help="each side's node limit is drawn within nodes * (1 +- spread) per "
                          "game pair (default 0.2)")
    run.add_argument("--max-plies", type=at_least(1), default=None,
                     help="longer games are drawn (default 600)")
    run.add_argument("--shard-games", type=at_least(1), default=None,
                     help="games per shard (default 1000)")
    run.add_argument("--hash", type=at_least(1), default=None, metavar="MB",
                     help="Stockfish hash (default 16)")
    run.add_argument("--openings", default=None,
                     help="opening suite, embedded | paper | an EPD path (default: embedded)")
    _add_selfplay_engine_arguments(run)
    run.set_defaults(handler=_data_selfplay_run)

    recipe = commands.add_parser(
        "selfplay-sample", help="play the embedded sample's recipe into one PGN file "
                                "(make sample)",
        description="Regenerate the embedded self-play sample's recipe into FILE.pgn[.gz]: "
                    "per game, two Stockfish settings (Skill Level and a node limit, drawn "
                    "log-uniformly) after random plies, resign and max-plies rules. Stockfish "
                    "Skill Level picks moves with a clock-seeded generator: a rerun reproduces "
                    "the recipe, not the identical games.")
    recipe.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the PGN file to write (.pgn or .pgn.gz)")
    recipe.add_argument("--games", type=at_least(1), default=None, help="games (default 3000)")
    recipe.add_argument("--seed", type=int, default=None,
                        help="seed of the recipe (default 20261122)")
    recipe.add_argument("--nodes", type=at_least(1), nargs=2, default=None,
                        metavar=("MIN", "MAX"),
                        help="node limits, drawn log-uniformly (default 500 30000)")
    recipe.add_argument("--max-plies", type=at_least(1), default=None,
                        help="longer games are drawn (default 400)")
    recipe.add_argument("--random-plies", type=int, nargs=2, default=None,
                        metavar=("MIN", "MAX"), help="random plies (default 2 6)")
    recipe.add_argument("--skill", type=int, nargs=2, default=None, metavar=("MIN", "MAX"),
                        help="Skill Level range (default 4 20)")
    recipe.add_argument("--resign-cp", type=int, default=None,
                        help="resign threshold in centipawns (default 1000)")
    recipe.add_argument("--resign-plies", type=int, default=None,
                        help="plies beyond the threshold before resigning (default 8)")
    _add_selfplay_engine_arguments(recipe)
    recipe.set_defaults(handler=_data_selfplay_sample)

    selfplay = commands.add_parser(
        "selfplay", help="the old spelling of selfplay-run (--out DIR) and selfplay-sample "
                         "(--out FILE.pgn[.gz]); still works",
        description="The old spelling of two commands, chosen by --out: 'chessmoe data "
                    "selfplay-run' and 'chessmoe data selfplay-sample' (use those). "
                    "--out DIR grows a run directory: Stockfish games from the opening suite "
                    "at a node limit (default 1000 +-20% per side), the cutechess draw rules, "
                    "gzip PGN shards written whole plus manifest.json. Parallel (--workers), "
                    "resumable (rerun, with the same or a larger --games), refused with other "
                    "settings. --out FILE.pgn[.gz] plays the embedded sample's recipe instead "
                    "(two Stockfish settings drawn per game after random plies).")
    selfplay.add_argument("--out", type=Path, required=True,
                          help="run directory, or a .pgn/.pgn.gz file for the sample's recipe")
    selfplay.add_argument("--games", type=at_least(1), default=None,
                          help="games of the run in all (default: the run's target; the "
                               "sample: 3000)")
    selfplay.add_argument("--seed", type=int, default=None,
                          help="seed of the node limits (run) or of the recipe (sample)")
    selfplay.add_argument("--workers", type=at_least(1), default=1,
                          help="parallel engines, one process each")
    selfplay.add_argument("--engine", help="Stockfish binary (default: found on PATH)")
    selfplay.add_argument("--nodes", type=at_least(1), nargs="+", default=None,
                          metavar="N",
                          help="run: nodes per move (default 1000); sample: MIN MAX, drawn "
                               "log-uniformly (default 500 30000)")
    selfplay.add_argument("--max-plies", type=at_least(1), default=None,
                          help="longer games are drawn (run: 600; sample: 400)")
    selfplay.add_argument("--spread", type=float, default=None,
                          help="run: each side's node limit is drawn within nodes * (1 +- "
                               "spread) per game pair (default 0.2)")
    selfplay.add_argument("--shard-games", type=at_least(1), default=None,
                          help="run: games per shard (default 1000)")
    selfplay.add_argument("--hash", type=at_least(1), default=None, metavar="MB",
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


def add_data_commands(commands: Commands) -> None:
    """``data`` (``sample``, ``selfplay-sample``, ``selfplay-run``, ``fetch``, ``build``) and
    ``stats``."""
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

    _add_selfplay_commands(data_commands)

    fetch = data_commands.add_parser(
        "fetch", help="download a public game database (KingBase Lite 2019, Lichess month)",
        description="Download and verify a public database into the data directory. Names: "
                    "'kingbase' (KingBase Lite 2019, archive.org) or 'lichess-YYYY-MM' "
                    "(a Lichess standard rated month; --first N keeps the first N games).")
    fetch.add_argument("name", help="kingbase | lichess-YYYY-MM")
    fetch.add_argument("--first", type=int, help="Lichess: keep only the first N games")
    fetch.add_argument("--data-dir", type=Path, default=None,
                       help="where downloads go (default: $CHESSMOE_DATA or ./data)")
    fetch.add_argument("--quiet", action="store_true", help=QUIET_HELP)
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
    build.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    build.add_argument("--max-games", type=int, default=None,
                       help="stop after this many games (tests, quick looks)")
    build.add_argument("--force", action="store_true", help=FORCE_HELP)
    build.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    build.set_defaults(handler=_data_build)

    stats = commands.add_parser(
        "stats", help="game-phase statistics frames of a PGN source",
        description="One streaming pass over a source producing per-position and per-game "
                    "frames (Parquet) and a manifest under RESULTS/stats/NAME/.")
    stats.add_argument("--source", default="sample",
                       help="sample | lichess-2013-01 | kingbase | a PGN path")
    stats.add_argument("--name", help="results sub-directory (default: from the source)")
    stats.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    stats.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    stats.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    stats.add_argument("--max-games", type=int, default=None,
                       help="stop after this many games (tests, quick looks)")
    stats.add_argument("--force", action="store_true", help=FORCE_HELP)
    stats.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    stats.set_defaults(handler=_stats)
