"""``make results PROFILE=...``: the whole pipeline in dependency order (:data:`STEPS`: phase
statistics -> phase datasets -> experts -> recorded gated searches -> the tournament), every
step resumable and skipping what is already up to date, so a rerun after an interruption
continues where it stopped (:func:`run`).
"""

from __future__ import annotations

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

__all__ = ["STEPS", "UnknownStep", "dataset_name", "outputs", "record_path", "run",
           "search_dir", "stats_dir", "tournament_dir"]

STEPS = ("stats", "datasets", "experts", "search", "tournament")


class UnknownStep(KitError, ValueError):
    """A step the pipeline does not have (the message names the known ones)."""


def stats_dir(profile: Profile, results: Path, spec: str) -> Path:
    """Where ``profile`` writes the statistics of source ``spec``."""
    from chessmoe.games.sources import results_name

    return results / "stats" / results_name(spec, profile.data.tag)


def dataset_name(profile: Profile, spec: str) -> str:
    """The name ``profile`` builds source ``spec``'s dataset under (``DATA_DIR/datasets/<it>``,
    its manifest in ``results/datasets/<it>``)."""
    from chessmoe.games.sources import results_name

    return results_name(spec, profile.data.tag)


def search_dir(profile: Profile, results: Path) -> Path:
    """Where ``profile`` records the gated searches of its separated experts."""
    return results / "search" / f"{config.experts_of(profile)}-separated"


def tournament_dir(profile: Profile, results: Path) -> Path:
    """Where ``profile`` plays its tournament."""
    return results / "tournaments" / profile.name


def record_path(profile: Profile, results: Path) -> Path:
    """The record of what the profile's last pipeline run did."""
    return results / f"pipeline-{profile.name}.json"


def outputs(name: str, results_dir: str | os.PathLike[str] = "results") -> tuple[Path, ...]:
    """Every path under ``results_dir`` the pipeline of profile ``name`` writes (the one home
    of their names: the steps write through the same functions). A profile writes only under
    names of its own: the smoke profile's statistics and dataset manifest are
    ``selfplay-sample-smoke``, never the committed ``selfplay-sample``, and everything it
    writes is ignored by git."""
    profile = config.profile(name)
    results = Path(results_dir)
    return (*dict.fromkeys(stats_dir(profile, results, spec)
                           for spec in profile.data.stats_sources),
            *dict.fromkeys(results / "datasets" / dataset_name(profile, spec)
                           for spec in profile.data.dataset_sources),
            results / "experts" / config.experts_of(profile),
            search_dir(profile, results), tournament_dir(profile, results),
            record_path(profile, results))


def _stats(profile: Profile, results: Path, data_dir: Path | None,
           progress: bool, force: bool) -> dict[str, Any]:
    from chessmoe.games import stats
    from chessmoe.games.sources import resolve

    done = {}
    for spec in profile.data.stats_sources:
        source = resolve(spec, data_dir, progress=progress)
        out = stats_dir(profile, results, spec)
        result = stats.ensure(source, out, workers=profile.data.workers, progress=progress,
                              max_games=profile.data.max_games, force=force,
                              elsewhere="--results DIR")
        done[out.name] = "computed" if result.computed else "up to date"
    return done


def _datasets(profile: Profile, results: Path, data_dir: Path | None,
              progress: bool, force: bool) -> dict[str, Any]:
    from chessmoe.games.datasets import build_source

    done = {}
    for spec in profile.data.dataset_sources:
        name = dataset_name(profile, spec)
        out, _ = build_source(spec, data_dir=data_dir, results_dir=results, name=name,
                              workers=profile.data.workers, progress=progress,
                              max_games=profile.data.max_games, force=force)
        done[name] = str(out)
    return done


def _experts(profile: Profile, results: Path, data_dir: Path | None,
             progress: bool, force: bool) -> dict[str, Any]:
    from chessmoe.nets.regimes import train_profile

    manifests = train_profile(profile.training, config.experts_of(profile), results_dir=results,
                              data_dir=data_dir, progress=progress, force=force)
    done: dict[str, Any] = {name: sorted(m["experts"]) for name, m in manifests.items()}
    if profile.training.pipeline_controls:
        from chessmoe.nets.controls import train_controls

        done["controls"] = [p.name for p in train_controls(
            profile.training, config.experts_of(profile), results_dir=results,
            data_dir=data_dir, progress=progress)]
    return done


def _search(profile: Profile, results: Path, progress: bool, force: bool) -> dict[str, Any]:
    from chessmoe.search.gating import GatingConfig, record

    if "separated" not in profile.training.regimes:
        return {"search": "skipped: the profile trains no separated experts to record"}

    bundle = results / "experts" / config.experts_of(profile) / "separated"
    out = search_dir(profile, results)
    before = _sha(out / "manifest.json")
    gating = GatingConfig(nodes=profile.search.nodes, positions=profile.search.positions)
    manifest = record(bundle, out, config=gating, force=force)
    if before is not None and _sha(out / "manifest.json") == before:
        return {"search": "up to date"}
    return {"search": f"{manifest['batches']} mini-batches"}


def _tournament(profile: Profile, results: Path, data_dir: Path | None,
                progress: bool, force: bool) -> dict[str, Any]:
    from chessmoe.play.designs import build_design
    from chessmoe.play.tournament import run_local

    experts = results / "experts" / config.experts_of(profile)
    spec = build_design(profile.tournament.design, experts, pairs=profile.tournament.pairs)
    if not spec.matches:
        return {"matches": 0, "complete": False,
                "skipped": f"no engine of the {profile.tournament.design} design is trained "
                           f"under {experts}"}
    summary = run_local(spec, tournament_dir(profile, results),
                        workers=profile.tournament.workers, data_dir=data_dir,
                        progress=progress, force=force)
    return {"matches": len(summary.matches), "complete": summary.complete}


def _sha(path: Path) -> str | None:
    from chessmoe._io.fsutil import sha256_file

    return sha256_file(path) if path.exists() else None


def run(name: str, *, results_dir: str | os.PathLike[str] = "results",
        data_dir: str | os.PathLike[str] | None = None, steps: Sequence[str] | None = None,
        progress: bool = True, force: bool = False) -> dict[str, Any]:
    """Run (or resume) a profile's pipeline; write ``results/pipeline-<profile>.json``.
    Profiles: ``smoke`` (minutes; used by ``make test`` on a temporary directory), ``small``
    (the committed results: about three hours on a 2-core CPU), ``paper`` (KingBase and the
    paper's settings, for GPUs; the tournament can run on Dask via ``chessmoe tournament``).
    Statistics and datasets compare their inputs; training runs and tournament games are
    recorded as they finish.
    ``force``: a step may replace a finished, committed result it would change (without it
    the step stops with a :class:`~chessmoe._io.evidence.CommittedResult`)."""
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
            outcome = _stats(profile, results, data, progress, force)
        elif step == "datasets":
            outcome = _datasets(profile, results, data, progress, force)
        elif step == "experts":
            outcome = _experts(profile, results, data, progress, force)
        elif step == "search":
            outcome = _search(profile, results, progress, force)
        else:
            outcome = _tournament(profile, results, data, progress, force)
        log[step] = {"outcome": outcome, "seconds": round(time.monotonic() - start, 1)}
        if progress:
            print(f"[{name}] {step}: {outcome} ({log[step]['seconds']} s)", flush=True)
    record = {"profile": name, "steps": log, "provenance": provenance()}
    atomic_write_json(record_path(profile, results), record)
    return record
