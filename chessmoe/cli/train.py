"""``chessmoe train`` (experts of a profile, and its controls) and ``chessmoe config``
(a profile, every field documented)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chessmoe.cli._common import DATA_DIR_HELP, FORCE_HELP, PROFILE_NAMES, QUIET_HELP, RESULTS_HELP
from chessmoe.nets.names import CONTROL_DESCRIPTIONS

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands


def _train(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe._io.overrides import parse_overrides
    from chessmoe.nets import regimes
    from chessmoe.nets.training import TrainConfig

    overrides = parse_overrides(TrainConfig, args.set or [])
    chosen = config.profile(args.profile)
    if args.controls or args.control:
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
    try:
        # --control: these controls instead of the profile's (checked by the plan)
        plan = replace(chosen.training, train=replace(chosen.training.train, **overrides),
                       **({"controls": tuple(args.control)} if args.control else {}))
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


def _config(args: argparse.Namespace) -> int:
    from chessmoe import config
    from chessmoe._io.overrides import parse_overrides
    from chessmoe.nets.training import TrainConfig

    print(config.show(args.profile, parse_overrides(TrainConfig, args.set or [])))
    return 0


def _compare(args: argparse.Namespace) -> int:
    """``chessmoe compare``: paired test-loss differences of two trained bundles."""
    from chessmoe import config
    from chessmoe.nets.evaluation import compare_bundles
    from chessmoe.nets.regimes import profile_dataset

    try:
        chosen = config.profile(args.profile)
        experts = Path(args.results) / "experts" / args.profile
        for name in (args.first, args.second):
            if not (experts / name / "manifest.json").is_file():
                raise FileNotFoundError(f"{experts / name}/manifest.json: no trained bundle "
                                        f"{name}")
        dataset = profile_dataset(chosen.training, data_dir=args.data_dir,
                                  progress=not args.quiet)
        rows = compare_bundles(experts, args.first, args.second, dataset,
                               test_sets=tuple(args.test_set or ["no-phases"]))
    except (ValueError, FileNotFoundError) as error:
        print(f"chessmoe compare: {error}", file=sys.stderr)
        return 2
    for row in rows:
        low, high = row.interval()
        print(f"{row.first} minus {row.second} on {row.test_set}: {row.difference:+.4f} "
              f"[{low:+.4f}, {high:+.4f}] (policy cross-entropy {row.policy_ce:+.4f}, value "
              f"MSE {row.value_mse:+.4f}; {row.positions:,} positions of {row.games:,} games, "
              f"standard error clustered by game)")
    return 0


def add_train_commands(commands: Commands) -> None:
    """``train``, ``compare`` and ``config``."""
    train = commands.add_parser(
        "train", help="train experts: every regime of a profile, or one regime/expert",
        description="Train the regimes of a profile (smoke | small | medium | paper) into "
                    "RESULTS/experts/PROFILE/<bundle>/ and evaluate each bundle on the test "
                    "sets (Table 1). Resumable: rerun after an interruption.")
    train.add_argument("--profile", default="small",
                       help="smoke | small | powered | medium | paper (chessmoe config show NAME)")
    train.add_argument("--regime", nargs="*", default=None,
                       help="regular separated staged weighted (default: all four, the "
                            "paper's), or trunk (the shared-trunk mixture, opt-in)")
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
    train.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    train.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
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
    train.add_argument("--control", nargs="+", action="extend", metavar="NAME",
                       help="train these controls instead of the profile's (implies "
                            "--controls): " + "; ".join(
                                f"{name} ({text})" for name, text in CONTROL_DESCRIPTIONS.items()))
    train.add_argument("--force", action="store_true", help=FORCE_HELP)
    train.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    train.set_defaults(handler=_train)

    compare = commands.add_parser(
        "compare", help="paired test-loss difference of two trained bundles",
        description="FIRST's test loss minus SECOND's on the same test positions (a mixture "
                    "scores each with its own phase's expert, as Table 1 does), with a 95 % "
                    "interval from the standard error clustered by game; recorded in "
                    "RESULTS/experts/PROFILE/paired-losses.json.")
    compare.add_argument("first", help="a bundle under RESULTS/experts/PROFILE/")
    compare.add_argument("second", help="the bundle it is compared with")
    compare.add_argument("--profile", default="small",
                         help="the profile whose bundles and test split are read: "
                              + ", ".join(PROFILE_NAMES))
    compare.add_argument("--test-set", nargs="+", action="extend", metavar="SET",
                         help="no-phases (default) or a phase name (opening, middlegame, "
                              "endgame)")
    compare.add_argument("--results", type=Path, default=Path("results"), help=RESULTS_HELP)
    compare.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    compare.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    compare.set_defaults(handler=_compare)

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
