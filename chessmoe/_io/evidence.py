"""Committed evidence: which results a command may not replace (:func:`refuse_replacing`, asked
by every results writer before it changes a finished result) and which results a reader finds
changed since the commit (:func:`uncommitted`, asked by ``make figures`` before drawing).
"Committed" is decided by git where a git checkout holds the directory, else by the finished
result itself (:func:`is_committed`).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import sha256_file

__all__ = [
    "CommittedResult",
    "Uncommitted",
    "ignored",
    "is_committed",
    "refuse_replacing",
    "tracked",
    "uncommitted",
]


class CommittedResult(KitError):
    """A command would replace a committed result; the one-line message names the directory
    and how to go on (``--force``, or another output directory)."""


def _git(args: Sequence[str], where: Path) -> str | None:
    """``git args`` run in ``where``; ``None`` when git is missing or ``where`` is not in a
    checkout."""
    try:
        done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _existing_parent(path: Path) -> Path:
    """``path`` itself when it is a directory, else its nearest existing ancestor."""
    here = path if path.is_dir() else path.parent
    while not here.is_dir():
        here = here.parent
    return here


def tracked(path: str | os.PathLike[str]) -> bool | None:
    """Whether git tracks ``path`` or a file under it (at HEAD or staged); ``None`` when no
    git checkout holds ``path`` (or git is not installed)."""
    target = Path(path).resolve()
    where = _existing_parent(target)
    if _git(["rev-parse", "--is-inside-work-tree"], where) is None:
        return None
    listed = _git(["ls-files", "-z", "--", str(target)], where)
    in_head = _git(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", str(target)], where)
    if listed is None:
        return None
    return bool(listed.strip("\0")) or bool((in_head or "").strip("\0"))


def ignored(paths: Sequence[str | os.PathLike[str]]) -> set[Path]:
    """Those of ``paths`` (resolved) that git ignores and does not track (a scratch output
    such as the smoke profile's beside committed results); none without a git checkout."""
    resolved = [Path(p).resolve() for p in paths]
    if not resolved:
        return set()
    where = _existing_parent(resolved[0])
    try:
        done = subprocess.run(["git", "check-ignore", "-z", "--stdin"], cwd=where,
                              input="\0".join(str(p) for p in resolved), capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return set()
    if done.returncode not in (0, 1):  # 1: none ignored; 128: not a checkout
        return set()
    return {Path(p).resolve() for p in done.stdout.split("\0") if p}


def is_committed(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds committed evidence, for a caller that has found a finished
    result in it.

    In a git checkout: git tracks a file under it (a finished result nobody committed, such as
    ``results/experts/smoke``, may be replaced freely). Without git (a tarball, a copy, a
    temporary folder), the finished result itself counts as committed: its manifest (with
    the checksums it records) is then the only record of it, and nothing could restore it once
    replaced, so replacing it takes ``--force``."""
    state = tracked(directory)
    return True if state is None else state


def refuse_replacing(directory: str | os.PathLike[str], *, force: bool = False,
                     elsewhere: str = "--out DIR", what: str = "a committed result",
                     reason: str = "") -> None:
    """Raise :class:`CommittedResult` when ``directory`` holds committed evidence
    (:func:`is_committed`) and ``force`` is false.

    The one place every results writer asks before changing a *finished* result (a writer
    resuming an unfinished run, or finding a finished one up to date, does not call it).
    ``elsewhere`` is how the command writes somewhere else (``--out DIR``, ``--results DIR``,
    ``--name NAME``); ``reason`` says in a few words what would change."""
    if force or not is_committed(directory):
        return
    because = f" ({reason})" if reason else ""
    raise CommittedResult(f"{directory} holds {what} that this run would change{because}; "
                          f"pass --force to replace it (make: FORCE=1), or write elsewhere "
                          f"with {elsewhere}")


# --- what a reader finds changed ---------------------------------------------------------


@dataclass(frozen=True)
class Uncommitted:
    """A results directory that differs from its committed version: ``files`` (relative to
    the directory, sorted) were changed, added or deleted since the commit (or, without git,
    no longer match the sha256 their manifest records)."""

    directory: Path
    files: tuple[str, ...]

    def line(self, root: Path | None = None) -> str:
        """``results/stats/x (2 files: a, b)``, the directory relative to ``root``'s parent."""
        name = self.directory
        if root is not None and self.directory.is_relative_to(root.parent):
            name = self.directory.relative_to(root.parent)
        shown = ", ".join(self.files[:3]) + (", ..." if len(self.files) > 3 else "")
        count = len(self.files)
        return f"{name.as_posix()} ({count} file{'s' if count != 1 else ''}: {shown})"


def _git_changes(directories: Sequence[Path]) -> dict[Path, list[str]] | None:
    """Files under each directory that differ from HEAD (modified, staged, deleted, or new and
    not ignored); ``None`` without a git checkout."""
    where = _existing_parent(directories[0])
    top = _git(["rev-parse", "--show-toplevel"], where)
    if top is None:
        return None
    root = Path(top.strip()).resolve()
    status = _git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
                   "--", *(str(d) for d in directories)], root)
    if status is None:
        return None
    changed: dict[Path, list[str]] = {d: [] for d in directories}
    for entry in status.split("\0"):
        if len(entry) < 4:
            continue
        path = (root / entry[3:]).resolve()
        for directory in directories:
            if path.is_relative_to(directory):
                changed[directory].append(path.relative_to(directory).as_posix())
    return changed


def _recorded_files(value: Any, base: Path) -> Iterator[tuple[Path, str]]:
    """Every ``{"file"|"checkpoint": name, "sha256": hex}`` a manifest records, as (path,
    sha256), the name taken relative to the manifest's folder."""
    if isinstance(value, dict):
        name = value.get("file") or value.get("checkpoint")
        digest = value.get("sha256")
        if isinstance(name, str) and isinstance(digest, str) and (base / name).exists():
            yield base / name, digest
        for item in value.values():
            yield from _recorded_files(item, base)
    elif isinstance(value, list):
        for item in value:
            yield from _recorded_files(item, base)


def _manifest_changes(directory: Path) -> list[str]:
    """Files under ``directory`` whose sha256 differs from the one a ``manifest.json`` beside
    or above them records (the check without git)."""
    bad: list[str] = []
    for manifest in sorted(directory.rglob("manifest.json")):
        try:
            data = json.loads(manifest.read_text())
        except (OSError, ValueError):
            bad.append(manifest.relative_to(directory).as_posix())
            continue
        for path, digest in _recorded_files(data, manifest.parent):
            if path.is_file() and sha256_file(path) != digest:
                bad.append(path.relative_to(directory).as_posix())
    return sorted(set(bad))


def uncommitted(directories: Sequence[str | os.PathLike[str]]) -> list[Uncommitted] | None:
    """The directories (in the order given) that differ from their committed version.

    With git: any file under one that ``git status`` lists (changed, staged, deleted, or new
    and not ignored). Without git: any file whose sha256 differs from the one a
    ``manifest.json`` in the directory records (frames, checkpoints, shards); files no manifest
    checks cannot be compared then. ``[]``: nothing differs; ``None``: no directory given."""
    paths = [Path(d).resolve() for d in directories]
    if not paths:
        return None
    changed = _git_changes(paths)
    if changed is None:
        changed = {p: _manifest_changes(p) if p.is_dir() else [] for p in paths}
    return [Uncommitted(p, tuple(sorted(set(changed[p])))) for p in paths if changed[p]]
