"""The data directory: where named sources, downloads and the paper's suite are kept.

Below every other module of :mod:`chessmoe.games` (it imports none of them), so the modules
that read or fetch data (``epd``, ``sources``, ``datasets``) can all name it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_data_dir"]


def default_data_dir() -> Path:
    """``$CHESSMOE_DATA`` if set, else ``./data``."""
    return Path(os.environ.get("CHESSMOE_DATA", "data"))
