"""The phase explorer for teachers: boards, borderline positions, a worked mixedness example and
a game replayer, all on the rules of ``docs/phases.md`` (:mod:`chessmoe.phases`).

* :func:`position_facts` -- the three numbers behind a position's phase and the phase itself;
* :func:`borderline_examples` / :func:`typical_examples` -- pairs of consecutive positions from
  real games where one rule just flips the phase (mixedness crossing 150, a back rank just
  turning sparse, 7 -> 6 majors and minors), and one clear position per phase;
* :func:`mixedness_table` / :func:`window_svg` -- the windows that make a mixedness, as a table
  and as a board with windows highlighted;
* :func:`replay` / :func:`replay_table` -- every ply of a game: mixedness, piece count,
  position-only phase and whole-game division side by side;
* :class:`PhaseExplorerWidget` -- choose a game, table and ply; board and numbers side by side.

Tables use human column names with units, never snake_case.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.svg
import pandas as pd

from chessmoe import phases
from chessmoe.phases import Phase, WindowScore

__all__ = [
    "Example",
    "PhaseExplorerWidget",
    "PositionFacts",
    "ReplayRow",
    "SampleGame",
    "board_svg",
    "borderline_examples",
    "example_html",
    "facts_table",
    "load_sample_games",
    "mixedness_table",
    "position_facts",
    "replay",
    "replay_table",
    "typical_examples",
    "window_svg",
]

_svg_board: Any = chess.svg.board  # python-chess's SVG renderer (untyped for mypy here)

PHASE_NAMES = {Phase.OPENING: "opening", Phase.MIDDLEGAME: "middlegame",
               Phase.ENDGAME: "endgame"}
#: The score rule of each (white, black) window under the Lichess table (docs/phases.md).
LICHESS_RULES = {(1, 0): "9 - y", (2, 0): "y if y > 2, else 0", (3, 0): "y + 2 if y > 1, else 0",
                 (4, 0): "y + 2 if y > 1, else 0", (0, 1): "1 + y",
                 (0, 2): "8 - y if y < 6, else 0", (0, 3): "10 - y if y < 7, else 0",
                 (0, 4): "10 - y if y < 7, else 0", (1, 1): "5 + |3 - y|", (2, 1): "4 + y",
                 (3, 1): "5 + y", (1, 2): "10 - y", (2, 2): "7", (1, 3): "11 - y"}


@dataclass(frozen=True)
class PositionFacts:
    """What decides one position's phase."""

    fen: str
    mixedness: int
    majors_minors: int
    white_back_rank: int  # White's own pieces on rank 1
    black_back_rank: int  # Black's own pieces on rank 8
    back_rank_sparse: bool
    phase: str  # position-only phase
    reason: str  # one sentence: which rule decided it


def position_facts(board: chess.Board, table: str = "lichess") -> PositionFacts:
    """The phase of ``board`` with the numbers and the rule that decide it."""
    mix = phases.mixedness(board, table)
    m = phases.majors_minors(board)
    white = (board.occupied_co[chess.WHITE] & chess.BB_RANK_1).bit_count()
    black = (board.occupied_co[chess.BLACK] & chess.BB_RANK_8).bit_count()
    sparse = phases.backrank_sparse(board)
    phase = phases.lichess_phase(board, table)
    if phase == Phase.ENDGAME:
        reason = f"{m} majors and minors (at most 6): endgame."
    elif phase == Phase.MIDDLEGAME:
        why = [text for hit, text in (
            (m <= 10, f"{m} majors and minors (at most 10)"),
            (sparse, f"a sparse back rank (White {white}, Black {black} on their first rank; "
                     "fewer than 4)"),
            (mix > 150, f"mixedness {mix} (above 150)")) if hit]
        reason = "Middlegame because of " + " and ".join(why) + "."
    else:
        reason = (f"Opening: {m} majors and minors (more than 10), back ranks White {white} and "
                  f"Black {black} (4 or more), mixedness {mix} (150 or less).")
    return PositionFacts(fen=board.fen(), mixedness=mix, majors_minors=m, white_back_rank=white,
                         black_back_rank=black, back_rank_sparse=sparse,
                         phase=PHASE_NAMES[phase], reason=reason)


def facts_table(facts: Sequence[PositionFacts], labels: Sequence[str] | None = None
                ) -> pd.DataFrame:
    """Positions side by side, one column each, rows with human names and units."""
    columns = labels or [f"position {i + 1}" for i in range(len(facts))]
    rows = {"Phase (position only)": [f.phase for f in facts],
            "Mixedness (points; > 150 = middlegame)": [f.mixedness for f in facts],
            "Majors + minors (pieces; <= 10 middlegame, <= 6 endgame)":
                [f.majors_minors for f in facts],
            "White pieces on rank 1": [f.white_back_rank for f in facts],
            "Black pieces on rank 8": [f.black_back_rank for f in facts],
            "Back rank sparse (< 4)": ["yes" if f.back_rank_sparse else "no" for f in facts],
            "Why": [f.reason for f in facts]}
    return pd.DataFrame(rows, index=columns).T


# --- games ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleGame:
    """A game to replay: a label, its start position and moves."""

    label: str
    start_fen: str | None
    moves: tuple[chess.Move, ...]

    def boards(self) -> list[chess.Board]:
        """The start position and the board after every move."""
        board = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        out = [board.copy(stack=False)]
        for move in self.moves:
            board.push(move)
            out.append(board.copy(stack=False))
        return out


def load_sample_games(path: str | os.PathLike[str] | None = None, *, count: int = 30
                      ) -> list[SampleGame]:
    """The first ``count`` games of a PGN file (default: the kit's embedded self-play sample),
    read through :func:`chessmoe.games.pgn.iter_games`."""
    from chessmoe.games import pgn, sources

    source = Path(path) if path is not None else sources.sample_path()
    games = []
    records: Iterable[pgn.GameRecord[chess.Board]] = pgn.iter_games(source, max_games=count)
    for record in records:
        h = record.headers
        label = (f"game {record.ordinal + 1}: {h.get('White', '?')} - {h.get('Black', '?')} "
                 f"{record.result}, {record.plies} plies")
        games.append(SampleGame(label, record.start_fen, tuple(record.moves)))
    return games


@dataclass(frozen=True)
class ReplayRow:
    """One position of a replayed game."""

    ply: int
    move: str  # SAN of the move that led here ("" at the start)
    fullmove: int
    mixedness: int
    majors_minors: int
    back_rank_sparse: bool
    phase: str  # position-only
    division: str  # whole-game division


def replay(game: SampleGame, table: str = "lichess") -> list[ReplayRow]:
    """Every position of ``game`` with its numbers, its own phase and its division phase."""
    boards = game.boards()
    division = phases.lichess_division(boards, table)
    rows = []
    board = boards[0].copy()
    for ply, position in enumerate(boards):
        san = ""
        if ply:
            move = game.moves[ply - 1]
            san = board.san(move)
            board.push(move)
        rows.append(ReplayRow(
            ply=ply, move=san, fullmove=position.fullmove_number,
            mixedness=phases.mixedness(position, table),
            majors_minors=phases.majors_minors(position),
            back_rank_sparse=phases.backrank_sparse(position),
            phase=PHASE_NAMES[phases.lichess_phase(position, table)],
            division=PHASE_NAMES[division.phase_at(ply)]))
    return rows


def replay_table(rows: Iterable[ReplayRow]) -> pd.DataFrame:
    """The replay as a table with human column names and units."""
    return pd.DataFrame([{
        "Ply": r.ply, "Move": r.move, "Move number": r.fullmove,
        "Mixedness (points)": r.mixedness, "Majors + minors (pieces)": r.majors_minors,
        "Back rank sparse": "yes" if r.back_rank_sparse else "no",
        "Phase (position only)": r.phase, "Phase (whole-game division)": r.division,
    } for r in rows]).set_index("Ply")


# --- examples ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """Two consecutive positions of a game across one rule (or one clear position)."""

    title: str
    game: str
    ply: int  # ply of ``after``
    move: str  # the move from before to after
    before: PositionFacts | None
    after: PositionFacts


def _pairs(games: Sequence[SampleGame], table: str
           ) -> Iterable[tuple[SampleGame, int, str, PositionFacts, PositionFacts]]:
    for game in games:
        boards = game.boards()
        facts = [position_facts(b, table) for b in boards]
        for ply in range(1, len(boards)):
            san = boards[ply - 1].san(game.moves[ply - 1])
            yield game, ply, san, facts[ply - 1], facts[ply]


def borderline_examples(games: Sequence[SampleGame], table: str = "lichess") -> list[Example]:
    """The first pair of consecutive positions in ``games`` where, the other rules held still,

    * the mixedness crosses 150 (opening -> middlegame by mixedness alone),
    * a back rank just turns sparse (opening -> middlegame by the back rank alone),
    * majors and minors go from 7 to 6 (middlegame -> endgame).
    """
    wanted: dict[str, Callable[[PositionFacts, PositionFacts], bool]] = {
        "Mixedness crosses 150": lambda a, b: (
            a.mixedness <= 150 < b.mixedness and not a.back_rank_sparse
            and not b.back_rank_sparse and a.majors_minors > 10 and b.majors_minors > 10),
        "A back rank turns sparse": lambda a, b: (
            not a.back_rank_sparse and b.back_rank_sparse and a.mixedness <= 150
            and b.mixedness <= 150 and b.majors_minors > 10),
        "7 -> 6 majors and minors": lambda a, b: (a.majors_minors == 7
                                                  and b.majors_minors == 6),
    }
    found: dict[str, Example] = {}
    for game, ply, san, a, b in _pairs(games, table):
        for title, test in wanted.items():
            if title not in found and test(a, b):
                found[title] = Example(title, game.label, ply, san, a, b)
        if len(found) == len(wanted):
            break
    return [found[t] for t in wanted if t in found]


def typical_examples(games: Sequence[SampleGame], table: str = "lichess") -> list[Example]:
    """One clear position per phase: an opening with mixedness under 100 and full back ranks,
    a middlegame with 11+ majors and minors, a sparse back rank and mixedness above 200, and an
    endgame with at most 4 majors and minors."""
    wanted: dict[str, Callable[[PositionFacts], bool]] = {
        "Typical opening": lambda f: (f.phase == "opening" and f.mixedness < 100
                                      and f.majors_minors >= 13),
        "Typical middlegame": lambda f: (f.phase == "middlegame" and f.majors_minors >= 11
                                         and f.back_rank_sparse and f.mixedness > 200),
        "Typical endgame": lambda f: f.phase == "endgame" and f.majors_minors <= 4,
    }
    found: dict[str, Example] = {}
    for game, ply, san, _, b in _pairs(games, table):
        for title, test in wanted.items():
            if title not in found and ply >= 6 and test(b):
                found[title] = Example(title, game.label, ply, san, None, b)
        if len(found) == len(wanted):
            break
    return [found[t] for t in wanted if t in found]


# --- boards and the worked mixedness example -------------------------------------------------


def board_svg(fen: str, *, size: int = 260, fill: dict[int, str] | None = None,
              lastmove: chess.Move | None = None) -> str:
    """A python-chess SVG diagram of ``fen``."""
    return str(_svg_board(chess.Board(fen), size=size, fill=fill or {}, lastmove=lastmove,
                          coordinates=True))


def window_svg(fen: str, windows: Sequence[WindowScore], *, size: int = 260,
               colour: str = "#ff8c0080") -> str:
    """The board with the squares of ``windows`` highlighted."""
    fill = {square: colour for window in windows for square in window.squares}
    return board_svg(fen, size=size, fill=fill)


def mixedness_table(board: chess.Board, table: str = "lichess") -> pd.DataFrame:
    """Every window that holds a piece, with its counts, rank, rule and score; the scores sum
    to the mixedness."""
    rows = []
    for w in phases.window_scores(board, table):
        if w.white + w.black == 0:
            continue
        rule = LICHESS_RULES.get((w.white, w.black), "0") if table == "lichess" else (
            "see docs/phases.md")
        rows.append({"Window (squares)": w.name, "White pieces": w.white,
                     "Black pieces": w.black, "Window rank y": w.rank,
                     "Rule (Lichess table)" if table == "lichess" else "Rule": rule,
                     "Score (points)": w.score})
    return pd.DataFrame(rows)


def example_html(example: Example, *, size: int = 240) -> str:
    """An example as HTML: its board(s) side by side, then the facts table (for notebooks)."""
    import html

    shown = [f for f in (example.before, example.after) if f is not None]
    captions = (["before", f"after {example.move} (ply {example.ply})"] if len(shown) == 2
                else [f"after {example.move} (ply {example.ply})"])
    boards = "".join(
        f"<figure style='display:inline-block;margin:4px'>{board_svg(f.fen, size=size)}"
        f"<figcaption>{html.escape(c)}</figcaption></figure>"
        for f, c in zip(shown, captions, strict=True))
    table = facts_table(shown, captions).to_html(escape=True)
    return (f"<h4>{html.escape(example.title)}</h4><p>{html.escape(example.game)}</p>"
            f"<div>{boards}</div>{table}")


# --- the widget ----------------------------------------------------------------------------


class PhaseExplorerWidget:
    """Choose a game, a mixedness table and a ply: board, the numbers, the position-only
    phase and the whole-game division side by side (:attr:`box`).

    Controls and outputs are attributes so tests can drive the callbacks headlessly.
    """

    def __init__(self, games: Sequence[SampleGame], *, table: str = "lichess",
                 game: int = 0, ply: int = 0) -> None:
        import ipywidgets as widgets

        if not games:
            raise ValueError("the phase explorer needs at least one game")
        self.games = list(games)
        self.game = widgets.Dropdown(options=[(g.label, i) for i, g in enumerate(self.games)],
                                     value=game, description="game", layout={"width": "640px"})
        self.table = widgets.Dropdown(options=list(phases.MIXEDNESS_TABLES), value=table,
                                      description="mixedness table",
                                      style={"description_width": "initial"})
        self.ply = widgets.IntSlider(value=ply, min=0, max=len(self.games[game].moves),
                                     description="ply", layout={"width": "640px"})
        self.board = widgets.HTML()
        self.facts = widgets.HTML()
        self.rows: list[ReplayRow] = []
        self.game.observe(self._new_game, names="value")
        self.table.observe(self._new_game, names="value")
        self.ply.observe(self.update, names="value")
        self.box = widgets.VBox([self.game, widgets.HBox([self.table]), self.ply,
                                 widgets.HBox([self.board, self.facts])])
        self._new_game()

    def _new_game(self, *_: Any) -> None:
        chosen = self.games[self.game.value]
        self.rows = replay(chosen, self.table.value)
        self.ply.max = len(chosen.moves)
        self.ply.value = min(self.ply.value, self.ply.max)
        self.update()

    def update(self, *_: Any) -> None:
        """Redraw the board and the numbers for the chosen ply."""
        chosen = self.games[self.game.value]
        ply = self.ply.value
        board = chosen.boards()[ply]
        last = chosen.moves[ply - 1] if ply else None
        self.board.value = str(_svg_board(board, size=300, lastmove=last))
        row = self.rows[ply]
        facts = position_facts(board, self.table.value)
        division = phases.lichess_division(chosen.boards(), self.table.value)
        starts = (f"middlegame from ply {division.middle}" if division.middle is not None
                  else "no middlegame")
        starts += (f", endgame from ply {division.end}" if division.end is not None
                   else ", no endgame")
        self.facts.value = (
            "<table>"
            f"<tr><td>Ply (move)</td><td>{row.ply} ({row.move or 'start'})</td></tr>"
            f"<tr><td>Mixedness (points)</td><td>{row.mixedness}</td></tr>"
            f"<tr><td>Majors + minors (pieces)</td><td>{row.majors_minors}</td></tr>"
            f"<tr><td>Back rank sparse</td><td>{'yes' if row.back_rank_sparse else 'no'}</td>"
            "</tr>"
            f"<tr><td>Phase (position only)</td><td><b>{row.phase}</b></td></tr>"
            f"<tr><td>Phase (whole-game division)</td><td><b>{row.division}</b></td></tr>"
            f"<tr><td>Division of the game</td><td>{starts}</td></tr>"
            "</table>"
            f"<p>{facts.reason}</p>")
