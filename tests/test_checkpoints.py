"""Checkpoints (chessmoe.nets.checkpoints): atomic writes, safe loads, a cut save recovered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from chessmoe.nets.checkpoints import (
    CheckpointError,
    load_checkpoint,
    load_optimizer,
    save_checkpoint,
    save_optimizer,
)
from chessmoe.nets.model import build_model


def _model(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return build_model("tiny")


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(),
                                                 b.state_dict().values(), strict=True))


def test_a_save_cut_between_model_and_sidecar_is_finished_on_load(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    path = tmp_path / "model.pt"
    save_checkpoint(path, _model(1), {"iteration": 10, "val_loss": 3.0})
    first_sidecar = (tmp_path / "model.pt.json").read_text()
    import chessmoe.nets.checkpoints as ck

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed between the two renames")

    monkeypatch.setattr(ck, "atomic_write_json", killed)
    newer = _model(2)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, newer, {"iteration": 20, "val_loss": 2.5})
    monkeypatch.undo()
    assert (tmp_path / "model.pt.json").read_text() == first_sidecar  # stale sidecar
    loaded = load_checkpoint(path)  # not refused as corrupt
    assert _same(loaded, newer)
    sidecar = json.loads((tmp_path / "model.pt.json").read_text())
    assert sidecar["iteration"] == 20 and sidecar["val_loss"] == 2.5


def test_changed_bytes_are_refused_even_without_a_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    save_checkpoint(path, _model(1))
    (tmp_path / "model.pt.json").unlink()
    payload = torch.load(path, weights_only=True)
    first = next(iter(payload["state_dict"]))
    payload["state_dict"][first] = payload["state_dict"][first] + 1  # silent weight change
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(path)


def test_the_committed_format_without_inner_checksum_still_loads(tmp_path: Path) -> None:
    committed = Path(__file__).resolve().parents[1] / "results" / "experts" / "small" / \
        "regular" / "baseline" / "model.pt"
    if not committed.exists():
        pytest.skip("the committed small experts are not here")
    assert "weights_sha256" not in torch.load(committed, weights_only=True)
    assert load_checkpoint(committed).config.channels > 0


@pytest.mark.slow
def test_the_optimizer_state_belongs_to_its_checkpoint(tmp_path: Path) -> None:
    model = _model(1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.zeros(2, 52, 8, 8)).value.sum().backward()
    optimizer.step()
    save_optimizer(tmp_path / "optimizer.pt", optimizer, iteration=30)
    fresh = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    assert not load_optimizer(tmp_path / "optimizer.pt", fresh, iteration=40)  # another save
    assert fresh.state_dict()["state"] == {}
    assert load_optimizer(tmp_path / "optimizer.pt", fresh, iteration=30)
    assert fresh.state_dict()["state"] != {}
    (tmp_path / "optimizer.pt").write_bytes(b"truncated")
    assert not load_optimizer(tmp_path / "optimizer.pt", fresh, iteration=30)
