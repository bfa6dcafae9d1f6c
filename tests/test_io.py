"""Plumbing (chessmoe._io): JSONL logs, resumable jobs, provenance."""

from __future__ import annotations

import json
from pathlib import Path

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
