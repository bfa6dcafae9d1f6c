"""Tournaments of other engines: the rating list's round robins anchored to Stockfish
(``ratings``, committed under the claim reading of the draw rules, and ``ratings-cutechess``)
and the related documents' own experiments (``related``), each engine against its document's
baseline.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chessmoe._io.fsutil import sha256_file
from chessmoe.designs.base import POWERED_SETTING
from chessmoe.nets.names import RATING_ANCHOR, RATING_CHECK
from chessmoe.nets.related import RELATED_WEIGHTS
from chessmoe.play.match import Adjudication, PlayerSpec, SprtRule
from chessmoe.play.plans import CLAIM_RULES, mcts_player
from chessmoe.play.tournament import MatchSpec, TournamentSpec

__all__ = ["MAIS_SPRT", "MAIS_SPRT_PAIRS", "RATING_ANCHOR", "RATING_CHECK",
           "ratings_claim_spec", "ratings_spec", "related_spec", "stockfish_anchors"]


def stockfish_anchors() -> list[PlayerSpec]:
    """Stockfish 15.1 players spanning the kit's engines: Skill Level 0 at 50 and 200 nodes,
    and UCI_LimitStrength at UCI_Elo 1350 (its minimum) and 1500, with 100 ms a move. The
    1350 player is the anchor (Stockfish calibrates UCI_Elo at a time control, so even it is
    only roughly 1350 here); where the list then places the 1500 player checks how far
    Stockfish's own scale holds at 100 ms. Players are only ever appended to this list, so a
    committed round robin resumes with the new pairings added."""
    sl0 = (("Skill Level", 0), ("Threads", 1), ("Hash", 16))

    def limited(name: str, elo: int) -> PlayerSpec:
        return PlayerSpec(name=name, kind="uci", command=("stockfish",),
                          options=(("UCI_LimitStrength", True), ("UCI_Elo", elo),
                                   ("Threads", 1), ("Hash", 16)),
                          nodes=None, movetime_ms=100)

    return [PlayerSpec(name="sf-sl0-n50", kind="uci", command=("stockfish",), options=sl0,
                       nodes=50),
            PlayerSpec(name="sf-sl0-n200", kind="uci", command=("stockfish",), options=sl0,
                       nodes=200),
            limited(RATING_ANCHOR[0], 1350),
            limited(RATING_CHECK[0], RATING_CHECK[1])]


def _rating_players(experts_root: str, backend: str) -> list[PlayerSpec]:
    from chessmoe.play.players import RELATED_KINDS, default_model_dir

    batch, nodes = POWERED_SETTING
    players = [mcts_player(name, str(Path(experts_root) / name), batch, nodes, None,
                           backend=backend) for name in ("regular", "staged")
               if (Path(experts_root) / name / "manifest.json").exists()]
    players += [PlayerSpec(name=kind, kind=kind, nodes=nodes)  # type: ignore[arg-type]
                for kind in RELATED_KINDS if default_model_dir(kind) is not None]
    return players + stockfish_anchors()


def ratings_claim_spec(experts_root: str, *, pairs: int = 3, backend: str = "onnx"
                       ) -> TournamentSpec:
    """The committed rating list's design (``results/tournaments/ratings``): one round robin,
    ``pairs`` openings shared by every pairing, under the claim reading of the draw rules.
    Kept so that tournament can be resumed and checked; :func:`ratings_spec` (design
    ``ratings-cutechess``) replaces it."""
    players = _rating_players(experts_root, backend)
    matches = [MatchSpec(name=f"{a.name}-vs-{b.name}", first=a, second=b, pairs=pairs,
                         openings_group="round-robin",
                         labels=(("kind", "rating"), ("first", a.name), ("second", b.name)))
               for i, a in enumerate(players) for b in players[i + 1:]]
    return TournamentSpec("ratings", tuple(matches), openings="embedded", pairs_per_shard=3,
                          games_at_once=1, adjudication=CLAIM_RULES)


def ratings_spec(experts_root: str, *, pairs: int = 8, backend: str = "onnx"
                 ) -> TournamentSpec:
    """One round robin for a rating list anchored to Stockfish, under cutechess's draw rules:
    the regular network and the staged mixture (the best method of the small tournament,
    chosen before the first list was played) at the powered setting (batch 8, 100 nodes),
    the related documents' engines whose trained weights are committed (each at 100 of its
    own nodes, labelled with its weights' checksum) and the Stockfish anchors
    (:func:`stockfish_anchors`). Each pairing plays ``pairs`` openings of its own with both
    colours: with 8 players and 8 pairs every engine plays 7 x 16 = 112 games from 56
    openings. A round robin (not a gauntlet against the anchors only) so that every
    engine's rating rests on games against all the others."""
    from chessmoe.play.players import RELATED_KINDS

    players = _rating_players(experts_root, backend)

    def labels(player: PlayerSpec) -> tuple[tuple[str, Any], ...]:
        if player.kind not in RELATED_KINDS:
            return ()
        from chessmoe.play.players import default_model_dir

        run = default_model_dir(player.kind)
        return ((f"weights_{player.name}", _weights_label(player.kind, run)),) if run else ()

    matches = [MatchSpec(name=f"{a.name}-vs-{b.name}", first=a, second=b, pairs=pairs,
                         openings_group=f"{a.name}-vs-{b.name}",
                         labels=(("kind", "rating"), ("first", a.name), ("second", b.name),
                                 *labels(a), *labels(b)))
               for i, a in enumerate(players) for b in players[i + 1:]]
    return TournamentSpec("ratings-cutechess", tuple(matches), openings="embedded",
                          pairs_per_shard=4, games_at_once=1, adjudication=Adjudication())


def _weights_label(kind: str, run: Path) -> str:
    """The first 12 hex digits of a run's weights file: a label of the match, so a tournament
    whose engine was retrained under the same path is refused, not mixed ("missing" when
    the run has no weights file: its games would fail with a message naming it)."""
    path = run / RELATED_WEIGHTS[kind]
    return sha256_file(path)[:12] if path.is_file() else "missing"


MAIS_SPRT = SprtRule(elo0=0.0, elo1=35.0, alpha=0.05, beta=0.05, model="logistic", exact=True)
"""The MAIS match's sequential test: H0, the 1,200-game net is no stronger than the
200-game net (logistic Elo 0), against H1, it scores 55 % (+35 Elo, the kit's target for the
document's claim); 5 % error each way; the exact generalized LLR over game pairs (fishtest's,
fastchess's)."""
MAIS_SPRT_PAIRS = 1000  # the cap: 2,000 games; the test is expected to end long before


def related_spec(experts_root: str, *, related_root: str | os.PathLike[str] | None = None,
                 ntuple_pairs: int = 500, pairs: int = 100) -> TournamentSpec:
    """The related documents' own experiments, each engine against its document's baseline,
    under cutechess's draw rules, every match on its own openings:

    * ``ntuple-vs-pesto``: the comparison-trained n-tuple engine against the hand-tuned PeSTO
      tapered evaluation (the document's baseline is a tuned linear evaluation), both at 400
      nodes, ``ntuple_pairs`` pairs (1,000 games); ``ntuple-d2-vs-pesto`` likewise for the
      d = 2 run (``related/ntuple-d2``) when it is trained, and ``ntuple-d2-vs-ntuple`` the
      two trained engines head to head on shared openings (the document's Table IX: 2-ply
      against 1-ply training, 57.65 % for 2-ply);
    * ``mais-vs-mais-at-200``: the self-play value network after all its games against itself
      after 200 (``at-200-games/``, kept by the large profile), 1,500 nodes each, ``pairs``;
      ``mais-vs-mais-at-200-sprt`` the same players on openings of their own until a
      pentanomial SPRT decides (:data:`MAIS_SPRT`: H0 0 Elo against H1 +35 Elo, the kit's
      55 % target score; alpha = beta = 0.05), at most ``MAIS_SPRT_PAIRS`` pairs;
    * ``deepchess-vs-material``: DeepChess's comparator search against a material-only
      alpha-beta, both to depth 3, ``pairs`` pairs. The material engine resolves captures
      past depth 3 (quiescence) and DeepChess's search does not;
      ``deepchess-vs-material-flat`` is the same match with the material engine's quiescence
      off, so both searches stop at the same horizon (a test of how much of the first
      match's gap that one difference makes); ``deepchess-quiet-vs-material`` gives
      DeepChess a quiescence search of its own (``Quiescence``) against the first match's
      material engine: both searches then resolve captures past depth 3;
      ``deepchess-d4-vs-material-flat`` searches one ply deeper than the flat match, both
      engines to depth 4 without quiescence (the document's search, past depth 3).

    Runs are read from ``related_root`` (default: ``results/related`` beside the experts);
    a match whose run is absent is left out, and each match is labelled with its engines'
    weights checksums, so a retrained engine starts a new design instead of resuming."""
    root = (Path(related_root) if related_root is not None
            else Path(experts_root).resolve().parents[1] / "related")
    matches: list[MatchSpec] = []

    def present(kind: str, run: Path) -> bool:
        return (run / RELATED_WEIGHTS[kind]).is_file()

    def add(name: str, first: PlayerSpec, second: PlayerSpec, count: int,
            runs: tuple[tuple[str, Path], ...], sprt: SprtRule | None = None) -> None:
        labels = tuple((f"weights_{side}", _weights_label(kind, run))
                       for side, (kind, run) in zip(("first", "second"), runs, strict=False))
        matches.append(MatchSpec(name=name, first=first, second=second, pairs=count,
                                 openings_group=name,
                                 labels=(("kind", "related"), *labels), sprt=sprt))

    for run_name in ("ntuple", "ntuple-d2"):
        run = root / run_name
        if present("ntuple", run):
            add(f"{run_name}-vs-pesto",
                PlayerSpec(name=run_name, kind="ntuple", experts=str(run), nodes=400),
                PlayerSpec(name="pesto", kind="ntuple", experts=str(run), nodes=400,
                           options=(("Evaluation", "pesto"),)),
                ntuple_pairs, (("ntuple", run),))
    shallow, deep = root / "ntuple", root / "ntuple-d2"
    if present("ntuple", shallow) and present("ntuple", deep):
        # the document's Table IX (2-ply against 1-ply training, head to head)
        add("ntuple-d2-vs-ntuple",
            PlayerSpec(name="ntuple-d2", kind="ntuple", experts=str(deep), nodes=400),
            PlayerSpec(name="ntuple", kind="ntuple", experts=str(shallow), nodes=400),
            ntuple_pairs, (("ntuple", deep), ("ntuple", shallow)))
    mais, early = root / "mais", root / "mais" / "at-200-games"
    if present("mais", mais) and present("mais", early):
        add("mais-vs-mais-at-200",
            PlayerSpec(name="mais", kind="mais", experts=str(mais), nodes=1500),
            PlayerSpec(name="mais-at-200", kind="mais", experts=str(early), nodes=1500),
            pairs, (("mais", mais), ("mais", early)))
        add("mais-vs-mais-at-200-sprt",
            PlayerSpec(name="mais", kind="mais", experts=str(mais), nodes=1500),
            PlayerSpec(name="mais-at-200", kind="mais", experts=str(early), nodes=1500),
            MAIS_SPRT_PAIRS, (("mais", mais), ("mais", early)), sprt=MAIS_SPRT)
    deepchess = root / "deepchess"
    if present("deepchess", deepchess):
        add("deepchess-vs-material",
            PlayerSpec(name="deepchess", kind="deepchess", experts=str(deepchess), nodes=None,
                       options=(("Depth", 3),)),
            PlayerSpec(name="material", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-vs-material-flat",
            PlayerSpec(name="deepchess", kind="deepchess", experts=str(deepchess), nodes=None,
                       options=(("Depth", 3),)),
            PlayerSpec(name="material-flat", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3),
                                ("Quiescence", False))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-quiet-vs-material",
            PlayerSpec(name="deepchess-quiet", kind="deepchess", experts=str(deepchess),
                       nodes=None, options=(("Depth", 3), ("Quiescence", True))),
            PlayerSpec(name="material", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 3))),
            pairs, (("deepchess", deepchess),))
        add("deepchess-d4-vs-material-flat",
            PlayerSpec(name="deepchess-d4", kind="deepchess", experts=str(deepchess),
                       nodes=None, options=(("Depth", 4),)),
            PlayerSpec(name="material-d4-flat", kind="ntuple", experts=None, nodes=None,
                       options=(("Evaluation", "material"), ("Depth", 4),
                                ("Quiescence", False))),
            pairs, (("deepchess", deepchess),))
    return TournamentSpec("related", tuple(matches), openings="embedded", pairs_per_shard=10,
                          games_at_once=1, adjudication=Adjudication())

