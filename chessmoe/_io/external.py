"""Locating external programs (Stockfish) the kit can use but does not ship."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["StockfishNotFound", "find_stockfish"]

# Debian installs Stockfish under /usr/games, which is often not on PATH.
_EXTRA_DIRS = ("/usr/games", "/usr/local/games", "/opt/homebrew/bin")


class StockfishNotFound(FileNotFoundError):
    """No Stockfish binary could be located."""


def find_stockfish(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Path of a Stockfish binary: ``explicit``, else ``$STOCKFISH``, else ``stockfish``
    on PATH, else the usual Debian/Homebrew locations.

    Raises :class:`StockfishNotFound` naming how to install one.
    """
    candidates: list[str] = []
    if explicit is not None:
        candidates.append(os.fspath(explicit))
    if os.environ.get("STOCKFISH"):
        candidates.append(os.environ["STOCKFISH"])
    for candidate in candidates:
        resolved = shutil.which(candidate)
        if resolved:
            return Path(resolved)
        raise StockfishNotFound(f"Stockfish binary {candidate!r} does not exist or is not "
                                "executable")
    found = shutil.which("stockfish")
    if found:
        return Path(found)
    for directory in _EXTRA_DIRS:
        path = Path(directory) / "stockfish"
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise StockfishNotFound(
        "no Stockfish found (looked at $STOCKFISH, PATH and /usr/games); install it, e.g. "
        "'apt-get install -y stockfish', or pass its path explicitly")
