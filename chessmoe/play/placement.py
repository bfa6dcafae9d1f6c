"""What a unit of work needs of the machine that plays it: absolute paths, checksums, the code.

The client places every player before the units leave (:func:`place_player`,
:func:`place_openings`); the unit carries a :class:`Placement`, which the worker checks before
it writes anything (:meth:`Placement.check`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import sha256_file
from chessmoe.play.match import PlayerSpec

__all__ = ["Need", "Placement", "PlacementError", "absolute", "code_version", "place_openings",
           "place_player", "placement", "same_kit", "where"]

DOCS = "docs/playing-at-scale.md"


class PlacementError(KitError):
    """A unit cannot run where it was sent: a path unseen, a file not the client's, another
    version of the kit (one line naming it and the worker)."""


@dataclass(frozen=True)
class Need:
    """A path a unit reads or writes: absolute, what it is (for the error line), and for a
    file read the sha256 of the client's copy (``None``: only seen, e.g. a directory)."""

    path: str
    what: str
    sha256: str | None = None
    writable: bool = False  # a directory the unit writes into


@dataclass(frozen=True)
class Placement:
    """What a unit needs of its worker: the paths it reads and writes (:class:`Need`), the
    sha256 of its opening suite as the client read it, and the client's kit version
    (:func:`code_version`). The default needs nothing (a unit played in the client's own
    processes).

    Why: a unit sent to another process (a Dask worker, started in any directory on any machine)
    must not read its paths against that worker's working directory, nor play whatever file happens
    to sit at a bundle's path there. A path the worker cannot see, a file whose content differs from
    the client's (another copy of the results), a directory it cannot write or another version of
    the kit each stop the unit with one line naming the path (or version) and the worker
    (:func:`where`).
    """

    needs: tuple[Need, ...] = ()
    suite_sha256: str | None = None
    version: str | None = None

    def problem(self, worker: str | None = None) -> str | None:
        """The first thing this process lacks, as one line naming it and the worker
        (``worker``: its name, default :func:`where`'s); ``None`` when every need is met (run
        on the worker)."""
        here = where(worker)
        if self.version is not None and not same_kit(self.version, code_version()):
            return (f"{here} runs chessmoe {code_version()}, the client {self.version}: "
                    f"every worker must run the client's version of the kit ({DOCS})")
        for need in self.needs:
            path = Path(need.path)
            if not path.exists():
                return (f"{here} cannot see {need.path} ({need.what}): every worker must "
                        "see the client's files at the client's absolute paths (a shared "
                        f"file system; {DOCS})")
            if need.writable and not (path.is_dir() and os.access(path, os.W_OK)):
                return f"{here} cannot write into {need.path} ({need.what})"
            if need.sha256 is not None:
                found = _sha256(path)
                if found != need.sha256:
                    return (f"{here} reads {need.path} ({need.what}) with sha256 "
                            f"{found[:12]}..., not the client's {need.sha256[:12]}...: it "
                            "sees another copy of the results; every worker must read the "
                            f"client's files ({DOCS})")
        return None

    def check(self) -> None:
        """Raise :class:`PlacementError` with :meth:`problem`'s line, if any."""
        line = self.problem()
        if line is not None:
            raise PlacementError(line)

    def check_suite(self, suite: Path) -> None:
        """Raise :class:`PlacementError` when the opening suite this worker resolved differs
        from the client's (the embedded suite of another version of the kit)."""
        if self.suite_sha256 is not None and _sha256(suite) != self.suite_sha256:
            raise PlacementError(f"{where()} reads the opening suite {suite} with sha256 "
                                 f"{_sha256(suite)[:12]}..., not the client's "
                                 f"{self.suite_sha256[:12]}...: every worker must run the "
                                 f"client's version of the kit ({DOCS})")


def absolute(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute against this process's working directory (``~`` expanded,
    ``..`` folded); symbolic links are kept, since a worker may reach a shared file system
    through the same link."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def where(name: str | None = None) -> str:
    """This process as a worker, for the one line a problem is reported in: ``name`` (e.g.
    ``dask worker tcp://...``; default: the Dask worker running this task, else the process
    id), its host and its working directory."""
    if name is None:
        name = f"process {os.getpid()}"
        try:
            from distributed import get_worker

            name = f"dask worker {get_worker().address}"
        except (ImportError, ValueError):
            pass
    return f"{name} on {socket.gethostname()} (started in {os.getcwd()})"


@lru_cache(maxsize=1)
def code_version() -> str:
    """This process's kit: its version, and its git commit when it runs from a checkout
    (two checkouts of one commit at different paths are the same kit): ``0.1.0 (commit
    0123456789ab)``, or ``0.1.0`` outside git."""
    from chessmoe import __version__
    from chessmoe._io.provenance import git_commit

    commit = git_commit().get("commit")
    return __version__ + (f" (commit {str(commit)[:12]})" if commit else "")


def same_kit(client: str, worker: str) -> bool:
    """Whether two :func:`code_version` lines name one kit: the same version, and the same
    commit where both name one (a worker installed without git is judged by its version)."""
    def parts(line: str) -> tuple[str, str | None]:
        version, _, commit = line.partition(" (commit ")
        return version, commit.rstrip(")") or None

    (version, commit), (theirs, their_commit) = parts(client), parts(worker)
    return version == theirs and (commit is None or their_commit is None
                                  or commit == their_commit)


_SHA256: dict[tuple[str, int, int], str] = {}


def _sha256(path: Path) -> str:
    """``path``'s sha256, computed once per process for a given size and modification time
    (every unit of a worker checks the same bundles)."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA256:
        _SHA256[key] = sha256_file(path)
    return _SHA256[key]


def _on_client(path: Path, what: str) -> Path:
    if not path.exists():
        raise PlacementError(f"{path} does not exist here ({what}), so no worker can read it")
    return path


def place_player(player: PlayerSpec) -> tuple[PlayerSpec, tuple[Need, ...]]:
    """``player`` with every path absolute (checked here), and the files its worker will read
    with their sha256 here: an MCTS player's networks (the bundle's experts and baseline, or
    the one network), a related engine's weights, a UCI engine's program when it is named by
    a path (a bare name is looked up on each worker's ``PATH``)."""
    if player.kind == "mcts":
        if player.uniform:
            return player, ()
        try:
            network, baseline = replace(
                player.evaluator_spec(),
                network=str(absolute(player.experts)) if player.experts else None,
                baseline=str(absolute(player.baseline)) if player.baseline else None,
            ).named_networks()
            placed = replace(player, experts=str(absolute(network)),
                             baseline=str(absolute(baseline)) if baseline else None)
            files = placed.evaluator_spec().weight_files()
        except FileNotFoundError as error:
            raise PlacementError(f"the client cannot read the network of player "
                                 f"{player.name!r}: {' '.join(str(error).split())}") from None
        return placed, tuple(Need(str(absolute(f)), f"network of player {player.name!r}",
                                  sha256_file(f)) for f in files)
    if player.kind == "uci":
        program = player.command[0] if player.command else ""
        if os.sep not in program:
            return player, ()
        path = _on_client(absolute(program), f"the engine of player {player.name!r}")
        return (replace(player, command=(str(path), *player.command[1:])),
                (Need(str(path), f"the engine of player {player.name!r}"),))
    from chessmoe.play.players import RELATED_WEIGHTS, default_model_dir

    model_dir = Path(player.experts) if player.experts else default_model_dir(player.kind)
    if model_dir is None:  # no committed run: the engine plays without weights or says why
        return player, ()
    model_dir = _on_client(absolute(model_dir), f"the weights of player {player.name!r}")
    placed = replace(player, experts=str(model_dir))
    weights = model_dir / RELATED_WEIGHTS.get(player.kind, "")
    if not weights.is_file():
        return placed, ()
    return placed, (Need(str(weights), f"the weights of player {player.name!r}",
                         sha256_file(weights)),)


def place_openings(openings: str, data_dir: str | os.PathLike[str] | None
                   ) -> tuple[str, str, tuple[Need, ...]]:
    """The opening suite a unit reads, resolved here: ``embedded`` stays (each worker reads
    its own kit's, checked against this sha256), ``paper`` (fetched here into ``data_dir``)
    and a file become an absolute path. Returns the suite as the unit names it, its sha256
    and what the worker must see."""
    from chessmoe.play.openings import resolve_suite

    path = resolve_suite(openings, data_dir)
    digest = sha256_file(path)
    if openings == "embedded":
        return openings, digest, ()
    placed = absolute(path)
    return str(placed), digest, (Need(str(placed), "the opening suite", digest),)


def placement(needs: Sequence[Need], suite_sha256: str) -> Placement:
    """A unit's :class:`Placement`: ``needs`` (each path once, in order) with the suite's
    checksum and this process's kit version."""
    unique = tuple({need.path: need for need in needs}.values())
    return Placement(unique, suite_sha256, code_version())
