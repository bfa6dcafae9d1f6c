"""``chessmoe uci`` and ``chessmoe analyse``: the engine, with the evaluator's arguments
added and read in one place (:func:`add_evaluator_options`, :func:`evaluator_spec_from_args`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chessmoe.cli._common import at_least

if TYPE_CHECKING:
    from chessmoe.cli._common import Commands
    from chessmoe.play.uci import EngineOptions
    from chessmoe.search.evaluators import EvaluatorSpec

__all__ = ["add_engine_commands", "add_evaluator_options", "evaluator_spec_from_args"]


def add_evaluator_options(parser: argparse.ArgumentParser) -> None:
    """The evaluator's arguments (what scores the leaves), read back as one
    :class:`~chessmoe.search.evaluators.EvaluatorSpec` by :func:`evaluator_spec_from_args`;
    their defaults are the spec's own (a user's engine: device and backend ``auto``)."""
    from chessmoe.search.evaluators import BACKENDS, ROUTINGS, EvaluatorSpec

    default = EvaluatorSpec()
    parser.add_argument("--experts", type=Path, default=None,
                        help="expert bundle, run directory or model.pt (default: the kit's "
                             "committed small experts; an error where they are not found)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="regular bundle (for --single-expert)")
    parser.add_argument("--uniform", action="store_true", help="no network at all")
    parser.add_argument("--routing", default=default.routing, choices=ROUTINGS,
                        help="which expert evaluates a mini-batch: the one most of its leaves "
                             "belong to (majority, the paper's), each leaf its own (split), "
                             f"or a phase-weighted blend (soft); default {default.routing}")
    parser.add_argument("--gate", default=None,
                        help="phase definition of the gate (default: the bundle's)")
    parser.add_argument("--single-expert", type=at_least(0), default=None,
                        help="use only this phase's expert, the baseline elsewhere")
    parser.add_argument("--device", default=default.device,
                        help="auto (cuda when present, else cpu), cpu, cuda or cuda:N "
                             f"(default {default.device})")
    parser.add_argument("--backend", default=default.backend, choices=BACKENDS,
                        help="network backend (auto: cuda on a GPU; on a CPU openvino-bf16 "
                             "where its committed gates passed and the CPU computes bf16, else "
                             "ONNX Runtime fp32; onnx: fp32 always; torch: eager fp32, the "
                             f"reference; default {default.backend})")
    parser.add_argument("--threads", type=at_least(1), default=default.threads,
                        help=f"CPU threads of the network (default {default.threads})")


def evaluator_spec_from_args(args: argparse.Namespace) -> EvaluatorSpec:
    """The :class:`~chessmoe.search.evaluators.EvaluatorSpec` of the arguments
    :func:`add_evaluator_options` added (the one place they are read)."""
    from chessmoe.search.evaluators import EvaluatorSpec

    return EvaluatorSpec(network=None if args.experts is None else str(args.experts),
                         baseline=None if args.baseline is None else str(args.baseline),
                         routing=args.routing, gate=args.gate,
                         single_expert=args.single_expert, device=args.device,
                         backend=args.backend, threads=args.threads, uniform=args.uniform)


def _add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The evaluator's arguments and the search's (``chessmoe uci``, ``chessmoe analyse``)."""
    add_evaluator_options(parser)
    parser.add_argument("--batch-size", type=at_least(1), default=8,
                        help="leaves evaluated together per mini-batch (default 8)")
    parser.add_argument("--nodes", type=at_least(1), default=800,
                        help="nodes per search (default 800)")
    parser.add_argument("--movetime", type=at_least(1), default=None, help="ms per move")
    _add_search_argument(parser)


def _add_search_argument(parser: argparse.ArgumentParser) -> None:
    from chessmoe.search.kinds import DEFAULT_SEARCH, SEARCH_KINDS

    parser.add_argument("--search", default=DEFAULT_SEARCH, choices=SEARCH_KINDS,
                        help="tree search: native (compiled, the default) or python (the "
                             "reference it is tested against move for move)")


def _engine_options(args: argparse.Namespace) -> EngineOptions:
    """The engine arguments as the UCI engine's options: the evaluator's through
    :func:`evaluator_spec_from_args`, the search's beside them."""
    from chessmoe.play.uci import EngineOptions

    return EngineOptions.from_evaluator_spec(
        evaluator_spec_from_args(args), Batch_Size=args.batch_size, Nodes=args.nodes,
        Fixed_Movetime=args.movetime or 0, Search=args.search)


def _uci(args: argparse.Namespace) -> int:
    from chessmoe.play.uci import run_uci

    return run_uci(_engine_options(args), engine=args.player)


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
        evaluator, description = evaluator_spec_from_args(args).build()
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


def add_engine_commands(commands: Commands) -> None:
    """``uci`` and ``analyse``."""
    from chessmoe.play.players import RELATED_KINDS  # torch-free: the engines' names

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

    analyse = commands.add_parser(
        "analyse", help="search one position and print the search summary",
        description="Search FEN (after optional MOVES) and print the best move, the PV, the "
                    "root moves' visits, Q and priors, and which experts evaluated.")
    analyse.add_argument("fen", help="a FEN (quote it), or 'startpos'")
    analyse.add_argument("moves", nargs="*", help="UCI moves played from FEN first")
    analyse.add_argument("--top", type=int, default=8, help="root moves listed")
    _add_engine_arguments(analyse)
    analyse.set_defaults(handler=_analyse)
