"""Resumable, parallel jobs made of independent units.

A job is a list of units with stable string ids and a picklable function that
processes one unit, writes its outputs atomically and returns a JSON-able
summary. :func:`run_units` records each finished unit as ``<id>.done.json`` in a
work directory, so a rerun after an interruption does only the missing units:
nothing is lost and nothing is done twice. A ``plan.json`` guards against
resuming with different inputs or settings: if the plan changed, the old
partial work is discarded.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from tqdm import tqdm

from chessmoe._io.fsutil import atomic_write_json

__all__ = ["Unit", "follow_parent", "run_units"]

P = TypeVar("P")


@dataclass(frozen=True)
class Unit(Generic[P]):
    """One piece of work: a stable id (used in file names) and its payload."""

    id: str
    payload: P


def follow_parent(poll_s: float = 0.5) -> None:
    """Worker-process initializer: end this process within ``poll_s`` seconds of its parent's
    end, however the parent ended (``kill``, ``pkill``, a crash). A pool's workers otherwise
    outlive a killed parent and finish the unit they hold, appending to the logs a resumed run
    is appending to. What the worker had in flight is lost, never half-written (logs append
    whole lines; outputs are written atomically), and the resumed run plays it again."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:  # an orphan is handed to another process
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="chessmoe-follow-parent", daemon=True).start()


def _done_path(work: Path, unit_id: str) -> Path:
    return work / f"{unit_id}.done.json"


def _prepare(work: Path, plan: dict[str, Any]) -> None:
    plan_path = work / "plan.json"
    if plan_path.exists():
        try:
            old = json.loads(plan_path.read_text())
        except (OSError, json.JSONDecodeError):
            old = None
        if old == json.loads(json.dumps(plan, sort_keys=True, default=str)):
            return
        shutil.rmtree(work)  # different inputs or settings: partial work is stale
    work.mkdir(parents=True, exist_ok=True)
    atomic_write_json(plan_path, plan)


def run_units(units: Sequence[Unit[P]], fn: Callable[[Unit[P], Path], dict[str, Any]],
              work: Path, plan: dict[str, Any], *, workers: int = 1, progress: bool = True,
              desc: str = "units") -> dict[str, dict[str, Any]]:
    """Run ``fn(unit, work)`` for every unit not yet done; return all summaries by id.

    ``fn`` runs in worker processes when ``workers > 1`` (it must be a module-level
    function). A unit that raises stops the job after the units in flight finish;
    finished units stay recorded, so the rerun continues from there.
    """
    ids = [u.id for u in units]
    if len(set(ids)) != len(ids):
        raise ValueError("unit ids must be unique")
    _prepare(work, plan)
    summaries: dict[str, dict[str, Any]] = {}
    todo: list[Unit[P]] = []
    for unit in units:
        done = _done_path(work, unit.id)
        if done.exists():
            try:
                summaries[unit.id] = json.loads(done.read_text())
                continue
            except (OSError, json.JSONDecodeError):
                done.unlink(missing_ok=True)  # a damaged marker: redo that unit
        todo.append(unit)
    bar = tqdm(total=len(units), initial=len(units) - len(todo), desc=desc, unit="unit",
               disable=not progress)
    try:
        if workers <= 1 or len(todo) <= 1:
            for unit in todo:
                summary = fn(unit, work)
                atomic_write_json(_done_path(work, unit.id), summary)
                summaries[unit.id] = summary
                bar.update(1)
        else:
            ctx = mp.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                     initializer=follow_parent) as pool:
                pending: dict[Future[dict[str, Any]], Unit[P]] = {
                    pool.submit(fn, unit, work): unit for unit in todo}
                failure: BaseException | None = None
                while pending:
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        unit = pending.pop(future)
                        error = future.exception()
                        if error is not None:
                            failure = failure or error
                            for other in pending:
                                other.cancel()
                            continue
                        summary = future.result()
                        atomic_write_json(_done_path(work, unit.id), summary)
                        summaries[unit.id] = summary
                        bar.update(1)
                if failure is not None:
                    raise failure
    finally:
        bar.close()
    return {uid: summaries[uid] for uid in ids}
