"""Plumbing (chessmoe._io): JSONL logs, resumable jobs, provenance."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from chessmoe._io.jobs import Unit, run_units
from chessmoe._io.jsonl import JsonlLog, append_record, read_records
from chessmoe._io.provenance import provenance, software


def test_a_cut_off_last_line_is_dropped_and_never_duplicated(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    for k in range(3):
        append_record(path, {"slot": k, "value": k * 10})
    with open(path, "a") as handle:
        handle.write('{"slot": 3, "val')  # killed mid-write
    report = read_records(path)
    assert [r["slot"] for r in report.records] == [0, 1, 2] and report.bad_lines == [4]
    log = JsonlLog(path, key="slot")
    assert len(log) == 3 and not log.done(3)
    log.append({"slot": 3, "value": 30})  # the resumed job writes it again, once
    assert [r["slot"] for r in read_records(path).records] == [0, 1, 2, 3]
    assert read_records(path).bad_lines == []
    with pytest.raises(ValueError, match="already recorded"):
        log.append({"slot": 3, "value": 31})


def _square(unit: Unit[int], work: Path) -> dict[str, int]:
    (work / f"ran-{unit.id}").write_text("x")
    if unit.payload == 3 and not (work / "allow").exists():
        raise RuntimeError("power cut")
    return {"value": unit.payload ** 2}


def test_jobs_resume_without_rerunning_finished_units(tmp_path: Path) -> None:
    units = [Unit(f"u{k}", k) for k in range(5)]
    work = tmp_path / "work"
    with pytest.raises(RuntimeError, match="power cut"):
        run_units(units, _square, work, {"plan": 1}, progress=False)
    finished = sorted(p.name for p in work.glob("*.done.json"))
    assert finished == ["u0.done.json", "u1.done.json", "u2.done.json"]
    for name in ("ran-u0", "ran-u1", "ran-u2"):
        (work / name).unlink()
    (work / "allow").write_text("")
    result = run_units(units, _square, work, {"plan": 1}, progress=False)
    assert {k: v["value"] for k, v in result.items()} == {f"u{k}": k * k for k in range(5)}
    assert not (work / "ran-u0").exists()  # done units were not run again
    # a different plan makes the partial work stale: everything runs again
    result = run_units(units[:1], _square, work, {"plan": 2}, progress=False)
    assert (work / "ran-u0").exists() and json.loads((work / "plan.json").read_text()) == {
        "plan": 2}


def _thread_names(unit: Unit[int], work: Path) -> dict[str, Any]:
    import threading

    return {"pid": os.getpid(), "threads": sorted(t.name for t in threading.enumerate())}


def test_pool_units_run_in_workers_that_watch_their_parent(tmp_path: Path) -> None:
    """run_units' pool workers start the parent watch (follow_parent), so a killed run's
    workers end with it instead of appending beside the resumed run."""
    units = [Unit(f"u{k}", k) for k in range(2)]
    result = run_units(units, _thread_names, tmp_path / "work", {"plan": 1}, workers=2,
                       progress=False)
    for summary in result.values():
        assert summary["pid"] != os.getpid()  # ran in a worker process
        assert "chessmoe-follow-parent" in summary["threads"]


def test_provenance_names_commit_machine_date_and_command() -> None:
    record = provenance(step="test")
    assert record["step"] == "test"
    assert set(record["git"]) >= {"commit", "dirty"}
    assert record["hardware"]["logical_cores"] >= 1 and record["hardware"]["machine"]
    assert record["software"]["chessmoe"] and record["software"]["python"].count(".") == 2
    assert record["date"].endswith("+00:00") and record["argv"]


def test_git_provenance_names_the_paths_that_differ(tmp_path: Path) -> None:
    """A dirty result says what differed: its own output folder, or the code."""
    import subprocess

    from chessmoe._io.provenance import CHANGED_SHOWN, git_commit

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    for name in ("code.py", "results/spec.json", *(f"many/{i:02d}" for i in range(25))):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("0")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    clean = git_commit(tmp_path)
    assert clean["dirty"] is False and clean["changed"] == [] and clean["changed_count"] == 0
    (tmp_path / "results" / "spec.json").write_text("1")
    (tmp_path / "untracked.txt").write_text("x")  # untracked files do not make it dirty
    only_output = git_commit(tmp_path)
    assert only_output["dirty"] is True and only_output["changed"] == ["results/spec.json"]
    (tmp_path / 'odd "name" here.txt').write_text("x")  # quoted by plain porcelain
    git("add", 'odd "name" here.txt')
    git("mv", "code.py", "moved.py")  # a rename is both of its paths
    odd = git_commit(tmp_path)
    assert odd["changed"] == ["code.py", "moved.py", 'odd "name" here.txt',
                              "results/spec.json"]
    for i in range(25):
        (tmp_path / f"many/{i:02d}").write_text("1")
    many = git_commit(tmp_path)
    assert many["changed_count"] == 29 and len(many["changed"]) == CHANGED_SHOWN
    assert many["changed"][0] == "code.py"  # sorted, so the list is stable
    assert git_commit(tmp_path / "nowhere") == {"commit": None, "dirty": None,
                                                "changed": None, "changed_count": None}


def test_software_provenance_names_every_inference_library() -> None:
    """A result played on ONNX Runtime records its version beside torch's."""
    from importlib import metadata

    versions = software()
    assert versions["onnxruntime"] == metadata.version("onnxruntime")
    assert versions["torch"] == metadata.version("torch")


# --- one writer a log; workers that end with their parent ------------------------------------


def test_a_log_being_written_refuses_a_second_writer_until_closed(tmp_path: Path) -> None:
    from chessmoe._io.fsutil import BusyError
    from chessmoe._io.jsonl import lock_path

    path = tmp_path / "games-016.jsonl"
    first = JsonlLog(path, key="slot")
    first.append({"slot": "p0g0", "r": 1})
    with pytest.raises(BusyError, match=rf"games-016.jsonl is being written .*pid {os.getpid()}"):
        JsonlLog(path, key="slot")
    first.close()
    with pytest.raises(ValueError, match="closed"):
        first.append({"slot": "p0g1"})
    with JsonlLog(path, key="slot") as second:  # released: the resumed writer goes on
        assert second.done("p0g0")
        second.append({"slot": "p0g1", "r": 0})
    assert [r["slot"] for r in read_records(path).records] == ["p0g0", "p0g1"]
    assert lock_path(path) == tmp_path / ".games-016.jsonl.lock"


def test_a_log_with_a_record_missing_the_key_is_refused_and_left_unlocked(
        tmp_path: Path) -> None:
    """A record without the key field fails the open; the lock taken for it is released, so
    the same process can open the log again (it used to get BusyError naming itself)."""
    from chessmoe._io.jsonl import lock_path

    path = tmp_path / "games.jsonl"
    path.write_text('{"slot":"a"}\n{"other":"b"}\n')
    # The first error is kept (as a caller handling it would keep it): its traceback holds the
    # half-built log, so only an explicit release frees the lock, not garbage collection.
    with pytest.raises(KeyError, match="slot") as first:
        JsonlLog(path, key="slot")
    with pytest.raises(KeyError, match="slot"):  # the same error again, not BusyError
        JsonlLog(path, key="slot")
    assert first.value.args == ("slot",)
    path.write_text('{"slot":"a"}\n{"slot":"b"}\n')  # repaired: this process may write it
    with JsonlLog(path, key="slot") as log:
        assert sorted(log.records) == ["a", "b"]
    assert lock_path(path).read_text() == str(os.getpid())


def test_a_taken_lock_names_only_its_holder(tmp_path: Path) -> None:
    """A lock file left by a dead holder is emptied before our pid is written, so a refused
    writer's message names the live holder, not a stale pid."""
    from chessmoe._io.fsutil import BusyError, hold_lock

    lock = tmp_path / ".games.jsonl.lock"
    lock.write_text("4194303")  # a dead writer's pid, longer than ours
    handle = hold_lock(lock, "games.jsonl")
    try:
        assert lock.read_text() == str(os.getpid())
        with pytest.raises(BusyError, match=rf"\(pid {os.getpid()}\)"):
            hold_lock(lock, "games.jsonl")
    finally:
        handle.close()


def test_the_lock_holds_across_processes_and_survives_a_rewrite(tmp_path: Path) -> None:
    """Another process's writer is refused while this one holds the log, even after this
    one rewrote the log (a cut last line dropped: the log's file is replaced)."""
    import subprocess
    import sys

    path = tmp_path / "games.jsonl"
    path.write_text('{"slot":"a"}\n{"slot":"b"')  # a cut last line: the log is rewritten
    probe = ("import sys\nfrom chessmoe._io.jsonl import JsonlLog\n"
             "from chessmoe._io.errors import KitError\n"
             "try:\n    JsonlLog(sys.argv[1], key='slot')\n"
             "except KitError as e:\n    print(e); sys.exit(3)\n")
    with JsonlLog(path, key="slot") as log:
        assert len(log) == 1 and path.read_text() == '{"slot":"a"}\n'
        busy = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                              text=True, timeout=120)
        assert busy.returncode == 3 and "being written by another process" in busy.stdout
    free = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert free.returncode == 0, free.stdout + free.stderr


def _state(pid: int) -> str | None:
    """A process's state letter from /proc, None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states in /proc")
def test_pool_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    """The defect this guards: `pkill` of a tournament ended the parent, but its pool workers
    played on beside the resumed run and both appended the same games."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import multiprocessing as mp, os, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from chessmoe._io.jobs import follow_parent\n"
        "def task(path):\n"
        "    open(path + '.tmp', 'w').write(str(os.getpid())); os.replace(path + '.tmp', path)\n"
        "    time.sleep(300)\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessPoolExecutor(1, mp_context=mp.get_context('spawn'),\n"
        "                               initializer=follow_parent)\n"
        "    pool.submit(task, sys.argv[1]); time.sleep(300)\n")
    marker = tmp_path / "worker.pid"
    parent = subprocess.Popen([sys.executable, str(script), str(marker)])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = int(marker.read_text())
        assert _state(worker) not in (None, "Z")
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _state(worker) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _state(worker) in (None, "Z"), "the worker outlived its killed parent"
    finally:
        parent.kill()
        if marker.exists() and _state(int(marker.read_text())) not in (None, "Z"):
            os.kill(int(marker.read_text()), signal.SIGKILL)
