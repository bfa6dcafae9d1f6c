"""Wording the documents must not use because it claims more than the games show (:data:`RULES`:
each a pattern with what to write instead), read the way :mod:`chessmoe.report.quotes` reads
numbers: every README, REPRODUCING.md, the pages of ``docs/``, the results' READMEs and the
generated tables. :func:`check_repository` names each use; a test keeps the committed documents
at none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chessmoe.report.quotes import DOCUMENTS as QUOTED

__all__ = ["DOCUMENTS", "RULES", "Rule", "check_repository", "check_text"]

_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


@dataclass(frozen=True)
class Rule:
    """One kind of wording that overclaims: its pattern (case-insensitive, may span lines)
    and what to write instead."""

    name: str
    pattern: str
    advice: str

    @property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.I | re.S)


RULES: tuple[Rule, ...] = (
    Rule("trained out", r"\btrained\s+out\b",
         "a network stopped by its validation patience is early-stopped, not trained out"),
    Rule("interval end as a bound",
         r"\bat\s+most\s+[+\-\u2212]\d[\d,.]*(?:\s*Elo)?",
         "an interval's end is not a bound on the true value: give the interval"),
    Rule("SPRT as a score",
         r"\bmet:?\s+(?:by\s+)?the\s+SPRT\s+accepts\s+H1|\btarget\s+is\s+met\s+by\s+the\s+"
         r"(?:test|SPRT)",
         "an SPRT accepting H1 shows the stronger player, not a 55 % score: read the target "
         "from the score's interval"),
    Rule("just inside an edge", r"\bjust\s+inside\s+(?:the|its)\s+(?:interval'?s?\s+)?"
         r"(?:lower|upper)\s+edge",
         "say by how much, and that another convention (the per-game interval) puts it "
         "outside"),
    Rule("answers hold over a range",
         r"\banswers?\s+holds?\s+from\s+[\d,]+\s+to\s+[\d,]+\s+nodes",
         "each setting plays one training seed a network: say what the games at each setting "
         "show"),
    Rule("seeds of both, unqualified", r"\btraining\s+seeds\s+of\s+both\b",
         "say 'the training seeds played of both' (the pooled interval) or 'both sides' seeds "
         "random' (the wider interval)"),
    Rule("pooled p beside the random-seeds interval",
         r"seeds\s+random(?:(?!\.\s|;|\|).){0,200}?\badjusted\s+p\s*[<=]",
         "the p-value is the pooled test's (these seeds); the interval with both sides' seeds "
         "random has none"),
    Rule("a control contradicting the paper",
         r"no\s+such\s+control[^|\n]*\|(?:[^|\n]*\|)*?\s*\*\*contradicts\*\*",
         "the paper has no such control: say who won ('regular-long wins')"),
    Rule("supports with the size outside",
         r"\|\s*\**supports\**\s*\|[^\n]*outside\s+our\s+interval|outside\s+our\s+interval"
         r"[^\n]*\|\s*\**supports\**\s*\|",
         "the paper's size lies outside our interval: 'sign agrees, size differs'"),
)

#: What :func:`check_repository` reads: the documents whose numbers are checked, and the
#: generated tables.
DOCUMENTS: tuple[str, ...] = (*QUOTED, "figures/*.md")


def _blank_code(text: str) -> str:
    return _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def check_text(text: str, name: str = "", rules: Sequence[Rule] = RULES) -> list[str]:
    """Each use of a rule's wording in ``text`` (code left out): ``name:line: 'text' --
    advice``, in the order they stand."""
    plain = _blank_code(text)
    found: list[tuple[int, str]] = []
    for rule in rules:
        for match in rule.regex.finditer(plain):
            line = plain.count("\n", 0, match.start()) + 1
            words = " ".join(match.group(0).split())
            if len(words) > 90:
                words = words[:40] + " ... " + words[-40:]
            found.append((match.start(), f"{name}:{line}: {words!r} -- {rule.advice}"))
    return [message for _, message in sorted(found)]


def check_repository(root: Path) -> list[str]:
    """:func:`check_text` over the checkout's documents (:data:`DOCUMENTS`)."""
    paths = sorted({p for pattern in DOCUMENTS for p in root.glob(pattern) if p.is_file()})
    problems: list[str] = []
    for path in paths:
        problems += check_text(path.read_text(encoding="utf-8"),
                               path.relative_to(root).as_posix())
    return problems
