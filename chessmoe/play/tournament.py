"""Tournaments: matches sharded into game pairs, run locally (:func:`run_local`) or on Dask
(:func:`run_dask`), and summarised (:func:`summarise_tournament`). The designs the kit plays
are built in :mod:`chessmoe.play.designs`.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from chessmoe._io.errors import KitError
from chessmoe._io.fsutil import atomic_write_json, sha256_file
from chessmoe._io.jobs import follow_parent
from chessmoe._io.provenance import provenance
from chessmoe.play.cluster import PATIENCE_S, check_workers, dask_client, gather, wait_for_workers
from chessmoe.play.match import (
    Adjudication,
    PlayerSpec,
    SprtRule,
    play_match,
    write_pgn,
)
from chessmoe.play.openings import group_seed, read_epd, resolve_suite, schedule
from chessmoe.play.placement import (
    Need,
    Placement,
    absolute,
    place_openings,
    place_player,
    placement,
)
from chessmoe.records import (
    GameRecord,
    OtherRunError,
    SprtRecord,
    TournamentMatch,
    TournamentSummary,
    load_records,
    summarise,
)
from chessmoe.search.kinds import DEFAULT_SEARCH, check_search_kind

__all__ = [
    "MatchProgress",
    "MatchSpec",
    "TournamentSpec",
    "Unit",
    "dask_client",
    "format_progress",
    "only_matches",
    "progress",
    "projection_parts",
    "run_dask",
    "run_local",
    "sprt_record",
    "summarise_tournament",
    "units",
    "with_pairs",
    "with_recorded_search",
    "with_search",
]



@dataclass(frozen=True)
class MatchSpec:
    """One match: ``first`` against ``second`` over ``pairs`` game pairs."""

    name: str
    first: PlayerSpec
    second: PlayerSpec
    pairs: int
    labels: tuple[tuple[str, Any], ...] = ()  # e.g. (("method", "separated"), ("nodes", 100))
    openings_group: str | None = None  # matches of one group share their openings
    # a sequential test: the match stops once it is decided, ``pairs`` being its cap; every
    # game checks it against all the match's recorded games (its other shards' too)
    sprt: SprtRule | None = None

    def label(self, key: str, default: Any = None) -> Any:
        return dict(self.labels).get(key, default)

    @property
    def group(self) -> str:
        """The match's opening group: its own name unless it shares openings with others
        (a paired comparison of several arms against the same opponent)."""
        return self.openings_group or self.name


@dataclass(frozen=True)
class TournamentSpec:
    """A set of matches sharing an opening suite, seed and adjudication.

    Each match (two :class:`~chessmoe.play.match.PlayerSpec` s, a number of game pairs,
    labels for the figures) is cut into shards of whole game pairs (:class:`Unit`); a shard
    appends to its own ``<out>/<match>/games-<shard>.jsonl``, so any interruption resumes
    where it stopped and several processes or machines never write the same file."""

    name: str
    matches: tuple[MatchSpec, ...]
    openings: str = "embedded"
    seed: int = 2024
    pairs_per_shard: int = 10
    adjudication: Adjudication = field(default_factory=Adjudication)
    games_at_once: int = 1  # games a worker plays at once, batching their searches

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "openings": self.openings, "seed": self.seed,
                "pairs_per_shard": self.pairs_per_shard,
                "games_at_once": self.games_at_once,
                "adjudication": asdict(self.adjudication),
                "openings_draw": "per group: a seeded permutation of the suite per "
                                 "opening group, each pair its own opening",
                "matches": [{"name": m.name, "pairs": m.pairs, "labels": dict(m.labels),
                             "openings_group": m.group,
                             **({"sprt": asdict(m.sprt)} if m.sprt is not None else {}),
                             "first": m.first.to_dict(), "second": m.second.to_dict()}
                            for m in self.matches]}


# --- units and execution ------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A shard of one match: whole game pairs, written to its own log."""

    match: MatchSpec
    shard: int
    shards: int
    openings: str
    seed: int
    adjudication: Adjudication
    event: str
    games_at_once: int = 1
    # what its worker must see (absolute paths, networks' checksums, the kit's version):
    # set for units sent to other machines (:func:`run_dask`), checked before any game
    placement: Placement = field(default_factory=Placement)

    @property
    def id(self) -> str:
        return f"{self.match.name}/{self.shard:03d}"

    @property
    def gpu(self) -> bool:
        return any(p.device.startswith("cuda") or p.backend == "cuda"
                   for p in (self.match.first, self.match.second))

    def log_path(self, out_dir: str | os.PathLike[str]) -> Path:
        return Path(out_dir) / self.match.name / f"games-{self.shard:03d}.jsonl"


def _timed(match: MatchSpec) -> bool:
    return any(p.movetime_ms is not None for p in (match.first, match.second))


def units(spec: TournamentSpec) -> list[Unit]:
    """The tournament cut into shards of ``pairs_per_shard`` consecutive game pairs per
    match, in rounds (every match's first shard, then every second shard, ...), so an
    interrupted tournament has advanced every arm alike, on the same openings."""
    per_match: list[list[Unit]] = []
    for match in spec.matches:
        count = max(1, -(-match.pairs // spec.pairs_per_shard))
        seed = group_seed(spec.seed, match.group)
        # a time-limited search owns its worker's time: its match plays one game at a time
        at_once = 1 if _timed(match) else spec.games_at_once
        per_match.append([Unit(match, k, count, spec.openings, seed, spec.adjudication,
                               spec.name, at_once) for k in range(count)])
    rounds = max((len(u) for u in per_match), default=0)
    return [u[k] for k in range(rounds) for u in per_match if k < len(u)]


@dataclass(frozen=True)
class MatchProgress:
    """How far one match of a tournament directory has been played."""

    name: str
    played: int  # finished games in its logs
    planned: int  # two games a pair (a sequential test's cap)
    decided: str = ""  # a sequential test's decision ("H0 accepted", "H1 accepted")

    @property
    def complete(self) -> bool:
        return self.played >= self.planned or bool(self.decided)


def progress(spec: TournamentSpec, out_dir: str | os.PathLike[str]) -> list[MatchProgress]:
    """Every match of ``spec`` with the finished games its logs under ``out_dir`` hold (read
    only: nothing is played or written; a log's unfinished last line is not a game)."""
    def records(match: MatchSpec) -> list[GameRecord]:
        return load_records(sorted((Path(out_dir) / match.name).glob("games-*.jsonl")))

    def decided(match: MatchSpec, games: list[GameRecord]) -> str:
        if match.sprt is None:
            return ""
        state = match.sprt.state(games)
        return "" if state == "continue" else state

    rows = []
    for match in spec.matches:
        games = records(match)
        rows.append(MatchProgress(match.name, len(games), 2 * match.pairs,
                                  decided(match, games)))
    return rows


def format_progress(rows: Sequence[MatchProgress]) -> str:
    """One line per match and a total: played of planned games, and what is left."""
    width = max((len(r.name) for r in rows), default=10)
    lines = [f"{r.name:{width}s} {r.played:6,d} of {r.planned:6,d} games"
             + (f"  (SPRT: {r.decided})" if r.decided else "" if r.complete
                else "  (in progress)" if r.played else "  (not started)")
             for r in rows]
    played = sum(r.played for r in rows)
    planned = sum(r.played if r.decided else r.planned for r in rows)
    share = 100.0 * played / planned if planned else 100.0
    state = "complete" if played >= planned else f"{planned - played:,} games to play"
    lines.append(f"{'total':{width}s} {played:6,d} of {planned:6,d} games ({share:.1f} %): "
                 f"{state}")
    return "\n".join(lines)


def run_unit(unit: Unit, out_dir: str, data_dir: str | None = None) -> dict[str, Any]:
    """Play one shard (resuming its log); return its summary (runs in a worker). A match
    with a sequential test plays nothing once decided, and stops a shard as soon as the
    match (its other shards' games read when the shard starts, and this shard's) is. A
    unit's :class:`~chessmoe.play.placement.Placement` is checked first: a path this worker
    cannot see, or a network or suite that is not the client's, stops it before it writes."""
    unit.placement.check()
    suite = resolve_suite(unit.openings, data_dir)
    unit.placement.check_suite(suite)
    fens = read_epd(suite)
    size = -(-unit.match.pairs // unit.shards)
    slots = [s for s in schedule(fens, unit.match.pairs, unit.seed)
             if s.pair // size == unit.shard]
    rule = unit.match.sprt
    stop_when = None
    if rule is not None:
        own = unit.log_path(out_dir)
        others = load_records(sorted(p for p in own.parent.glob("games-*.jsonl") if p != own))
        if rule(others + (load_records([own]) if own.exists() else [])):
            return {"unit": unit.id, "games": 0, "sprt": rule.state(others)}

        def stop_when(played: Sequence[GameRecord]) -> bool:
            return rule(others + list(played))

    records = play_match(unit.match.first, unit.match.second, slots,
                         unit.log_path(out_dir), rules=unit.adjudication,
                         event=f"{unit.event}: {unit.match.name}",
                         concurrency=unit.games_at_once, stop_when=stop_when)
    return {"unit": unit.id, "games": len(records)}


def _suite_record(spec: TournamentSpec, data_dir: str | os.PathLike[str] | None
                  ) -> dict[str, Any]:
    path = resolve_suite(spec.openings, data_dir)
    return {"file": path.name, "sha256": sha256_file(path), "positions": len(read_epd(path))}


def _match_identity(match: dict[str, Any]) -> dict[str, Any]:
    """A recorded match as far as it decides the games: a bundle is named by its last two
    path parts (a clone elsewhere, a notebook's ``../results`` and an absolute path name the
    same bundle), and a player field a later version added counts at its default."""
    defaults = PlayerSpec(name="").to_dict()
    out = dict(match)
    for side in ("first", "second"):
        player = {**defaults, **match[side]}
        for key in ("experts", "baseline"):
            if player.get(key):
                player[key] = "/".join(Path(str(player[key])).parts[-2:])
        if "search" not in match[side]:
            player["search"] = "python"  # recorded before the compiled search existed
        if player.get("kind", "mcts") != "mcts":
            player["search"] = None  # only the kit's MCTS players have a tree search
        out[side] = player
    return out


def _searches(match: dict[str, Any]) -> set[str]:
    identity = _match_identity(match)
    return {identity[side]["search"] for side in ("first", "second")} - {None}


def _identity_but_search(match: dict[str, Any]) -> dict[str, Any]:
    identity = _match_identity(match)
    for side in ("first", "second"):
        identity[side] = {**identity[side], "search": None}
    return identity


def _searching(match: MatchSpec, search: str) -> MatchSpec:
    def player(p: PlayerSpec) -> PlayerSpec:
        return replace(p, search=search) if p.kind == "mcts" else p

    return replace(match, first=player(match.first), second=player(match.second))


def with_search(spec: TournamentSpec, search: str) -> TournamentSpec:
    """``spec`` with every MCTS player searching with ``search`` (native or python)."""
    check_search_kind(search)
    return replace(spec, matches=tuple(_searching(m, search) for m in spec.matches))


def with_recorded_search(spec: TournamentSpec, out_dir: str | os.PathLike[str],
                         default: str = DEFAULT_SEARCH) -> TournamentSpec:
    """``spec`` with each match's MCTS players searching as ``out_dir/spec.json`` recorded
    that match (the Python search for matches recorded before players named one), and
    matches not recorded there with ``default``: a resumed match is never played by two
    searches, and new matches get the compiled search."""
    check_search_kind(default)
    path = Path(out_dir) / "spec.json"
    recorded = ({m["name"]: m for m in json.loads(path.read_text()).get("matches", [])}
                if path.is_file() else {})

    def kind(match: MatchSpec) -> str:
        found = sorted(_searches(recorded[match.name])) if match.name in recorded else []
        return found[0] if found else default

    return replace(spec, matches=tuple(_searching(m, kind(m)) for m in spec.matches))


def _rules_text(rules: Adjudication) -> str:
    changed = {k: v for k, v in asdict(rules).items() if v != getattr(Adjudication(), k)}
    return "draw rules " + rules.draw_rules + "".join(f", {k}={v}" for k, v in changed.items()
                                                      if k != "draw_rules")


def _write_spec(spec: TournamentSpec, out: Path,
                data_dir: str | os.PathLike[str] | None = None, *,
                force: bool | None = None) -> None:
    """Record the spec and the opening suite's checksum; refuse to resume a tournament
    in which a recorded match changed or the openings changed (its recorded games would
    mix two designs). Matches may be added (a control trained later joins the design), and a
    run of some matches (:func:`only_matches`) keeps the record of the others. With ``force``
    given (a run about to play), a finished committed tournament is not extended without it
    (:func:`_guard_finished`)."""
    path = out / "spec.json"
    data = {**spec.to_dict(), "openings_suite": _suite_record(spec, data_dir)}
    if path.exists():
        old = json.loads(path.read_text())
        # every recorded match stays where it was (those of this run as this run states
        # them, the others as recorded: still part of the tournament); new matches follow.
        # Kept in order, a run of some matches from another checkout leaves an unchanged
        # design's record byte for byte, so its games are not played from a changed tree.
        ours = {m["name"]: m for m in data["matches"]}
        recorded = [m["name"] for m in old.get("matches", [])]
        data["matches"] = ([ours.get(m["name"], m) for m in old.get("matches", [])]
                           + [m for m in data["matches"] if m["name"] not in recorded])
        new = {m["name"]: m for m in json.loads(json.dumps(data))["matches"]}
        changed = sorted(m["name"] for m in old.get("matches", [])
                         if m["name"] in new
                         and _match_identity(new[m["name"]]) != _match_identity(m))
        if changed:
            olds = {m["name"]: m for m in old.get("matches", [])}
            if all(_identity_but_search(new[n]) == _identity_but_search(olds[n])
                   for n in changed):
                before = sorted(set().union(*(_searches(olds[n]) for n in changed)))
                raise OtherRunError(f"{out} holds matches played by the {'/'.join(before)} "
                                    f"search ({', '.join(changed[:3])}); rerun with --search "
                                    f"{before[0]} to resume them, or use another directory")
            raise OtherRunError(f"{out} holds a tournament in which {', '.join(changed[:3])} "
                                "were played differently; use another directory")
        if "adjudication" in old and (Adjudication.from_dict(old["adjudication"])
                                      != spec.adjudication):
            raise OtherRunError(f"{out} was played under other adjudication or draw rules "
                                f"({_rules_text(Adjudication.from_dict(old['adjudication']))}, "
                                f"now {_rules_text(spec.adjudication)}); use another directory")
        before = old.get("openings_suite", {}).get("sha256")
        if before and before != data["openings_suite"]["sha256"]:
            raise OtherRunError(f"{out} was played from another version of the opening suite "
                                f"{spec.openings!r} (sha256 {before[:12]}...); use another "
                                "directory")
    if force is not None:
        _guard_finished(spec, out, force)
    if path.exists() and _identity(json.loads(path.read_text())) == _identity(data):
        return  # the same design (bundles named by another path): the record stays as is
    atomic_write_json(path, data)


def _read_rules(record: dict[str, Any]) -> dict[str, Any]:
    """A spec or summary record (JSON values) with its adjudication as the kit reads it: a
    field added since (``draw_rules``) at the value the record was played under."""
    plain: dict[str, Any] = json.loads(json.dumps(record))
    if isinstance(plain.get("adjudication"), dict):
        plain["adjudication"] = asdict(Adjudication.from_dict(plain["adjudication"]))
    return plain


def _identity(record: dict[str, Any]) -> dict[str, Any]:
    """A spec record as far as it decides the games (:func:`_match_identity` per match, the
    adjudication read as :func:`_read_rules` reads it): equal identities, one tournament,
    however the record's bundle paths or format differ."""
    plain = _read_rules(record)
    return {**{k: v for k, v in plain.items() if k != "matches"},
            "matches": [_match_identity(m) for m in plain.get("matches", [])]}


def _guard_finished(spec: TournamentSpec, out: Path, force: bool) -> None:
    """Before a run writes into ``out``: a tournament recorded under another name (another
    design aimed at this directory), or a finished one (its summary says every planned game is
    played) that this run would extend with matches or games, is changed only where it is not
    committed evidence, or with ``force`` (:func:`chessmoe._io.evidence.refuse_replacing`).
    An unfinished tournament of the same name resumes as always."""
    from chessmoe._io.evidence import refuse_replacing

    recorded = json.loads((out / "spec.json").read_text()) if (out / "spec.json").exists() \
        else {}
    changes = []
    if recorded and recorded.get("name") != spec.name:
        changes.append(f"it records tournament {recorded.get('name')!r}, this run plays "
                       f"{spec.name!r}")
    try:
        complete = json.loads((out / "summary.json").read_text()).get("complete") is True
    except (OSError, ValueError):
        complete = False
    if complete:
        known = {m.get("name") for m in recorded.get("matches", [])}
        added = [m.name for m in spec.matches if m.name not in known]
        left = [p.name for p in progress(spec, out)  # a match its SPRT decided is complete
                if not p.complete and p.name not in added]
        if added:
            changes.append(f"new matches {', '.join(added[:3])}"
                           f"{', ...' if len(added) > 3 else ''}")
        if left:
            changes.append(f"games to add to {', '.join(left[:3])}"
                           f"{', ...' if len(left) > 3 else ''}")
    if changes:
        refuse_replacing(out, force=force, elsewhere="--out DIR", what="a finished tournament",
                         reason="; ".join(changes))


def _check_recorded_rules(spec: TournamentSpec, out: Path,
                          records: dict[str, list[GameRecord]] | None = None) -> None:
    """Refuse a tournament directory holding a game whose own record names other draw rules
    than the spec's (a log copied in from another run): its summary names one adjudication
    for every game. Records that name no rules are accepted (the spec's own rules were
    checked against spec.json when the run resumed)."""
    for match in spec.matches:
        games = records[match.name] if records is not None else load_records(
            sorted((out / match.name).glob("games-*.jsonl")))
        other = Counter(r.provenance.draw_rules for r in games
                        if r.provenance is not None and r.provenance.draw_rules is not None
                        and r.provenance.draw_rules != spec.adjudication.draw_rules)
        if other:
            named = ", ".join(f"{n} under {rules}" for rules, n in sorted(other.items()))
            raise OtherRunError(f"{out / match.name}: {named} draw rules, but tournament "
                                f"{spec.name!r} is played under {spec.adjudication.draw_rules}; "
                                "its games cannot share one summary: move them to another "
                                "directory")


def gpu_count() -> int:
    """CUDA devices visible here (0 without torch's CUDA build)."""
    try:
        import torch
    except ImportError:
        return 0
    return int(torch.cuda.device_count())


_WORKER_GPU: list[int] = []


def _pin_worker(counter: Any, gpus: int) -> None:
    """Process-pool initializer: give this worker its own GPU (round-robin over ``gpus``) by
    ``CUDA_VISIBLE_DEVICES``, before torch initialises CUDA; the worker then sees ``cuda:0``.
    The worker ends with its parent (:func:`~chessmoe._io.jobs.follow_parent`): a stopped
    tournament's workers never play on beside the run that resumes it."""
    follow_parent()
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    if gpus > 0:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(index % gpus)
        _WORKER_GPU.append(index % gpus)


def register(spec: TournamentSpec, out_dir: str | os.PathLike[str], *,
             data_dir: str | os.PathLike[str] | None = None,
             force: bool = False) -> list[str]:
    """Record ``spec`` in ``out_dir/spec.json`` as a run of it would before its first game
    (the same checks: recorded matches unchanged, the same rules and openings, a finished
    committed tournament extended only with ``force``), and play nothing: a design committed
    this way is registered before its games, and the run that plays it from that commit
    finds the record as it is and leaves the checkout clean. Returns the recorded match
    names, in the record's order."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _check_recorded_rules(spec, out)
    _write_spec(spec, out, data_dir, force=force)
    recorded: list[str] = [m["name"] for m in json.loads((out / "spec.json").read_text())
                           ["matches"]]
    return recorded


def run_local(spec: TournamentSpec, out_dir: str | os.PathLike[str], *, workers: int = 2,
              gpu_workers: int | None = None, gpus: int | None = None,
              data_dir: str | os.PathLike[str] | None = None,
              progress: bool = True, force: bool = False,
              before_play: Callable[[], None] | None = None) -> TournamentSummary:
    """Run every unit in up to ``workers`` processes; then summarise. ``before_play`` is
    called once the design is checked and recorded, before the first game (the CLI says
    there whether the checkout's changes will mark the records dirty).

    On a machine with GPUs (``gpus``: default, all that are visible) every worker process is
    pinned to one GPU, round-robin (worker k sees GPU ``k % gpus`` as ``cuda:0``), so several
    GPU units run at once and several CPU workers feed each GPU; ``gpu_workers`` caps the GPU
    units in flight (default: every worker). A finished committed tournament is extended only
    with ``force`` (:func:`_guard_finished`).
    """
    todo = units(spec)
    gpus = gpu_count() if gpus is None else gpus
    on_gpu = sum(u.gpu for u in todo)
    if on_gpu and gpus == 0:  # before anything is written
        raise KitError(f"tournament {spec.name!r} runs networks on CUDA in {on_gpu} of its "
                       f"{len(todo)} shards, but no CUDA device is visible here: run it on a "
                       "GPU machine (or on Dask workers that have GPUs)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _check_recorded_rules(spec, out)
    _write_spec(spec, out, data_dir, force=force)
    if before_play is not None:
        before_play()
    data = str(data_dir) if data_dir is not None else None
    if gpu_workers is None:
        gpu_workers = workers if gpus > 0 else 1
    bar = tqdm(total=len(todo), desc=spec.name, unit="shard", disable=not progress)
    if workers <= 1:
        for unit in todo:
            run_unit(unit, str(out), data)
            bar.update(1)
    else:
        ctx = mp.get_context("spawn")
        counter = ctx.Value("i", 0)
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_pin_worker,
                                 initargs=(counter, gpus)) as pool:
            pending: dict[Future[dict[str, Any]], Unit] = {}
            queue = list(todo)
            while queue or pending:
                gpu_busy = sum(u.gpu for u in pending.values())
                while queue and len(pending) < workers:
                    index = next((i for i, u in enumerate(queue)
                                  if not u.gpu or gpu_busy < gpu_workers), None)
                    if index is None:
                        break
                    unit = queue.pop(index)
                    gpu_busy += unit.gpu
                    pending[pool.submit(run_unit, unit, str(out), data)] = unit
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.pop(future)
                    future.result()  # re-raise a failure (finished shards stay recorded)
                    bar.update(1)
    bar.close()
    return summarise_tournament(spec, out)


def run_dask(spec: TournamentSpec, out_dir: str | os.PathLike[str], client: Any, *,
             data_dir: str | os.PathLike[str] | None = None,
             force: bool = False,
             before_play: Callable[[], None] | None = None,
             progress: bool = False, patience: float = PATIENCE_S) -> TournamentSummary:
    """Run every unit on a ``dask.distributed`` client (``pip install chessmoe[dask]``); then
    summarise (a finished committed tournament and ``before_play``: as :func:`run_local`).

    Workers may start in any directory: every path a unit carries (the players' networks and
    engines, the opening suite, ``out_dir``, ``data_dir``) is made absolute here and checked
    here, and each network file travels with its sha256 (:func:`placed_units`). Before
    anything is written, every worker checks that it sees those paths with the same content
    and runs the same kit, and that it sees this ``out_dir`` (a file written here and read
    there); a worker that does not stops the run with one line naming the path and the
    worker, and a directory this run created is removed again. A worker joining later checks
    each unit before its first game. A worker killed mid-unit is replaced by its nanny and
    the unit resumes its log on another (every game recorded once); a run whose workers are
    all gone (or none declares the GPU its units ask for) stops after ``patience`` seconds.
    """
    import secrets

    out = absolute(out_dir)
    data = absolute(data_dir) if data_dir is not None else None
    todo = placed_units(spec, out, data)
    wait_for_workers(client)
    created = _created_dirs(out)
    out.mkdir(parents=True, exist_ok=True)
    run = secrets.token_hex(4)  # this run's task keys: never another run's on the cluster
    probe = out / f".dask-check-{run}"
    try:
        token = secrets.token_hex(16)
        probe.write_text(token)
        seen = Need(str(probe), "a file the client wrote into --out, read to check the worker "
                                "sees the same directory", sha256_file(probe))
        check_workers(client, [replace(u.placement, needs=(*u.placement.needs, seen))
                               for u in todo], patience)
    except BaseException:
        probe.unlink(missing_ok=True)
        for directory in created:  # nothing half-written: the run leaves no empty directory
            with suppress(OSError):
                directory.rmdir()
        raise
    probe.unlink(missing_ok=True)
    _check_recorded_rules(spec, out)
    _write_spec(spec, out, data, force=force)
    if before_play is not None:
        before_play()
    # GPU units ask for one "GPU" resource: start each GPU worker pinned to its device with
    # CUDA_VISIBLE_DEVICES=k and --resources "GPU=1" (docs/playing-at-scale.md)
    futures = [client.submit(run_unit, unit, str(out), str(data) if data else None,
                             key=f"chessmoe-{spec.name}-{unit.id}-{run}", pure=False,
                             resources={"GPU": 1} if unit.gpu else None)
               for unit in todo]
    bar = tqdm(total=len(todo), desc=spec.name, unit="shard", disable=not progress)
    gather(client, futures, gpu=[u.gpu for u in todo], patience=patience,
           on_done=lambda _: bar.update(1))
    bar.close()
    return summarise_tournament(spec, out)


def _created_dirs(path: Path) -> list[Path]:
    """The directories ``path.mkdir(parents=True)`` would create, deepest first."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    return missing


def placed_units(spec: TournamentSpec, out_dir: Path, data_dir: Path | None) -> list[Unit]:
    """:func:`units` for workers elsewhere: each unit's players with absolute paths, its
    opening suite resolved here (``embedded`` stays, checked by checksum), and its
    :class:`~chessmoe.play.placement.Placement`: every network file with its sha256 here, the
    suite, and ``out_dir`` to write into. A path missing here is a one-line error."""
    openings, suite_sha256, suite_needs = place_openings(spec.openings, data_dir)
    out_need = Need(str(out_dir), "the tournament directory (--out)", writable=True)
    players: dict[str, tuple[PlayerSpec, tuple[Need, ...]]] = {}

    def placed(player: PlayerSpec) -> tuple[PlayerSpec, tuple[Need, ...]]:
        key = json.dumps(player.to_dict(), sort_keys=True, default=str)
        if key not in players:  # each player's files read once
            players[key] = place_player(player)
        return players[key]

    matches = []
    needs: dict[str, tuple[Need, ...]] = {}
    for match in spec.matches:
        (first, first_needs), (second, second_needs) = placed(match.first), placed(match.second)
        matches.append(replace(match, first=first, second=second))
        needs[match.name] = (*first_needs, *second_needs, *suite_needs, out_need)
    return [replace(unit, placement=placement(needs[unit.match.name], suite_sha256))
            for unit in units(replace(spec, matches=tuple(matches), openings=openings))]


def summarise_tournament(spec: TournamentSpec, out_dir: str | os.PathLike[str]
                         ) -> TournamentSummary:
    """Per match: W/D/L, pentanomial counts, cutechess Elo +- margin with the interval's
    ends, terminations; writes ``summary.json`` and each match's ``games.pgn``."""
    out = Path(out_dir)
    played = {m.name: load_records(sorted((out / m.name).glob("games-*.jsonl")))
              for m in spec.matches}
    _check_recorded_rules(spec, out, played)
    matches = []
    for match in spec.matches:
        records = played[match.name]
        if records:
            write_pgn(sorted(records, key=lambda r: r.slot or ""),
                      out / match.name / "games.pgn")
        matches.append(TournamentMatch(
            match.name, tuple(dict(match.labels).items()), 2 * match.pairs, summarise(records),
            sprt_record(match.sprt, records) if match.sprt is not None else None))
    recorded = json.loads((out / "spec.json").read_text()) if (out / "spec.json").exists() \
        else {}
    path = out / "summary.json"
    previous = json.loads(path.read_text()) if path.exists() else {}
    ours = {m.name for m in spec.matches}
    others = {m["name"] for m in recorded.get("matches", [])} - ours
    # matches recorded by an earlier run of other matches keep their entries
    kept = [TournamentMatch.from_json(m) for m in previous.get("matches", [])
            if m.get("name") in others]
    every = (*kept, *matches)
    summary = TournamentSummary(
        tournament=spec.name, openings=spec.openings,
        openings_suite=recorded.get("openings_suite"), seed=spec.seed,
        adjudication=asdict(spec.adjudication), matches=every,
        complete=all(m.complete for m in every))
    # Nothing new played: keep the summary, and with it the provenance of the run that
    # played the games, rather than stamping it with a later commit and date (a summary
    # written before a rules field, or the interval's ends, existed is the same summary).
    if previous and _same_summary(previous, summary):
        return TournamentSummary.from_json(previous)
    summary = replace(summary, provenance=provenance())
    atomic_write_json(path, summary.to_json())
    return summary


def _same_summary(previous: dict[str, Any], summary: TournamentSummary) -> bool:
    """Whether a written summary says what ``summary`` says (its provenance aside), read as
    the kit reads it (:func:`_read_rules`, :meth:`TournamentSummary.from_json`)."""
    try:
        before = TournamentSummary.from_json(previous).to_json()
    except (KeyError, TypeError, ValueError):
        return False  # not a summary the kit wrote
    now = summary.to_json()
    for data in (before, now):
        data.pop("provenance", None)
    # as JSON text: a nan (an undefined margin) equals itself there
    return (json.dumps(_read_rules(before), sort_keys=True)
            == json.dumps(_read_rules(now), sort_keys=True))


def sprt_record(rule: SprtRule, records: Sequence[GameRecord]) -> SprtRecord:
    """A sequential test's bounds and state over a match's records (its complete pairs)."""
    return SprtRecord.of(records, **asdict(rule))


def only_matches(spec: TournamentSpec, names: Sequence[str]) -> TournamentSpec:
    """The tournament restricted to the matches ``names`` (in the design's order): play one
    engine's match while another is still being trained, and add the rest later (a
    tournament directory accepts matches added to it; it refuses one played differently)."""
    known = [m.name for m in spec.matches]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise KitError(f"tournament {spec.name!r} has no match {unknown[0]!r}; its matches: "
                       + (", ".join(known) or "none (is every engine's run present?)"))
    return replace(spec, matches=tuple(m for m in spec.matches if m.name in set(names)))


def with_pairs(spec: TournamentSpec, pairs: int) -> TournamentSpec:
    """The same tournament with another number of pairs per match."""
    return replace(spec, matches=tuple(replace(m, pairs=pairs) for m in spec.matches))


def projection_parts(spec: TournamentSpec
                     ) -> list[tuple[str, list[tuple[int, int | None, int | None]]]]:
    """The tournament's matches grouped into parts (each method's grid, the ablation, the
    definitions) as ``(games, nodes per move, move time ms)`` for
    :func:`chessmoe.play.projection.project`."""
    parts: dict[str, list[tuple[int, int | None, int | None]]] = {}
    for match in spec.matches:
        kind = match.label("kind", "match")
        part = (f"{kind}: {match.label('method')}" if kind == "method"
                else "single-expert ablation" if kind == "ablation"
                else "phase definitions" if kind == "definition" else str(kind))
        parts.setdefault(part, []).append((2 * match.pairs, match.first.nodes,
                                           match.first.movetime_ms))
    return list(parts.items())
