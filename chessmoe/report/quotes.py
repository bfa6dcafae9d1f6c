"""Numbers the documents quote, checked against the artefacts they come from.

README.md, REPRODUCING.md, the pages of ``docs/`` and the results' READMEs quote estimates with
bracketed intervals (:func:`quoted_intervals`) or margins (:func:`quoted_margins`); each must be
found, to its printed precision, in one row (:class:`Row`) of a generated artefact
(``figures/**/*.csv``, ``figures/**/*.md``) or a committed result (``results/**/*.json``).
:func:`check_documents` names each quote nothing supports: a number typed by hand or left behind
when its result changed (``make figures`` prints them, a test keeps the committed documents at
zero).
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
from typing import Any, TextIO

__all__ = ["DOCUMENTS", "SOURCES", "Quote", "Row", "check_documents", "check_repository",
           "quoted_intervals", "quoted_margins", "refresh_and_report", "report_stale", "rows_of",
           "supported"]

_SIGN = "+\\-\u2212\u2013"  # plus, hyphen-minus, minus sign, en dash
_NUMBER = rf"[{_SIGN}]?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?"
_UNIT = r"(?:Elo(?:\s+points)?|elo|points(?:\s+a\s+pair|\s+per\s+pair)?)"
# an estimate, optionally its unit, then [low, high] (numbers may carry %); between estimate
# and bracket only spaces, the unit and a line break before or after the unit
_QUOTE = re.compile(
    rf"(?:(?P<est>{_NUMBER})[ \t]*\n?[ \t]*(?:{_UNIT}[ \t]*\n?[ \t]*)?)?"
    rf"\[\s*(?P<low>{_NUMBER})\s*%?\s*,\s*(?P<high>{_NUMBER})\s*%?\s*\]")
# an estimate, optionally % and its unit, then +- (or +/- or the plus-minus sign) and a margin
_PLUS_MINUS = r"(?:\+/-|\+-|\u00b1)"
_MARGIN = re.compile(
    rf"(?P<est>{_NUMBER})[ \t]*%?[ \t]*\n?[ \t]*(?:{_UNIT}[ \t]*\n?[ \t]*)?{_PLUS_MINUS}"
    rf"[ \t]*\n?[ \t]*(?P<margin>(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?)(?![\w.])")
_NUMBERS = re.compile(rf"(?<![\w.{_SIGN}])(?:{_NUMBER})")  # not inside a word or a date
_PRECEDED = re.compile(r"[\w.]\Z")  # an estimate glued to a word or a dot is not one
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


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
    margin: float | None = None  # set: an estimate +- margin quote (low and high are nan)
    margin_decimals: int = 0


@dataclass(frozen=True)
class Row:
    """The numbers of one artefact row, in order.

    A row is one line of a Markdown file, one record of a CSV file, or the numbers directly inside
    one JSON object (its number fields and lists of numbers), in their order; numbers inside words
    (``b8-n200``, dates) are not numbers of a row. In a Markdown or CSV row an interval's ends must
    be two neighbouring numbers, in order, with the estimate right before them; in a JSON object
    (keys sorted, so ``elo_high`` precedes ``elo_low``) they must be three different fields.
    """

    where: str
    numbers: tuple[tuple[float, int], ...]  # (value, decimals printed by the source)
    ordered: bool = True  # False: a JSON object's fields (the ends may be any two fields)


_EXACT = 17  # decimals of a number stored at full precision (JSON, a CSV float)


def _value(token: str) -> tuple[float, int]:
    clean = token.replace(",", "").replace("\u2212", "-").replace("\u2013", "-")
    decimals = len(clean.split(".", 1)[1]) if "." in clean else 0
    return float(clean), decimals


def _blank_code(text: str) -> str:
    """``text`` with code (fenced blocks, inline code) blanked, line breaks kept."""
    return _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def quoted_intervals(text: str, name: str = "") -> list[Quote]:
    """Every ``[low, high]`` interval of ``text`` (with the estimate printed before it).

    What counts: ``[low, high]`` ("+67 Elo [+41, +93]", "-45.5 points [-51.6, -39.4]"; numbers may
    carry ``%``; one with ``low >= high`` is always reported), not inside code (fenced blocks,
    inline code), not a Markdown link (``[1, 2](url)``) and not an index (``a[0, 1]``). Its estimate
    is the number right before the bracket, with only spaces, a unit (``Elo``, ``Elo points``,
    ``points``, ``points a pair``) and a line break on either side of the unit between them, and not
    glued to a word ("movecount4 [" quotes no estimate). Ranges (``2.643-2.682``) are not read.
    """
    text = _blank_code(text)
    quotes = []
    for match in _QUOTE.finditer(text):  # a quote may run over a line break
        bracket = text.rindex("[", 0, match.start("low"))
        if text[match.end():match.end() + 1] == "(" or _PRECEDED.search(text[:bracket]):
            continue  # a Markdown link or an index, not an interval
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


def quoted_margins(text: str, name: str = "") -> list[Quote]:
    """Every ``estimate +- margin`` of ``text`` (``+/-`` and the plus-minus sign too; a unit
    may stand before the sign), outside code; an estimate glued to a word is not one.

    For example ``+1.7 +- 31.0``, ``+177.2 +/- 52.3 Elo``, ``11.7 ± 2.6``: the estimate and the
    margin must be found in one row. A margin without an estimate before it (``about +- 29``) is not
    read.
    """
    text = _blank_code(text)
    quotes = []
    for match in _MARGIN.finditer(text):
        if _PRECEDED.search(text[:match.start("est")]):
            continue
        estimate, estimate_d = _value(match["est"])
        margin, margin_d = _value(match["margin"])
        line = text.count("\n", 0, match.start("est")) + 1
        quotes.append(Quote(f"{name}:{line}", " ".join(match.group(0).split()), math.nan,
                            math.nan, 0, 0, estimate, estimate_d, margin, margin_d))
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
            yield Row(where, tuple(numbers), ordered=False)
    elif isinstance(value, list):
        for item in value:
            yield from _json_rows(item, where)


def _cell_numbers(cell: str) -> list[tuple[float, int]]:
    if re.fullmatch(r"-?(?:\d+\.\d{6,}(?:e[+-]?\d+)?|\d+(?:\.\d+)?e[+-]?\d+)",
                    cell.strip()):  # written at full precision
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


def _near(value: float, decimals: int, number: tuple[float, int]) -> bool:
    """Whether ``number``, as precise as its source prints it, rounds to ``value``.

    A quoted value ``q`` printed with ``d`` decimals matches a number ``x`` that its source prints
    with ``k`` decimals when every value that prints as ``x`` rounds to ``q``: ``|x - q| <= 0.5 *
    10**-d - 0.5 * 10**-k``. A figure's full-precision CSV supports any correct rounding of its
    values (a value that prints short, such as 73.5, is taken as printed); a rounded table supports
    only what it implies (its -15.95 does not support a quoted -16.0, which the true -15.947 would
    not round to).
    """
    x, k = number
    return math.isfinite(x) and abs(x - value) <= 0.5 * 10.0 ** -decimals - 0.5 * 10.0 ** -k \
        + 1e-9


def _holds_margin(quote: Quote, row: Row) -> bool:
    """An ``estimate +- margin`` quote: the two as neighbours, in order, in a table row; two
    different fields of a JSON object."""
    assert quote.estimate is not None and quote.margin is not None
    numbers = row.numbers
    estimates = [i for i, n in enumerate(numbers)
                 if _near(quote.estimate, quote.estimate_decimals, n)]
    margins = {i for i, n in enumerate(numbers)
               if _near(quote.margin, quote.margin_decimals, n)}
    if row.ordered:
        return any(i + 1 in margins for i in estimates)
    return any(i != j for i in estimates for j in margins)


def _holds(quote: Quote, row: Row) -> bool:
    if quote.margin is not None:
        return _holds_margin(quote, row)
    if not quote.low < quote.high:
        return False  # a reversed interval is a typing error wherever its numbers stand
    numbers = row.numbers
    lows = [i for i, n in enumerate(numbers) if _near(quote.low, quote.low_decimals, n)]
    highs = [i for i, n in enumerate(numbers) if _near(quote.high, quote.high_decimals, n)]
    estimates = ([i for i, n in enumerate(numbers)
                  if _near(quote.estimate, quote.estimate_decimals, n)]
                 if quote.estimate is not None else None)
    if row.ordered:
        return any(i + 1 in highs and (estimates is None or i - 1 in estimates)
                   for i in lows)
    return any(i != j and (estimates is None or any(k not in (i, j) for k in estimates))
               for i in lows for j in highs)


def supported(quote: Quote, rows: Iterable[Row]) -> Row | None:
    """The first row holding the quote's interval (and its estimate, when printed)."""
    return next((row for row in rows if _holds(quote, row)), None)


def check_documents(documents: Sequence[Path], sources: Sequence[Path],
                    root: Path | None = None) -> list[str]:
    """One line per quoted interval of ``documents`` that no row of ``sources`` supports."""
    def shown(path: Path) -> str:
        return str(path.relative_to(root)) if root is not None else str(path)

    rows = [row for path in sources for row in rows_of(path, shown(path))]
    problems = []
    for document in documents:
        text = document.read_text(encoding="utf-8")
        for quote in (*quoted_intervals(text, shown(document)),
                      *quoted_margins(text, shown(document))):
            if supported(quote, rows) is None:
                problems.append(f"{quote.where}: {quote.text!r} is in no generated artefact "
                                "or committed result")
    return problems


#: What :func:`check_repository` reads, relative to the checkout.
DOCUMENTS: tuple[str, ...] = ("README.md", "REPRODUCING.md", "docs/**/*.md",
                              "results/**/README.md")
SOURCES: tuple[str, ...] = ("figures/**/*.csv", "figures/**/*.md", "results/**/*.json")


def check_repository(root: Path) -> list[str]:
    """:func:`check_documents` over the checkout's documents (:data:`DOCUMENTS`) and its
    generated figures and committed results (:data:`SOURCES`)."""
    def files(patterns: Sequence[str]) -> list[Path]:
        return sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})

    return check_documents(files(DOCUMENTS), files(SOURCES), root)


def report_stale(root: Path, stream: TextIO, prefix: str = "make figures") -> int:
    """Print each quote :func:`check_repository` finds stale under ``root`` to ``stream``
    (one line each, then a summary line when there are any); return how many."""
    stale = check_repository(root)
    for line in stale:
        print(f"{prefix}: {line}", file=stream)
    if stale:
        print(f"{prefix}: {len(stale)} quoted interval(s) above match no regenerated artefact: "
              "update the documents", file=stream)
    return len(stale)


def refresh_and_report(root: Path, figures: Path, results: Path, stream: TextIO) -> int:
    """What ``make figures`` does after drawing: rewrite the generated blocks of ``root``'s
    README.md and REPRODUCING.md from ``figures`` and ``results`` first (they quote numbers
    too, so a block left from the last run would be named stale), then
    :func:`report_stale`."""
    from chessmoe.report import answer

    if (root / "README.md").is_file():
        answer.main([str(root / "README.md"), str(figures), str(results)])
    return report_stale(root, stream)

