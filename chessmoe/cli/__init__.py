"""The ``chessmoe`` command line (also ``python -m chessmoe``).

One module per command group, each holding its commands' handlers and the function that
registers them (``add_*_commands``); :func:`build_parser` puts them together and :func:`main`
runs one. Subcommands import their modules lazily so that ``chessmoe --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from chessmoe.cli._common import PROFILE_NAMES, Handler
from chessmoe.cli.data import add_data_commands
from chessmoe.cli.engine import add_engine_commands, add_evaluator_options, evaluator_spec_from_args
from chessmoe.cli.related import add_related_commands
from chessmoe.cli.results import add_results_commands
from chessmoe.cli.search import add_search_commands
from chessmoe.cli.tournaments import add_tournament_commands
from chessmoe.cli.train import add_train_commands

__all__ = ["PROFILE_NAMES", "add_evaluator_options", "build_parser", "evaluator_spec_from_args",
           "main"]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for tests and docs)."""
    from chessmoe import __version__

    parser = argparse.ArgumentParser(
        prog="chessmoe",
        description="Reproducibility kit for 'Checkmating One, by Using Many' "
                    "(mixture of experts + MCTS in chess).")
    parser.add_argument("--version", action="version", version=f"chessmoe {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_data_commands(commands)
    add_train_commands(commands)
    add_engine_commands(commands)
    add_search_commands(commands)
    add_tournament_commands(commands)
    add_related_commands(commands)
    add_results_commands(commands)
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
