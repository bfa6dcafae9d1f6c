"""Numbers the documents quote, checked against the artefacts they come from.

REPRODUCING.md and README.md quote estimates with their intervals ("+67 Elo [+41, +93]",
"-45.5 points [-51.6, -39.4]"). Each such quote must be found, to its printed precision, in
one row of a generated artefact (``figures/**/*.csv``, ``figures/**/*.md``) or one record of a
committed result (``results/**/*.json``): the interval's two ends, and the estimate when the
quote prints one right before the bracket. A quote nothing supports is a number typed by hand
or left behind when its result changed; :func:`check_documents` names each one
(``make figures`` prints them, a test keeps the committed documents at zero).

A row is one line of a Markdown file, one record of a CSV file, or the numbers directly
inside one JSON object (its number fields and lists of numbers). A quoted value ``q``
printed with ``d`` decimals matches a number ``x`` that its source prints with ``k``
decimals when every value that prints as ``x`` rounds to ``q``:
``|x - q| <= 0.5 * 10**-d - 0.5 * 10**-k``. A figure's full-precision CSV supports any
correct rounding of its values; a rounded table supports only what it implies (its -15.95
does not support a quoted -16.0, which the true -15.947 would not round to).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DOCUMENTS", "SOURCES", "Quote", "Row", "check_documents", "check_repository",
           "quoted_intervals", "rows_of", "supported"]

_NUMBER = r"[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# an estimate, optionally its unit, then [low, high]; the estimate only when nothing but a
# unit word stands between it and the bracket ("12 openings [..." quotes no estimate)
_QUOTE = re.compile(
    rf"(?:(?P<est>{_NUMBER})\s*(?:Elo|points(?: a pair| per pair)?)?\s*)?"
    rf"\[\s*(?P<low>{_NUMBER})\s*,\s*(?P<high>{_NUMBER})\s*\]")
_NUMBERS = re.compile(_NUMBER)
_PRECEDED = re.compile(r"[\w.]$")  # an estimate glued to a word or a dot is not one


@dataclass(frozen=True)
class Quote:
    """One interval a document prints, with the estimate before it when there is one."""

    where: str  # file:line
    text: str
    low: float
    high: float
    low_decimals: int
    high_decimals: int
    estimate: float | None = None
    estimate_decimals: int = 0


@dataclass(frozen=True)
class Row:
    """The numbers of one artefact row (see the module's note)."""

    where: str
    numbers: tuple[tuple[float, int], ...]  # (value, decimals printed by the source)


_EXACT = 17  # decimals of a number stored at full precision (JSON, a CSV float)


def _value(token: str) -> tuple[float, int]:
    clean = token.replace(",", "").replace("\u2212", "-")
    decimals = len(clean.split(".", 1)[1]) if "." in clean else 0
    return float(clean), decimals


def quoted_intervals(text: str, name: str = "") -> list[Quote]:
    """Every ``[low, high]`` interval of ``text`` (with the estimate printed before it)."""
    quotes = []
    for match in _QUOTE.finditer(text):  # a quote may run over a line break
        low, low_d = _value(match["low"])
        high, high_d = _value(match["high"])
        estimate: float | None = None
        estimate_d = 0
        if match["est"] is not None and not _PRECEDED.search(text[:match.start("est")]):
            estimate, estimate_d = _value(match["est"])
        line = text.count("\n", 0, match.start("low")) + 1
        quotes.append(Quote(f"{name}:{line}", " ".join(match.group(0).split()), low, high,
                            low_d, high_d, estimate, estimate_d))
    return quotes


def _json_rows(value: Any, where: str) -> Iterator[Row]:
    if isinstance(value, dict):
        numbers: list[tuple[float, int]] = []
        for item in value.values():
            if isinstance(item, bool):
                continue
            if isinstance(item, (int, float)):
                numbers.append((float(item), _EXACT))
            elif isinstance(item, list) and all(isinstance(x, (int, float))
                                                and not isinstance(x, bool) for x in item):
                numbers.extend((float(x), _EXACT) for x in item)
            else:
                yield from _json_rows(item, where)
        if numbers:
            yield Row(where, tuple(numbers))
    elif isinstance(value, list):
        for item in value:
            yield from _json_rows(item, where)


def _cell_numbers(cell: str) -> list[tuple[float, int]]:
    if re.fullmatch(r"-?\d+\.\d{6,}(?:e[+-]?\d+)?", cell.strip()):  # written at full precision
        return [(float(cell), _EXACT)]
    return [_value(t) for t in _NUMBERS.findall(cell)]


def rows_of(path: Path, name: str | None = None) -> list[Row]:
    """The rows of one artefact (CSV, Markdown or JSON); another suffix has none."""
    where = name or str(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        try:
            return list(_json_rows(json.loads(text), where))
        except json.JSONDecodeError:
            return []
    if path.suffix == ".csv":
        return [Row(f"{where}:{i}", tuple(x for cell in record for x in _cell_numbers(cell)))
                for i, record in enumerate(csv.reader(io.StringIO(text)), start=1)]
    if path.suffix == ".md":
        return [Row(f"{where}:{i}", tuple(_value(t) for t in _NUMBERS.findall(line)))
                for i, line in enumerate(text.splitlines(), start=1)]
    return []


def _near(value: float, decimals: int, numbers: Sequence[tuple[float, int]]) -> bool:
    """Whether some number, as precise as its source prints it, rounds to ``value``."""
    return any(math.isfinite(x) and abs(x - value)
               <= 0.5 * 10.0 ** -decimals - 0.5 * 10.0 ** -k + 1e-9 for x, k in numbers)


def supported(quote: Quote, rows: Iterable[Row]) -> Row | None:
    """The first row holding the quote's interval (and its estimate, when printed)."""
    for row in rows:
        if (_near(quote.low, quote.low_decimals, row.numbers)
                and _near(quote.high, quote.high_decimals, row.numbers)
                and (quote.estimate is None
                     or _near(quote.estimate, quote.estimate_decimals, row.numbers))):
            return row
    return None


def check_documents(documents: Sequence[Path], sources: Sequence[Path],
                    root: Path | None = None) -> list[str]:
    """One line per quoted interval of ``documents`` that no row of ``sources`` supports."""
    def shown(path: Path) -> str:
        return str(path.relative_to(root)) if root is not None else str(path)

    rows = [row for path in sources for row in rows_of(path, shown(path))]
    problems = []
    for document in documents:
        for quote in quoted_intervals(document.read_text(encoding="utf-8"), shown(document)):
            if supported(quote, rows) is None:
                problems.append(f"{quote.where}: {quote.text!r} is in no generated artefact "
                                "or committed result")
    return problems


#: What :func:`check_repository` reads, relative to the checkout.
DOCUMENTS: tuple[str, ...] = ("README.md", "REPRODUCING.md", "results/**/README.md")
SOURCES: tuple[str, ...] = ("figures/**/*.csv", "figures/**/*.md", "results/**/*.json")


def check_repository(root: Path) -> list[str]:
    """:func:`check_documents` over the checkout's documents (:data:`DOCUMENTS`) and its
    generated figures and committed results (:data:`SOURCES`)."""
    def files(patterns: Sequence[str]) -> list[Path]:
        return sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})

    return check_documents(files(DOCUMENTS), files(SOURCES), root)
