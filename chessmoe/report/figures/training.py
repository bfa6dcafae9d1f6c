"""Expert training figures and tables: paper Table 1, 5, 7 and Fig. 4, 14, 16-25.

Everything is read from the committed run directories of one profile
(``results/experts/<profile>/<bundle>/...``): ``metrics.jsonl`` for the curves,
``evaluation.json`` for Table 1, ``config.json`` for Table 7.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from chessmoe import paper
from chessmoe.nets.bundles import convergence_text, is_regular_seed
from chessmoe.nets.names import (
    CONVERGED_METHODS,
    REGULAR_LONG,
    REGULAR_WIDE,
    converged_bundle,
    train_command,
)
from chessmoe.nets.recipes import TEST_SETS, learning_rate, momentum, table5
from chessmoe.report import stems
from chessmoe.report.figures.style import (
    NO_PHASE_COLOR,
    PHASE_COLORS,
    Artefact,
    new_figure,
    save_figure,
    save_table,
)

__all__ = [
    "ExpertRuns",
    "fig04_staged_endgame",
    "fig14_schedules",
    "fig_training_curves",
    "load_runs",
    "table1_losses",
    "table5_weights",
    "table7_hyperparameters",
]

SET_COLORS = {"opening": PHASE_COLORS[0], "middlegame": PHASE_COLORS[1],
              "endgame": PHASE_COLORS[2], "no-phases": NO_PHASE_COLOR}
APPROACHES = {"regular": "Regular Learning", "separated": "Separated Learning",
              "staged": "Staged Learning", "weighted-a4": "Weighted Learning (a = 4)",
              "weighted-a10": "Weighted Learning (a = 10)"}
EXPERT_NAMES = {"phase0": "Opening", "phase1": "Middlegame", "phase2": "Endgame",
                "mixture": "Mixture", "baseline": "-"}


class TrainingResultsMissing(FileNotFoundError):
    """A bundle or run the figures need is not in the results."""


@dataclass
class ExpertRuns:
    """The committed training results of one profile."""

    directory: Path
    manifests: dict[str, dict[str, Any]]
    evaluations: dict[str, dict[str, Any]]

    def metrics(self, bundle: str, expert: str) -> pd.DataFrame:
        path = self.directory / bundle / expert / "metrics.jsonl"
        if not path.exists():
            raise TrainingResultsMissing(f"{path} is missing: run 'make experts PROFILE="
                                         f"{self.profile}'")
        return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()
                             if line.strip()])

    def config(self, bundle: str, expert: str) -> dict[str, Any]:
        path = self.directory / bundle / expert / "config.json"
        return json.loads(path.read_text())  # type: ignore[no-any-return]

    @property
    def profile(self) -> str:
        return self.directory.name

    def final(self, bundle: str, expert: str) -> dict[str, float]:
        """Full-test-set losses of an expert's final (best) model, by test set."""
        results = self.evaluations[bundle]["results"][expert]
        return {name: float(results[name]["loss"]) for name in TEST_SETS}

    def final_accuracy(self, bundle: str, expert: str) -> dict[str, float]:
        results = self.evaluations[bundle]["results"][expert]
        return {name: float(results[name]["policy_acc"]) for name in TEST_SETS}


def load_runs(directory: str | os.PathLike[str]) -> ExpertRuns:
    """Read the manifests and evaluations of every bundle under ``directory``."""
    directory = Path(directory)
    manifests, evaluations = {}, {}
    for path in sorted(directory.glob("*/manifest.json")):
        manifests[path.parent.name] = json.loads(path.read_text())
        evaluation = path.parent / "evaluation.json"
        if evaluation.exists():
            evaluations[path.parent.name] = json.loads(evaluation.read_text())
    if "regular" not in manifests:
        raise TrainingResultsMissing(f"no regular bundle under {directory}: run 'make "
                                     f"experts PROFILE={directory.name}'")
    return ExpertRuns(directory, manifests, evaluations)


# --- curves --------------------------------------------------------------------------------


def _draw(ax: Axes, frame: pd.DataFrame, metric: str, reference: dict[str, float] | None,
          stage_ends: list[int], train: bool) -> None:
    if train and metric == "loss" and "loss_train" in frame:
        rows = frame[frame["set"] == "train"]
        ax.plot(rows["iteration"], rows["loss_train"], color="#bbbbbb", lw=0.8,
                label="train (batch objective)", zorder=1)
    for name in TEST_SETS:
        rows = frame[frame["set"] == f"test/{name}"]
        if len(rows):
            ax.plot(rows["iteration"], rows[metric], color=SET_COLORS[name], lw=1.6,
                    label=name, zorder=3)
        if reference is not None:
            ax.axhline(reference[name], color=SET_COLORS[name], lw=1, ls="--", zorder=2)
    for end in stage_ends:
        ax.axvline(end, color="#555555", lw=1, ls=":", zorder=2)
    ax.set_xlabel("iteration")
    ax.set_ylabel("loss" if metric == "loss" else "policy accuracy")


def _stage_ends(frame: pd.DataFrame) -> list[int]:
    if "stage" not in frame:
        return []
    ends = frame.groupby("stage")["iteration"].max().sort_index()
    return [int(v) for v in ends.iloc[:-1]]


def fig_training_curves(runs: ExpertRuns, out_dir: str | os.PathLike[str], number: int,
                        bundles: list[str], expert: str, title: str) -> Artefact:
    """Loss and policy accuracy over training on the four test sets, one row of two panels
    per bundle (Fig. 16-25); dashed lines: the regular run's final values."""
    fig = new_figure(10, 3.6 * len(bundles))
    axes = fig.subplots(len(bundles), 2, squeeze=False)
    letters = iter("abcdefgh")
    for row, bundle in enumerate(bundles):
        frame = runs.metrics(bundle, expert)
        ends = _stage_ends(frame)
        use_reference = bundle != "regular" and "regular" in runs.evaluations
        loss_ref = runs.final("regular", "baseline") if use_reference else None
        acc_ref = runs.final_accuracy("regular", "baseline") if use_reference else None
        _draw(axes[row, 0], frame, "loss", loss_ref, ends, train=True)
        _draw(axes[row, 1], frame, "policy_acc", acc_ref, ends, train=False)
        label = APPROACHES.get(bundle, bundle)
        axes[row, 0].set_title(f"({next(letters)}) {label}: loss", fontsize=10)
        axes[row, 1].set_title(f"({next(letters)}) {label}: policy accuracy", fontsize=10)
        low = frame[frame["set"].str.startswith("test/")]["loss"].min()
        axes[row, 0].set_ylim(low - 0.3, min(frame[frame["set"].str.startswith("test/")][
            "loss"].quantile(0.9) + 0.5, low + 6))
    axes[0, 1].legend(fontsize=8, loc="lower right")
    axes[0, 0].legend(fontsize=8, loc="upper right")
    fig.suptitle(f"Fig. {number} — {title} ({runs.profile} profile); dashed: regular "
                 "run's final values; dotted: stage changes", fontsize=10)
    stem = stems.FIG16_REGULAR_TRAINING if number == 16 else stems.EXPERT_FIGURES[number]
    return Artefact(stem, save_figure(fig, out_dir, stem), figure=fig)


def fig04_staged_endgame(runs: ExpertRuns, out_dir: str | os.PathLike[str]) -> Artefact:
    """Fig. 4: the staged endgame expert's loss on the four test sets."""
    frame = runs.metrics("staged", "phase2")
    fig = new_figure(7, 4)
    ax = fig.subplots()
    reference = runs.final("regular", "baseline") if "regular" in runs.evaluations else None
    _draw(ax, frame, "loss", reference, _stage_ends(frame), train=False)
    ax.legend(fontsize=8)
    low = frame[frame["set"].str.startswith("test/")]["loss"].min()
    ax.set_ylim(low - 0.3, low + 4)
    ax.set_title(f"Fig. 4 — Staged learning, endgame expert ({runs.profile} profile)\n"
                 "dashed: regular run's final loss; dotted: a new training stage starts",
                 fontsize=10)
    return Artefact(stems.FIG04_STAGED_ENDGAME_LOSS,
                    save_figure(fig, out_dir, stems.FIG04_STAGED_ENDGAME_LOSS), figure=fig)


def fig14_schedules(runs: ExpertRuns, out_dir: str | os.PathLike[str], bundle: str = "regular",
                    expert: str = "baseline") -> Artefact:
    """Fig. 14: learning rate and momentum over one run, as logged (dots) and as the
    schedule functions give them (lines)."""
    frame = runs.metrics(bundle, expert)
    train = frame[frame["set"] == "train"]
    config = runs.config(bundle, expert)["train"]
    total = int(train["iteration"].max())
    x = np.arange(total + 1)
    lr = np.array([learning_rate(int(i), total, config["max_lr"], config["min_lr"]) for i in x])
    mom = np.array([momentum(v, config["max_lr"], config["min_lr"], config["max_momentum"],
                             config["min_momentum"]) for v in lr])
    fig = new_figure(8, 3.6)
    left, right = fig.subplots(1, 2)
    left.plot(x, lr, color=PHASE_COLORS[0])
    left.plot(train["iteration"], train["lr"], ".", color="black", ms=3, label="logged")
    left.set_title("(a) learning rate", fontsize=10)
    right.plot(x, mom, color=PHASE_COLORS[1])
    right.plot(train["iteration"], train["momentum"], ".", color="black", ms=3,
               label="logged")
    right.set_title("(b) momentum", fontsize=10)
    for ax in (left, right):
        ax.set_xlabel("iteration")
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. 14 — Schedules of the {bundle} run ({runs.profile} profile, "
                 f"{total} iterations, max lr {config['max_lr']})", fontsize=10)
    return Artefact(stems.FIG14_SCHEDULES, save_figure(fig, out_dir, stems.FIG14_SCHEDULES),
                    figure=fig)


# --- tables --------------------------------------------------------------------------------


def _control_approaches(runs: ExpertRuns) -> dict[str, str]:
    """The training controls present (``nets.controls``): extra training seeds of a bundle
    (``regular-seed10``, ``staged-seed11``, ...), the equal-iteration separated experts and the
    equal-compute regular network, labelled for Table 1."""
    out: dict[str, str] = {}
    for regime, approach in APPROACHES.items():  # more training seeds of a bundle
        for bundle in sorted(runs.evaluations):
            seed = bundle.removeprefix(f"{regime}-seed")
            if seed != bundle and seed.isdigit():
                out[bundle] = f"{approach}, seed {seed} (control)"
    def budget(bundle: str, unit: str) -> str:
        experts = runs.manifests.get(bundle, {}).get("experts", {})
        steps = {int(e["iterations"]) for e in experts.values() if "iterations" in e}
        return f", {steps.pop():,} iterations{unit}" if len(steps) == 1 else ""

    for bundle, regime, unit in (("separated-long", "separated", " per expert"),
                                 ("regular-long", "regular", "")):
        if bundle in runs.evaluations:
            out[bundle] = f"{APPROACHES[regime]}{budget(bundle, unit)} (control)"
    for bundle in sorted(runs.evaluations):  # regular-long under other seeds
        seed = bundle.removeprefix("regular-long-seed")
        if seed != bundle and seed.isdigit():
            out[bundle] = f"{APPROACHES['regular']}{budget(bundle, '')}, seed {seed} (control)"
    if REGULAR_WIDE in runs.evaluations:  # the mixture's parameters in one network
        out[REGULAR_WIDE] = (f"{APPROACHES['regular']}, widened to the mixture's parameters"
                             f"{budget(REGULAR_WIDE, '')} (control)")
    for method in CONVERGED_METHODS:  # trained until the validation loss stopped improving
        bundle = converged_bundle(method)
        if bundle in runs.evaluations:
            out[bundle] = (f"{APPROACHES[method]}, trained to convergence{budget(bundle, '')}"
                           " (control)")
    return out


#: The opt-in controls Table 1 names while they are not evaluated: the network
#: with the mixture's parameters and the methods trained until convergence.
OPT_IN_CONTROLS: tuple[str, ...] = (REGULAR_WIDE,
                                    *(converged_bundle(m) for m in CONVERGED_METHODS))


def _opt_in_notes(runs: ExpertRuns) -> list[str]:
    """Table 1's notes on the opt-in controls: which are not evaluated yet (and the command
    that makes each), how long each converged network trained (its manifest: steps, epochs
    of its own data, best step and why it stopped, stage by stage for a staged expert) and,
    once evaluated, each converged mixture's no-phases loss against the converged regular
    network's."""
    notes = []
    missing: dict[str, list[str]] = {}
    for bundle in OPT_IN_CONTROLS:
        if bundle not in runs.evaluations:
            command = train_command(bundle, runs.profile)
            missing.setdefault(command, []).append(bundle)
    if missing:
        notes.append("Not trained or not finished yet (their rows join this table once evaluated): "
                     + "; ".join(f"{', '.join(b)} ('{c}')" for c, b in missing.items()) + ".")
    converged = [converged_bundle(m) for m in CONVERGED_METHODS]
    if any(b in runs.manifests for b in converged):
        notes.append("Trained until the validation loss stopped improving: "
                     + "; ".join(convergence_text(b, runs.manifests.get(b),
                                                           runs.directory / b)
                                 for b in converged) + ".")
    regular = converged_bundle("regular")
    if regular in runs.evaluations:
        gains = [f"{b} {_no_phases(runs, regular, 'baseline') - _no_phases(runs, b):+.4f}"
                 for b in converged[1:] if b in runs.evaluations]
        if gains:
            notes.append(f"No-phases improvement of each converged mixture over {regular}: "
                         + ", ".join(gains) + ".")
    if REGULAR_WIDE in runs.evaluations and REGULAR_LONG in runs.evaluations:
        gain = (_no_phases(runs, REGULAR_LONG, "baseline")
                - _no_phases(runs, REGULAR_WIDE, "baseline"))
        notes.append(f"No-phases improvement of {REGULAR_WIDE} (the mixture's parameters in "
                     f"one network) over {REGULAR_LONG} (the same steps): {gain:+.4f}.")
    return notes


def _no_phases(runs: ExpertRuns, bundle: str, expert: str = "mixture") -> float:
    """A bundle's no-phases test loss: its mixture's, or one expert's (``baseline``)."""
    return float(runs.evaluations[bundle]["results"][expert]["no-phases"]["loss"])


def _sample_note(first: dict[str, Any], evaluations: Iterable[dict[str, Any]]) -> str:
    """Names the sample when Table 1 evaluated a subset of the test set, with the largest
    standard error of a loss it reports; refuses evaluations that read different
    positions (they would not be comparable)."""
    evaluations = list(evaluations)
    read = {(e["test_positions"], e.get("inputs", {}).get("test_index_sha256"))
            for e in evaluations}
    if len(read) > 1:
        raise ValueError("Table 1's bundles were evaluated on different test positions: "
                         + ", ".join(f"{n:,}" for n, _ in sorted(read, key=str)))
    if first["test_positions"] >= first.get("test_set_positions", first["test_positions"]):
        return ""
    errors = [sets["no-phases"]["loss_se"] for evaluation in evaluations
              for sets in evaluation["results"].values() if "loss_se" in sets["no-phases"]]
    largest = (f"; largest standard error of a no-phases loss {max(errors):.4f}" if errors
               else "")
    return (f" (a seeded sample of the {first['test_set_positions']:,}, the same for every "
            f"bundle{largest})")


def table1_losses(runs: ExpertRuns, out_dir: str | os.PathLike[str]) -> Artefact:
    """Table 1: every expert and the mixture on the four test sets (loss of the final,
    best-validation model), beside the paper's values."""
    rows = []
    for bundle, approach in (*APPROACHES.items(), *_control_approaches(runs).items()):
        if bundle not in runs.evaluations:
            continue
        results = runs.evaluations[bundle]["results"]
        for expert in ("baseline", "phase0", "phase1", "phase2", "mixture"):
            if expert in results:
                rows.append({"Approach": approach, "Expert": EXPERT_NAMES[expert],
                             **{name.title() if name != "no-phases" else "No-Phases":
                                results[expert][name]["loss"] for name in TEST_SETS}})
    frame = pd.DataFrame(rows).set_index(["Approach", "Expert"])
    ours = frame.copy()
    ours.index = [f"{a} / {e}" for a, e in ours.index]
    ours.index.name = "Approach / Expert"
    reference = pd.DataFrame([{"Approach / Expert": f"{a} / {e}", "Opening": v[0],
                               "Middlegame": v[1], "Endgame": v[2], "No-Phases": v[3]}
                              for (a, e), v in paper.TABLE1_LOSSES.items()]
                             ).set_index("Approach / Expert")
    mixture_gain = {}
    for approach in APPROACHES.values():
        key = f"{approach} / Mixture"
        if key in ours.index and f"{APPROACHES['regular']} / -" in ours.index:
            mixture_gain[approach] = (ours.loc[f"{APPROACHES['regular']} / -", "No-Phases"]
                                      - ours.loc[key, "No-Phases"])
    first = next(iter(runs.evaluations.values()))
    notes = [
        f"Profile {runs.profile}: {first['test_positions']:,} test positions"
        + _sample_note(first, runs.evaluations.values()) + "; loss = "
        f"{first['loss']}; each expert's final model is its best-validation checkpoint.",
        "The mixture evaluates every test position with the expert of its own phase.",
        "No-phases improvement of each mixture over the regular network (its first seed): "
        + (", ".join(f"{k} {v:+.4f}" for k, v in mixture_gain.items()) or "n/a") + ".",
    ]
    seeds = [runs.evaluations[b]["results"]["baseline"]["no-phases"]["loss"]
             for b in runs.evaluations if is_regular_seed(b)]
    if len(seeds) >= 2:
        low, high, mean = min(seeds), max(seeds), sum(seeds) / len(seeds)
        against = []
        for approach in (*APPROACHES.values(), *_control_approaches(runs).values()):
            key = f"{approach} / Mixture"
            if key in ours.index:
                loss = float(ours.loc[key, "No-Phases"])
                where = "inside" if low <= loss <= high else "outside"
                against.append(f"{approach} {mean - loss:+.4f} ({where})")
        notes.append(f"Seed noise: the regular network's no-phases loss spans {low:.4f}-"
                     f"{high:.4f} over {len(seeds)} training seeds (mean {mean:.4f}). Each "
                     "mixture against that mean, and whether its loss lies inside the band: "
                     + ", ".join(against) + ". A difference inside the band is not decided.")
    notes += _opt_in_notes(runs)
    paths = save_table(ours, out_dir, stems.TABLE1_EXPERT_LOSSES,
                       "Table 1 — Loss of each expert and of the mixture on the four test sets",
                       notes)
    paths += save_table(reference, out_dir, stems.EXTRAS_TABLE1_PAPER,
                        "Table 1 as printed in the paper (KingBase, RISEv3.3, 7 epochs)",
                        ["For comparison with table1-expert-losses; not computed here."])
    return Artefact(stems.TABLE1_EXPERT_LOSSES, paths, table=ours)


def table5_weights(out_dir: str | os.PathLike[str], definition: str = "lichess") -> Artefact:
    """Table 5 computed from the weighting rule (w_main = a * w_other, mean 1)."""
    frame = table5(definition=definition)
    frame.index = [f"a = {a:g}, {phase}" for a, phase in frame.index]
    frame.index.name = "a, expert main phase"
    paths = save_table(frame, out_dir, stems.TABLE5_SAMPLE_WEIGHTS,
                       "Table 5 — Sample weights of weighted learning",
                       ["Computed by chessmoe.nets.recipes.phase_weights: w_main = 3a/(a+2), "
                        "w_other = 3/(a+2)."], floatfmt=".4g")
    return Artefact(stems.TABLE5_SAMPLE_WEIGHTS, paths, table=frame)


def table7_hyperparameters(runs: ExpertRuns, out_dir: str | os.PathLike[str]) -> Artefact:
    """Table 7 from the configuration the profile's runs actually used, beside the paper's."""
    config = runs.config("regular", "baseline")
    train, model = config["train"], config["model"]
    used = {
        "max learning rate": train["max_lr"], "min learning rate": train["min_lr"],
        "batch size": train["batch_size"], "max momentum": train["max_momentum"],
        "min momentum": train["min_momentum"],
        "epochs": train["epochs"] if train["iterations"] is None
        else f"{train['iterations']} iterations",
        "optimizer": "NAG" if train["nesterov"] else "SGD with momentum",
        "weight decay (wd)": train["weight_decay"], "seed": train["seed"],
        "value loss factor": train["value_loss_factor"],
        "policy loss factor": train["policy_loss_factor"],
        "wdl loss factor": train["wdl_loss_factor"],
        "plys to end loss factor": train["plies_loss_factor"],
        "stochastic depth probability": model["stochastic_depth"],
        "spike thresh": train["spike_threshold"], "dropout rate": 0.0,
        "network": f"{train['model']} ({model['channels']} channels, {model['blocks']} "
                   f"blocks, attention {model['attention']})",
        "pytorch version": config["provenance"]["software"]["torch"],
    }
    frame = pd.DataFrame({"this kit": {k: str(v) for k, v in used.items()},
                          "paper": {k: str(v) for k, v in paper.TABLE7.items()}})
    frame.index.name = "Hyperparameter"
    paths = save_table(frame, out_dir, stems.TABLE7_HYPERPARAMETERS,
                       f"Table 7 — Hyper-parameters ({runs.profile} profile as run, and the "
                       "paper's)", ["Read from results/experts/<profile>/regular/baseline/"
                                    "config.json; every run of the profile used the same."])
    return Artefact(stems.TABLE7_HYPERPARAMETERS, paths, table=frame)
