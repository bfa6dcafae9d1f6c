"""Small file-system helpers: atomic writes, checksums and exclusive locks.

Every long job in the kit writes through these so that an interruption never
leaves a half-written file under its final name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from chessmoe._io.errors import KitError

__all__ = [
    "BusyError",
    "atomic_path",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "hold_lock",
    "sha256_file",
]


class BusyError(KitError):
    """Another process holds the lock of a file or run this process was about to write."""


def hold_lock(lock: str | os.PathLike[str], what: str) -> IO[str]:
    """Take the exclusive lock ``lock`` (a file, created if missing) without waiting and
    return its open handle: the lock lasts until the handle is closed or the process ends,
    however it ends. Raise :class:`BusyError` naming ``what`` and the holder's process id
    if another process holds it (two writers of one log would both append)."""
    import fcntl

    path = Path(lock)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (the caller closes it)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise BusyError(f"{what} is being written by another process"
                        f"{f' (pid {holder})' if holder.isdigit() else ''}; wait for it "
                        "or stop it (and its worker processes) first") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` on success.

    The temporary file lives in the same directory, so the final ``os.replace``
    is atomic on POSIX file systems. On an exception the temporary is removed
    and ``path`` is left untouched.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=suffix + ".tmp",
                                    dir=final.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if tmp.exists():  # mkstemp creates 0600; give the file the usual umask mode
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, final)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted JSON (stable diffs), atomically."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks (flat memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        _copy_into(handle, digest, chunk)
    return digest.hexdigest()


def _copy_into(handle: IO[bytes], digest: Any, chunk: int) -> None:
    while True:
        block = handle.read(chunk)
        if not block:
            return
        digest.update(block)
