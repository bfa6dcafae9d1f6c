"""``chessmoe related``: the related documents' engines (train, vs-stockfish,
fixed-split, level-material).

``train`` joins each engine's trainer (``chessmoe.nets.related.train_<engine>``) with what it
needs of the search (``chessmoe.play.players.<engine>.SEARCH_STEPS``): the trainers sit below
the search and the players never import them, so this is where the two meet.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chessmoe.cli._common import DATA_DIR_HELP

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands


def train_related(kind: str, out_dir: Path, *, profile: str = "small",
                  data_dir: Path | None = None, overrides: Sequence[str] = ()) -> Path:
    """Train engine ``kind`` at ``profile`` into ``out_dir`` (resumable where it is long);
    ``overrides`` are ``KEY=VALUE`` fields of its training config (``--set``)."""
    from chessmoe.play.players import check_engine

    check_engine(kind)  # one of RELATED_KINDS, its module present
    overrides = tuple(overrides)
    if kind == "deepchess":
        from chessmoe.nets.related import train_deepchess
        from chessmoe.play.players import deepchess

        return train_deepchess.train(out_dir, profile=profile, data_dir=data_dir,
                                     overrides=overrides, search=deepchess.SEARCH_STEPS)
    if kind == "mais":
        from chessmoe.nets.related import train_mais
        from chessmoe.play.players import mais

        return train_mais.train(out_dir, profile=profile, data_dir=data_dir,
                                overrides=overrides, search=mais.SEARCH_STEPS)
    from chessmoe.nets.related import train_ntuple  # the one kind left
    from chessmoe.play.players import ntuple

    return train_ntuple.train(out_dir, profile=profile, data_dir=data_dir, overrides=overrides,
                              search=ntuple.SEARCH_STEPS)


def _related_train(args: argparse.Namespace) -> int:
    out = args.out or Path("results") / "related" / args.engine
    path = train_related(args.engine, out, profile=args.profile, data_dir=args.data_dir,
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
    from chessmoe.nets.related.train_mais import FIXED_SPLIT, score_on_final_split

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
    from chessmoe.nets.related.train_deepchess import LEVEL_FILE, level_material

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


def add_related_commands(commands: Commands) -> None:
    """``related`` and its subcommands."""
    # torch-free modules: the engines' names and their Stockfish check from their one home
    from chessmoe.play.players import RELATED_KINDS
    from chessmoe.play.versus import STOCKFISH_CHECK_NODES, STOCKFISH_CHECK_OPPONENT_NODES

    own_nodes = ", ".join(f"{kind} {nodes}" for kind, nodes in STOCKFISH_CHECK_NODES.items())
    related = commands.add_parser(
        "related", help="the related documents' engines (DeepChess, n-tuple, MAIS)",
        description="Train the engines of the related documents at a profile's scale.")
    related_commands = related.add_subparsers(dest="related_command", required=True)
    related_train = related_commands.add_parser(
        "train", help="train one related engine into results/related/ENGINE")
    related_train.add_argument("engine", choices=RELATED_KINDS,
                               help="the engine to train")
    related_train.add_argument("--profile", default="small", choices=("smoke", "small", "large"),
                               help="scale (large: the committed results' scale, CPU hours; "
                                    "not every engine has one)")
    related_train.add_argument("--out", type=Path, default=None,
                               help="run directory (default: results/related/ENGINE)")
    related_train.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
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
    related_level.add_argument("--data-dir", type=Path, default=None, help=DATA_DIR_HELP)
    related_level.add_argument("--level-pairs", type=int, default=20_000,
                               help="pairs of level material drawn beyond the summary's "
                                    "(default 20,000; each in both orders)")
    related_level.set_defaults(handler=_related_level_material)
