"""Issue 44: `make figures` is byte-for-byte repeatable. Two builds of every figure and table
from the committed results, under different hash seeds (so no set or dict order, nor anything
else that varies between runs, can reach an artefact unnoticed), give the same files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def build_figures(repo: Path, out: Path, build: Path, seed: str) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONHASHSEED": seed,
           # the notebooks' kernel imports this checkout's chessmoe, as `make figures` does
           "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "chessmoe", "notebooks", "figures", "--dir",
         str(repo / "notebooks"), "--results", str(repo / "results"), "--figures", str(out),
         "--build", str(build)], env=env, capture_output=True, text=True, cwd=repo)
    assert done.returncode == 0, done.stderr[-3000:]
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_two_figure_builds_under_other_hash_seeds_are_identical(repo: Path,
                                                                tmp_path: Path) -> None:
    first = build_figures(repo, tmp_path / "figures-1", tmp_path / "build-1", "1")
    second = build_figures(repo, tmp_path / "figures-2", tmp_path / "build-2", "2")
    assert sorted(first) == sorted(second)
    assert len(first) > 100 and "INDEX.md" in first
    differ = [name for name in first if first[name] != second[name]]
    assert differ == [], f"differ between the two builds: {differ}"
