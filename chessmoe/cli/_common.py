"""What every command group of the CLI shares: argument types, help texts, profile names."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from chessmoe.designs.registry import REGISTERED

if TYPE_CHECKING:
    from typing import TypeAlias

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
    """The ``COMMAND`` sub-parsers a command group adds its commands to."""

# chessmoe.config.PROFILES' names, for help texts without importing torch (a test keeps
# them equal)
PROFILE_NAMES = ("smoke", "small", "small-cutechess",
                 *(d.name for d in REGISTERED if d.profile), "precision",
                 "ratings", "ratings-cutechess", "related", "medium", "paper")

Handler = Callable[[argparse.Namespace], int]


def at_least(least: int) -> Callable[[str], int]:
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


QUIET_HELP = "no progress bars"
FORCE_HELP = ("replace a finished, committed result this run would change (without it the "
          "command stops, naming the directory)")
DATA_DIR_HELP = "data directory (default: $CHESSMOE_DATA or ./data)"
RESULTS_HELP = "results directory (default: results)"
