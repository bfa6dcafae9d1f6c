"""The house's proportions: no module of the package over 800 lines, and report/ (the top
layer that draws and writes) at most 18 % of the package's lines, so that data-shaping,
statistics and I/O live in the layers that own them."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "chessmoe"
MAX_MODULE_LINES = 800
MAX_REPORT_SHARE = 0.18


def line_counts(package: Path) -> dict[str, int]:
    """Lines of every ``.py`` file under ``package``, by path relative to it (posix)."""
    counts = {}
    for path in sorted(package.rglob("*.py")):
        with path.open("rb") as handle:
            counts[path.relative_to(package).as_posix()] = sum(1 for _ in handle)
    return counts


def report_share(counts: dict[str, int]) -> float:
    """Lines of ``report/**/*.py`` over lines of every module."""
    report = sum(n for name, n in counts.items() if name.startswith("report/"))
    return report / sum(counts.values())


def test_the_measures_on_a_planted_tree(tmp_path: Path) -> None:
    (tmp_path / "report" / "figures").mkdir(parents=True)
    (tmp_path / "report" / "figures" / "a.py").write_text("x = 1\n" * 30)
    (tmp_path / "report" / "b.py").write_text("y = 2\n" * 10 + "z = 3")  # no final newline
    (tmp_path / "reporting.py").write_text("w = 4\n" * 19)  # not under report/
    (tmp_path / "notes.txt").write_text("not a module\n" * 500)
    counts = line_counts(tmp_path)
    assert counts == {"report/figures/a.py": 30, "report/b.py": 11, "reporting.py": 19}
    assert report_share(counts) == 41 / 60


def test_no_module_is_over_800_lines() -> None:
    counts = line_counts(PACKAGE)
    assert len(counts) > 100 and "report/answer.py" in counts
    over = {name: n for name, n in counts.items() if n > MAX_MODULE_LINES}
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split along a real seam): {over}"


def test_report_is_at_most_18_percent_of_the_package() -> None:
    counts = line_counts(PACKAGE)
    share = report_share(counts)
    assert 0.05 < share <= MAX_REPORT_SHARE, (
        f"report/ is {share:.1%} of the package's lines (at most {MAX_REPORT_SHARE:.0%}): move "
        "what is not reporting to the layer that owns it")
