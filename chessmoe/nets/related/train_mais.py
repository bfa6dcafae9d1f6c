"""MAIS 202 training runs (``related-selfplay-value-search.md``): self-play games chosen by the
network alone (:func:`self_play_game`), the batch-by-batch fit into a resumable run directory
(:func:`train`, :func:`train_run`), and the validations that need no search (on Lichess
positions and on held-out self-play games, :func:`score_on_final_split`). The network and its
targets are in :mod:`chessmoe.nets.related.mais`.

Contract: this module imports nothing above the nets layer; what a run needs of the
best-first search is a :class:`SearchSteps` its caller passes in.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import chess
import numpy as np

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_path, atomic_write_json, atomic_write_text, sha256_file
from chessmoe._io.jsonl import append_record, read_records
from chessmoe._io.provenance import provenance
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.nets.related.mais import (
    GAMMA,
    MaisNet,
    encode_batch,
    fit,
    load_weights,
    mean_absolute_error,
    naive_eval,
    predict,
    predict_planes,
    q_targets,
    save_weights,
)

__all__ = [
    "FIXED_SPLIT",
    "HOLDOUT_GAMES",
    "PROFILES",
    "WEIGHTS",
    "MaisTrainConfig",
    "SearchSteps",
    "SelfPlayGame",
    "exploration_rf",
    "holdout_split",
    "mirror_planes",
    "score_on_final_split",
    "self_play_game",
    "selfplay_validation",
    "snapshot_dir",
    "train",
    "train_run",
    "validation_set",
]

WEIGHTS = RELATED_WEIGHTS["mais"]
NPS_DOCUMENT = 750.0  # positions evaluated per second, the document's search


class SearchSteps(Protocol):
    """What a training run needs of the best-first search (:mod:`chessmoe.search`, a layer
    above this one), given by the caller."""

    def settings(self) -> dict[str, Any]:
        """The search's settings as a player uses them: ``config.json``'s ``search``."""
        ...

    def speed(self, model: MaisNet, boards: Sequence[chess.Board], *,
              nodes: int) -> dict[str, Any]:
        """The search's speed with ``model`` over ``boards``, ``nodes`` nodes a search: the
        ``nps*`` fields of ``summary.json``."""
        ...


@dataclass(frozen=True)
class MaisTrainConfig:
    """One self-play training run (the document's values unless a profile reduces them)."""

    profile: str
    games: int  # self-play games in all
    games_per_batch: int = 10
    epochs: int = 5
    replay_fraction: float = 0.1
    gamma: float = GAMMA
    max_plies: int = 200  # games capped in length (the document plays them out)
    learning_rate: float = 1e-3  # Keras' Adam default
    batch_size: int = 32  # Keras' fit default
    validation_games: int = 40
    validation_max_positions: int = 3000
    selfplay_holdout_every: int = 10  # every k-th self-play game is validation only (10 %);
    # 0: none
    naive_multiple: float = 5.0  # the naive baseline predicts this x the naive evaluation
    nps_positions: int = 8  # positions searched to measure the search's speed
    nps_nodes: int = 2000  # node budget of each of those searches
    seed: int = 20261123
    reduced: tuple[str, ...] = field(default_factory=tuple)  # what differs from the document
    # keep the weights as they were after these many games in ``at-<N>-games/`` (a run
    # directory of its own, so a player can load it: the document's later net vs an earlier)
    snapshots: tuple[int, ...] = ()


PROFILES: dict[str, MaisTrainConfig] = {
    "smoke": MaisTrainConfig(
        profile="smoke", games=4, games_per_batch=2, max_plies=16, epochs=1,
        validation_games=2, validation_max_positions=60, nps_positions=1, nps_nodes=60,
        reduced=("4 games in batches of 2 (document: 10 per batch, 1200+ games)",
                 "games capped at 16 plies", "1 epoch per batch (document: 5)")),
    "small": MaisTrainConfig(
        profile="small", games=200, max_plies=160,
        reduced=("200 self-play games (document: about 300 until the validation MAE "
                 "flattens, 1200 for the model it played with)",
                 "games capped at 160 plies (document: played to the end, often 200+ moves)",
                 "single process on a shared 2-core CPU")),
    "large": MaisTrainConfig(
        profile="large", games=1200, max_plies=200, snapshots=(200,),
        reduced=("games capped at 200 plies (document: played to the end)",
                 "single process on a shared 2-core CPU")),
}


def snapshot_dir(out_dir: str | os.PathLike[str], games: int) -> Path:
    """Where a run keeps its weights as they were after ``games`` self-play games."""
    return Path(out_dir) / f"at-{games}-games"



def exploration_rf(game_number: int) -> float:
    """The document's ``rf = 1 / ln(game number)``; 2 for game 1 (``ln 1 = 0``)."""
    if game_number < 1:
        raise ValueError("game numbers start at 1")
    return 2.0 if game_number == 1 else 1.0 / math.log(game_number)


def mirror_planes(planes: np.ndarray) -> np.ndarray:
    """The encoding of each position's mirror (ranks flipped, colours swapped),
    ``[N, 6, 8, 8] -> [N, 6, 8, 8]``: equal to encoding ``board.mirror()``."""
    return np.ascontiguousarray(-planes[:, :, ::-1, :])


@dataclass(frozen=True)
class SelfPlayGame:
    """One self-play game: the positions after each move (encoded, ``int8 [T, 6, 8, 8]``),
    their naive evaluations and Q targets (White's view), and how it ended."""

    planes: np.ndarray
    naive: list[float]
    targets: list[float]
    moves: list[str]  # UCI
    result: str  # "1-0", "0-1", "1/2-1/2", or "*" when capped
    termination: str


def _mate_in_one(board: chess.Board) -> chess.Move | None:
    for move in board.legal_moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    return None


def self_play_game(value_fn: Callable[[Sequence[chess.Board]], np.ndarray], game_number: int,
                   rng: np.random.Generator, *, max_plies: int,
                   gamma: float = GAMMA) -> SelfPlayGame:
    """Play one game against itself the document's training way, without the tree search:
    every legal move's resulting position is evaluated (one batch) and the best for the side
    to move is played, after each prediction ``y`` got ``y * u``, ``u`` uniform in
    ``[-rf, rf]``, added (:func:`exploration_rf`). A mate in 1 is always played; the game ends
    when it is over (draws by claim included) or at ``max_plies`` (its last position's Q is
    then its naive evaluation: no bootstrap). Every position after a move is kept with its Q
    target (:func:`~chessmoe.nets.related.mais.q_targets`)."""
    rf = exploration_rf(game_number)
    board = chess.Board()
    positions: list[chess.Board] = []
    moves: list[str] = []
    while not board.is_game_over(claim_draw=True) and len(moves) < max_plies:
        move = _mate_in_one(board)
        if move is None:
            legal = list(board.legal_moves)
            children = []
            for candidate in legal:
                board.push(candidate)
                children.append(board.copy(stack=False))
                board.pop()
            values = np.asarray(value_fn(children), dtype=np.float64)
            noisy = values + values * rng.uniform(-rf, rf, size=len(values))
            side = 1.0 if board.turn == chess.WHITE else -1.0
            move = legal[int(np.argmax(side * noisy))]
        board.push(move)
        moves.append(move.uci())
        positions.append(board.copy(stack=False))
    over = board.is_game_over(claim_draw=True)
    naive = [naive_eval(p) for p in positions[:-1]]
    naive.append(naive_eval(board, claim_draw=True))
    outcome = board.outcome(claim_draw=True)
    return SelfPlayGame(
        planes=encode_batch(positions).astype(np.int8), naive=naive,
        targets=q_targets(naive, gamma), moves=moves,
        result=board.result(claim_draw=True) if over else "*",
        termination=outcome.termination.name.lower() if outcome is not None else "max_plies")


# --- validation positions ---------------------------------------------------------------


def _validation_source(data_dir: Path | None) -> Path:
    from chessmoe.games.sources import lichess_excerpt

    return lichess_excerpt(data_dir, or_sample=True)


def validation_set(source: Path, games: int, max_positions: int,
                   gamma: float = GAMMA) -> tuple[np.ndarray, np.ndarray]:
    """Positions after each move of the first ``games`` kept games of ``source``, with their
    Q targets along the real game: ``(int8 [N, 6, 8, 8], float64 [N])``."""
    from chessmoe.games.pgn import PgnGame, SkipCounter, iter_games, no_games_error

    planes: list[np.ndarray] = []
    targets: list[float] = []
    skips = SkipCounter()
    game: PgnGame[Any]
    for game in iter_games(source, skips=skips, max_games=games * 4):
        board = chess.Board(game.start_fen) if game.start_fen else chess.Board()
        positions = []
        for move in game.moves:
            board.push(move)
            positions.append(board.copy(stack=False))
        naive = [naive_eval(p) for p in positions[:-1]] + [naive_eval(board, claim_draw=True)]
        planes.append(encode_batch(positions).astype(np.int8))
        targets.extend(q_targets(naive, gamma))
        if len(planes) >= games:
            break
    if not planes:
        raise no_games_error(str(source), skips)
    x = np.concatenate(planes)[:max_positions]
    return x, np.asarray(targets[:max_positions], dtype=np.float64)


# --- training -----------------------------------------------------------------------------


def train(out_dir: Path, *, profile: str, data_dir: Path | None, search: SearchSteps,
          overrides: Sequence[str] = ()) -> Path:
    """Train at ``profile`` with ``overrides`` (``KEY=VALUE`` fields of
    :class:`MaisTrainConfig`) into ``out_dir``, recording and timing ``search``; resumable."""
    from dataclasses import replace

    from chessmoe._io.overrides import parse_overrides

    if profile not in PROFILES:
        raise KitError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
    config = replace(PROFILES[profile], **parse_overrides(MaisTrainConfig, overrides))
    return train_run(out_dir, config, data_dir=data_dir, search=search)


def _config_json(config: MaisTrainConfig, source: Path, search: SearchSteps
                 ) -> dict[str, Any]:
    data = asdict(config)
    data["reduced"] = list(config.reduced)
    data["snapshots"] = list(config.snapshots)
    data.update({
        "engine": "mais",
        "document": "related-selfplay-value-search.md",
        "network": "6 x conv3x3(32, padding, ReLU), dense 64 linear, dense 1 linear; "
                   "input 6 signed one-hot planes (+1 White, -1 Black)",
        "search": search.settings(),
        "validation_source": source.name,
        "validation": "val_mae: fixed positions of real games, Q targets along the game; "
                      "fresh_mae: the batch's new self-play positions before fitting",
    })
    return data


def _validation(model: MaisNet, planes: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    """The network on the validation positions: mean absolute error, correlation with the
    targets (``nan`` for constant predictions) and mean signed error (bias), centipawns."""
    predicted = predict_planes(model, planes)
    error = predicted - targets
    spread = float(np.std(predicted)) * float(np.std(targets))
    corr = (float(np.mean((predicted - predicted.mean()) * (targets - targets.mean())))
            / spread if spread > 0 else float("nan"))
    return {"val_mae": float(np.mean(np.abs(error))), "val_corr": corr,
            "val_bias": float(np.mean(error))}


def selfplay_validation(model: MaisNet | None, x: np.ndarray, y: np.ndarray,
                        naive: np.ndarray, multiple: float) -> dict[str, float]:
    """MAEs on held-out self-play positions: the network's (when ``model`` is given), the
    zero predictor's and ``multiple`` x naive evaluation's (centipawns, White's view)."""
    if len(y) == 0:
        return {}
    out = {"selfplay_zero_mae": float(np.mean(np.abs(y))),
           "selfplay_naive_mae": float(np.mean(np.abs(y - multiple * naive))),
           "selfplay_val_positions": float(len(y))}
    if model is not None:
        out["selfplay_val_mae"] = mean_absolute_error(model, x, y)
    return out


def _save_state(out_dir: Path, model: MaisNet, optimizer: Any, pool_x: np.ndarray,
                pool_y: np.ndarray, rng: np.random.Generator, torch_rng: Any,
                batches_done: int, held: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    import torch

    state = out_dir / "state"
    with atomic_path(state / "selfplay_val.npz", suffix=".npz") as tmp, \
            open(tmp, "wb") as handle:
        np.savez(handle, x=held[0], y=held[1], naive=held[2])
    with atomic_path(state / "pool.npz", suffix=".npz") as tmp, open(tmp, "wb") as handle:
        np.savez(handle, x=pool_x, y=pool_y)
    with atomic_path(state / "optimizer.pt") as tmp:
        torch.save({"optimizer": optimizer.state_dict(), "torch_rng": torch_rng.get_state()},
                   tmp)
    save_weights(model, out_dir / WEIGHTS)
    atomic_write_json(state / "progress.json", {"batches_done": batches_done,
                                                "numpy_rng": rng.bit_generator.state})


def train_run(out_dir: Path, config: MaisTrainConfig, *, search: SearchSteps,
              data_dir: Path | None = None, progress: bool = True) -> Path:
    """Self-play training; continues after the last finished batch (weights, optimizer,
    replay pool and random states are saved after every batch in ``state/``, not meant for
    version control). The run directory also holds ``config.json`` (with the search's
    settings), ``weights.pt``, ``metrics.jsonl``, ``summary.json`` (with the search's speed),
    ``selfplay-holdout.jsonl``, ``provenance.json`` and snapshots ``at-<N>-games/``. With
    ``selfplay_holdout_every = k`` every k-th self-play game is held out (``k = 10``: 10 % of
    the games, the share the document names; *every tenth game* is this kit's choice); the
    held-out games written to ``selfplay-holdout.jsonl`` define the split from which
    :func:`score_on_final_split` (``chessmoe related fixed-split``) recomputes
    ``fixed-split.json``.

    Batches of ``games_per_batch`` games: each position after a move and its mirror (colours
    swapped, board flipped, target negated); the network is fitted for ``epochs`` epochs on
    the batch's positions plus a random ``replay_fraction`` of earlier batches' (the replay
    against forgetting). ``metrics.jsonl`` has one record a batch, keyed by games played:
    ``val_mae`` on fixed positions of real games (the Lichess excerpt when found, else the
    embedded sample; Q targets along the real game), ``fresh_mae`` on the batch's new
    positions before the fit, and with ``selfplay_holdout_every = k`` > 0 (10: the document's
    10 % split) the document's own validation: every k-th self-play game is played but never
    trained on, its positions (and mirrors) join a growing pool, and ``selfplay_val_mae`` is
    the network's MAE on that pool beside ``selfplay_zero_mae`` (always 0) and
    ``selfplay_naive_mae`` (``naive_multiple`` x the naive evaluation)."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    source = _validation_source(data_dir)
    config_path = out_dir / "config.json"
    wanted = _config_json(config, source, search)
    if config_path.exists():
        previous = json.loads(config_path.read_text())
        fixed = {k: v for k, v in wanted.items() if k != "games"}
        if {k: previous.get(k) for k in fixed} != fixed:
            raise KitError(f"{out_dir} holds a run with another configuration; use a new --out")
    atomic_write_json(config_path, wanted)
    atomic_write_text(out_dir / ".gitignore", "state/\n")

    torch.manual_seed(config.seed)
    model = MaisNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    torch_rng = torch.Generator().manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    pool_x = np.zeros((0, 6, 8, 8), dtype=np.int8)
    pool_y = np.zeros(0, dtype=np.float64)
    held_x = np.zeros((0, 6, 8, 8), dtype=np.int8)
    held_y = np.zeros(0, dtype=np.float64)
    held_naive = np.zeros(0, dtype=np.float64)
    batches_done = 0
    progress_path = out_dir / "state" / "progress.json"
    if progress_path.exists():
        saved = json.loads(progress_path.read_text())
        batches_done = int(saved["batches_done"])
        rng.bit_generator.state = saved["numpy_rng"]
        model.load_state_dict(torch.load(out_dir / WEIGHTS, weights_only=True))
        opt = torch.load(out_dir / "state" / "optimizer.pt", weights_only=True)
        optimizer.load_state_dict(opt["optimizer"])
        torch_rng.set_state(opt["torch_rng"])
        with np.load(out_dir / "state" / "pool.npz") as pool:
            pool_x, pool_y = pool["x"], pool["y"]
        if (out_dir / "state" / "selfplay_val.npz").exists():
            with np.load(out_dir / "state" / "selfplay_val.npz") as held:
                held_x, held_y, held_naive = held["x"], held["y"], held["naive"]
    metrics_path = out_dir / "metrics.jsonl"
    kept = [r for r in read_records(metrics_path).records if r.get("batch", 0) <= batches_done]
    atomic_write_text(metrics_path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept))
    holdout_path = out_dir / HOLDOUT_GAMES  # the split's definition, as long as the run
    played = batches_done * config.games_per_batch
    held_games = [r for r in read_records(holdout_path).records if r.get("game", 0) <= played]
    atomic_write_text(holdout_path, "".join(json.dumps(r, sort_keys=True) + "\n"
                                            for r in held_games))

    val_x, val_y = validation_set(source, config.validation_games,
                                  config.validation_max_positions, config.gamma)
    if batches_done == 0:
        append_record(metrics_path, {"batch": 0, "games": 0, **_validation(model, val_x, val_y),
                                     "positions_validation": len(val_y)})
    batches = math.ceil(config.games / config.games_per_batch)

    def value_fn(boards: Sequence[chess.Board]) -> np.ndarray:
        return predict(model, boards)

    bar = tqdm(range(batches_done, batches), desc="mais self-play", unit="batch",
               disable=not progress, initial=batches_done, total=batches)
    started = time.perf_counter()
    for batch in bar:
        tick = time.perf_counter()
        first = batch * config.games_per_batch + 1
        last = min(config.games, first + config.games_per_batch - 1)
        every = [self_play_game(value_fn, n, rng, max_plies=config.max_plies,
                                gamma=config.gamma) for n in range(first, last + 1)]
        k = config.selfplay_holdout_every
        held_out = [g for n, g in enumerate(every, start=first) if k > 0 and n % k == 0]
        games = [g for n, g in enumerate(every, start=first) if not (k > 0 and n % k == 0)]
        for n, game in enumerate(every, start=first):
            if k > 0 and n % k == 0:
                append_record(holdout_path, {"game": n, "batch": batch + 1,
                                             "moves": game.moves, "result": game.result,
                                             "termination": game.termination})
        if held_out:
            hx = np.concatenate([g.planes for g in held_out])
            hy = np.concatenate([np.asarray(g.targets) for g in held_out])
            hn = np.concatenate([np.asarray(g.naive) for g in held_out])
            held_x = np.concatenate([held_x, hx, mirror_planes(hx)])
            held_y = np.concatenate([held_y, hy, -hy])
            held_naive = np.concatenate([held_naive, hn, -hn])
        x = np.concatenate([g.planes for g in games]) if games else \
            np.zeros((0, 6, 8, 8), dtype=np.int8)
        y = np.concatenate([np.asarray(g.targets) for g in games]) if games else np.zeros(0)
        new_x = np.concatenate([x, mirror_planes(x)])
        new_y = np.concatenate([y, -y])
        fresh_mae = mean_absolute_error(model, new_x, new_y)
        replay = round(config.replay_fraction * len(pool_y))
        pick = rng.choice(len(pool_y), size=replay, replace=False) if replay else \
            np.zeros(0, dtype=np.int64)
        fit_x = np.concatenate([new_x, pool_x[pick]])
        fit_y = np.concatenate([new_y, pool_y[pick]])
        losses = fit(model, optimizer, fit_x, fit_y, epochs=config.epochs,
                     batch_size=config.batch_size, generator=torch_rng) if len(fit_y) else \
            [float("nan")]
        pool_x = np.concatenate([pool_x, new_x])
        pool_y = np.concatenate([pool_y, new_y])
        validation = _validation(model, val_x, val_y)
        results = [g.result for g in every]
        record = {
            "batch": batch + 1, "games": last, **validation, "fresh_mae": fresh_mae,
            "loss": losses[-1], "positions_new": len(new_y), "positions_replay": replay,
            "pool": len(pool_y), "rf_first": exploration_rf(first),
            "white_wins": results.count("1-0"), "black_wins": results.count("0-1"),
            "draws": results.count("1/2-1/2"), "capped": results.count("*"),
            "mean_plies": float(np.mean([len(g.moves) for g in every])),
            "games_trained": len(games), "games_held_out": len(held_out),
            **selfplay_validation(model, held_x, held_y, held_naive, config.naive_multiple),
            "seconds": time.perf_counter() - tick,
        }
        append_record(metrics_path, record)
        for games_at in config.snapshots:
            if first <= games_at <= last:
                save_weights(model, snapshot_dir(out_dir, games_at) / WEIGHTS)
                atomic_write_json(snapshot_dir(out_dir, games_at) / "snapshot.json",
                                  {"games": last, "batch": batch + 1,
                                   "selfplay_val_mae": record.get("selfplay_val_mae"),
                                   "val_mae": record["val_mae"]})
        _save_state(out_dir, model, optimizer, pool_x, pool_y, rng, torch_rng, batch + 1,
                    (held_x, held_y, held_naive))
        bar.set_postfix(val_mae=f"{validation['val_mae']:.0f}", fresh=f"{fresh_mae:.0f}")
    bar.close()
    _write_summary(out_dir, config, model, source, val_y, time.perf_counter() - started,
                   search)
    if config.snapshots and config.selfplay_holdout_every > 0:
        score_on_final_split(out_dir)
    return out_dir


FIXED_SPLIT = "fixed-split.json"
HOLDOUT_GAMES = "selfplay-holdout.jsonl"


def _replay(moves: Sequence[str], gamma: float) -> tuple[np.ndarray, list[float], list[float]]:
    """A recorded self-play game's positions after each move (encoded), naive evaluations
    and Q targets, computed exactly as :func:`self_play_game` computed them while playing."""
    board = chess.Board()
    positions: list[chess.Board] = []
    for uci in moves:
        board.push_uci(uci)
        positions.append(board.copy(stack=False))
    if not positions:
        raise KitError("a held-out game without moves")
    naive = [naive_eval(p) for p in positions[:-1]]
    naive.append(naive_eval(board, claim_draw=True))
    return encode_batch(positions).astype(np.int8), naive, q_targets(naive, gamma)


def holdout_split(run_dir: str | os.PathLike[str]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """The run's self-play validation split recomputed from its committed definition
    (``selfplay-holdout.jsonl``: every held-out game's moves): ``(planes int8 [N, 6, 8, 8],
    targets [N], naive [N], record)`` with each game's positions then their mirrors, batch by
    batch, as training pooled them; ``record`` names the file, its sha256 and the games."""
    run = Path(run_dir)
    path = run / HOLDOUT_GAMES
    if not path.is_file():
        raise KitError(f"{path} not found: the run predates its record of held-out games "
                       "(replay its training with 'chessmoe related train mais' into a new "
                       "directory to write it)")
    config = json.loads((run / "config.json").read_text())
    gamma = float(config.get("gamma", GAMMA))
    games = read_records(path).records
    if not games:
        raise KitError(f"{path}: no held-out game (the split is empty)")
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    ns: list[np.ndarray] = []
    batches: dict[int, list[dict[str, Any]]] = {}
    for game in games:
        batches.setdefault(int(game["batch"]), []).append(game)
    for batch in sorted(batches):
        replayed = [_replay(g["moves"], gamma) for g in batches[batch]]
        hx = np.concatenate([r[0] for r in replayed])
        hy = np.concatenate([np.asarray(r[2]) for r in replayed])
        hn = np.concatenate([np.asarray(r[1]) for r in replayed])
        xs += [hx, mirror_planes(hx)]
        ys += [hy, -hy]
        ns += [hn, -hn]
    numbers = [int(g["game"]) for g in games]
    record = {"file": HOLDOUT_GAMES, "sha256": sha256_file(path), "games": len(numbers),
              "game_numbers": f"{numbers[0]}, {numbers[1] if len(numbers) > 1 else ''}"
                              f"{', ..., ' + str(numbers[-1]) if len(numbers) > 2 else ''}",
              "every": int(config.get("selfplay_holdout_every", 0))}
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ns), record


def score_on_final_split(run_dir: str | os.PathLike[str],
                         state_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Every kept snapshot and the final weights scored on the *same* positions: the
    validation split as it stands at the end of the run (the curve in ``metrics.jsonl`` is
    measured on the split as it grew), recomputed from the run's committed record of its
    held-out games (:func:`holdout_split`); a run older than that record is read from
    ``state/selfplay_val.npz`` (``state_dir``: another folder holding it). Writes
    ``run_dir/fixed-split.json`` with the zero and naive baselines on those positions, the
    split's definition and checksum, and each network's MAE (descriptive: positions of one
    game are not independent, so no interval is given)."""
    run = Path(run_dir)
    config = json.loads((run / "config.json").read_text())
    every = int(config.get("selfplay_holdout_every", 0))
    split: dict[str, Any]
    if (run / HOLDOUT_GAMES).is_file() and state_dir is None:
        x, y, naive, split = holdout_split(run)
        split["positions_sha256"] = _arrays_sha256(x, y, naive)
    else:
        state = Path(state_dir) if state_dir is not None else run / "state"
        held = state / "selfplay_val.npz"
        if not held.is_file():
            raise KitError(f"{held}: no self-play validation split ({run / HOLDOUT_GAMES} "
                           "is absent and so is the run's state/ folder); name the folder "
                           "that holds it")
        with np.load(held, allow_pickle=False) as data:
            x, y, naive = data["x"], data["y"], data["naive"]
        if len(y) == 0:
            raise KitError(f"{held}: the validation split is empty (no self-play game held "
                           "out)")
        split = {"file": held.name, "sha256": sha256_file(held),
                 "positions_sha256": _arrays_sha256(x, y, naive)}
    multiple = float(config.get("naive_multiple", 5.0))
    nets = sorted((p for p in run.glob("at-*-games") if (p / WEIGHTS).is_file()),
                  key=lambda p: int(p.name.split("-")[1]))
    rows = []
    for path in [*nets, run]:
        snapshot = path / "snapshot.json"
        games = (int(json.loads(snapshot.read_text())["games"]) if snapshot.is_file()
                 else int(config.get("games", 0)))
        model = load_weights(path / WEIGHTS)
        rows.append({"weights": str(path.relative_to(run) / WEIGHTS), "games": games,
                     "weights_sha256": sha256_file(path / WEIGHTS),
                     "mae": mean_absolute_error(model, x, y)})
    nth = _ordinal(every)
    out = {"split": {**split, "name": f"every-{nth}-game", "positions": len(y),
                     "what": f"the run's final self-play validation split: every {nth} "
                             "self-play game (10 % of the games when every = 10; the document "
                             "says only 10 % of the data), never trained on, its positions "
                             "and their mirrors, the same positions for every row"},
           "zero_mae": float(np.mean(np.abs(y))),
           "naive_mae": float(np.mean(np.abs(y - multiple * naive))),
           "naive_multiple": multiple, "networks": rows,
           "note": "descriptive: positions of one game are correlated, no interval",
           "provenance": provenance(config=config.get("profile"))}
    atomic_write_json(run / FIXED_SPLIT, out)
    return out


def _ordinal(number: int) -> str:
    """``10`` -> ``10th``, ``2`` -> ``2nd`` (the split's name: every 10th game)."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


def _arrays_sha256(*arrays: np.ndarray) -> str:
    """sha256 over the arrays' dtypes, shapes and bytes (the split's positions and targets,
    to compare a recomputed split with the one a run pooled)."""
    import hashlib

    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _measure_nps(model: MaisNet, source: Path, config: MaisTrainConfig,
                 search: SearchSteps) -> dict[str, Any]:
    """Search speed: positions evaluated per second over a few real-game positions (after
    up to 20 plies of the validation source's first games)."""
    from chessmoe.games.pgn import probe_positions

    boards = probe_positions(source, config.nps_positions)
    return {**search.speed(model, boards, nodes=config.nps_nodes),
            "nps_document": NPS_DOCUMENT}


def _write_summary(out_dir: Path, config: MaisTrainConfig, model: MaisNet, source: Path,
                   val_y: np.ndarray, seconds: float, search: SearchSteps) -> None:
    records = [r for r in read_records(out_dir / "metrics.jsonl").records]
    records.sort(key=lambda r: r["batch"])
    played = [r for r in records if r["batch"] > 0]
    summary: dict[str, Any] = {
        "engine": "mais", "profile": config.profile,
        "games": played[-1]["games"] if played else 0,
        "val_mae_start": records[0]["val_mae"] if records else None,
        "val_mae_end": records[-1]["val_mae"] if records else None,
        "val_mae_best": min((r["val_mae"] for r in records), default=None),
        "val_mae_zero_predictor": float(np.mean(np.abs(val_y))),
        "val_corr_end": records[-1].get("val_corr") if records else None,
        "val_bias_end": records[-1].get("val_bias") if records else None,
        "fresh_mae_first": played[0]["fresh_mae"] if played else None,
        "fresh_mae_last": played[-1]["fresh_mae"] if played else None,
        "selfplay_val_mae_end": played[-1].get("selfplay_val_mae") if played else None,
        "selfplay_zero_mae_end": played[-1].get("selfplay_zero_mae") if played else None,
        "selfplay_naive_mae_end": played[-1].get("selfplay_naive_mae") if played else None,
        "selfplay_naive_multiple": config.naive_multiple,
        "selfplay_val_positions": played[-1].get("selfplay_val_positions") if played else None,
        "selfplay_mae_curve": [{"games": r["games"], "mae": r["selfplay_val_mae"],
                                "zero": r["selfplay_zero_mae"], "naive": r["selfplay_naive_mae"]}
                               for r in played if "selfplay_val_mae" in r],
        "val_mae_means": "val_mae: positions of human games (not the document's split); "
                         "selfplay_val_mae: every k-th self-play game, never trained on (the "
                         "document's 10 % split by game)",
        "results": {k: sum(r[k] for r in played)
                    for k in ("white_wins", "black_wins", "draws", "capped")},
        "validation_source": source.name,
        "train_seconds_this_invocation": seconds,
        "weights": WEIGHTS,
        "weights_bytes": (out_dir / WEIGHTS).stat().st_size if (out_dir / WEIGHTS).exists()
        else 0,
    }
    summary.update(_measure_nps(model, source, config, search))
    atomic_write_json(out_dir / "summary.json", summary)
    atomic_write_json(out_dir / "provenance.json", provenance(config=config.profile))

