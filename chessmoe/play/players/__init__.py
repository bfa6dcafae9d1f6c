"""The engines of the related documents, as players beside the paper's MoE engine.

Each related engine lives in one module here (``deepchess``, ``ntuple``, ``mais``) exposing

- ``build_searcher(model_dir: Path | None, *, threads: int = 1) -> Searcher``: a player that
  answers :class:`~chessmoe.search.mcts.Limits` with a
  :class:`~chessmoe.search.mcts.SearchResult` (the :class:`~chessmoe.play.engine.Searcher`
  protocol), loading its trained weights safely from ``model_dir`` (default: the kit's
  committed ``results/related/<name>``);
- ``train(out_dir: Path, *, profile: str, data_dir: Path | None) -> Path``: trains it the way
  its document describes, writing a run directory with provenance under ``out_dir``.

Their networks and searches sit in the layers below (``chessmoe.nets.related``,
``chessmoe.search``);
this package only joins them into players. The paper's engine is the kind ``"moe"``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Literal, get_args

from chessmoe._io.errors import KitError
from chessmoe.play.engine import Searcher

__all__ = ["RELATED_KINDS", "RelatedKind", "build_searcher", "default_model_dir", "run_files",
           "train"]

RelatedKind = Literal["deepchess", "ntuple", "mais"]
RELATED_KINDS: tuple[str, ...] = get_args(RelatedKind)

_DOCUMENT = {"deepchess": "related-deepchess.md",
             "ntuple": "related-comparison-training-ntuple.md",
             "mais": "related-selfplay-value-search.md"}


def _module(kind: str) -> ModuleType:
    if kind not in RELATED_KINDS:
        raise KitError(f"unknown engine {kind!r}: one of moe, {', '.join(RELATED_KINDS)}")
    try:
        return importlib.import_module(f"chessmoe.play.players.{kind}")
    except ModuleNotFoundError as error:
        if error.name == f"chessmoe.play.players.{kind}":
            raise KitError(f"engine {kind!r} ({_DOCUMENT[kind]}) is not part of this "
                           "version of the kit") from None
        raise


def default_model_dir(kind: str) -> Path | None:
    """The committed trained weights of ``kind`` (``results/related/<kind>``), if present."""
    from chessmoe.search.evaluators import committed_results

    results = committed_results()
    if results is None:
        return None
    path = results / "related" / kind
    return path if path.is_dir() else None


def run_files(kind: str, model_dir: Path | None, *names: str) -> list[Path]:
    """The files ``names`` of a trained run of engine ``kind`` in ``model_dir``; a
    :class:`KitError` saying how to train one when there is no run or a file is missing."""
    train = f"python -m chessmoe related train {kind}"
    if model_dir is None:
        raise KitError(f"no trained {kind} weights: run `{train}` or set Model_Directory")
    paths = [Path(model_dir) / name for name in names]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise KitError(f"{' and '.join(missing)} not found: train with `{train} --out "
                       f"{model_dir}`")
    return paths


def build_searcher(kind: str, model_dir: str | Path | None = None, *,
                   threads: int = 1) -> Searcher:
    """A fresh player of engine ``kind`` (its own state; one per game lane)."""
    module = _module(kind)
    path = Path(model_dir) if model_dir else default_model_dir(kind)
    searcher: Searcher = module.build_searcher(path, threads=threads)
    return searcher


def train(kind: str, out_dir: str | Path, *, profile: str = "small",
          data_dir: str | Path | None = None) -> Path:
    """Train engine ``kind`` at ``profile`` into ``out_dir`` (resumable where it is long)."""
    module = _module(kind)
    result: Path = module.train(Path(out_dir), profile=profile,
                                data_dir=Path(data_dir) if data_dir else None)
    return result
