"""One home per artefact name: no module or notebook spells a stem of chessmoe.report.stems
itself (a rename would otherwise need more than one edit)."""

from __future__ import annotations

import re
from pathlib import Path

from chessmoe.report import stems

ROOT = Path(__file__).resolve().parents[1]


def _stem_values() -> set[str]:
    # a one-word stem ("claims") is also an ordinary word: only hyphenated stems are searched
    return {value for name, value in vars(stems).items()
            if name.isupper() and isinstance(value, str) and "-" in value}


def test_every_stem_is_unique_and_path_like() -> None:
    values = [value for name, value in vars(stems).items()
              if name.isupper() and isinstance(value, str)]
    assert len(values) == len(set(values)) > 40
    assert all(re.fullmatch(r"[a-z0-9/-]+", v) for v in values)
    assert stems.dataset_sizes("kingbase") == "extras/dataset-sizes-kingbase"


def test_no_stem_is_spelled_outside_its_home() -> None:
    pattern = re.compile("|".join(re.escape(v) for v in sorted(_stem_values(), key=len,
                                                                  reverse=True)))
    offenders = []
    files = [*ROOT.joinpath("chessmoe").rglob("*.py"), *ROOT.joinpath("notebooks").glob("*.ipynb")]
    for path in files:
        if path.name == "stems.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                before, after = line[match.start() - 1:match.start()], line[match.end():][:1]
                # a quoted stem (not a longer word that merely contains one)
                if before in "\"'/" and after in "\"'.\\":
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {match.group()}")
    assert not offenders, "\n".join(offenders)
