"""Provenance records: what produced a result, from what, where and when.

Every manifest in ``results/`` embeds :func:`provenance` so that a number can be
traced to a git commit, the data it read, the machine and the date; :func:`folder_provenance`
reads them back for a results folder.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import chessmoe

__all__ = ["FolderProvenance", "checkout_label", "folder_provenance", "git_commit", "hardware",
           "provenance", "software", "utc_now"]

#: How many differing paths a provenance block names (all of them are counted).
CHANGED_SHOWN = 20

_PACKAGES = ("chess", "numpy", "pandas", "pyarrow", "torch", "onnxruntime", "openvino",
             "matplotlib",
             "seaborn", "papermill")


def utc_now() -> str:
    """Current UTC time, ISO 8601 with seconds."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def git_commit(repo: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The commit of the checkout holding ``repo`` (default: this package), whether the
    tracked files differ from it, and which (``changed``: the first :data:`CHANGED_SHOWN`
    paths, ``changed_count`` all of them), so that a dirty result says whether its code or
    only its own output folder differed. ``None`` fields outside a git checkout."""
    where = Path(repo) if repo is not None else Path(chessmoe.__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        # every tracked path whose index or working copy differs from HEAD, NUL-separated
        # (no quoting of odd names) and without rename detection (a rename is its two paths)
        listed = subprocess.run(["git", "diff", "HEAD", "--name-only", "-z", "--no-renames"],
                                cwd=where, capture_output=True, text=True, check=True,
                                timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "changed": None, "changed_count": None}
    changed = sorted(path for path in listed.split("\0") if path)
    return {"commit": commit, "dirty": bool(changed), "changed": changed[:CHANGED_SHOWN],
            "changed_count": len(changed)}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return None


def hardware(include_gpu: bool = True) -> dict[str, Any]:
    """CPU model, logical cores, memory and (when torch sees one) the GPU."""
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "affinity_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else None,
        "memory_gib": _memory_gib(),
        "machine": platform.machine(),
        "os": platform.platform(),
        "gpu": None,
    }
    if include_gpu and "torch" in sys.modules:
        torch = sys.modules["torch"]
        if torch.cuda.is_available():
            info["gpu"] = {
                "name": torch.cuda.get_device_name(0),
                "count": torch.cuda.device_count(),
                "cuda": torch.version.cuda,
            }
    return info


def software() -> dict[str, str | None]:
    """Versions of Python, chessmoe and the main libraries (``None`` if absent)."""
    versions: dict[str, str | None] = {
        "python": platform.python_version(),
        "chessmoe": chessmoe.__version__,
    }
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def provenance(**extra: Any) -> dict[str, Any]:
    """A provenance block: git commit, hardware, software, date, command line."""
    block: dict[str, Any] = {
        "git": git_commit(),
        "hardware": hardware(),
        "software": software(),
        "date": utc_now(),
        "argv": list(sys.argv),
    }
    block.update(extra)
    return block


# --- read back: what the manifests of a results folder record --------------------------------


def checkout_label(commit: str | None, dirty: bool | None) -> str:
    r"""A recorded checkout as the documents name it: ``\`8929a80a\` clean``, ``dirty`` or
    ``state not recorded``; ``commit not recorded`` without a commit."""
    if commit is None:
        return "commit not recorded"
    state = {True: "dirty", False: "clean", None: "state not recorded"}[dirty]
    return f"`{commit[:8]}` {state}"


@dataclass(frozen=True)
class FolderProvenance:
    """What the manifests of one results folder (and its direct sub-folders) record."""

    folder: str
    profiles: tuple[str, ...]
    checkouts: tuple[tuple[str, int], ...]  # ("`8929a80a` clean", records)
    first_date: str | None
    last_date: str | None


def _manifests(directory: Path) -> Iterable[dict[str, object]]:
    for name in ("manifest.json", "summary.json"):
        for path in [directory / name, *sorted(directory.glob(f"*/{name}"))]:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                yield data


def folder_provenance(results: Path, folder: str) -> FolderProvenance:
    """The profiles, checkouts and dates the manifests (or summaries) of ``results/folder``
    and its bundles record."""
    profiles: set[str] = set()
    checkouts: Counter[str] = Counter()
    dates: list[str] = []
    for record in _manifests(results / folder):
        profile = record.get("profile") or record.get("tournament")
        if isinstance(profile, str):
            profiles.add(profile)
        prov = record.get("provenance")
        if not isinstance(prov, dict):
            continue
        git = prov.get("git")
        git = git if isinstance(git, dict) else {}
        commit, dirty = git.get("commit"), git.get("dirty")
        checkouts[checkout_label(commit if isinstance(commit, str) else None,
                                 dirty if isinstance(dirty, bool) else None)] += 1
        if isinstance(prov.get("date"), str):
            dates.append(str(prov["date"]))
    dates.sort()
    return FolderProvenance(folder, tuple(sorted(profiles)),
                            tuple(sorted(checkouts.items(), key=lambda kv: (-kv[1], kv[0]))),
                            dates[0] if dates else None, dates[-1] if dates else None)
