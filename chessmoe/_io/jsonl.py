"""Append-only JSON-lines logs: the resumable record of long jobs.

A record is appended whole and flushed to disk before the job moves on; a line
cut short by an interruption is detected on reading and reported, never fatal.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

__all__ = ["JsonlLog", "ReadReport", "append_record", "lock_path", "read_records"]


@dataclass
class ReadReport:
    """What :func:`read_records` found besides good records."""

    records: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)  # 1-based line numbers


def append_record(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Append one JSON record as a single line and fsync it."""
    line = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    if "\n" in line:  # json.dumps never emits raw newlines; guard the invariant anyway
        raise ValueError("a JSONL record must not contain a newline")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_records(path: str | os.PathLike[str]) -> ReadReport:
    """Read every complete JSON record; list the lines that are not (e.g. a cut last line)."""
    report = ReadReport()
    if not Path(path).exists():
        return report
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text:
                continue
            if not line.endswith("\n"):
                report.bad_lines.append(number)
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                report.bad_lines.append(number)
                continue
            if isinstance(value, dict):
                report.records.append(value)
            else:
                report.bad_lines.append(number)
    return report


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of the log ``path``: ``.<name>.lock`` beside it. A file of its own, as
    the log is replaced (renamed over) when damaged lines are dropped."""
    log = Path(path)
    return log.with_name(f".{log.name}.lock")


class JsonlLog:
    """A resumable log keyed by one field: ``done`` tells which keys are recorded.

    One process writes a log at a time: opening it takes its lock (:func:`lock_path`), held
    until :meth:`close` (or the ``with`` block's end, or the process's end), and a second
    writer is refused with :class:`~chessmoe._io.fsutil.BusyError` rather than appending the
    same keys again. The lock is taken before the log is read, so a writer never resumes
    from records another writer is still adding to.
    """

    def __init__(self, path: str | os.PathLike[str], key: str) -> None:
        from chessmoe._io.fsutil import hold_lock

        self.path = Path(path)
        self.key = key
        self._lock: IO[str] | None = hold_lock(lock_path(self.path), str(self.path))
        try:
            report = read_records(self.path)
            self.bad_lines = report.bad_lines
            if report.bad_lines:
                self._rewrite_without_bad(report.records)
            self.records: dict[Any, dict[str, Any]] = {}
            for record in report.records:  # a record without the key raises KeyError here
                self.records.setdefault(record[key], record)
        except BaseException:
            self.close()  # a log that could not be read is not held
            raise

    def _rewrite_without_bad(self, records: list[dict[str, Any]]) -> None:
        # Drop the damaged lines so later appends start on a clean line.
        from chessmoe._io.fsutil import atomic_write_text

        text = "".join(json.dumps(r, sort_keys=True, separators=(",", ":"), default=str) + "\n"
                       for r in records)
        atomic_write_text(self.path, text)

    def close(self) -> None:
        """Release the log's lock (the records stay readable; appending needs a new log)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> JsonlLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done(self, value: Any) -> bool:
        return value in self.records

    def append(self, record: Mapping[str, Any]) -> None:
        value = record[self.key]
        if self._lock is None:
            raise ValueError(f"{self.path} was closed: open the log again to append")
        if value in self.records:
            raise ValueError(f"{self.key}={value!r} is already recorded in {self.path}")
        append_record(self.path, record)
        self.records[value] = dict(record)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records.values())

    def __len__(self) -> int:
        return len(self.records)
