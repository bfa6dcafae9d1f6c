"""The house's proportions: no module of the package over 800 lines, report/ (the top
layer that draws and writes) at most 18 % of the package's lines, so that data-shaping,
statistics and I/O live in the layers that own them, and no module docstring over 12 lines
(it says what the module is for; detail goes to what it describes)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "chessmoe"
MAX_MODULE_LINES = 800
MAX_REPORT_SHARE = 0.18
MAX_DOCSTRING_LINES = 12


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


def docstring_lines(package: Path) -> dict[str, int]:
    """Lines of every module's ``__doc__`` (read from the source, without importing it; 0
    where it has none), by path relative to ``package`` (posix)."""
    lines = {}
    for path in sorted(package.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        lines[path.relative_to(package).as_posix()] = len(doc.splitlines()) if doc else 0
    return lines


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


def test_docstring_lines_on_a_planted_tree(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "one.py").write_text('"""One line."""\nx = 1\n')
    (tmp_path / "sub" / "twelve.py").write_text(
        '"""Title.\n\n' + "".join(f"line {i}\n" for i in range(10)) + '"""\n')
    thirteen = "# a comment\n'''Title.\n" + "".join(f"line {i}\n" for i in range(12)) + "'''\n"
    (tmp_path / "sub" / "thirteen.py").write_text(thirteen)
    (tmp_path / "none.py").write_text('x = 1\n"""not a docstring"""\n')
    assert docstring_lines(tmp_path) == {"none.py": 0, "one.py": 1, "sub/thirteen.py": 13,
                                         "sub/twelve.py": 12}
    namespace: dict[str, object] = {}
    exec(thirteen, namespace)  # the count is that of the lines ``__doc__`` holds
    assert len(str(namespace["__doc__"]).splitlines()) == 13


def test_no_module_docstring_is_over_12_lines() -> None:
    lines = docstring_lines(PACKAGE)
    assert len(lines) > 100 and lines["nets/training.py"] > 1
    over = {name: n for name, n in lines.items() if n > MAX_DOCSTRING_LINES}
    assert not over, (f"module docstrings over {MAX_DOCSTRING_LINES} lines (say what the module "
                      f"is for; move detail to what it describes): {over}")
