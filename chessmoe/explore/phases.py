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
* :func:`move_list_html` / :func:`game_chart_svg` -- the game's moves with the current one
  marked, and its whole-game chart (mixedness and majors + minors per ply, the division's phases
  shaded, the current ply marked);
* :class:`PhaseExplorerWidget` -- choose a game, table and ply (slider, previous / next, play);
  board (last move highlighted), numbers, move list and chart; :func:`replayer` -- its box for
  a page, or one line naming a bad game index.

Tables use human column names with units, never snake_case.
"""

from __future__ import annotations

import html
import itertools
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
    "game_chart_svg",
    "load_sample_games",
    "mixedness_table",
    "move_list_html",
    "position_facts",
    "replay",
    "replay_table",
    "replayer",
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
    records: Iterable[pgn.PgnGame[chess.Board]] = pgn.iter_games(source, max_games=count)
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


# --- the replayer's move list and whole-game chart ---------------------------------------------

#: Background colour of each phase in the whole-game chart.
PHASE_COLOURS = {"opening": "#e5f5e0", "middlegame": "#fee6ce", "endgame": "#deebf7"}


def move_list_html(rows: Sequence[ReplayRow], ply: int) -> str:
    """The game's moves in numbered pairs ("1. e4 e5 2. Nf3"), the move that led to ``ply``
    in bold with a ``current`` class (the start position marks none)."""
    import html

    parts = []
    for before, row in itertools.pairwise(rows):
        white_moved = row.fullmove == before.fullmove  # a black move starts the next number
        number = (f"{before.fullmove}. " if white_moved
                  else f"{before.fullmove}... " if before is rows[0] else "")
        san = html.escape(row.move)
        cell = (f"<b class='current'>{san}</b>" if row.ply == ply else san)
        parts.append(f"<span title='ply {row.ply}'>{number}{cell}</span>")
    return ("<div class='move-list' style='max-height:300px;overflow-y:auto;line-height:1.6'>"
            + " ".join(parts) + "</div>")


def game_chart_svg(rows: Sequence[ReplayRow], ply: int, *, width: int = 640,
                   height: int = 170) -> str:
    """The whole game as an SVG chart: mixedness (orange, left scale) and majors + minors
    (blue, right scale, 0-14) per ply over backgrounds shaded by the whole-game division's
    phase, dashed lines where the middlegame and the endgame begin, the current ply in red."""
    left, right, top, bottom = 40, 40, 18, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    last = max(1, len(rows) - 1)
    top_mix = max(200, max(r.mixedness for r in rows))

    def x(p: float) -> float:
        return left + plot_w * p / last

    def y(v: float, scale: float) -> float:
        return top + plot_h * (1.0 - v / scale)

    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='game-chart' width='{width}' "
             f"height='{height}' font-size='10' font-family='sans-serif'>"]
    start = 0
    for i, row in enumerate(rows):  # one shaded band per run of the same division phase
        if i == len(rows) - 1 or rows[i + 1].division != row.division:
            x0, x1 = x(max(0, start - 0.5)), x(min(last, i + 0.5))
            parts.append(f"<rect class='phase {row.division}' x='{x0:.1f}' y='{top}' "
                         f"width='{x1 - x0:.1f}' height='{plot_h}' "
                         f"fill='{PHASE_COLOURS[row.division]}'><title>{row.division}: plies "
                         f"{start}-{i}</title></rect>")
            if start > 0:
                parts.append(f"<line class='division' data-ply='{start}' x1='{x(start):.1f}' "
                             f"x2='{x(start):.1f}' y1='{top}' y2='{top + plot_h}' "
                             "stroke='#555' stroke-dasharray='4 3'/>")
                parts.append(f"<text x='{x(start) + 2:.1f}' y='{top - 5}'>{row.division} "
                             f"from ply {start}</text>")
            start = i + 1
    threshold = y(150, top_mix)
    parts.append(f"<line x1='{left}' x2='{left + plot_w}' y1='{threshold:.1f}' "
                 f"y2='{threshold:.1f}' stroke='#d95f02' stroke-width='0.6' "
                 "stroke-dasharray='2 2'/>")
    mix = " ".join(f"{x(r.ply):.1f},{y(r.mixedness, top_mix):.1f}" for r in rows)
    pieces = " ".join(f"{x(r.ply):.1f},{y(r.majors_minors, 14):.1f}" for r in rows)
    parts.append(f"<polyline class='mixedness' points='{mix}' fill='none' stroke='#d95f02' "
                 "stroke-width='1.5'/>")
    parts.append(f"<polyline class='majors-minors' points='{pieces}' fill='none' "
                 "stroke='#1f78b4' stroke-width='1.5'/>")
    parts.append(f"<line class='current-ply' data-ply='{ply}' x1='{x(ply):.1f}' "
                 f"x2='{x(ply):.1f}' y1='{top}' y2='{top + plot_h}' stroke='#e31a1c' "
                 "stroke-width='2'/>")
    parts.append(f"<rect x='{left}' y='{top}' width='{plot_w}' height='{plot_h}' fill='none' "
                 "stroke='#333'/>")
    parts.append(f"<text x='{left - 4}' y='{top + 8}' text-anchor='end' fill='#d95f02'>"
                 f"{top_mix}</text><text x='{left - 4}' y='{top + plot_h}' text-anchor='end' "
                 "fill='#d95f02'>0</text>")
    parts.append(f"<text x='{left + plot_w + 4}' y='{top + 8}' fill='#1f78b4'>14</text>"
                 f"<text x='{left + plot_w + 4}' y='{top + plot_h}' fill='#1f78b4'>0</text>")
    parts.append(f"<text x='{left}' y='{height - 6}'>ply 0</text>"
                 f"<text x='{left + plot_w}' y='{height - 6}' text-anchor='end'>ply {last}"
                 "</text>")
    parts.append(f"<text x='{left + plot_w / 2:.0f}' y='{height - 6}' text-anchor='middle'>"
                 "<tspan fill='#d95f02'>mixedness (dotted: 150)</tspan>, <tspan "
                 "fill='#1f78b4'>majors + minors</tspan>, <tspan fill='#e31a1c'>this ply</tspan>"
                 "</text></svg>")
    return "".join(parts)


# --- the widget ----------------------------------------------------------------------------


class PhaseExplorerWidget:
    """Choose a game, a mixedness table and a ply: board, the numbers, the position-only
    phase and the whole-game division side by side (:attr:`box`).

    Controls and outputs are attributes so tests can drive the callbacks headlessly. A
    ``game`` index outside the games, or a ``ply`` outside that game, raises ``ValueError`` in
    one line naming the parameter and its range (:func:`replayer` shows it on the page).
    """

    def __init__(self, games: Sequence[SampleGame], *, table: str = "lichess",
                 game: int = 0, ply: int = 0) -> None:
        import ipywidgets as widgets

        if not games:
            raise ValueError("the phase explorer needs at least one game")
        if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < len(games):
            raise ValueError(f"game must be a game index from 0 to {len(games) - 1} "
                             f"({len(games)} games were read), got {game!r}")
        plies = len(games[game].moves)
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= plies:
            raise ValueError(f"ply must be from 0 to {plies} (game {game} has {plies} plies), "
                             f"got {ply!r}")
        self.games = list(games)
        self.game = widgets.Dropdown(options=[(g.label, i) for i, g in enumerate(self.games)],
                                     value=game, description="game", layout={"width": "640px"})
        self.table = widgets.Dropdown(options=list(phases.MIXEDNESS_TABLES), value=table,
                                      description="mixedness table",
                                      style={"description_width": "initial"})
        self.ply = widgets.IntSlider(value=ply, min=0, max=len(self.games[game].moves),
                                     description="ply", layout={"width": "640px"})
        self.play = widgets.Play(value=ply, min=0, max=len(self.games[game].moves), step=1,
                                 interval=700, description="play")
        widgets.link((self.play, "value"), (self.ply, "value"))
        self.previous = widgets.Button(description="previous", icon="step-backward",
                                       layout={"width": "110px"})
        self.next = widgets.Button(description="next", icon="step-forward",
                                   layout={"width": "110px"})
        self.previous.on_click(lambda _: self.step(-1))
        self.next.on_click(lambda _: self.step(1))
        self.board = widgets.HTML()
        self.facts = widgets.HTML()
        self.moves = widgets.HTML(layout={"width": "100%", "max_width": "640px"})
        self.chart = widgets.HTML()
        self.rows: list[ReplayRow] = []
        self.game.observe(self._new_game, names="value")
        self.table.observe(self._new_game, names="value")
        self.ply.observe(self.update, names="value")
        wrap = {"display": "flex", "flex_flow": "row wrap"}
        self.box = widgets.VBox([self.game, widgets.HBox([self.table], layout=wrap),
                                 widgets.HBox([self.previous, self.play, self.next, self.ply],
                                              layout=wrap),
                                 widgets.HBox([self.board, self.facts], layout=wrap),
                                 self.chart, self.moves])
        self._new_game()

    def step(self, delta: int) -> None:
        """One ply back (-1) or forward (+1), staying inside the game."""
        self.ply.value = max(0, min(self.ply.max, self.ply.value + delta))

    def _new_game(self, *_: Any) -> None:
        chosen = self.games[self.game.value]
        self.rows = replay(chosen, self.table.value)
        self.ply.max = self.play.max = len(chosen.moves)
        self.ply.value = min(self.ply.value, self.ply.max)
        self.update()

    def update(self, *_: Any) -> None:
        """Redraw the board and the numbers for the chosen ply."""
        chosen = self.games[self.game.value]
        ply = self.ply.value
        board = chosen.boards()[ply]
        last = chosen.moves[ply - 1] if ply else None
        self.board.value = str(_svg_board(board, size=300, lastmove=last))
        self.previous.disabled, self.next.disabled = ply == 0, ply == self.ply.max
        self.moves.value = move_list_html(self.rows, ply)
        self.chart.value = game_chart_svg(self.rows, ply)
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


def replayer(games: Sequence[SampleGame], *, table: str = "lichess", game: int = 0,
             ply: int = 0) -> Any:
    """The replayer's widget box for a notebook page, starting at ``ply`` or at the game's last
    ply if it is shorter; a bad ``game`` index (or a negative ply) gives one line of red text
    naming it instead (Voila hides a raised error behind a generic message)."""
    import ipywidgets as widgets

    known = isinstance(game, int) and 0 <= game < len(games)
    start = min(ply, len(games[game].moves)) if known else ply
    try:
        return PhaseExplorerWidget(games, table=table, game=game, ply=start).box
    except ValueError as error:
        return widgets.HTML(f"<p style='color:#b00'>error: {html.escape(str(error))}</p>")
