"""The one config root: every profile (smoke, small, powered, medium, paper) as one typed record.

A profile says, for each stage of the pipeline, what to run: the data (statistics and dataset
sources), the training (a :class:`~chessmoe.nets.training.TrainConfig` and the regimes'
settings), the recorded searches, and the tournament (which design, how many pairs, how many
games a worker plays at once). The layers below take these records as arguments; nothing else
keeps a registry of profiles. ``chessmoe config show PROFILE`` prints every field with its
value and what it means (``--set KEY=VALUE`` shows an override, parsed by the field's type).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from chessmoe._io.errors import KitError
from chessmoe.designs.registry import REGISTERED
from chessmoe.nets.regimes import TrainingPlan
from chessmoe.nets.training import TrainConfig
from chessmoe.play.designs import DESIGNS

__all__ = [
    "MEDIUM_GAMES",
    "MEDIUM_RUN",
    "PROFILES",
    "DataPlan",
    "Profile",
    "SearchPlan",
    "TournamentPlan",
    "experts_of",
    "profile",
    "show",
]


@dataclass(frozen=True)
class DataPlan:
    """Where the games come from."""

    stats_sources: tuple[str, ...] = field(
        metadata={
            "doc": "sources of the phase statistics (Fig. 2, 8-13): sample | lichess-YYYY-MM:N | "
            "kingbase | selfplay:RUN | A+B | a path"
        }
    )
    dataset_sources: tuple[str, ...] = field(
        metadata={"doc": "sources built into phase datasets (Tables 3-4)"}
    )
    max_games: int | None = field(
        default=None, metadata={"doc": "cut every statistics/dataset source to N games (smoke)"}
    )
    workers: int = field(
        default=2, metadata={"doc": "processes of the statistics and dataset passes"}
    )
    tag: str = field(
        default="",
        metadata={
            "doc": "suffix of the names its statistics and datasets are written under "
            "(results/stats/<source>-<tag>); needed with max_games, so a cut source never "
            "replaces the whole source's results"
        },
    )

    def __post_init__(self) -> None:
        if self.max_games is not None and not self.tag:
            raise ValueError("a data plan that cuts its sources (max_games) needs a tag: its "
                             "results must not take the whole sources' names")


@dataclass(frozen=True)
class SearchPlan:
    """The recorded searches behind Fig. 3 (mini-batch purity)."""

    nodes: int = field(default=800, metadata={"doc": "nodes of each recorded search"})
    positions: int = field(
        default=24, metadata={"doc": "positions near phase changes that are searched"}
    )


@dataclass(frozen=True)
class TournamentPlan:
    """Which tournament to play (chessmoe.play.designs.DESIGNS names the designs)."""

    design: str = field(metadata={"doc": " | ".join(DESIGNS) + ": the grid of matches"})
    experts: str = field(
        default="",
        metadata={"doc": "which results/experts/<name> it plays (its own profile's by default)"},
    )
    pairs: int | None = field(
        default=None, metadata={"doc": "game pairs per match (None: the design's own)"}
    )
    workers: int = field(
        default=2, metadata={"doc": "worker processes (each pinned to a GPU when there are GPUs)"}
    )


@dataclass(frozen=True)
class Profile:
    """Everything one profile runs, stage by stage."""

    name: str = field(metadata={"doc": "the profile's name (results go to results/*/<name>)"})
    description: str = field(metadata={"doc": "what the profile is for and what it costs"})
    data: DataPlan = field(metadata={"doc": "the data stage"})
    training: TrainingPlan = field(metadata={"doc": "the training stage (every regime)"})
    tournament: TournamentPlan = field(metadata={"doc": "the tournament stage"})
    search: SearchPlan = field(
        default_factory=SearchPlan, metadata={"doc": "the recorded searches (Fig. 3)"}
    )


_SMALL_TRAIN = TrainConfig(
    model="small",
    batch_size=256,
    epochs=2.0,
    eval_every=100,
    eval_samples=4096,
    log_every=25,
    max_lr=0.14,
    device="cpu",
    threads=2,
)
# One process with two threads beats two single-thread processes on a 2-core CPU (memory
# bandwidth); max_lr 0.14 (Table 7) beat 0.07 and 0.035 in a half-epoch trial.
_MOVECOUNT = ("movecount2", "movecount3", "movecount4", "movecount5")

# The data and training every profile built on the small experts shares (small, powered,
# ratings): one definition, so they cannot drift apart.
_SMALL_DATA = DataPlan(("lichess-2013-01:5000", "sample"), ("lichess-2013-01:5000", "sample"))
_SMALL_TRAINING = TrainingPlan(_SMALL_TRAIN, source="lichess-2013-01:5000",
                               definitions=_MOVECOUNT)

# The medium profile: a self-play run grown by 'chessmoe data selfplay-run --out
# results/selfplay/stockfish-n1000 --games 150000' (1,000 nodes a move; committed shard by
# shard, so it resumes on another machine), then the Lichess
# excerpt, read as one source under one seeded split.
MEDIUM_RUN = "selfplay:stockfish-n1000"
MEDIUM_GAMES = 150_000
_MEDIUM_SOURCE = f"{MEDIUM_RUN}+lichess-2013-01:5000"
# Its training: the small network at the small profile's batch, for 0.13 of an epoch of the
# ~16.1 M training positions (of 20.2 M: 19.85 M self-play plies and the excerpt's 0.33 M,
# split 80/10/10 by game): ~8,200 steps, 4 times the small regular network's 2,056, each position
# seen at most once), so the four bundles the equal-compute question needs (regular, staged,
# weighted a = 10, regular-long) train on a 2-core CPU in about 5 hours, spread over sessions
# (every run resumes). On a GPU: --set batch_size=1024 epochs=2 for the ~31,500-step version.
MEDIUM_EPOCHS = 0.13
# Table 1 on a seeded eighth of the 2.0 M test positions (the same positions for every
# bundle, pinned by their hash): the whole set costs about 35 min of a core per expert on
# this CPU, eight experts about 5 core-hours; 250,000 positions cost 4 min each, with a
# standard error of 0.0025 on the regular network's no-phases loss (recorded as loss_se).
MEDIUM_TEST_SAMPLES = 250_000
_MEDIUM_TRAIN = TrainConfig(
    model="small",
    batch_size=256,
    epochs=MEDIUM_EPOCHS,
    eval_every=400,
    eval_samples=8192,
    log_every=50,
    max_lr=0.14,
    device="auto",
    threads=2,
)

PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        "smoke",
        "seconds on a CPU: every code path, no learning to speak of; everything it writes "
        "under results/ is named for it (selfplay-sample-smoke, experts/smoke, ...) and "
        "ignored by git",
        DataPlan(("sample",), ("sample",), max_games=150, workers=1, tag="smoke"),
        TrainingPlan(
            TrainConfig(
                model="tiny",
                batch_size=32,
                iterations=12,
                eval_every=6,
                eval_samples=96,
                log_every=3,
                max_lr=0.05,
                device="cpu",
                threads=1,
            ),
            source="sample",
            max_games=120,
        ),
        TournamentPlan("smoke", pairs=1, workers=1),
        SearchPlan(nodes=40, positions=2),
    ),
    "small": Profile(
        "small",
        "every regime on the Lichess 2013-01 excerpt on a 2-core CPU (~1.5 h of "
        "training, ~40 min of games)",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("small"),
    ),
    "small-cutechess": Profile(
        "small-cutechess",
        "the small tournament's 420 games replayed under cutechess's draw rules (same "
        "matches, same openings; ~40 min on 2 idle cores): the per-setting figures read it "
        "once complete",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("small-cutechess", experts="small"),
    ),
    # the registered designs played with the small profile's experts (chessmoe.designs)
    **{d.name: Profile(d.name, d.profile, _SMALL_DATA, _SMALL_TRAINING,
                       TournamentPlan(d.name, experts="small"))
       for d in REGISTERED if d.profile},
    "precision": Profile(
        "precision",
        "faster paths checked against fp32: regular trained under bf16 autocast against regular "
        "(200 games; train it first: chessmoe train --profile small --control bf16) and the "
        "staged mixture evaluated by OpenVINO in bf16 against ONNX Runtime in fp32 (400 games), "
        "batch 8 and 100 nodes, cutechess rules (gates: chessmoe precision)",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("precision", experts="small"),
    ),
    "ratings": Profile(
        "ratings",
        "the committed rating list's round robin: the small engines, the related documents' "
        "engines and Stockfish anchors on 3 shared openings, claim draw rules (replaced by "
        "ratings-cutechess)",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("ratings", experts="small", workers=1),
    ),
    "ratings-cutechess": Profile(
        "ratings-cutechess",
        "the rating list replayed under cutechess rules: the same players, 8 openings per "
        "pairing, each pairing its own, so every engine plays 128 games from about 60 "
        "openings (chessmoe ratings reads it)",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("ratings-cutechess", experts="small"),
    ),
    "related": Profile(
        "related",
        "the related documents' own experiments under cutechess rules: the trained n-tuple "
        "engine against PeSTO (1,000 games at 400 nodes), MAIS after 1,200 self-play games "
        "against itself after 200, DeepChess against material alpha-beta at depth 3 "
        "(200 games each); matches join as their runs are trained (resumable)",
        _SMALL_DATA,
        _SMALL_TRAINING,
        TournamentPlan("related", experts="small"),
    ),
    "medium": Profile(
        "medium",
        "equal compute with more and other data, not a larger model (the small network, "
        f"{MEDIUM_EPOCHS} of an epoch): {MEDIUM_GAMES:,} Stockfish self-play games (grow "
        f"them first: make selfplay GAMES={MEDIUM_GAMES} WORKERS=N, into "
        "results/selfplay/stockfish-n1000; committed) plus the Lichess 2013-01 excerpt, about "
        "20 M positions, 16 M of them to train on (~2.4 GB of dataset shards, built on first "
        f"use); the small network for {MEDIUM_EPOCHS} of an epoch (~8,200 steps, 4x the small "
        "profile's) trains regular, "
        "staged and weighted a = 10, and --controls regular-long at their total (about 5 h of "
        "2 CPU cores in all at the small profile's 0.2 s a step; resumable); --regime "
        "separated adds the fourth method (each expert 0.13 of an epoch of its phase); the "
        "medium tournament plays them under cutechess rules (400 games a match)",
        DataPlan((MEDIUM_RUN, "lichess-2013-01:5000"), (_MEDIUM_SOURCE,)),
        TrainingPlan(_MEDIUM_TRAIN, source=_MEDIUM_SOURCE, weighted_a=(10,),
                     regimes=("regular", "staged", "weighted"), controls=("regular-long",),
                     pipeline_controls=True, test_samples=MEDIUM_TEST_SAMPLES),
        TournamentPlan("medium"),
    ),
    "paper": Profile(
        "paper",
        "Table 7 on KingBase Lite 2019 and the paper's 55 settings x 1000 games "
        "(GPUs; chessmoe tournament --plan projects the time)",
        DataPlan(("kingbase", "lichess-2013-01:5000", "sample"), ("kingbase",), workers=16),
        TrainingPlan(TrainConfig(), source="kingbase", definitions=_MOVECOUNT),
        TournamentPlan("paper", workers=16),
    ),
}


def experts_of(chosen: Profile) -> str:
    """The experts directory name a profile trains into and plays (results/experts/<it>)."""
    return chosen.tournament.experts or chosen.name


def profile(name: str) -> Profile:
    """The profile ``name`` (a one-line error listing the known ones otherwise)."""
    try:
        return PROFILES[name]
    except KeyError:
        raise KitError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


TRAIN_DOCS = {
    "model": "network preset: paper (RISEv3.3, 5.76 M parameters), paper-eca, small, tiny",
    "model_overrides": "size knobs replacing the preset's (channels, blocks, ...)",
    "batch_size": "samples per optimiser step (Table 7: 2048)",
    "epochs": "passes over the training set (Table 7: 7)",
    "iterations": "optimiser steps instead of epochs when set",
    "max_lr": "one-cycle peak learning rate",
    "min_lr": "one-cycle floor",
    "max_momentum": "momentum at the lowest learning rate",
    "min_momentum": "momentum at the peak learning rate",
    "weight_decay": "L2 penalty",
    "nesterov": "Nesterov momentum (Table 7: NAG)",
    "value_loss_factor": "weight of the value MSE in the training loss",
    "policy_loss_factor": "weight of the policy cross-entropy",
    "wdl_loss_factor": "weight of the win/draw/loss head",
    "plies_loss_factor": "weight of the plies-to-end head",
    "val_value_factor": "value weight in the validation loss",
    "val_policy_factor": "policy weight in the validation loss",
    "plies_clip": "plies-to-end target clipped here",
    "eval_every": "steps between evaluations (best checkpoint, spike check)",
    "eval_samples": "cap per evaluation set (seeded subset; None: all)",
    "log_every": "steps between training-loss rows",
    "spike_threshold": "validation loss above this x the previous one reloads the best weights",
    "max_spikes": "spikes before the run stops",
    "seed": "seed of data order and init",
    "device": "auto, cpu, cuda, cuda:N",
    "amp": "autocast dtype on GPU: bf16, fp16, off",
    "cpu_amp": "autocast dtype on CPU: off (fp32, every committed network) or bf16 (needs "
               "AVX512_BF16 or AMX)",
    "channels_last": "channels-last memory format",
    "threads": "torch CPU threads",
    "expand_on_device": "expand planes on the GPU",
    "schedule": "learning rate: one-cycle (Fig. 14, over the run's length) or plateau "
                "(warm-up, constant, cut on plateau; for runs trained until convergence)",
    "patience": "stop after this many evaluations without improvement (None: fixed length; "
                "set: epochs/iterations are the cap)",
    "min_delta": "a validation loss counts as an improvement when below the last one by more",
    "plateau_patience": "plateau schedule: evaluations without improvement before each cut",
    "plateau_factor": "plateau schedule: the cut (rate x factor, down to min_lr)",
    "warmup_iterations": "plateau schedule: linear warm-up from min_lr to max_lr",
}


def _lines(record: Any, prefix: str, indent: str) -> list[str]:
    out = []
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        doc = f.metadata.get("doc") or (
            TRAIN_DOCS.get(f.name, "") if isinstance(record, TrainConfig) else ""
        )
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.append(f"{indent}{f.name}:{'  # ' + doc if doc else ''}")
            out += _lines(value, f"{prefix}{f.name}.", indent + "  ")
        else:
            text = repr(value) if not isinstance(value, str) else value
            out.append(f"{indent}{f.name}: {text}{'  # ' + doc if doc else ''}")
    return out


def show(name: str, overrides: dict[str, Any] | None = None) -> str:
    """The profile as a documented listing of every field (training overrides applied)."""
    chosen = profile(name)
    if overrides:
        train = TrainConfig.from_dict({**chosen.training.train.to_dict(), **overrides})
        chosen = dataclasses.replace(
            chosen, training=dataclasses.replace(chosen.training, train=train)
        )
    return "\n".join(
        [f"# chessmoe profile {name!r} (chessmoe config show {name})", *_lines(chosen, "", "")]
    )
