"""Committed evidence: what counts as committed, the one-line refusal every results
writer raises, and which folders differ from the commit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from chessmoe._io.evidence import (
    CommittedResult,
    Uncommitted,
    is_committed,
    refuse_replacing,
    tracked,
    uncommitted,
)
from chessmoe._io.fsutil import sha256_file

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo,
                   check=True, capture_output=True)


def committed_repo(root: Path) -> Path:
    """A checkout with results/stats/a (committed), results/stats/b (committed) and an
    ignored file beside them."""
    repo = root / "repo"
    for name in ("a", "b"):
        folder = repo / "results" / "stats" / name
        folder.mkdir(parents=True)
        (folder / "games.parquet").write_bytes(name.encode() * 10)
        (folder / "manifest.json").write_text(json.dumps({"frames": {"games": {
            "file": "games.parquet", "sha256": sha256_file(folder / "games.parquet")}}}))
    (repo / ".gitignore").write_text("*.lock\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "results")
    return repo


@needs_git
def test_git_decides_what_is_committed(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    stats = repo / "results" / "stats"
    assert tracked(stats / "a") is True and is_committed(stats / "a")
    (stats / "smoke").mkdir()
    (stats / "smoke" / "manifest.json").write_text("{}")
    assert tracked(stats / "smoke") is False and not is_committed(stats / "smoke")
    assert tracked(stats / "not-yet") is False  # a folder a run is about to create
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert tracked(outside) is None


@needs_git
def test_a_file_staged_or_only_at_head_counts_as_tracked(tmp_path: Path) -> None:
    """Tracked means in the index or at HEAD: a result staged but not yet committed, and
    one removed from the index (``git rm --cached``) but still in the last commit."""
    repo = committed_repo(tmp_path)
    stats = repo / "results" / "stats"
    staged = stats / "staged"
    staged.mkdir()
    (staged / "manifest.json").write_text("{}")
    assert tracked(staged) is False
    git(repo, "add", str(staged / "manifest.json"))
    assert tracked(staged) is True and is_committed(staged)  # in the index, not at HEAD
    git(repo, "rm", "-q", "-r", "--cached", str(stats / "a"))
    assert (stats / "a" / "games.parquet").exists()
    assert tracked(stats / "a") is True  # at HEAD, no longer in the index
    git(repo, "commit", "-q", "-m", "drop a")
    assert tracked(stats / "a") is False  # neither: gone from the commit and the index


def test_the_changed_files_line_shows_three_names_then_elides() -> None:
    folder = Path("/r/results/stats/a")
    three = Uncommitted(folder, ("a.json", "b.json", "c.json"))
    assert three.line(Path("/r/results")) == "results/stats/a (3 files: a.json, b.json, c.json)"
    four = Uncommitted(folder, ("a.json", "b.json", "c.json", "d.json"))
    assert four.line(Path("/r/results")) == (
        "results/stats/a (4 files: a.json, b.json, c.json, ...)")
    one = Uncommitted(folder, ("a.json",))
    assert one.line() == "/r/results/stats/a (1 file: a.json)"


def test_without_git_a_finished_result_counts_as_committed(tmp_path: Path) -> None:
    assert tracked(tmp_path) is None and is_committed(tmp_path)
    with pytest.raises(CommittedResult):
        refuse_replacing(tmp_path)


@needs_git
def test_the_refusal_is_one_line_naming_the_folder_and_the_ways_on(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    folder = repo / "results" / "stats" / "a"
    with pytest.raises(CommittedResult) as caught:
        refuse_replacing(folder, elsewhere="--name NAME", what="the finished statistics of a",
                         reason="max_games None -> 150")
    message = str(caught.value)
    assert message == (f"{folder} holds the finished statistics of a that this run would "
                       "change (max_games None -> 150); pass --force to replace it (make: "
                       "FORCE=1), or write elsewhere with --name NAME")
    assert "\n" not in message
    refuse_replacing(folder, force=True)  # --force: allowed
    untracked = repo / "results" / "stats" / "mine"
    untracked.mkdir()
    refuse_replacing(untracked)  # nobody committed it: replaced freely


@needs_git
def test_uncommitted_names_the_folders_that_differ_from_the_commit(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    a, b = repo / "results" / "stats" / "a", repo / "results" / "stats" / "b"
    assert uncommitted([a, b]) == []
    (b / "x.lock").write_text("ignored")  # ignored files are not results
    assert uncommitted([a, b]) == []
    (a / "games.parquet").write_bytes(b"smoke")
    (a / "extra.json").write_text("{}")
    found = uncommitted([a, b])
    assert found is not None and [u.directory for u in found] == [a.resolve()]
    assert found[0].files == ("extra.json", "games.parquet")
    assert found[0].line(repo / "results") == "results/stats/a (2 files: extra.json, games.parquet)"
    (b / "manifest.json").unlink()  # a deleted file counts too
    found = uncommitted([b, a])
    assert found is not None and [u.directory.name for u in found] == ["b", "a"]
    assert found[0].files == ("manifest.json",)


def test_without_git_the_manifests_sha256_say_what_changed(tmp_path: Path) -> None:
    folder = tmp_path / "stats" / "a"
    folder.mkdir(parents=True)
    (folder / "games.parquet").write_bytes(b"frames")
    (folder / "manifest.json").write_text(json.dumps({"frames": {"games": {
        "file": "games.parquet", "sha256": sha256_file(folder / "games.parquet")}}}))
    assert uncommitted([folder]) == []
    (folder / "games.parquet").write_bytes(b"other frames")
    found = uncommitted([folder])
    assert found is not None and found[0].files == ("games.parquet",)
