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
from pathlib import Path
from typing import Any

from chessmoe import config
from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_write_json
from chessmoe._io.provenance import provenance
from chessmoe.config import Profile

__all__ = ["STEPS", "UnknownStep", "run"]

STEPS = ("stats", "datasets", "experts", "search", "tournament")


class UnknownStep(KitError, ValueError):
    """A step the pipeline does not have (the message names the known ones)."""


def _stats(profile: Profile, results: Path, data_dir: Path | None,
           progress: bool) -> dict[str, Any]:
    from chessmoe.games import stats
    from chessmoe.games.sources import resolve

    done = {}
    for spec in profile.data.stats_sources:
        source = resolve(spec, data_dir, progress=progress)
        out = results / "stats" / source.name
        manifest_path = out / "manifest.json"
        if manifest_path.exists():
            old = json.loads(manifest_path.read_text())
            if (old["source"]["files"] == source.file_records()
                    and old.get("max_games") == profile.data.max_games):
                done[source.name] = "up to date"
                continue
        stats.compute(source, out, workers=profile.data.workers, progress=progress,
                      max_games=profile.data.max_games)
        done[source.name] = "computed"
    return done


def _datasets(profile: Profile, results: Path, data_dir: Path | None,
              progress: bool) -> dict[str, Any]:
    from chessmoe.games.datasets import build_source

    done = {}
    for spec in profile.data.dataset_sources:
        out, manifest = build_source(spec, data_dir=data_dir, results_dir=results,
                                     workers=profile.data.workers, progress=progress,
                                     max_games=profile.data.max_games)
        done[manifest["source"]["name"]] = str(out)
    return done


def _experts(profile: Profile, results: Path, data_dir: Path | None,
             progress: bool) -> dict[str, Any]:
    from chessmoe.nets.regimes import train_profile

    manifests = train_profile(profile.training, config.experts_of(profile), results_dir=results,
                              data_dir=data_dir, progress=progress)
    done: dict[str, Any] = {name: sorted(m["experts"]) for name, m in manifests.items()}
    if profile.training.pipeline_controls:
        from chessmoe.nets.controls import train_controls

        done["controls"] = [p.name for p in train_controls(
            profile.training, config.experts_of(profile), results_dir=results,
            data_dir=data_dir, progress=progress)]
    return done


def _search(profile: Profile, results: Path, progress: bool) -> dict[str, Any]:
    from chessmoe.search.gating import GatingConfig, record

    if "separated" not in profile.training.regimes:
        return {"search": "skipped: the profile trains no separated experts to record"}

    bundle = results / "experts" / config.experts_of(profile) / "separated"
    out = results / "search" / f"{config.experts_of(profile)}-separated"
    manifest_path = out / "manifest.json"
    bundle_sha = _sha(bundle / "manifest.json")
    gating = GatingConfig(nodes=profile.search.nodes, positions=profile.search.positions)
    if manifest_path.exists():
        old = json.loads(manifest_path.read_text())
        if old.get("bundle_manifest_sha256") == bundle_sha and old.get("config") == \
                json.loads(json.dumps(gating.__dict__)):
            return {"search": "up to date"}
    manifest = record(bundle, out, config=gating)
    return {"search": f"{manifest['batches']} mini-batches"}


def _tournament(profile: Profile, results: Path, data_dir: Path | None,
                progress: bool) -> dict[str, Any]:
    from chessmoe.play.tournament import build_design, run_local

    experts = results / "experts" / config.experts_of(profile)
    spec = build_design(profile.tournament.design, experts, pairs=profile.tournament.pairs)
    if not spec.matches:
        return {"matches": 0, "complete": False,
                "skipped": f"no engine of the {profile.tournament.design} design is trained "
                           f"under {experts}"}
    summary = run_local(spec, results / "tournaments" / profile.name,
                        workers=profile.tournament.workers, data_dir=data_dir, progress=progress)
    return {"matches": len(summary["matches"]), "complete": summary["complete"]}


def _sha(path: Path) -> str | None:
    from chessmoe._io.fsutil import sha256_file

    return sha256_file(path) if path.exists() else None


def run(name: str, *, results_dir: str | os.PathLike[str] = "results",
        data_dir: str | os.PathLike[str] | None = None, steps: Sequence[str] | None = None,
        progress: bool = True) -> dict[str, Any]:
    """Run (or resume) a profile's pipeline; write ``results/pipeline-<profile>.json``."""
    profile = config.profile(name)
    wanted = list(steps or STEPS)
    unknown = [s for s in wanted if s not in STEPS]
    if unknown:
        raise UnknownStep(f"unknown step(s) {', '.join(unknown)}; known: {', '.join(STEPS)}")
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
