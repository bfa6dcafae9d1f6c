"""The Dask side of a tournament (:func:`chessmoe.play.tournament.run_dask`): connecting
(:func:`dask_client`), checking every worker (:func:`wait_for_workers`, :func:`check_workers`)
and gathering the units' results (:func:`gather`), each step bounded in time so that nothing
waits forever.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from chessmoe._io.errors import KitError
from chessmoe.play.placement import Placement

__all__ = ["CONNECT_S", "PATIENCE_S", "check_workers", "dask_client", "gather",
           "wait_for_workers"]

CONNECT_S = 30.0
"""Seconds to reach a scheduler, and for a first worker to join it."""
PATIENCE_S = 300.0
"""Seconds a run waits while no worker can run the units left (a restarting cluster)."""
POLL_S = 1.0

T = TypeVar("T")


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise KitError("Dask is not installed: pip install 'chessmoe[dask]'") from None
    module: Any = distributed
    return module


def dask_client(address: str | None = None, *, workers: int = 2,
                timeout: float = CONNECT_S) -> Any:
    """A ``dask.distributed`` client: of the scheduler at ``address`` (a :class:`KitError`
    when it does not answer within ``timeout`` seconds), or of a new local cluster of
    ``workers`` single-threaded processes, closed with the client."""
    distributed = _distributed()
    if not address:
        return distributed.Client(n_workers=workers, threads_per_worker=1,
                                  dashboard_address=None)
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as error:
        raise KitError(f"no Dask scheduler answered at {address} within {timeout:g} s "
                       f"({' '.join(str(error).split())[:160]})") from None


def _within(seconds: float, what: str, call: Callable[[], T]) -> T:
    """``call()``, or a :class:`KitError` naming ``what`` when it takes over ``seconds``
    (it goes on in a daemon thread, which the process does not wait for)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as error:  # handed to the caller below
            box["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise KitError(f"{what} did not answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def wait_for_workers(client: Any, timeout: float = CONNECT_S) -> None:
    """Return once a worker has joined ``client``'s scheduler; a :class:`KitError` after
    ``timeout`` seconds without one."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, OSError):
        raise KitError(f"no Dask worker joined the scheduler {client.scheduler.address} within "
                       f"{timeout:g} s: start workers with 'dask worker ADDRESS'") from None


def _problems(placements: Sequence[Placement], dask_worker: Any = None) -> list[str]:
    """On a worker (``Client.run`` passes it as ``dask_worker``): each distinct problem of
    ``placements`` (:meth:`Placement.problem`)."""
    name = f"dask worker {dask_worker.address}" if dask_worker is not None else None
    found = [p.problem(name) for p in placements]
    return sorted({line for line in found if line is not None})


def check_workers(client: Any, placements: Sequence[Placement],
                  timeout: float = PATIENCE_S) -> None:
    """Every worker of ``client`` checks ``placements`` (each distinct one once); the first
    problem is raised as a :class:`~chessmoe.play.placement.PlacementError` line (with how
    many other workers have one), before any unit is sent."""
    from chessmoe.play.placement import PlacementError

    distinct = list(dict.fromkeys(placements))
    answers: dict[str, Any] = _within(
        timeout, "a worker checking the tournament's paths",
        lambda: client.run(_problems, distinct, on_error="return"))
    lines = []
    for address, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            lines.append(f"dask worker {address} could not check the tournament's paths: "
                         f"{type(answer).__name__}: {' '.join(str(answer).split())}")
        elif answer:
            lines.append(answer[0])
    if lines:
        more = len(lines) - 1
        raise PlacementError(lines[0] + (f" (and {more} other worker{'s' * (more > 1)})"
                                         if more else ""))


def _able(client: Any, gpu: Sequence[bool]) -> bool:
    """Whether some worker can run one of the units left (``gpu``: which ask for a GPU)."""
    workers = client.scheduler_info(n_workers=-1).get("workers", {})
    if not workers:
        return False
    has_gpu = any(float(w.get("resources", {}).get("GPU", 0)) >= 1 for w in workers.values())
    return has_gpu or not all(gpu)


def gather(client: Any, futures: Sequence[Any], *, gpu: Sequence[bool],
           patience: float = PATIENCE_S,
           on_done: Callable[[Any], None] | None = None) -> list[Any]:
    """The results of ``futures`` (one per unit; ``gpu``: which ask for a GPU), calling
    ``on_done`` with each as it finishes. The first failure is raised at once (a
    ``KilledWorker`` as a :class:`KitError` line) and the units left are cancelled; so are
    they when no worker has been able to run them for ``patience`` seconds.

    A worker that dies mid-unit (killed, out of memory) is replaced by its nanny and the scheduler
    runs the unit again; the unit resumes its log, so every game is recorded once.
    """
    distributed = _distributed()
    pending = dict(zip(futures, gpu, strict=True))
    results: dict[Any, Any] = {}
    stuck_since: float | None = None
    try:
        while pending:
            try:
                done = distributed.wait(list(pending), timeout=POLL_S,
                                        return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            for future in done:
                pending.pop(future)
                if future.status == "error":
                    _raise(future, distributed)
                results[future] = future.result()
                if on_done is not None:
                    on_done(results[future])
            if not pending or _able(client, list(pending.values())):
                stuck_since = None
            elif stuck_since is None:
                stuck_since = time.monotonic()
            elif time.monotonic() - stuck_since > patience:
                gpus = sum(pending.values())
                raise KitError(f"no Dask worker could run the {_shards(len(pending))} left "
                               f"for {patience:g} s (no worker connected"
                               + (f", or none declares --resources GPU=1 for the "
                                  f"{_shards(gpus)} on a GPU" if gpus else "")
                               + "); rerun to resume")
    finally:
        if pending:
            client.cancel(list(pending))
    return [results[f] for f in futures]


def _shards(count: int) -> str:
    return f"{count} shard{'s' * (count != 1)}"


def _raise(future: Any, distributed: Any) -> None:
    error = future.exception()
    if isinstance(error, distributed.KilledWorker):
        raise KitError(f"shard {future.key} ended its worker process each time it ran "
                       f"({' '.join(str(error).split())[:160]}); out of memory? rerun to "
                       "resume the other shards' games") from None
    raise error
