"""``make results PROFILE=...``: the whole pipeline in dependency order.

Steps: phase statistics -> phase datasets -> experts (every regime, plus the Fig. 7
definitions) -> recorded gated searches -> the tournament. Every step is resumable and
skips what is already up to date (statistics and datasets compare their inputs, training
runs and tournament games are recorded as they finish), so rerunning after an interruption
continues where it stopped.

Profiles: ``smoke`` (minutes; used by ``make test`` on a temporary directory), ``small``
(the committed results: about three hours on a 2-core CPU), ``paper`` (KingBase and the
paper's settings, for GPUs; the tournament can run on Dask via ``chessmoe tournament``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chessmoe._io.fsutil import atomic_write_json
from chessmoe._io.provenance import provenance

__all__ = ["PIPELINES", "STEPS", "PipelineProfile", "run"]

STEPS = ("stats", "datasets", "experts", "search", "tournament")


@dataclass(frozen=True)
class PipelineProfile:
    """What each step of a profile runs."""

    name: str
    stats_sources: tuple[str, ...]
    dataset_sources: tuple[str, ...]
    experts_profile: str
    tournament_profile: str
    max_games: int | None = None  # cut the statistics sources (smoke)
    tournament_pairs: int | None = None
    search_nodes: int = 800
    search_positions: int = 24
    workers: int = 2


PIPELINES: dict[str, PipelineProfile] = {
    "smoke": PipelineProfile("smoke", ("sample",), ("sample",), "smoke", "smoke",
                             max_games=150, tournament_pairs=1, search_nodes=40,
                             search_positions=2, workers=1),
    "small": PipelineProfile("small", ("lichess-2013-01:5000", "sample"),
                             ("lichess-2013-01:5000", "sample"), "small", "small"),
    "paper": PipelineProfile("paper", ("kingbase", "lichess-2013-01:5000", "sample"),
                             ("kingbase",), "paper", "paper", workers=16),
}


def _stats(profile: PipelineProfile, results: Path, data_dir: Path | None,
           progress: bool) -> dict[str, Any]:
    from chessmoe.games import stats
    from chessmoe.games.sources import resolve

    done = {}
    for spec in profile.stats_sources:
        source = resolve(spec, data_dir, progress=progress)
        out = results / "stats" / source.name
        manifest_path = out / "manifest.json"
        if manifest_path.exists():
            old = json.loads(manifest_path.read_text())
            if (old["source"]["files"] == source.file_records()
                    and old.get("max_games") == profile.max_games):
                done[source.name] = "up to date"
                continue
        stats.compute(source, out, workers=profile.workers, progress=progress,
                      max_games=profile.max_games)
        done[source.name] = "computed"
    return done


def _datasets(profile: PipelineProfile, results: Path, data_dir: Path | None,
              progress: bool) -> dict[str, Any]:
    from chessmoe.games.datasets import build_source

    done = {}
    for spec in profile.dataset_sources:
        out, manifest = build_source(spec, data_dir=data_dir, results_dir=results,
                                     workers=profile.workers, progress=progress,
                                     max_games=profile.max_games)
        done[manifest["source"]["name"]] = str(out)
    return done


def _experts(profile: PipelineProfile, results: Path, data_dir: Path | None,
             progress: bool) -> dict[str, Any]:
    from chessmoe.nets.regimes import train_profile

    manifests = train_profile(profile.experts_profile, results_dir=results,
                              data_dir=data_dir, progress=progress)
    return {name: sorted(m["experts"]) for name, m in manifests.items()}


def _search(profile: PipelineProfile, results: Path, progress: bool) -> dict[str, Any]:
    from chessmoe.search.gating import GatingConfig, record

    bundle = results / "experts" / profile.experts_profile / "separated"
    out = results / "search" / f"{profile.experts_profile}-separated"
    manifest_path = out / "manifest.json"
    bundle_sha = _sha(bundle / "manifest.json")
    config = GatingConfig(nodes=profile.search_nodes, positions=profile.search_positions)
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        if old.get("bundle_manifest_sha256") == bundle_sha and old.get("config") == \
                json.loads(json.dumps(config.__dict__)):
            return {"search": "up to date"}
    manifest = record(bundle, out, config=config)
    return {"search": f"{manifest['batches']} mini-batches"}


def _tournament(profile: PipelineProfile, results: Path, data_dir: Path | None,
                progress: bool) -> dict[str, Any]:
    from chessmoe.play.tournament import build_profile, run_local

    experts = results / "experts" / profile.experts_profile
    spec = build_profile(profile.tournament_profile, experts, pairs=profile.tournament_pairs)
    summary = run_local(spec, results / "tournaments" / profile.experts_profile,
                        workers=profile.workers, data_dir=data_dir, progress=progress)
    return {"matches": len(summary["matches"]), "complete": summary["complete"]}


def _sha(path: Path) -> str | None:
    from chessmoe._io.fsutil import sha256_file

    return sha256_file(path) if path.exists() else None


def run(name: str, *, results_dir: str | os.PathLike[str] = "results",
        data_dir: str | os.PathLike[str] | None = None, steps: Sequence[str] | None = None,
        progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a profile's pipeline; write ``results/pipeline-<profile>.json``."""
    try:
        profile = PIPELINES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; known: {', '.join(PIPELINES)}") from None
    wanted = list(steps or STEPS)
    unknown = [s for s in wanted if s not in STEPS]
    if unknown:
        raise ValueError(f"unknown step(s) {unknown}; known: {', '.join(STEPS)}")
    results = Path(results_dir)
    data = Path(data_dir) if data_dir is not None else None
    log: dict[str, Any] = {}
    for step in STEPS:
        if step not in wanted:
            continue
        start = time.monotonic()
        if step == "stats":
            outcome = _stats(profile, results, data, progress)
        elif step == "datasets":
            outcome = _datasets(profile, results, data, progress)
        elif step == "experts":
            outcome = _experts(profile, results, data, progress)
        elif step == "search":
            outcome = _search(profile, results, progress)
        else:
            outcome = _tournament(profile, results, data, progress)
        log[step] = {"outcome": outcome, "seconds": round(time.monotonic() - start, 1)}
        if progress:
            print(f"[{name}] {step}: {outcome} ({log[step]['seconds']} s)", flush=True)
    record = {"profile": name, "steps": log, "provenance": provenance()}
    atomic_write_json(results / f"pipeline-{name}.json", record)
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m chessmoe.pipeline --profile small``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m chessmoe.pipeline", description=__doc__)
    parser.add_argument("--profile", default="small", choices=sorted(PIPELINES))
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--steps", nargs="*", default=None, choices=STEPS)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    run(args.profile, results_dir=args.results, data_dir=args.data_dir, steps=args.steps,
        progress=not args.quiet)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
