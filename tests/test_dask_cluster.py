"""A real Dask cluster: a ``dask scheduler`` and ``dask worker --nworkers 2`` (nannies) started
as processes in a directory that is not the checkout, as a user scaling out starts them.

The tournament is played through ``chessmoe tournament --dask ADDRESS`` with relative paths
given in the client's own directory; one worker is killed with SIGKILL in the middle of a
unit, and every game must be recorded exactly once. Workers that cannot see the client's files,
or see another copy of them, must stop the run before it writes anything. Every wait here is
bounded, and the cluster's processes are stopped whatever happens.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import pytest

distributed = pytest.importorskip("distributed")

from chessmoe.play.grids import smoke_spec  # noqa: E402
from chessmoe.play.match import Adjudication, PlayerSpec  # noqa: E402
from chessmoe.play.placement import PlacementError  # noqa: E402
from chessmoe.play.tournament import (  # noqa: E402
    MatchSpec,
    TournamentSpec,
    only_matches,
    run_dask,
)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "results" / "experts" / "small"
ENV = {**os.environ,
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
START_S = 60.0  # the scheduler's file, both workers
RUN_S = 300.0  # the whole tournament, on a busy 2-core machine


@contextmanager
def _process(args: list[str], cwd: Path, log: IO[str]) -> Iterator[subprocess.Popen[str]]:
    """``args`` running in ``cwd`` in a session of its own, stopped (with every process it
    started) on leaving, however the test ends."""
    process = subprocess.Popen(args, cwd=cwd, env=ENV, stdout=log, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            process.wait(20)
        with suppress(ProcessLookupError):  # whatever is left of its session
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(20)


@dataclass(frozen=True)
class Cluster:
    address: str
    client: Any  # a distributed.Client watching the cluster
    home: Path  # where the scheduler and the workers started


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster for this file's tests (they leave its workers' directory as they found
    it): started in a fresh directory, stopped at the end."""
    tmp_path = tmp_path_factory.mktemp("cluster")
    home = tmp_path / "home"
    home.mkdir()
    file = tmp_path / "scheduler.json"
    with open(tmp_path / "cluster.log", "w") as log, \
            _process([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                      "--port", "0", "--no-dashboard", "--scheduler-file", str(file),
                      "--idle-timeout", "900"], home, log):
        deadline = time.monotonic() + START_S
        while not file.is_file() or not file.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "cluster.log").read_text()
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        with _process([sys.executable, "-m", "dask", "worker", address, "--nworkers", "2",
                       "--nthreads", "1", "--no-dashboard", "--death-timeout", "60",
                       "--local-directory", str(tmp_path / "dask-space")], home, log), \
                distributed.Client(address, timeout=START_S) as client:
            client.wait_for_workers(2, timeout=START_S)
            yield Cluster(address, client, home)


def _pids(cluster: Cluster) -> dict[str, int]:
    return dict(cluster.client.run(os.getpid))


def test_a_worker_that_cannot_see_the_clients_files_stops_the_run_before_it_writes(
        cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``/proc/self/cwd`` is each process's own directory, so one absolute path reaches the
    client's files on the client and the workers' own directory on the workers: as a path on
    a file system the workers do not share, then as another copy of the results."""
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    (client_dir / "experts").symlink_to(SMALL)
    monkeypatch.chdir(client_dir)
    spec = only_matches(smoke_spec("/proc/self/cwd/experts"), ["separated-b8-n20"])
    with pytest.raises(PlacementError) as error:
        run_dask(spec, "/proc/self/cwd/out", cluster.client, patience=60)
    line = str(error.value)
    assert "\n" not in line
    worker = (r"dask worker tcp://127\.0\.0\.1:\d+ on \S+ \(started in "
              + re.escape(str(cluster.home)) + r"\)")
    assert re.fullmatch(worker + r" cannot see /proc/self/cwd/experts/separated/phase0/model\.pt"
                        r" \(network of player 'separated'\): .* \(and 1 other worker\)", line)
    assert not (client_dir / "out").exists()  # nothing written
    copy = cluster.home / "experts"  # the workers' copy, with another network under one name
    try:
        shutil.copytree(SMALL / "separated", copy / "separated")
        shutil.copy(copy / "separated" / "phase0" / "model.pt", copy / "separated" / "phase1")
        with pytest.raises(PlacementError, match=worker + r" reads /proc/self/cwd/experts/"
                                                          r"separated/phase1/model\.pt \(network "
                                                          r"of player 'separated'\) with sha256 "):
            run_dask(spec, "/proc/self/cwd/out", cluster.client, patience=60)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    assert not (client_dir / "out").exists()


def test_a_run_no_worker_can_serve_stops_after_its_patience_and_cancels_its_units(
        cluster: Cluster, tmp_path: Path) -> None:
    """Shards that ask for a GPU, on workers that declare none, would wait forever: the run
    stops once no worker could run them for ``patience`` seconds, and leaves no task behind."""
    from chessmoe._io.errors import KitError

    gpu = PlayerSpec(name="gpu", uniform=True, nodes=4, batch_size=1, device="cuda")
    spec = TournamentSpec("gpu", (MatchSpec("m", gpu, replace(gpu, name="other"), 1),),
                          pairs_per_shard=1, adjudication=Adjudication(max_plies=4))
    failed: list[BaseException] = []

    def run() -> None:
        try:
            run_dask(spec, tmp_path / "out", cluster.client, patience=2)
        except BaseException as error:
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)  # a run that hangs fails the test
    thread.start()
    thread.join(START_S)
    assert not thread.is_alive(), f"run_dask still waits after {START_S:g} s"
    assert len(failed) == 1 and isinstance(failed[0], KitError)
    assert str(failed[0]) == ("no Dask worker could run the 1 shard left for 2 s (no worker "
                              "connected, or none declares --resources GPU=1 for the 1 shard "
                              "on a GPU); rerun to resume")
    deadline = time.monotonic() + START_S
    while cluster.client.who_has():  # the cancelled shard leaves the scheduler
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert not list((tmp_path / "out").glob("m/games-*.jsonl"))


def _kill_mid_unit(cluster: Cluster, match_dir: Path, run: subprocess.Popen[str]
                   ) -> tuple[int, Path, str]:
    """Once a unit has recorded one of its two games, SIGKILL the worker playing it; returns
    the process id, the unit's log and its one line then."""
    deadline = time.monotonic() + RUN_S
    while time.monotonic() < deadline:
        assert run.poll() is None, "the run ended before a worker could be killed mid-unit"
        for log in sorted(match_dir.glob("games-*.jsonl")):
            lines = log.read_text().splitlines(keepends=True)
            if len(lines) != 1 or not lines[0].endswith("\n"):
                continue
            key = f"chessmoe-smoke-{match_dir.name}/{log.stem.removeprefix('games-')}-"
            for address, keys in cluster.client.processing().items():
                if any(str(k).startswith(key) for k in keys):
                    pid = _pids(cluster)[address]
                    os.kill(pid, signal.SIGKILL)
                    return pid, log, lines[0]
        time.sleep(0.2)
    raise AssertionError(f"no unit recorded one game within {RUN_S:g} s")


def test_a_tournament_through_dask_address_records_every_game_once_past_a_killed_worker(
        cluster: Cluster, tmp_path: Path) -> None:
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    command = [sys.executable, "-m", "chessmoe", "tournament", "--profile", "smoke",
               "--experts", os.path.relpath(SMALL, client_dir), "--match", "separated-b8-n20",
               "--pairs", "2", "--out", "out", "--dask", cluster.address, "--quiet"]
    match_dir = client_dir / "out" / "separated-b8-n20"
    with open(tmp_path / "client.log", "w") as log, _process(command, client_dir, log) as run:
        pid, killed_log, first = _kill_mid_unit(cluster, match_dir, run)
        code = run.wait(RUN_S)
    output = (tmp_path / "client.log").read_text()
    assert code == 0, output
    assert pid not in _pids(cluster).values()  # the nanny replaced the killed worker
    slots = []
    for path in sorted(match_dir.glob("games-*.jsonl")):
        lines = path.read_text().splitlines(keepends=True)
        assert all(line.endswith("\n") for line in lines)
        slots += [json.loads(line)["slot"] for line in lines]
    assert sorted(slots) == ["00000-0", "00000-1", "00001-0", "00001-1"]  # each game once
    assert killed_log.read_text().startswith(first)  # its first game kept, not replayed
    summary = json.loads((client_dir / "out" / "summary.json").read_text())
    assert summary["complete"] is True
    assert [(m["name"], m["games"]) for m in summary["matches"]] == [("separated-b8-n20", 4)]
