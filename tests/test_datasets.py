"""Phase datasets: targets, partitions, manifests, resume, corruption, loading."""

from __future__ import annotations

import hashlib
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest
import torch

from chessmoe.encoding import RECORD_DTYPE, board_to_planes, policy_index_to_move, records_to_planes
from chessmoe.games import datasets as ds
from chessmoe.games.datasets import PHASE_COLUMNS, DatasetError, DatasetStore, build
from chessmoe.games.sources import ResolvedSource
from chessmoe.games.splits import SeededSplit
from chessmoe.phases import PHASE_DEFINITIONS, phase_definition
from tests.helpers import random_games_pgn

SHARD = 700  # small shards: several per piece


@pytest.fixture(scope="module")
def pgn_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return random_games_pgn(tmp_path_factory.mktemp("pgn") / "games.pgn", 70, seed=12)


def _source(path: Path) -> ResolvedSource:
    return ResolvedSource(str(path), "games", (path,), "random games")


@pytest.fixture(scope="module")
def built(pgn_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("store") / "games"
    build(_source(pgn_file), out, parts=3, shard_size=SHARD, progress=False)
    return out


@pytest.mark.slow
def test_samples_carry_the_right_targets(pgn_file: Path, built: Path) -> None:
    store = DatasetStore(built)
    games = store.games
    handle = pgn_file.open()
    game_id = 0
    checked = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        moves = list(game.mainline_moves())
        if len(moves) < 10:
            continue
        rows = np.flatnonzero(store.column("game_global") == game_id)
        samples = store.gather(rows)
        assert len(samples) == len(moves)
        assert games.loc[game_id, "plies"] == len(moves)
        white_result = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[game.headers["Result"]]
        board = game.board()
        for ply, (move, sample) in enumerate(zip(moves, samples, strict=True)):
            assert sample["ply"] == ply
            assert sample["plies_to_end"] == len(moves) - 1 - ply
            assert sample["value"] == (white_result if board.turn else -white_result)
            assert policy_index_to_move(int(sample["policy"]), board) == move
            for name, column in PHASE_COLUMNS.items():
                assert sample[column] == phase_definition(name).phase(board)
            if ply % 9 == 0:  # the record expands to exactly the board's planes
                planes = records_to_planes(sample.reshape(1))[0]
                np.testing.assert_array_equal(planes, board_to_planes(board))
            board.push(move)
        checked += 1
        game_id += 1
    handle.close()
    assert checked == len(games) > 40


def test_manifest_counts_match_the_shards(built: Path) -> None:
    store = DatasetStore(built, verify=True)
    manifest = store.manifest
    assert manifest["totals"]["positions"] == len(store) == sum(
        s["positions"] for s in manifest["shards"])
    assert len(manifest["shards"]) > 3
    split = store.sample_split()
    for name in PHASE_DEFINITIONS:
        phase = store.column(PHASE_COLUMNS[name])
        for split_name, rows in manifest["datasets"][name].items():
            in_split = split == split_name
            assert rows["no-phases"]["positions"] == int(in_split.sum())
            parts = [rows[p]["positions"] for p in phase_definition(name).phase_names]
            assert sum(parts) == rows["no-phases"]["positions"]  # the phases partition
            for pid, pname in enumerate(phase_definition(name).phase_names):
                assert rows[pname]["positions"] == int((in_split & (phase == pid)).sum())
                expected = store.indices(split_name, pname, name)
                assert expected.shape[0] == rows[pname]["positions"]


def test_games_never_straddle_shards(built: Path) -> None:
    store = DatasetStore(built)
    seen: set[int] = set()
    for shard, meta in zip(store.shards, store.manifest["shards"], strict=True):
        games = set((np.asarray(shard["game"]) + meta["game_offset"]).tolist())
        assert not games & seen
        seen |= games
        assert shard.shape[0] <= SHARD or len(games) == 1


def test_split_is_deterministic_and_follows_the_rule(pgn_file: Path, tmp_path: Path,
                                                     built: Path) -> None:
    again = build(_source(pgn_file), tmp_path / "again", parts=1, shard_size=SHARD,
                  progress=False)
    first = DatasetStore(built).games["split"].tolist()
    assert DatasetStore(tmp_path / "again").games["split"].tolist() == first
    # the manifest's counts are the game table's, split by split (no "or": both must hold)
    assert again["split"]["games"] == {name: first.count(name) for name in set(first)}
    assert set(first) == {"train", "val", "test"} and first.count("train") > len(first) // 2
    other = build(_source(pgn_file), tmp_path / "other", split_rule=SeededSplit(seed=1),
                  progress=False)
    assert DatasetStore(tmp_path / "other").games["split"].tolist() != first
    assert other["split"]["rule"]["seed"] == 1


def _shard_digests(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.glob("*.npy"))}


def test_interrupted_build_resumes_byte_identical(pgn_file: Path, built: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real = ds._build_unit
    calls: list[str] = []
    killed: list[bool] = []

    def dies_on_second(unit, work):  # type: ignore[no-untyped-def]
        calls.append(unit.id)
        if len(calls) == 2 and not killed:
            killed.append(True)
            raise KeyboardInterrupt("killed")
        return real(unit, work)

    monkeypatch.setattr(ds, "_build_unit", dies_on_second)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        build(_source(pgn_file), out, parts=3, shard_size=SHARD, progress=False)
    assert not (out / "manifest.json").exists()
    with pytest.raises(DatasetError, match="was not built"):
        DatasetStore(out)
    calls.clear()
    build(_source(pgn_file), out, parts=3, shard_size=SHARD, progress=False)
    assert len(calls) == 2  # the finished piece was not redone
    assert _shard_digests(out) == _shard_digests(built)


def test_corrupt_and_missing_shards_are_named(pgn_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "store"
    manifest = build(_source(pgn_file), out, shard_size=SHARD, progress=False)
    victim = out / manifest["shards"][1]["file"]
    data = bytearray(victim.read_bytes())
    data[-50] ^= 0xFF
    victim.write_bytes(bytes(data))
    assert DatasetStore(out).verify() == [victim.name]
    with pytest.raises(DatasetError, match=f"shard {victim.name} is corrupt"):
        DatasetStore(out, verify=True)
    victim.unlink()
    with pytest.raises(DatasetError, match=f"shard {victim.name} is missing"):
        DatasetStore(out)


def test_batches_are_seeded_complete_and_weighted(built: Path) -> None:
    store = DatasetStore(built)
    train = store.indices("train")
    seen = np.concatenate([b.index for b in store.batches(train, 256, seed=3)])
    assert sorted(seen.tolist()) == train.tolist()
    again = np.concatenate([b.index for b in store.batches(train, 256, seed=3)])
    assert seen.tolist() == again.tolist()
    other_epoch = np.concatenate([b.index for b in store.batches(train, 256, seed=3, epoch=1)])
    assert seen.tolist() != other_epoch.tolist()
    batch = next(store.batches(train, 64, weights=[2.0, 0.5, 0.5]))
    assert batch.planes.shape == (64, 52, 8, 8) and batch.planes.dtype == torch.float32
    expected = np.where(batch.phase.numpy() == 0, 2.0, 0.5)
    np.testing.assert_array_equal(batch.weight.numpy(), expected)
    assert set(batch.wdl.tolist()) <= {0, 1, 2}
    np.testing.assert_array_equal(batch.wdl.numpy() - 1, batch.value.numpy())
    on_device = next(store.batches(train, 64, expand_on_device=True))
    np.testing.assert_array_equal(on_device.planes.numpy(), batch.planes.numpy())
    sizes = [b.planes.shape[0] for b in store.batches(train, 1000, drop_last=True)]
    assert all(s == 1000 for s in sizes)


def test_phase_dataset_with_a_dataloader(built: Path) -> None:
    store = DatasetStore(built)
    dataset = ds.PhaseDataset(store, "train", "endgame")
    assert len(dataset) == store.manifest["datasets"]["lichess"]["train"]["endgame"]["positions"]
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=False)
    batch = next(iter(loader))
    assert batch["planes"].shape == (32, 52, 8, 8)
    assert (batch["phase"] == 2).all()
    with pytest.raises(DatasetError, match="unknown dataset"):
        store.indices("train", "late-middlegame")
    with pytest.raises(DatasetError, match="unknown split"):
        store.indices("dev")


def test_dataset_tables_from_the_manifest(built: Path) -> None:
    manifest = DatasetStore(built).manifest
    positions, games = ds.dataset_tables(manifest)
    assert list(positions.columns) == ["No-Phases", "Opening", "Middlegame", "Endgame"]
    assert positions.loc["Train", "No-Phases"] == manifest["datasets"]["lichess"]["train"][
        "no-phases"]["positions"]
    assert (games["Opening"] == games["No-Phases"]).all()
    m4, _ = ds.dataset_tables(manifest, "movecount4")
    assert m4.shape == (3, 5)


def test_record_fields_are_a_prefix_of_the_sample() -> None:
    names = list(ds.SAMPLE_DTYPE.names or ())
    assert names[: len(RECORD_DTYPE.names or ())] == list(RECORD_DTYPE.names or ())
    assert ds.SAMPLE_DTYPE.itemsize == 115


def test_an_up_to_date_store_is_reused_whatever_the_parts(pgn_file: Path, built: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = ds._build_unit

    def counting(unit, work):  # type: ignore[no-untyped-def]
        calls.append(unit.id)
        return real(unit, work)

    monkeypatch.setattr(ds, "_build_unit", counting)
    again = build(_source(pgn_file), built, parts=5, shard_size=SHARD, progress=False)
    assert calls == [] and again == DatasetStore(built).manifest
    other = build(_source(pgn_file), built, split_rule=SeededSplit(seed=2), shard_size=SHARD,
                  progress=False)  # a different split: rebuilt
    assert calls and other["split"]["rule"]["seed"] == 2
    calls.clear()
    build(_source(pgn_file), built, shard_size=SHARD, progress=False, force=True)
    assert calls


def test_no_game_leaks_between_splits_of_a_multi_piece_build(built: Path) -> None:
    """The store built from 3 byte-range pieces: every game appears once (no piece parsed a
    game twice or lost one), every sample of a split's index comes from a game of that split,
    the three splits' games are disjoint, and together they index every sample once."""
    store = DatasetStore(built)
    games = store.games
    assert not games.duplicated(["source", "offset"]).any()
    assert games["game"].tolist() == list(range(len(games)))
    global_game = store.column("game_global")
    by_split = {split: store.indices(split) for split in ("train", "val", "test")}
    owners = {}
    for split, index in by_split.items():
        game_ids = set(global_game[index].tolist())
        assert set(games.loc[list(game_ids), "split"]) == {split}
        owners[split] = game_ids
    assert not owners["train"] & owners["val"] and not owners["train"] & owners["test"]
    assert not owners["val"] & owners["test"]
    together = np.concatenate(list(by_split.values()))
    assert sorted(together.tolist()) == list(range(len(store)))
    # each split's phase datasets partition its no-phases dataset, under every definition
    for name in ("lichess", "movecount3"):
        phases = phase_definition(name).phase_names
        parts = np.concatenate([store.indices("val", p, name) for p in phases])
        assert sorted(parts.tolist()) == by_split["val"].tolist()


@pytest.mark.parametrize("definition", ["movecount4", "engine"])
def test_batches_under_another_definition_carry_its_phases(built: Path,
                                                           definition: str) -> None:
    """Batches drawn for a non-default definition report that definition's phase ids (the
    stored column), weights follow them, and a phase dataset of it holds only that phase."""
    store = DatasetStore(built)
    column = PHASE_COLUMNS[definition]
    names = phase_definition(definition).phase_names
    last = len(names) - 1
    index = store.indices("train", names[last], definition)
    assert len(index) > 0
    weights = [float(k + 1) for k in range(len(names))]
    for batch in store.batches(index, 97, definition=definition, weights=weights):
        assert (batch.phase.numpy() == last).all()
        assert (batch.weight.numpy() == last + 1).all()
    train = store.indices("train")
    expected = store.gather(train[:200])[column]
    batch = next(store.batches(train[:200], 200, shuffle=False, definition=definition))
    np.testing.assert_array_equal(batch.phase.numpy(), expected)
    assert not np.array_equal(expected, store.gather(train[:200])[PHASE_COLUMNS["lichess"]])
