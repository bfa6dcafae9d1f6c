"""Bundles on disk, without torch: a bundle's manifest and the checkpoint files a search reads.

A trained bundle (written by :mod:`chessmoe.nets.regimes`) is a directory with a
``manifest.json`` and one ``model.pt`` per network: ``phase<k>/model.pt`` for a mixture's
experts, ``baseline/model.pt`` for the regular network (a mixture names its regular bundle in
its manifest's ``baseline``, relative to itself). :mod:`chessmoe.search.experts` loads them;
this module only says which files those are, so a tournament's client can name and checksum
every file a worker will read without importing torch
(:meth:`chessmoe.search.evaluators.EvaluatorSpec.weight_files`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe.nets.bundles import read_manifest

__all__ = ["Bundle", "load_bundle", "mixture_baseline", "network_file"]


@dataclass
class Bundle:
    """A trained bundle: its manifest and network paths."""

    directory: Path
    manifest: dict[str, Any]

    @property
    def definition(self) -> str:
        return str(self.manifest["definition"])

    @property
    def regime(self) -> str:
        return str(self.manifest["regime"])

    def expert_paths(self) -> list[Path]:
        n = len(self.manifest["phase_names"])
        paths = [self.directory / f"phase{p}" / "model.pt" for p in range(n)]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise FileNotFoundError(f"the bundle {self.directory} lacks experts: "
                                    + ", ".join(missing))
        return paths

    def baseline_path(self) -> Path | None:
        own = self.directory / "baseline" / "model.pt"
        if own.exists():
            return own
        ref = self.manifest.get("baseline")
        if ref:
            path: Path = (self.directory / str(ref) / "baseline" / "model.pt").resolve()
            if path.exists():
                return path
        return None


def load_bundle(directory: str | os.PathLike[str]) -> Bundle:
    """Read a bundle directory written by :mod:`chessmoe.nets.regimes`."""
    directory = Path(directory)
    manifest = read_manifest(directory)  # what the reports read of it, the same file
    if manifest is None:
        raise FileNotFoundError(f"{directory / 'manifest.json'} is missing: not an expert "
                                "bundle (train one with 'chessmoe train')")
    return Bundle(directory, manifest)


def network_file(directory: str | os.PathLike[str]) -> Path:
    """The checkpoint a single network is read from: ``directory`` itself (a ``model.pt``),
    else its ``model.pt``, else its ``baseline/model.pt`` (a regular bundle)."""
    path = Path(directory)
    if path.is_dir():
        for candidate in (path / "model.pt", path / "baseline" / "model.pt"):
            if candidate.exists():
                return candidate
        raise FileNotFoundError(f"no model.pt in {directory} (or its baseline/)")
    return path


def mixture_baseline(bundle: Bundle, baseline: str | os.PathLike[str] | None = None
                     ) -> Path | None:
    """The baseline checkpoint a mixture reads beside ``bundle``'s experts: ``baseline``'s (a
    regular bundle's directory) when named, else the bundle's own reference; ``None`` when
    that file does not exist (the mixture then has no baseline)."""
    path = Path(baseline) / "baseline" / "model.pt" if baseline else bundle.baseline_path()
    return path if path is not None and path.exists() else None
