"""The one interface a tournament design declares itself through: a frozen :class:`Design`.

A design states its matches as a :class:`Plan` (the kit's MCTS players over bundles of one
experts directory, as plain records: :mod:`chessmoe.play.designs` turns them into a
tournament), its claims rows (:attr:`Design.claims`, read from an :class:`Evidence`), what
the claims table says of its source and its rows (:attr:`Design.rows`, :class:`TableNotes`),
the profile ``chessmoe config show`` describes (:attr:`Design.profile`) and its progress rule
(:attr:`Design.awaited`). The claims table, the runs in progress, the figures' parameters and
the profiles iterate over :data:`chessmoe.designs.registry.REGISTERED`; the README's answer
(:mod:`chessmoe.report.answer`) names the claims rows it shows by the topics the designs
declare.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from chessmoe.designs.rows import ClaimTest
from chessmoe.played import load_arms
from chessmoe.records import GameRecord

__all__ = ["POWERED_SETTING", "Design", "Evidence", "Pairing", "Plan", "Side",
           "TableNotes", "trained", "versus"]

T = TypeVar("T")

#: Batch size and nodes per move of the powered design's every arm (the paper's default batch
#: size and its cheapest node limit), and of every design played at that setting.
POWERED_SETTING = (8, 100)


@dataclass(frozen=True)
class Side:
    """One side of a match: the kit's MCTS player searching with the bundle ``bundle`` (a
    directory under the experts root) at one setting; ``single_expert``, ``baseline`` (a
    bundle), ``routing`` and ``gate`` as its evaluator takes them (``None``: its default)."""

    name: str
    bundle: str
    batch: int
    nodes: int | None
    movetime: int | None = None
    single_expert: int | None = None
    baseline: str | None = None
    routing: str | None = None
    gate: str | None = None


@dataclass(frozen=True)
class Pairing:
    """One match of a design: ``first`` against ``second`` over ``pairs`` game pairs, drawing
    its openings from the opening group ``group``."""

    name: str
    first: Side
    second: Side
    pairs: int
    group: str
    labels: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Plan:
    """A design's tournament as plain records: its matches in the order they are played and
    read, its draw rules (``claim``: a game ends once a draw could be claimed, kept for the
    tournaments committed under it; ``cutechess``) and how its shards are cut."""

    name: str
    matches: tuple[Pairing, ...]
    draw_rules: Literal["claim", "cutechess"] = "cutechess"
    pairs_per_shard: int = 10
    games_at_once: int = 20


def trained(root: str | os.PathLike[str], bundle: str) -> bool:
    """Whether the bundle ``bundle`` under ``root`` is trained (its manifest is written)."""
    return (Path(root) / bundle / "manifest.json").exists()


def versus(first: str, second: str, pairs: int, labels: tuple[tuple[str, Any], ...],
           name: str | None = None) -> Pairing:
    """Bundle ``first`` against bundle ``second`` at the powered setting (batch 8, 100
    nodes, its openings group ``b8-n100``), named ``<first>-vs-<second>-b8-n100`` unless
    ``name``."""
    batch, nodes = POWERED_SETTING
    group = f"b{batch}-n{nodes}"
    return Pairing(name or f"{first}-vs-{second}-{group}", Side(first, first, batch, nodes),
                   Side(second, second, batch, nodes), pairs, group,
                   (*labels, ("batch_size", batch), ("nodes", nodes), ("movetime", None)))


@dataclass(frozen=True)
class Evidence:
    """What the designs' readings read: the experts directory, each given design's tournament
    directory by design name, and the setting of the main arms. Records are loaded once."""

    experts: Path
    tournaments: Mapping[str, Path]
    setting: str = "b8-n100"
    _memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def tournament(self, name: str) -> Path | None:
        """The directory of the design ``name``'s tournament (``None``: not given)."""
        return self.tournaments.get(name)

    def arms(self, name: str) -> dict[str, list[GameRecord]]:
        """Every match's records of the design ``name``'s tournament (empty when it is not
        given or has no directory yet)."""
        def load() -> dict[str, list[GameRecord]]:
            directory = self.tournament(name)
            return load_arms(directory) if directory is not None and directory.is_dir() else {}
        return self.memo(f"arms {name}", load)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, computed once for this evidence."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class TableNotes:
    """What a design adds under the claims table, by kind (each kind's notes follow one
    another in the registry's order): how its rows were registered, the training regime of
    its networks (read from the experts directory), and what its source counts."""

    registration: str = ""
    regime: Callable[[Path], str] | None = None
    source: str = ""


@dataclass(frozen=True)
class Design:
    """One tournament design, declared once.

    ``plan(experts_root, **options)``: its matches over the bundles under ``experts_root``;
    ``profile``: what ``chessmoe config show <name>`` says of it ('': no profile of its own);
    ``registered``: its rows were registered before its first game (its tournament is a
    parameter of the claims notebook); ``claims``: its rows, in order; ``rows`` / ``sources``:
    what the claims table's source line names (default: its tournament, ``for the <rows>
    rows``); ``notes``: what it adds under the claims table; ``awaited``: the bundles it
    plays whose training the runs in progress list as not begun once one of them has begun."""

    name: str
    plan: Callable[..., Plan]
    profile: str = ""
    registered: bool = False
    claims: Callable[[Evidence], list[ClaimTest]] | None = None
    rows: str = ""
    sources: Callable[[Evidence], list[tuple[Path, str]]] | None = None
    notes: TableNotes = TableNotes()
    awaited: tuple[str, ...] = ()

    @property
    def keyword(self) -> str:
        """The design's name as a Python keyword (``seeds-long``: ``seeds_long``)."""
        return self.name.replace("-", "_")

    def read_sources(self, evidence: Evidence) -> list[tuple[Path, str]]:
        """The tournaments the design's rows read, each with what it is read for."""
        if self.sources is not None:
            return self.sources(evidence)
        directory = evidence.tournament(self.name)
        return [(directory, f"{self.rows} rows")] if directory is not None and self.rows else []
