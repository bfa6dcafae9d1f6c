"""Notebook hygiene: committed notebook sources carry no outputs (``make nbcheck``,
``make nbclean``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "check_clean",
    "strip_outputs",
]

# --- hygiene -------------------------------------------------------------------------------


def _notebooks(paths: Sequence[str | Path]) -> list[Path]:
    found: list[Path] = []
    for path in map(Path, paths):
        found.extend(sorted(path.glob("*.ipynb")) if path.is_dir() else [path])
    return found


def check_clean(paths: Sequence[str | Path]) -> list[str]:
    """Problems of notebook sources: outputs, execution counts, missing parameters cell."""
    import nbformat

    problems = []
    for path in _notebooks(paths):
        notebook = nbformat.read(path, as_version=4)
        tagged = 0
        for index, cell in enumerate(notebook.cells):
            if "parameters" in cell.get("metadata", {}).get("tags", []):
                tagged += 1
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                problems.append(f"{path}: cell {index} has outputs")
            if cell.get("execution_count") is not None:
                problems.append(f"{path}: cell {index} has an execution count")
        if tagged != 1:
            problems.append(f"{path}: needs exactly one cell tagged 'parameters' "
                            f"(found {tagged})")
    return problems


def strip_outputs(paths: Sequence[str | Path]) -> list[Path]:
    """Remove outputs and execution counts from notebook sources; return changed files."""
    import nbformat

    changed = []
    for path in _notebooks(paths):
        notebook = nbformat.read(path, as_version=4)
        dirty = False
        for cell in notebook.cells:
            if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
                cell["outputs"], cell["execution_count"] = [], None
                dirty = True
            for key in ("execution", "papermill"):
                if key in cell.get("metadata", {}):
                    del cell["metadata"][key]
                    dirty = True
        if dirty:
            nbformat.write(notebook, path)
            changed.append(path)
    return changed


