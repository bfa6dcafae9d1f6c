"""Dataset tables: paper Tables 3 and 4 from a dataset manifest, Table 6 from the plane spec.

Tables 3 and 4 count *samples* (positions with a played move) and contributing games of
the phase datasets, per split, exactly as the manifest written by
:func:`chessmoe.games.datasets.build` records them; Table 6 renders
:data:`chessmoe.encoding.PLANES`, the layout the encoder itself uses.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from chessmoe import paper
from chessmoe.encoding import PLANES, table6
from chessmoe.games.datasets import DatasetError, dataset_tables
from chessmoe.phases import PHASE_DEFINITIONS, phase_definition
from chessmoe.report import stems
from chessmoe.report.figures.style import Artefact, save_table

__all__ = [
    "definition_sizes",
    "load_manifest",
    "table3_positions",
    "table4_games",
    "table6_input_planes",
]


def load_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A dataset manifest (``results/datasets/<name>/manifest.json``)."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path} is missing: run 'make datasets SOURCE=...' to build the "
                           "dataset and record its manifest")
    manifest: dict[str, Any] = json.loads(path.read_text())
    if "datasets" not in manifest:
        raise DatasetError(f"{path} is not a dataset manifest (no 'datasets' counts)")
    return manifest


def _notes(manifest: dict[str, Any], definition: str) -> list[str]:
    source = manifest["source"]
    commit = (manifest["provenance"]["git"]["commit"] or "unknown")[:12]
    return [f"Source: {source['description']}; {manifest['skips']['kept']:,} games kept, "
            f"{sum(manifest['skips']['skipped'].values()):,} skipped "
            f"({', '.join(f'{k} {v}' for k, v in manifest['skips']['skipped'].items())}).",
            f"Split: {manifest['split']['description']}.",
            f"Phase labels: {phase_definition(definition).description}.",
            f"Built by chessmoe at commit {commit} on {manifest['provenance']['date']}."]


def table3_positions(manifest: dict[str, Any], out_dir: str | os.PathLike[str], *,
                     definition: str | None = None) -> Artefact:
    """Paper Table 3: samples per phase dataset and split."""
    name = definition or manifest["definition"]
    positions, _ = dataset_tables(manifest, name)
    paper_rows = "; ".join(f"{s.capitalize()} " + " / ".join(f"{v:,}" for v in values)
                           for s, values in paper.TABLE3_POSITIONS.items())
    notes = [*_notes(manifest, name),
             "A sample is a position with its played move (the final position of a game is "
             "not one).",
             f"Paper (KingBase Lite 2019), No-Phases / Opening / Middlegame / Endgame: "
             f"{paper_rows}."]
    paths = save_table(positions, out_dir, stems.TABLE3_POSITIONS_PER_PHASE,
                       "Table 3 — Dataset sizes by phase (positions)", notes)
    return Artefact(stems.TABLE3_POSITIONS_PER_PHASE, paths, table=positions)


def table4_games(manifest: dict[str, Any], out_dir: str | os.PathLike[str], *,
                 definition: str | None = None) -> Artefact:
    """Paper Table 4: games contributing at least one sample to each phase dataset."""
    name = definition or manifest["definition"]
    _, games = dataset_tables(manifest, name)
    values = paper.TABLE4_GAMES["train"]
    notes = [*_notes(manifest, name),
             "Paper (KingBase Lite 2019), Train No-Phases / Opening / Middlegame / Endgame: "
             + " / ".join(f"{v:,}" for v in values) + "."]
    paths = save_table(games, out_dir, stems.TABLE4_GAMES_PER_PHASE,
                       "Table 4 — Games contributing to each phase dataset", notes)
    return Artefact(stems.TABLE4_GAMES_PER_PHASE, paths, table=games)


def table6_input_planes(out_dir: str | os.PathLike[str]) -> Artefact:
    """Paper Table 6 from the encoder's plane specification, plus the full plane list."""
    rows = table6()
    frame = pd.DataFrame(rows, columns=["Feature", "Planes", "Type", "Comment"])
    total = pd.DataFrame([["Total", int(frame["Planes"].sum()), "", ""]], columns=frame.columns)
    frame = pd.concat([frame, total], ignore_index=True).set_index("Feature")
    notes = ["* marks constant (scalar) planes: one value over all 64 squares.",
             "Planes are seen by the side to move (P1); for Black every square plane is "
             "mirrored vertically, the checkerboard never.",
             "Generated from chessmoe.encoding.PLANES, the specification the encoder uses."]
    paths = save_table(frame, out_dir, stems.TABLE6_INPUT_REPRESENTATION,
                       "Table 6 — Input representation (52 planes of 8x8)", notes)
    planes = pd.DataFrame([(p.index, p.name, p.kind, "yes" if p.constant else "",
                            "" if p.scale == 1 else f"/ {p.scale:g}") for p in PLANES],
                          columns=["plane", "name", "type", "constant", "normalised"]
                          ).set_index("plane")
    paths += save_table(planes, out_dir, stems.EXTRAS_INPUT_PLANES,
                        "All 52 input planes in order", ["Normalisation applies when "
                                                        "normalize=True (the default)."])
    return Artefact(stems.TABLE6_INPUT_REPRESENTATION, paths, table=frame)


def definition_sizes(manifest: dict[str, Any], out_dir: str | os.PathLike[str], *,
                     split: str = "train") -> Artefact:
    """Samples per phase under every registered definition (the Fig. 7 experiment's
    datasets: are the move-count phases of similar size?)."""
    rows = []
    for name in PHASE_DEFINITIONS:
        counts = manifest["datasets"][name][split]
        total = counts["no-phases"]["positions"]
        for pid, phase in enumerate(phase_definition(name).phase_names):
            n = counts[phase]["positions"]
            rows.append({"definition": name, "phase": pid, "name": phase, "positions": n,
                         "share_pct": round(100 * n / total, 2) if total else 0.0,
                         "games": counts[phase]["games"]})
    frame = pd.DataFrame(rows).set_index("definition")
    paths = save_table(frame, out_dir, stems.EXTRAS_DATASET_SIZES_BY_DEFINITION,
                       f"Phase dataset sizes under every definition ({split} split)",
                       [f"Source: {manifest['source']['description']}."], floatfmt=".2f")
    return Artefact(stems.EXTRAS_DATASET_SIZES_BY_DEFINITION, paths, table=frame)
