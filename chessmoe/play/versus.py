"""One two-engine match with its summary: the related documents' experiment shape.

The related documents report single head-to-head results (e.g. the n-tuple document's
"CT8 vs ORI2: 65.25 %"). :func:`versus` plays such a match with paired openings
(:func:`chessmoe.play.openings.schedule`: every opening twice, colours swapped) through
:func:`chessmoe.play.match.play_match` (resumable ``games.jsonl``), writes ``games.pgn`` and a
``summary.json``: the first engine's wins, draws, losses, score, cutechess Elo with its
margin and LOS (:func:`chessmoe.elo.trinomial`), the pentanomial Elo of the game pairs,
how games ended, the engines' mean nodes per move, and the document's number to set beside
it, with provenance.
"""

from __future__ import annotations

import collections
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from chessmoe._io.fsutil import atomic_write_json
from chessmoe._io.provenance import provenance
from chessmoe.elo import pentanomial, trinomial
from chessmoe.play.match import (
    Adjudication,
    PlayerKind,
    PlayerSpec,
    play_match,
    write_pgn,
)
from chessmoe.play.openings import read_epd, resolve_suite, schedule
from chessmoe.records import (
    OtherRunError,
    VersusSummary,
    load_records,
    mean_nodes,
    pentanomial_counts,
)
from chessmoe.search.mcts import Limits

__all__ = ["STOCKFISH_CHECK_NODES", "Headline", "VersusSummary", "searcher_speed", "versus",
           "vs_stockfish"]


@dataclass(frozen=True)
class Headline:
    """A document's reported result to compare with: what, and its score (fraction)."""

    what: str
    score: float


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def versus(first: PlayerSpec, second: PlayerSpec, out_dir: str | Path, *, pairs: int,
           seed: int = 0, suite: str = "embedded", headline: Headline | None = None,
           rules: Adjudication | None = None, event: str = "chessmoe related match"
           ) -> VersusSummary:
    """Play ``pairs`` opening pairs of ``first`` against ``second`` into ``out_dir``.

    A match resumes from the games already in ``out_dir``, but only games played under the
    same draw rules (as their records say): the summary names one adjudication for all of
    them, so a log from other rules, or one whose records name no rules, raises
    ``ValueError`` before anything is played."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen = rules or Adjudication()
    log = out / "games.jsonl"
    if log.is_file():
        earlier = {r.provenance.draw_rules if r.provenance else None
                   for r in load_records([log])}
        if earlier - {chosen.draw_rules}:
            named = ", ".join(sorted(str(x) if x else "not recorded" for x in earlier))
            raise OtherRunError(f"{log}: its games were played under other draw rules ({named}) "
                                f"than this match's ({chosen.draw_rules}); use another directory")
    suite_path = resolve_suite(suite)
    slots = schedule(read_epd(suite_path), pairs, seed)
    records = play_match(first, second, slots, log, rules=chosen, event=event)
    write_pgn(records, out / "games.pgn")
    scores = [r.first_score for r in records if r.first_score is not None]
    wins = sum(s == 1.0 for s in scores)
    losses = sum(s == 0.0 for s in scores)
    draws = len(scores) - wins - losses
    estimate = trinomial(wins, losses, draws)
    counts = pentanomial_counts(records)  # its complete pairs (an interrupted run: the whole)
    penta = pentanomial(counts)
    nodes_first, nodes_second = mean_nodes(records)
    summary = VersusSummary(
        first=first.name, second=second.name, games=len(scores), wins=wins, draws=draws,
        losses=losses, score=round(estimate.score, 4), elo=round(estimate.elo, 1),
        elo_margin=round(estimate.margin, 1), los=round(estimate.los, 1),
        pentanomial=counts, pentanomial_elo=round(penta.elo, 1),
        pentanomial_margin=round(penta.margin, 1),
        terminations=dict(collections.Counter(r.termination for r in records)),
        mean_nodes_first=_rounded(nodes_first), mean_nodes_second=_rounded(nodes_second),
        line=estimate.line())
    atomic_write_json(out / "summary.json", {
        **summary.to_json(),
        "players": {"first": first.to_dict(), "second": second.to_dict()},
        "openings": {"suite": suite, "file": suite_path.name, "pairs": pairs, "seed": seed},
        "adjudication": asdict(chosen),
        "document": asdict(headline) if headline else None,
        "provenance": provenance()})
    return summary


def searcher_speed(kind: str, model_dir: str | Path | None, fens: list[str], *,
                   nodes: int) -> dict[str, float]:
    """Nodes per second of a related engine: one search of ``nodes`` nodes per FEN, total
    nodes over total wall time (single thread, this machine)."""
    import chess

    from chessmoe.play.players import build_searcher

    searcher = build_searcher(kind, model_dir)
    total_nodes = 0
    began = time.perf_counter()
    for fen in fens:
        total_nodes += searcher.play(chess.Board(fen), Limits(nodes=nodes)).nodes
    seconds = time.perf_counter() - began
    return {"positions": len(fens), "nodes": total_nodes, "seconds": round(seconds, 3),
            "nodes_per_second": round(total_nodes / seconds, 1) if seconds > 0 else 0.0}


# Each related engine's nodes a move in its games against Stockfish (the committed runs'
# ``vs-stockfish/`` folders were played so); the opponent is Stockfish at Skill Level 0 and
# 200 nodes a move.
STOCKFISH_CHECK_NODES: dict[PlayerKind, int] = {"deepchess": 200, "mais": 1500, "ntuple": 400}
STOCKFISH_CHECK_OPPONENT_NODES = 200


def vs_stockfish(kind: str, run_dir: str | Path, *, pairs: int = 5, seed: int = 12,
                 stockfish: str | Path | None = None) -> VersusSummary:
    """The related engine trained in ``run_dir`` against Stockfish at Skill Level 0 (200
    nodes), ``pairs`` opening pairs of the embedded suite, into ``run_dir/vs-stockfish``
    (resumable). These games show complete play; at 10 games they rate nothing."""
    from chessmoe._io.errors import KitError
    from chessmoe._io.external import find_stockfish
    from chessmoe.play.players import RELATED_WEIGHTS

    if kind not in STOCKFISH_CHECK_NODES:
        raise KitError(f"unknown related engine {kind!r}; expected one of "
                       f"{', '.join(sorted(STOCKFISH_CHECK_NODES))}")
    if pairs < 1:
        raise KitError(f"pairs={pairs}: expected at least 1")
    run = Path(run_dir)
    weights = run / RELATED_WEIGHTS[kind]
    if not weights.is_file():
        raise KitError(f"{run} holds no {weights.name}: train the engine first "
                       f"(chessmoe related train {kind} --out {run})")
    engine = find_stockfish(stockfish)
    first = PlayerSpec(name=run.name, kind=kind, experts=str(run),
                       nodes=STOCKFISH_CHECK_NODES[kind])
    second = PlayerSpec(name="stockfish-sl0", kind="uci", command=(str(engine),),
                        options=(("Skill Level", 0),), nodes=STOCKFISH_CHECK_OPPONENT_NODES)
    return versus(first, second, run / "vs-stockfish", pairs=pairs, seed=seed)
