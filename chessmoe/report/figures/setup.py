"""The experimental set-up: paper Table 8 (hardware and software, from the provenance the
results recorded) and Fig. 15 (the match command: the paper's cutechess line and the kit's
equivalent)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd

from chessmoe.records import PlannedPlayer, TournamentPlan, TournamentSummary
from chessmoe.report import stems
from chessmoe.report.artefacts import PROVENANCE_MANIFESTS
from chessmoe.report.figures.style import Artefact, new_figure, save_figure, save_table

__all__ = ["PAPER_COMMAND", "PAPER_TABLE8", "fig15_match_command", "table8_setup"]

PAPER_TABLE8 = {
    "GPU": "8 x NVIDIA Tesla V100", "Container / environment": "NGC pytorch:22.05",
    "GPU driver": "CUDA 11.4", "CPU": "Dual Intel Xeon Platinum 8168",
    "Operating system": "Ubuntu 20.04 LTS", "Engine": "CrazyAra release 1.0.4",
    "Backend": "TensorRT-8.4.1",
}

PAPER_COMMAND = (
    "./cutechess-cli -variant standard -openings file=chess.epd format=epd order=random "
    "-pgnout /data/cutechess_res.pgn -resign movecount=5 score=600 -draw movenumber=30 "
    "movecount=4 score=20 -concurrency 1 -engine name=ClassicAra_correct_phases "
    "cmd=./ClassicAra dir=~/CrazyAra/engine/build "
    "option.Model_Directory=/data/model/ClassicAra/chess/correct_phases proto=uci -engine "
    "name=ClassicAra_no_phases cmd=./ClassicAra dir=~/CrazyAra/engine/build "
    "option.Model_Directory=/data/model/ClassicAra/chess/no_phases proto=uci -each "
    "option.First_Device_ID=0 option.Batch_Size=64 option.Fixed_Movetime=0 tc=0/6000+0.1 "
    "option.Nodes=100 option.Simulations=200 option.Search_Type=mcts -games 2 -rounds 500 "
    "-repeat")


def _network_backends(summary: Path) -> str | None:
    """The network backends a tournament's players used, from the spec beside its summary
    (a spec written before backends existed played eager torch)."""
    spec = summary.with_name("spec.json")
    if not spec.exists():
        return None
    names = {"torch": "eager PyTorch", "onnx": "ONNX Runtime", "cuda": "PyTorch CUDA (bf16)"}
    used = {p.backend for p in _mcts_players(spec)}
    return ", ".join(names.get(b, b) for b in sorted(used)) or None


def _tree_searches(summary: Path) -> str | None:
    """The tree searches a tournament's MCTS players used, from the spec beside its summary (a
    spec written before the compiled search existed was played by the Python search)."""
    spec = summary.with_name("spec.json")
    if not spec.exists():
        return None
    names = {"python": "MCTS in Python", "native": "MCTS compiled with numba"}
    used = {str(p.search) for p in _mcts_players(spec)}
    return ", ".join(names.get(s, s) for s in sorted(used)) or None


def _mcts_players(spec: Path) -> list[PlannedPlayer]:
    """The kit's MCTS players of every match ``spec`` plans."""
    return [p for m in TournamentPlan.read(spec).matches for p in m.players
            if p.kind == "mcts"]


def _provenances(results: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every manifest's provenance under ``results`` with its stage, less the files git ignores
    (scratch outputs such as the smoke profile's are not the experiments' evidence)."""
    from chessmoe._io.evidence import ignored

    stages = ("phase statistics", "datasets", "training", "recorded searches", "tournaments")
    candidates = [(path, stage)
                  for pattern, stage in zip(PROVENANCE_MANIFESTS, stages, strict=True)
                  for path in sorted(results.glob(pattern))]
    scratch = ignored([path for path, _ in candidates])
    found = []
    for path, stage in candidates:
        data = json.loads(path.read_text()) if path.resolve() not in scratch else {}
        if "provenance" in data:
            prov = dict(data["provenance"])
            if stage == "tournaments":
                prov["networks_on"] = _network_backends(path)
                prov["searched_by"] = _tree_searches(path)
            found.append((stage, prov))
    return found


def table8_setup(results_dir: str | os.PathLike[str], out_dir: str | os.PathLike[str]
                 ) -> Artefact:
    """Table 8 from the hardware and software every committed result recorded."""
    rows: dict[str, dict[str, str]] = {}
    for stage, prov in _provenances(Path(results_dir)):
        hw, sw = prov.get("hardware", {}), prov.get("software", {})
        gpu = hw.get("gpu")
        entry = rows.setdefault(stage, {})
        values = {
            "GPU": f"{gpu['count']} x {gpu['name']}" if gpu else "none (CPU only)",
            "GPU driver": f"CUDA {gpu['cuda']}" if gpu else "-",
            "CPU": f"{hw.get('cpu')} ({hw.get('affinity_cores') or hw.get('logical_cores')} "
                   f"cores, {hw.get('memory_gib')} GiB)",
            "Operating system": hw.get("os", "?"),
            "Container / environment": f"Python {sw.get('python')} venv (make env)",
            "Engine": f"chessmoe {sw.get('chessmoe')} "
                      f"({prov.get('searched_by') or 'MCTS in Python'}, "
                      f"python-chess {sw.get('chess')})",
            "Backend": f"PyTorch {sw.get('torch')}, numpy {sw.get('numpy')}"
                       + (f" (networks on {prov['networks_on']})"
                          if prov.get("networks_on") else ""),
        }
        for key, value in values.items():
            seen = entry[key].split("; ") if key in entry else []
            if value not in seen:
                entry[key] = "; ".join([*seen, value])
    frame = pd.DataFrame(rows)
    frame["paper"] = pd.Series(PAPER_TABLE8)
    frame.index.name = "Hardware/Software"
    notes = ["Read from the provenance block of every manifest under results/ "
             "(stats, datasets, experts, search, tournaments) that git does not ignore "
             "(the smoke profile's are ignored).",
             "The kit runs its small profile on a 2-core CPU without a GPU; the paper trained "
             "and played on 8 V100 GPUs."]
    paths = save_table(frame, out_dir, stems.TABLE8_SETUP,
                       "Table 8 — Hardware and software of the experiments", notes)
    return Artefact(stems.TABLE8_SETUP, paths, table=frame)


def fig15_match_command(out_dir: str | os.PathLike[str],
                        tournament: TournamentSummary | None = None) -> Artefact:
    """Fig. 15: the paper's cutechess command and the kit's equivalent (the command that
    plays ``tournament``, the summary of the tournament the figures read)."""
    name = (tournament.tournament if tournament is not None else "") or "small"
    kit = (f"chessmoe tournament --profile {name} --experts results/experts/small "
           f"--out results/tournaments/{name} --workers 2")
    uci = ("chessmoe uci --experts results/experts/small/separated "
           "--baseline results/experts/small/regular --batch-size 64 --nodes 100")
    fig = new_figure(10, 6.2)
    ax = fig.subplots()
    ax.axis("off")
    blocks = [("The paper's cutechess-cli command (App. E.3, Fig. 15)", PAPER_COMMAND),
              ("The kit's equivalent: a whole tournament (openings, colours swapped, the same "
               "adjudication)", kit),
              ("…or one engine over UCI for cutechess itself (options Batch_Size, Nodes, "
               "Simulations, Fixed_Movetime, Model_Directory)", uci)]
    y = 0.97
    for title, text in blocks:
        ax.text(0.0, y, title, fontsize=9, fontweight="bold", va="top",
                transform=ax.transAxes)
        wrapped = textwrap.fill(text, 110)
        y -= 0.05
        ax.text(0.0, y, wrapped, fontsize=7.5, family="monospace", va="top",
                transform=ax.transAxes)
        y -= 0.05 + 0.034 * wrapped.count("\n") + 0.04
    if tournament is not None:
        rules = tournament.adjudication
        ax.text(0.0, 0.04, f"Adjudication used: draw rules {rules.get('draw_rules', 'claim')};"
                f" resign movecount={rules.get('resign_movecount')}"
                f" score={rules.get('resign_score')}; draw movenumber="
                f"{rules.get('draw_movenumber')} movecount={rules.get('draw_movecount')} "
                f"score={rules.get('draw_score')}; openings: {tournament.openings}.",
                fontsize=8, transform=ax.transAxes)
    ax.set_title("Fig. 15 — Running a match between two approaches", fontsize=10)
    return Artefact(stems.FIG15_MATCH_COMMAND, save_figure(fig, out_dir, stems.FIG15_MATCH_COMMAND),
                    figure=fig)
