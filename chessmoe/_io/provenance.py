"""Provenance records: what produced a result, from what, where and when.

Every manifest in ``results/`` embeds :func:`provenance` so that a number can be
traced to a git commit, the data it read, the machine and the date.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import chessmoe

__all__ = ["git_commit", "hardware", "provenance", "software", "utc_now"]

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
