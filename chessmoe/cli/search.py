"""``chessmoe search`` (gated searches of a bundle, Fig. 3) and ``chessmoe search-parity``
(the compiled search against the Python one)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chessmoe.cli._common import FORCE_HELP, at_least

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands
    from chessmoe.search.mcts import Evaluator


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


def _onnx_evaluator(bundle: Path, routing: str | None) -> Evaluator:
    """A parity case's evaluator: the bundle's mixture with ``routing``, or (None) its single
    network, on ONNX Runtime."""
    from chessmoe.search.experts import mixture_from_bundle, network_from_dir

    if routing is None:
        return network_from_dir(bundle, device="cpu", backend="onnx")
    return mixture_from_bundle(bundle, routing=routing, device="cpu", backend="onnx")


def _search_parity(args: argparse.Namespace) -> int:
    from chessmoe.search.native.parity import record_parity

    experts = args.experts or Path("results") / "experts" / "small"
    if not experts.is_dir():
        print(f"chessmoe search-parity: {experts} holds no expert bundles (name them with "
              "--experts)", file=sys.stderr)
        return 2
    rows = record_parity(experts, args.out, evaluator_for=_onnx_evaluator,
                         positions=args.positions, nodes=args.nodes)
    for row in rows:
        print(f"{row['label']}: {row['same_move']}/{row['positions']} same move, "
              f"{row['same_visits']} same root visits, {row['same_batches']} same batches")
    return 0 if all(row["exact"] for row in rows) else 1


def add_search_commands(commands: Commands) -> None:
    """``search`` and ``search-parity``."""
    search = commands.add_parser("search", help="record gated searches of an expert bundle "
                                                "(Fig. 3: mini-batch purity)")
    search.add_argument("--bundle", type=Path, required=True, help="expert bundle to search")
    search.add_argument("--out", type=Path, required=True, help="output directory")
    search.add_argument("--nodes", type=at_least(1), default=800,
                        help="nodes of each recorded search (default 800)")
    search.add_argument("--positions", type=at_least(1), default=24,
                        help="positions near phase changes to search (default 24)")
    search.add_argument("--force", action="store_true", help=FORCE_HELP)
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
    parity.add_argument("--positions", type=at_least(1), default=1000,
                        help="positions per configuration (default 1000)")
    parity.add_argument("--nodes", type=at_least(1), default=100,
                        help="nodes per search (default 100)")
    parity.set_defaults(handler=_search_parity)
