"""DeepChess training runs (``related-deepchess.md``): :func:`train` (``chessmoe related train
deepchess``) and :func:`train_run` write a resumable run directory, :func:`learning_curve` one run
per training-set size, :func:`level_material` a finished run's accuracy where material is level.
The networks and their training steps are in :mod:`chessmoe.nets.related.deepchess`.

Contract: this module imports nothing above the nets layer; the one step that searches (the
summary's search speed) is a :class:`SearchSteps` its caller passes in.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import chess
import numpy as np

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import (
    atomic_path,
    atomic_write_json,
    atomic_write_text,
    sha256_file,
)
from chessmoe._io.jsonl import append_record, read_records
from chessmoe._io.provenance import provenance
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.nets.related.deepchess import (
    COMPARATOR_SCHEDULE,
    DISTILLED,
    FULL,
    INPUT_BITS,
    MAX_CLUSTER_SHARE,
    MIN_CLUSTERS,
    POS2VEC_SCHEDULE,
    DeepChessNet,
    PairBatch,
    PositionSet,
    Schedule,
    Shape,
    comparator_epoch,
    extract_positions,
    first_games,
    load_weights,
    material_balance,
    material_pair_accuracy,
    pair_accuracy,
    pair_probabilities,
    paired_with_material,
    pretrain_layer,
    random_pairs,
    save_weights,
    split_by_game,
    split_positions,
)

__all__ = [
    "CURVE_KEYS",
    "LEVEL_FILE",
    "MATERIAL_FILE",
    "PROFILES",
    "WEIGHTS",
    "DeepChessTrainConfig",
    "GameSource",
    "SearchSteps",
    "learning_curve",
    "level_material",
    "train",
    "train_run",
]

WEIGHTS = RELATED_WEIGHTS["deepchess"]


class SearchSteps(Protocol):
    """What a training run needs of the comparison alpha-beta (:mod:`chessmoe.search`, a
    layer above this one), given by the caller."""

    def speed(self, net: DeepChessNet, boards: Sequence[chess.Board], *, depth: int,
              nodes: int) -> dict[str, Any]:
        """The search's speed with ``net`` (at most ``depth`` plies, ``nodes`` leaves a
        search) over ``boards``: the ``nps*`` fields of ``summary.json``."""
        ...


DOCUMENT_ACCURACY = {"train": 0.982, "validation": 0.980}


@dataclass(frozen=True)
class DeepChessTrainConfig:
    """One training run (the document's values unless a profile reduces them)."""

    profile: str
    games: int  # decided games read from the source
    pos2vec: tuple[int, ...] = FULL.pos2vec
    head: tuple[int, ...] = FULL.head
    positions_per_game: int = 10
    held_out_games: float = 0.1  # share of the games held out (by game)
    held_out_positions: float = 0.1  # share of the training games' positions set aside
    train_games: int = 0  # > 0: only the first N training games are trained on
    learning_curve: tuple[int, ...] = ()  # train_games of each run of a learning curve
    pos2vec_epochs: int = 200  # per layer
    comparator_epochs: int = 100
    pairs_per_epoch: int = 1_000_000  # new pairs per epoch (each in both orders)
    eval_pairs: int = 5000
    pos2vec_schedule: Schedule = POS2VEC_SCHEDULE
    comparator_schedule: Schedule = COMPARATOR_SCHEDULE
    search_depth: int = 3
    nps_positions: int = 8
    nps_nodes: int = 1000
    seed: int = 20261123
    reduced: tuple[str, ...] = field(default_factory=tuple)  # what differs from the document
    # the games: "" = the Lichess excerpt (else the embedded sample); or a source spec of
    # chessmoe.games.sources, e.g. "selfplay:stockfish-n1000" (engine games, as the document)
    source: str = ""
    # a game equal to an earlier one (start and moves) is read by no split, the first copy
    # kept; the runs committed before it read every copy: their config lacks the
    # field and equals unique_games=false
    unique_games: bool = True

    @property
    def shape(self) -> Shape:
        return Shape(pos2vec=tuple(self.pos2vec), head=tuple(self.head))


PROFILES: dict[str, DeepChessTrainConfig] = {
    "smoke": DeepChessTrainConfig(
        profile="smoke", games=40, pos2vec=(INPUT_BITS, 24, 12), head=(12,),
        positions_per_game=5, held_out_games=0.2, pos2vec_epochs=1, comparator_epochs=2,
        pairs_per_epoch=300, eval_pairs=200, search_depth=2, nps_positions=1, nps_nodes=50,
        reduced=("tiny network 773-24-12 / head 12-2", "40 games, 5 positions each",
                 "1 autoencoder epoch per layer, 2 comparator epochs of 300 pairs")),
    "small": DeepChessTrainConfig(
        profile="small", games=5000, pos2vec=DISTILLED.pos2vec, head=DISTILLED.head,
        pos2vec_epochs=4, comparator_epochs=20, pairs_per_epoch=40_000,
        reduced=("the document's distilled network (Pos2Vec 773-100-100-100, head 100-100-2) "
                 "instead of 773-600-400-200-100 / 400-200-100-2",
                 "the decided games of the Lichess excerpt (about 4,700 human games of "
                 "January 2013) instead of 640K CCRL engine games",
                 "about 45K positions instead of 2M + 200K validation",
                 "4 autoencoder epochs per layer instead of 200",
                 "20 comparator epochs of 40K pairs (80K rows) instead of 100 epochs of 1M",
                 "SGD momentum 0.9 and mini-batches of 64 (the document names neither)",
                 "single process on a shared 2-core CPU")),
    # the document's scale: engine games as the document (Stockfish 15.1 self-play at 1,000
    # nodes, 'make selfplay'), 100K decided games read, 10 % held out by game: 90K to train
    # on; with --set learning_curve=5000,20000,60000,90000 the curve on the same held-out games
    "large": DeepChessTrainConfig(
        profile="large", games=100_000, source="selfplay:stockfish-n1000",
        pos2vec=DISTILLED.pos2vec, head=DISTILLED.head, positions_per_game=10,
        pos2vec_epochs=10, comparator_epochs=60, pairs_per_epoch=200_000,
        reduced=("the document's distilled network (Pos2Vec 773-100-100-100, head 100-100-2) "
                 "instead of 773-600-400-200-100 / 400-200-100-2 (--set pos2vec=... head=... "
                 "for the full one)",
                 "100K decided Stockfish 15.1 self-play games at 1,000 nodes (90K trained on) "
                 "instead of 640K CCRL engine games",
                 "about 1M positions instead of 2M + 200K validation",
                 "10 autoencoder epochs per layer instead of 200",
                 "60 comparator epochs of 200K pairs instead of 100 epochs of 1M",
                 "SGD momentum 0.9 and mini-batches of 64 (the document names neither)")),
}


def train(out_dir: Path, *, profile: str, data_dir: Path | None, search: SearchSteps,
          overrides: Sequence[str] = ()) -> Path:
    """Train at ``profile`` with ``overrides`` (``KEY=VALUE`` fields of
    :class:`DeepChessTrainConfig`) into ``out_dir``, timing ``search``; resumable."""
    from chessmoe._io.overrides import parse_overrides

    if profile not in PROFILES:
        raise KitError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    config = replace(PROFILES[profile], **parse_overrides(DeepChessTrainConfig, overrides))
    if config.learning_curve:
        return learning_curve(out_dir, config, data_dir=data_dir, search=search)
    return train_run(out_dir, config, data_dir=data_dir, search=search)


CURVE_KEYS = ("train_games", "train_positions", "held_out_games", "held_out_positions",
              "held_out_position_count", "train_accuracy_last", "held_out_accuracy_last",
              "held_out_position_accuracy_last", "material_held_out_accuracy",
              "material_held_out_position_accuracy")


def learning_curve(out_dir: Path, config: DeepChessTrainConfig, *, search: SearchSteps,
                   data_dir: Path | None = None, source: Path | None = None,
                   progress: bool = True) -> Path:
    """One run per count of ``config.learning_curve`` (``out_dir/games-N``, each resumable,
    trained on the first N training games, evaluated on the same held-out games) and
    ``out_dir/learning_curve.json`` with their accuracies."""
    if not config.learning_curve or any(n < 1 for n in config.learning_curve):
        raise KitError("learning_curve needs positive game counts, e.g. 5000,20000,60000")
    out_dir = Path(out_dir)
    games = _game_source(config, data_dir, source)
    rows: list[dict[str, Any]] = []
    for count in sorted(set(config.learning_curve)):
        run = out_dir / f"games-{count}"
        train_run(run, replace(config, train_games=count, learning_curve=()), source=source,
                  data_dir=data_dir, progress=progress, search=search)
        summary = json.loads((run / "summary.json").read_text())
        paired = json.loads((run / MATERIAL_FILE).read_text())
        rows.append({"games_asked": count, "run": run.name,
                     **{key: summary.get(key) for key in CURVE_KEYS},
                     **{f"material_paired_{part}": paired.get(part)
                        for part in ("by_game", "by_position")}})
    atomic_write_json(out_dir / "learning_curve.json", {
        "engine": "deepchess", "profile": config.profile, "source": games.name,
        "games_read": config.games, "document": "about 640K CCRL games; 98.0 % validation",
        "held_out": "by game: the same held-out games for every count; by position: "
                    "set-aside positions of each run's own training games",
        "rows": rows})
    return out_dir


@dataclass(frozen=True)
class GameSource:
    """The games a run reads: ``files`` in order, recorded under ``name`` (the file's name
    for the default excerpt, the source's results name for a spec), from ``spec``."""

    name: str
    files: tuple[Path, ...]
    spec: str = ""

    @staticmethod
    def of_file(path: Path) -> GameSource:
        return GameSource(Path(path).name, (Path(path),))


def _source(data_dir: Path | None, spec: str = "") -> GameSource:
    """``spec`` resolved (a self-play run's shards in game order, each checked against its
    manifest), or with none the Lichess excerpt, else the embedded sample."""
    from chessmoe.games import sources

    if not spec:
        return GameSource.of_file(sources.lichess_excerpt(data_dir, or_sample=True))
    resolved = sources.resolve(spec, data_dir, fetch_missing=False)
    return GameSource(resolved.name, resolved.files, spec)


def _game_source(config: DeepChessTrainConfig, data_dir: Path | None,
                 source: Path | None) -> GameSource:
    if source is not None:
        if config.source:
            raise KitError("name the games once: a source file or the config's source spec")
        return GameSource.of_file(source)
    return _source(data_dir, config.source)


def _config_json(config: DeepChessTrainConfig, source: GameSource) -> dict[str, Any]:
    data = asdict(config)
    if not config.source:  # runs made before the field existed compare equal
        data.pop("source")
    if not config.unique_games:  # likewise: the runs before deduplication read every copy
        data.pop("unique_games")
    data["reduced"] = list(config.reduced)
    data["pos2vec"] = list(config.pos2vec)
    data["head"] = list(config.head)
    data["learning_curve"] = list(config.learning_curve)
    data.update({
        "engine": "deepchess",
        "document": "related-deepchess.md",
        "network": f"Pos2Vec {'-'.join(map(str, config.pos2vec))} (ReLU) x 2 shared, head "
                   f"{2 * config.pos2vec[-1]}-{'-'.join(map(str, config.head))}-2 softmax",
        "input": "773 bits: 2 sides x 6 types x 64 squares, side to move (White 1), 4 "
                 "castling rights",
        "source": source.name,
        **({"source_spec": source.spec} if source.spec else {}),
        "split": "by game (held-out games) and by position (set-aside positions of the "
                 "training games)",
        "document_accuracy": DOCUMENT_ACCURACY,
    })
    return data


def _steps(config: DeepChessTrainConfig) -> list[tuple[str, int, int]]:
    """Every epoch of the run in order: ``(phase, layer, epoch)`` (layer -1: comparator)."""
    layers = len(config.pos2vec) - 1
    steps = [("pos2vec", layer, epoch) for layer in range(layers)
             for epoch in range(config.pos2vec_epochs)]
    steps += [("comparator", -1, epoch) for epoch in range(config.comparator_epochs)]
    return steps


def _positions(out_dir: Path, config: DeepChessTrainConfig, source: GameSource
               ) -> PositionSet:
    """The run's positions, extracted once and kept in ``state/positions.npz``."""
    path = out_dir / "state" / "positions.npz"
    if path.exists():
        with np.load(path) as data:
            return PositionSet(data["bits"], data["game"], data["white_won"])
    positions = extract_positions(source.files, games=config.games,
                                  per_game=config.positions_per_game, seed=config.seed,
                                  unique=config.unique_games)
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, bits=positions.bits, game=positions.game,
                            white_won=positions.white_won)
    return positions


def train_run(out_dir: Path, config: DeepChessTrainConfig, *, search: SearchSteps,
              data_dir: Path | None = None, source: Path | None = None,
              progress: bool = True) -> Path:
    """One training run into ``out_dir``; continues after the last finished epoch.

    In the document's order:

    1. positions: up to ``positions_per_game`` random positions of each decided game of the
       source (``source``: a PGN file; else ``config.source``, a source spec such as
       ``selfplay:stockfish-n1000``; by default the Lichess excerpt when found, else the
       kit's embedded sample; provenance.json records the spec and every file's sha256), not
       in the first 5 moves and not right after a capture; a game equal to an earlier one
       (its exact copy, ``unique_games``) is skipped, the first copy kept; the games (not the
       positions) are split into a training and a held-out part, so no game feeds both (the
       *by-game* held-out set); of the training games' positions a share
       ``held_out_positions`` is set aside too (the *by-position* held-out set: unseen
       positions of games trained on); ``train_games`` > 0 keeps only the first that many
       training games;
    2. Pos2Vec: each tower layer in turn trained as an autoencoder on the codes of the layers
       below it, ``pos2vec_epochs`` epochs per layer, learning rate 0.005 x 0.98 per epoch;
    3. the comparator: both towers (shared weights, initialised by step 2) and the head
       trained together on ``pairs_per_epoch`` new random (White win, Black win) pairs per
       epoch, each in both orders, learning rate 0.01 x 0.99 per epoch, cross entropy.

    ``metrics.jsonl`` has one record per epoch: ``phase`` ``pos2vec`` (``layer``, ``loss``)
    or ``comparator`` (``loss``, ``train_accuracy`` on ``eval_pairs`` new pairs of training
    positions, ``held_out_accuracy`` on ``eval_pairs`` fixed pairs of held-out games'
    positions (by game), ``held_out_position_accuracy`` on fixed pairs of the set-aside
    positions (by position)). ``summary.json`` puts the last and best accuracies beside the
    document's 98.2 % (training) and 98.0 % (validation), beside the material-only
    comparator's accuracy on the *same* pairs (more White material = the White win, ties
    half), and the search's speed (``search``). ``material-paired.json`` compares the two on
    those pairs row by row (:func:`paired_with_material`); a finished run lacking it, or
    holding one made under another interval rule or description, gains it here, nothing
    else changed.

    Weights, optimiser, the autoencoder decoder in training, the positions and random states
    are saved after every epoch (``state/``), so a restarted run continues after the last
    finished epoch."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    games = _game_source(config, data_dir, source)
    config_path = out_dir / "config.json"
    wanted = _config_json(config, games)
    if config_path.exists():
        previous = json.loads(config_path.read_text())
        fixed = {k: v for k, v in wanted.items()
                 if k not in ("comparator_epochs", "pos2vec_epochs")}
        if {k: previous.get(k) for k in fixed} != fixed:
            raise KitError(f"{out_dir} holds a run with another configuration; use a new --out")
        if previous.get("pos2vec_epochs") != config.pos2vec_epochs \
                and (out_dir / "state" / "progress.json").exists():
            raise KitError(f"{out_dir}: the autoencoder epochs cannot change after the start")
        if previous == wanted and _finished(out_dir, len(_steps(config))):
            # nothing left to train: its summary and provenance stay as made; only an
            # evaluation added since the run (the paired comparison) is written, or written
            # again where its interval rule or its description has changed since
            if _material_comparison_outdated(out_dir / MATERIAL_FILE):
                sets = _evaluation_sets(_positions(out_dir, config, games), config)
                _write_material_comparison(out_dir, config,
                                           load_weights(out_dir / WEIGHTS, config.shape), sets)
            return out_dir
    atomic_write_json(config_path, wanted)
    atomic_write_text(out_dir / ".gitignore", "state/\n")

    positions = _positions(out_dir, config, games)
    sets = _evaluation_sets(positions, config)
    train_set, held_set, held_pairs = sets.train, sets.held, sets.held_pairs
    unseen_set, unseen_pairs = sets.unseen, sets.unseen_pairs

    torch.manual_seed(config.seed)
    net = DeepChessNet(config.shape)
    rng = np.random.default_rng(config.seed)
    torch_rng = torch.Generator().manual_seed(config.seed)
    steps = _steps(config)
    done = 0
    saved_optimizer: dict[str, Any] | None = None
    saved_decoder: dict[str, Any] | None = None
    progress_path = out_dir / "state" / "progress.json"
    if progress_path.exists():
        saved = json.loads(progress_path.read_text())
        done = int(saved["steps_done"])
        rng.bit_generator.state = saved["numpy_rng"]
        net.load_state_dict(torch.load(out_dir / WEIGHTS, weights_only=True))
        state = torch.load(out_dir / "state" / "optimizer.pt", weights_only=True)
        torch_rng.set_state(state["torch_rng"])
        if 0 < done < len(steps) and steps[done - 1][:2] == steps[done][:2]:
            saved_optimizer = state["optimizer"]  # resuming inside a layer or phase
            saved_decoder = state.get("decoder")
    metrics_path = out_dir / "metrics.jsonl"
    kept = [r for r in read_records(metrics_path).records if r.get("step", 0) <= done]
    atomic_write_text(metrics_path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept))

    optimizer: torch.optim.Optimizer | None = None
    decoder: torch.nn.Linear | None = None
    current: tuple[str, int] | None = None
    bar = tqdm(total=len(steps), initial=done, desc="deepchess", unit="epoch",
               disable=not progress)
    started = time.perf_counter()
    for index in range(done, len(steps)):
        phase, layer, epoch = steps[index]
        tick = time.perf_counter()
        if current != (phase, layer):  # a new layer or phase: fresh optimiser (and decoder)
            current = (phase, layer)
            schedule = config.pos2vec_schedule if phase == "pos2vec" else \
                config.comparator_schedule
            if phase == "pos2vec":
                encoder = net.tower.layers[layer]
                assert isinstance(encoder, torch.nn.Linear)
                decoder = torch.nn.Linear(encoder.out_features, encoder.in_features)
                params = list(encoder.parameters()) + list(decoder.parameters())
            else:
                decoder = None
                params = list(net.parameters())
            optimizer = torch.optim.SGD(params, lr=schedule.lr, momentum=schedule.momentum)
            if saved_optimizer is not None:  # resuming inside this layer or phase
                optimizer.load_state_dict(saved_optimizer)
                if decoder is not None and saved_decoder is not None:
                    decoder.load_state_dict(saved_decoder)
                saved_optimizer = saved_decoder = None
        assert optimizer is not None
        record: dict[str, Any] = {"step": index + 1, "phase": phase, "epoch": epoch + 1}
        if phase == "pos2vec":
            assert decoder is not None
            record["layer"] = layer + 1
            record["lr"] = config.pos2vec_schedule.rate(epoch)
            record["loss"] = pretrain_layer(net.tower, layer, train_set.bits, decoder,
                                            optimizer, config.pos2vec_schedule, epoch,
                                            torch_rng)
        else:
            pairs = random_pairs(train_set, config.pairs_per_epoch, rng)
            record["lr"] = config.comparator_schedule.rate(epoch)
            record["loss"] = comparator_epoch(net, train_set, pairs, optimizer,
                                              config.comparator_schedule, epoch, torch_rng)
            record["pairs"] = len(pairs.label)
            record["train_accuracy"] = pair_accuracy(
                net, train_set, random_pairs(train_set, config.eval_pairs // 2, rng))
            record["held_out_accuracy"] = pair_accuracy(net, held_set, held_pairs)
            if unseen_pairs is not None:
                record["held_out_position_accuracy"] = pair_accuracy(net, unseen_set,
                                                                     unseen_pairs)
        record["seconds"] = time.perf_counter() - tick
        append_record(metrics_path, record)
        _save_state(out_dir, net, optimizer, decoder, rng, torch_rng, index + 1)
        bar.update(1)
        bar.set_postfix({k: f"{record[k]:.3f}" for k in ("loss", "held_out_accuracy")
                         if k in record})
    bar.close()
    material = {"material_held_out_accuracy": material_pair_accuracy(held_set, held_pairs),
                "material_held_out_position_accuracy": material_pair_accuracy(
                    unseen_set, unseen_pairs) if unseen_pairs is not None else None,
                "held_out_position_count": len(unseen_set)}
    _write_summary(out_dir, config, net, games, positions, train_set, held_set,
                   time.perf_counter() - started, search, material)
    _write_material_comparison(out_dir, config, net, sets)
    return out_dir


@dataclass(frozen=True)
class _EvaluationSets:
    """A run's training positions and its two held-out sets with their fixed pairs, drawn
    from the run's positions and seed alone (so the same on every resume and every later
    reading)."""

    train: PositionSet
    held: PositionSet  # positions of held-out games (by game)
    held_pairs: PairBatch
    unseen: PositionSet  # set-aside positions of the training games (by position)
    unseen_pairs: PairBatch | None


def _evaluation_sets(positions: PositionSet, config: DeepChessTrainConfig) -> _EvaluationSets:
    train_set, held_set = split_by_game(positions, config.held_out_games, config.seed)
    train_set = first_games(train_set, config.train_games)
    train_set, unseen_set = split_positions(train_set, config.held_out_positions,
                                            config.seed + 2)
    held_pairs = random_pairs(held_set, config.eval_pairs // 2,
                              np.random.default_rng(config.seed + 1))
    unseen_pairs = _pairs_or_none(unseen_set, config.eval_pairs // 2, config.seed + 3)
    return _EvaluationSets(train_set, held_set, held_pairs, unseen_set, unseen_pairs)


MATERIAL_FILE = "material-paired.json"


def _interval_rule() -> dict[str, Any]:
    return {"min_clusters": MIN_CLUSTERS, "max_cluster_share": MAX_CLUSTER_SHARE}


MATERIAL_WHAT = ("the network's accuracy minus the material-only comparator's (more White "
                 "material = the White win, a tie one half) on the same held-out pairs as "
                 "summary.json; the 95 % half-width clusters the rows by game (rows whose "
                 "pairs share a game, directly or through other rows, form one cluster), and "
                 "is given only where interval_rule holds")


def _material_comparison_outdated(path: Path) -> bool:
    """Missing, unreadable, or made under another interval rule than today's, or describing
    its interval otherwise than today's code does (a file whose sentence no longer says what
    its numbers are is written again, not left to mislead its reader)."""
    try:
        made = json.loads(path.read_text())
        return bool(made.get("interval_rule") != _interval_rule()
                    or made.get("what") != MATERIAL_WHAT)
    except (OSError, ValueError, AttributeError):
        return True


def _write_material_comparison(out_dir: Path, config: DeepChessTrainConfig,
                               net: DeepChessNet, sets: _EvaluationSets) -> None:
    """``material-paired.json``: the network against the material-only comparator on the
    same held-out pairs, row by row (:func:`paired_with_material`), by game and by position,
    with its own provenance (a finished run gains it on its next ``related train``)."""
    parts: dict[str, Any] = {}
    for name, positions, pairs in (("by_game", sets.held, sets.held_pairs),
                                   ("by_position", sets.unseen, sets.unseen_pairs)):
        if pairs is not None:
            parts[name] = paired_with_material(pair_probabilities(net, positions, pairs),
                                               positions, pairs).to_json()
    atomic_write_json(out_dir / MATERIAL_FILE, {
        "engine": "deepchess", "weights": WEIGHTS,
        "weights_sha256": sha256_file(out_dir / WEIGHTS),
        "what": MATERIAL_WHAT,
        "interval_rule": _interval_rule(),
        "eval_pairs": config.eval_pairs, "seed": config.seed, **parts,
        "provenance": provenance()})


LEVEL_FILE = "level-material.json"
LEVEL_WHAT = ("the network against the material-only comparator where material cannot decide: "
              "rows whose two positions have the same material balance (White minus Black, "
              "P 1 N 3 B 3 R 5 Q 9), where material scores one half by its rule (a tie); "
              "'material_tied' on the pairs of summary.json and material-paired.json, "
              "'level_draw' on a larger draw of such pairs from the same held-out positions, "
              "each game in at most one pair (one random position a game, paired within "
              "each material balance); 95 % half-widths clustered by game as in "
              "material-paired.json")


def _run_config(run: Path) -> DeepChessTrainConfig:
    """The training config a run directory records (what decides its positions and
    pairs); a run made before deduplication read every copy (``unique_games`` false)."""
    data = json.loads((run / "config.json").read_text())
    profile = str(data.get("profile", ""))
    if profile not in PROFILES:
        raise KitError(f"{run}/config.json: unknown profile {profile!r}")
    values: dict[str, Any] = {key: data[key] for key in (
        "games", "positions_per_game", "held_out_games", "held_out_positions", "train_games",
        "eval_pairs", "seed", "search_depth") if key in data}
    return replace(PROFILES[profile], **values, pos2vec=tuple(data["pos2vec"]),
                   head=tuple(data["head"]), source=str(data.get("source_spec", "")),
                   unique_games=bool(data.get("unique_games", False)))


def _level_draw(positions: PositionSet, pairs: int, rng: np.random.Generator
                ) -> PairBatch | None:
    """Up to ``pairs`` (White win, Black win) pairs whose two positions have the same
    material balance, each in both orders, *no game in two pairs* (so the rows cluster
    into their pairs and the clustered interval is estimable): one random position of each
    game, then, within each balance, White-win and Black-win games paired at random;
    ``None`` where no such pair exists."""
    order = rng.permutation(len(positions))
    _, first_seen = np.unique(positions.game[order], return_index=True)
    one = order[first_seen]  # one random position of each game
    balance = material_balance(positions.bits[one])
    ws: list[np.ndarray] = []
    bs: list[np.ndarray] = []
    for value in np.unique(balance):
        white = rng.permutation(one[(balance == value) & positions.white_won[one]])
        black = rng.permutation(one[(balance == value) & ~positions.white_won[one]])
        count = min(len(white), len(black))
        ws.append(white[:count])
        bs.append(black[:count])
    w, b = np.concatenate(ws).astype(np.int64), np.concatenate(bs).astype(np.int64)
    if len(w) == 0:
        return None
    keep = rng.permutation(len(w))[:pairs]
    w, b = w[keep], b[keep]
    pairs = len(w)
    first, second = np.concatenate([w, b]), np.concatenate([b, w])
    label = np.concatenate([np.zeros(pairs, dtype=np.int64), np.ones(pairs, dtype=np.int64)])
    order = rng.permutation(2 * pairs)
    return PairBatch(first[order], second[order], label[order])


def _rows(pairs: PairBatch, mask: np.ndarray) -> PairBatch:
    return PairBatch(pairs.first[mask], pairs.second[mask], pairs.label[mask])


def _parts(net: DeepChessNet, positions: PositionSet, pairs: PairBatch
           ) -> dict[str, Any]:
    """The paired comparison on all ``pairs`` and on its rows by material: tied (the two
    balances equal), both level (both balances 0) and differing."""
    probabilities = pair_probabilities(net, positions, pairs)
    balance = material_balance(positions.bits)
    first, second = balance[pairs.first], balance[pairs.second]
    masks = {"all": np.ones(len(pairs.label), dtype=bool), "material_tied": first == second,
             "both_level": (first == 0) & (second == 0), "material_differs": first != second}
    return {name: (paired_with_material(probabilities[mask], positions, _rows(pairs, mask))
                   .to_json() if mask.any() else None) for name, mask in masks.items()}


def _positions_and_keys(run: Path, config: DeepChessTrainConfig, games: GameSource
                        ) -> tuple[PositionSet, list[str]]:
    """The run's positions and each game's key, read again from the source once and kept
    in ``state/`` (not for version control) for the next reading."""
    path, keys_path = run / "state" / "positions.npz", run / "state" / "game-keys.json"
    if path.exists() and keys_path.exists():
        with np.load(path) as data:
            positions = PositionSet(data["bits"], data["game"], data["white_won"])
        return positions, list(json.loads(keys_path.read_text()))
    keys: list[str] = []
    positions = extract_positions(games.files, games=config.games,
                                  per_game=config.positions_per_game, seed=config.seed,
                                  unique=config.unique_games, keys=keys)
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, bits=positions.bits, game=positions.game,
                            white_won=positions.white_won)
    atomic_write_json(keys_path, keys)
    return positions, keys


def level_material(run_dir: str | Path, *, data_dir: Path | None = None,
                   source: Path | None = None, level_pairs: int = 20_000,
                   progress: bool = True) -> dict[str, Any]:
    """Held-out accuracy where material is level (the document's task is to learn more
    than material), written to ``run_dir/level-material.json``: the run's positions
    read again from its source (the same seed, so the same positions and pairs as its
    summary -- checked: the recomputed accuracies must equal summary.json's), by game and by
    position, on the summary's pairs split by material and on ``level_pairs`` more pairs of
    level material; and, by game, without the held-out games that are exact copies of a
    training game (the self-play run's duplicates). ``source``: the PGN file the run was
    trained from, where it was named as a file (``train_run(source=...)``)."""
    run = Path(run_dir)
    config = _run_config(run)
    games = _game_source(config, data_dir, source)
    if progress:
        print(f"deepchess: reading the positions of {config.games:,} games from {games.name} "
              "(the run's own draw)", flush=True)
    positions, keys = _positions_and_keys(run, config, games)
    sets = _evaluation_sets(positions, config)
    net = load_weights(run / WEIGHTS, config.shape)
    summary = json.loads((run / "summary.json").read_text())
    out: dict[str, Any] = {"engine": "deepchess", "weights": WEIGHTS,
                           "weights_sha256": sha256_file(run / WEIGHTS), "what": LEVEL_WHAT,
                           "interval_rule": _interval_rule(), "eval_pairs": config.eval_pairs,
                           "level_pairs": level_pairs, "seed": config.seed}
    for name, held, pairs, reported in (
            ("by_game", sets.held, sets.held_pairs, "held_out_accuracy_last"),
            ("by_position", sets.unseen, sets.unseen_pairs,
             "held_out_position_accuracy_last")):
        if pairs is None:
            continue
        parts = _parts(net, held, pairs)
        if abs(parts["all"]["network"] - float(summary[reported])) > 5e-5:
            raise KitError(f"{run}: the positions read again give {name} accuracy "
                           f"{parts['all']['network']:.4f}, not the summary's "
                           f"{summary[reported]}: not the run's positions (another source "
                           "or version?)")
        drawn = _level_draw(held, level_pairs, np.random.default_rng(config.seed + 43))
        out[name] = {**parts, "level_draw": None if drawn is None else paired_with_material(
            pair_probabilities(net, held, drawn), held, drawn).to_json()}
    # held-out games that copy a training game (by game; the by-position set is made of
    # training games' own positions)
    held_games = np.unique(sets.held.game)
    train_keys = {keys[g] for g in np.setdiff1d(np.unique(positions.game), held_games)}
    copies = np.array([g for g in held_games if keys[g] in train_keys], dtype=np.int64)
    pairs = sets.held_pairs
    clean = ~(np.isin(sets.held.game[pairs.first], copies)
              | np.isin(sets.held.game[pairs.second], copies))
    out["by_game_without_copies"] = {
        "held_out_games_copying_a_training_game": len(copies),
        "rows_dropped": int((~clean).sum()),
        **_parts(net, sets.held, _rows(pairs, clean))}
    out["unique_games"] = config.unique_games
    out["provenance"] = provenance(config=config.profile)
    atomic_write_json(run / LEVEL_FILE, out)
    return out


def _pairs_or_none(positions: PositionSet, pairs: int, seed: int) -> Any:
    """Evaluation pairs of ``positions``, or ``None`` where one result has no position."""
    if pairs < 1 or positions.white_won.all() or not positions.white_won.any():
        return None
    return random_pairs(positions, pairs, np.random.default_rng(seed))


def _save_state(out_dir: Path, net: DeepChessNet, optimizer: Any, decoder: Any,
                rng: np.random.Generator, torch_rng: Any, steps_done: int) -> None:
    import torch

    with atomic_path(out_dir / "state" / "optimizer.pt") as tmp:
        state = {"optimizer": optimizer.state_dict(), "torch_rng": torch_rng.get_state()}
        if decoder is not None:
            state["decoder"] = decoder.state_dict()
        torch.save(state, tmp)
    save_weights(net, out_dir / WEIGHTS)
    atomic_write_json(out_dir / "state" / "progress.json",
                      {"steps_done": steps_done, "numpy_rng": rng.bit_generator.state})


def _finished(out_dir: Path, steps: int) -> bool:
    """Whether the run in ``out_dir`` trained all ``steps`` epochs and wrote its summary."""
    metrics = out_dir / "metrics.jsonl"
    return ((out_dir / "summary.json").is_file() and (out_dir / WEIGHTS).is_file()
            and metrics.is_file()
            and any(r.get("step") == steps for r in read_records(metrics).records))


def _measure_nps(net: DeepChessNet, source: GameSource, config: DeepChessTrainConfig,
                 search: SearchSteps) -> dict[str, Any]:
    """Search speed: leaves per second over a few real-game positions (after up to 20 plies
    of the source's first games), each searched with ``nps_nodes`` leaves."""
    from chessmoe.games.pgn import probe_positions

    boards = probe_positions(source.files[0], config.nps_positions)
    return search.speed(net, boards, depth=config.search_depth, nodes=config.nps_nodes)


def _write_summary(out_dir: Path, config: DeepChessTrainConfig, net: DeepChessNet,
                   source: GameSource, positions: PositionSet, train_set: PositionSet,
                   held_set: PositionSet, seconds: float, search: SearchSteps,
                   material: dict[str, Any] | None = None) -> None:
    records = sorted(read_records(out_dir / "metrics.jsonl").records, key=lambda r: r["step"])
    comparator = [r for r in records if r["phase"] == "comparator"]
    pretrain = [r for r in records if r["phase"] == "pos2vec"]
    summary: dict[str, Any] = {
        "engine": "deepchess", "profile": config.profile, "source": source.name,
        "positions": len(positions), "games": positions.games,
        "train_positions": len(train_set), "train_games": train_set.games,
        "held_out_positions": len(held_set), "held_out_games": held_set.games,
        "white_won_share": float(np.mean(positions.white_won)),
        "pos2vec_loss_first_last": {
            str(layer): [rs[0]["loss"], rs[-1]["loss"]]
            for layer in range(1, len(config.pos2vec))
            if (rs := [r for r in pretrain if r["layer"] == layer])},
        "comparator_epochs": len(comparator),
        "train_accuracy_last": comparator[-1]["train_accuracy"] if comparator else None,
        "held_out_accuracy_last": comparator[-1]["held_out_accuracy"] if comparator else None,
        "held_out_accuracy_best": max((r["held_out_accuracy"] for r in comparator),
                                      default=None),
        "held_out_position_accuracy_last": comparator[-1].get("held_out_position_accuracy")
        if comparator else None,
        "held_out_accuracy_means": "by game: pairs of positions of games never trained on; "
                                   "held_out_position_accuracy: by position (unseen "
                                   "positions of the training games)",
        "train_games_limit": config.train_games,
        **(material or {}),
        "document_train_accuracy": DOCUMENT_ACCURACY["train"],
        "document_validation_accuracy": DOCUMENT_ACCURACY["validation"],
        "train_seconds_this_invocation": seconds,
        "weights": WEIGHTS,
        "weights_bytes": (out_dir / WEIGHTS).stat().st_size if (out_dir / WEIGHTS).exists()
        else 0,
    }
    summary.update(_measure_nps(net, source, config, search))
    atomic_write_json(out_dir / "summary.json", summary)
    # every file the source resolved to (the reader took the first ``games`` decided games
    # of them in order; a self-play run's later shards may not have been reached)
    files = [{"file": f.name, "bytes": f.stat().st_size, "sha256": sha256_file(f)}
             for f in source.files]
    atomic_write_json(out_dir / "provenance.json",
                      provenance(config=config.profile, source=source.spec or source.name,
                                 source_files=files))
