"""Shared look and output of the kit's figures and tables.

Figures are built on ``matplotlib.figure.Figure`` objects (no pyplot global state)
and saved as PNG and PDF under the same stem, with the creation date stripped so
that regenerating an unchanged figure gives identical bytes. Tables are saved as
CSV (exact values) and Markdown (rounded, with a caption).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from chessmoe._io.fsutil import atomic_path

__all__ = [
    "PHASE_COLORS",
    "PHASE_LABELS",
    "Artefact",
    "new_figure",
    "save_figure",
    "save_table",
    "style",
]

# The paper's colours: opening blue, middlegame orange, endgame green, no-phases black.
PHASE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c")
NO_PHASE_COLOR = "#000000"
PHASE_LABELS = ("opening", "middlegame", "endgame")
RESULT_COLORS = {"White wins": "#f0f0f0", "Draw": "#a6a6a6", "Black wins": "#404040"}

_RC: Any = {  # Any: matplotlib types rc keys as a Literal union
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "pdf.fonttype": 42,
    "svg.hashsalt": "chessmoe",
}


@contextmanager
def style() -> Iterator[None]:
    """Temporarily apply the kit's rc settings (nothing global is changed)."""
    with matplotlib.rc_context(_RC):
        yield


def new_figure(width: float = 7.0, height: float = 4.0, **kwargs: Any) -> Figure:
    """A pyplot-free figure with an Agg canvas (displays inline in notebooks)."""
    with style():
        fig = Figure(figsize=(width, height), layout="constrained", **kwargs)
    FigureCanvasAgg(fig)
    return fig


@dataclass
class Artefact:
    """What a figure/table function produced: its files and the object to display."""

    stem: str
    paths: list[Path] = field(default_factory=list)
    figure: Figure | None = None
    table: pd.DataFrame | None = None

    def _repr_png_(self) -> bytes | None:  # notebooks show the figure itself
        if self.figure is None:
            return None
        import io

        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()

    def _repr_markdown_(self) -> str | None:  # a table artefact shows its Markdown file
        if self.figure is not None or self.table is None:
            return None
        md = [p for p in self.paths if p.suffix == ".md"]
        return md[0].read_text() if md else _markdown(self.table, ".4f")


def figure_png(fig: Figure, dpi: int = 80) -> bytes:
    """The figure as PNG bytes (what the explorers' pages show in an image widget)."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def save_figure(fig: Figure, out_dir: str | os.PathLike[str], stem: str,
                data: pd.DataFrame | None = None) -> list[Path]:
    """Save ``fig`` as ``<stem>.png`` and ``<stem>.pdf`` (deterministic metadata) and, given
    ``data``, the numbers it draws as ``<stem>.csv`` (full precision, one row per plotted
    estimate), so a reader can check a quoted value without reading it off the plot."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    if data is not None:
        csv_path = out / f"{stem}.csv"
        with atomic_path(csv_path) as tmp:
            data.to_csv(tmp, index=False)
        paths.append(csv_path)
    with style():
        for ext, metadata in (("png", {"Software": None}),
                              ("pdf", {"CreationDate": None, "Producer": None,
                                       "Creator": None})):
            path = out / f"{stem}.{ext}"
            with atomic_path(path, suffix=f".{ext}") as tmp:
                fig.savefig(tmp, format=ext, metadata=metadata)
            paths.append(path)
    return paths


def _markdown(frame: pd.DataFrame, floatfmt: str) -> str:
    cols = [str(c) for c in frame.columns]
    index_name = frame.index.name or ""
    header = "| " + " | ".join([index_name, *cols]) + " |"
    rule = "|" + "---|" * (len(cols) + 1)
    lines = [header, rule]
    columns = [frame.iloc[:, j] for j in range(frame.shape[1])]  # keeps each column's dtype
    for i, index in enumerate(frame.index):
        cells = []
        for column in columns:
            value = column.iloc[i]
            if isinstance(value, bool | np.bool_):
                cells.append(str(value))
            elif isinstance(value, int | np.integer):
                cells.append(f"{int(value):,}")
            elif isinstance(value, float | np.floating):
                cells.append(format(float(value), floatfmt))
            else:
                cells.append(str(value))
        lines.append("| " + " | ".join([str(index), *cells]) + " |")
    return "\n".join(lines)


def save_table(frame: pd.DataFrame, out_dir: str | os.PathLike[str], stem: str,
               caption: str, notes: Sequence[str] = (), floatfmt: str = ".4f") -> list[Path]:
    """Save ``frame`` as ``<stem>.csv`` (full precision) and ``<stem>.md`` (captioned)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = out / f"{stem}.csv", out / f"{stem}.md"
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp)
    text = [f"**{caption}**", "", _markdown(frame, floatfmt), ""]
    text.extend(f"- {note}" for note in notes)
    with atomic_path(md_path) as tmp:
        tmp.write_text("\n".join(text).rstrip() + "\n")
    return [csv_path, md_path]
