"""The phase explorer for teachers: boards, borderline positions, a worked mixedness example and
a game replayer, all on the rules of ``docs/phases.md`` (:mod:`chessmoe.phases`). Games are read
by :mod:`chessmoe.explore.phase_games`; the page's widget is :mod:`chessmoe.explore.phase_widget`.
Tables use human column names with units, never snake_case.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import chess
import chess.svg
import pandas as pd

from chessmoe import phases
from chessmoe.explore.phase_games import SampleGame, StripRow
from chessmoe.phases import Phase, WindowScore

__all__ = [
    "Example",
    "PositionFacts",
    "ReplayRow",
    "WindowChange",
    "WorkedExample",
    "board_svg",
    "borderline_examples",
    "example_html",
    "facts_table",
    "game_chart_svg",
    "mixedness_table",
    "move_list_html",
    "position_facts",
    "replay",
    "replay_table",
    "strips_svg",
    "typical_examples",
    "window_svg",
    "worked_example",
    "worked_example_html",
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


# --- the worked example: the windows a move changed ------------------------------------------


@dataclass(frozen=True)
class WindowChange:
    """One 2x2 window before and after a move, when its score changed."""

    before: WindowScore
    after: WindowScore

    @property
    def delta(self) -> int:
        return self.after.score - self.before.score


@dataclass(frozen=True)
class WorkedExample:
    """The move that takes the mixedness over 150 with the other rules held still
    (:func:`borderline_examples`), and the windows whose scores it changed, largest change
    first: their changes sum to the mixedness's."""

    example: Example
    changes: tuple[WindowChange, ...]


def worked_example(games: Sequence[SampleGame], table: str = "lichess"
                   ) -> WorkedExample | None:
    """The first mixedness crossing of ``games`` with its changed windows; None when no move
    of these games crosses 150 with the other rules held still."""
    example = next((e for e in borderline_examples(games, table)
                    if e.title == "Mixedness crosses 150"), None)
    if example is None or example.before is None:
        return None
    before = phases.window_scores(chess.Board(example.before.fen), table)
    after = phases.window_scores(chess.Board(example.after.fen), table)
    changes = [WindowChange(b, a) for b, a in zip(before, after, strict=True)
               if b.score != a.score]
    changes.sort(key=lambda c: (-abs(c.delta), c.after.name))
    return WorkedExample(example, tuple(changes))


def _window_words(w: WindowScore) -> str:
    return f"W {w.white}, B {w.black}, y {w.rank}: {w.score}"


def worked_example_html(games: Sequence[SampleGame], table: str = "lichess",
                        size: int = 280) -> str:
    """The worked example as HTML: the move, the two boards with the changed windows
    highlighted (orange: the score rose; blue: it fell), one small board per changed window and
    the table of the changes; or one line saying that these games hold no such move."""
    worked = worked_example(games, table)
    if worked is None:
        return ("<p class='no-crossing'>None of these games has a move that takes the "
                "mixedness over 150 while the back ranks stay full and more than 10 majors and "
                "minors stay on the board: no worked example for them (load more or other "
                "games).</p>")
    e, changes = worked.example, worked.changes
    assert e.before is not None
    rose = {sq: "#ff8c0070" for c in changes if c.delta > 0 for sq in c.after.squares}
    fell = {sq: "#1f78b470" for c in changes if c.delta < 0 for sq in c.after.squares}
    fill = fell | rose
    total = sum(c.delta for c in changes)
    boards = "".join(
        f"<figure style='display:inline-block;margin:4px'>{board_svg(f.fen, size=size, fill=fill)}"
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for f, caption in ((e.before, f"before: mixedness {e.before.mixedness}"),
                           (e.after, f"after {e.move} (ply {e.ply}): mixedness "
                                     f"{e.after.mixedness}")))
    small = "".join(
        f"<figure style='display:inline-block;margin:4px'>"
        f"{window_svg(e.after.fen, [c.after], size=150)}<figcaption>{c.after.name}: "
        f"{c.before.score} -> {c.after.score} ({c.delta:+d})</figcaption></figure>"
        for c in changes[:6])
    rows = "".join(
        f"<tr><td>{c.after.name}</td><td>{_window_words(c.before)}</td>"
        f"<td>{_window_words(c.after)}</td><td>{c.delta:+d}</td></tr>" for c in changes)
    return (f"<p class='worked-example'><b>{html.escape(e.game)}</b>, ply {e.ply}: {e.move} "
            f"takes the mixedness from {e.before.mixedness} to {e.after.mixedness}, over 150. "
            f"The move changed {len(changes)} window(s) (orange: the score rose, blue: it fell); "
            f"their changes sum to {total:+d} = {e.after.mixedness} - {e.before.mixedness}.</p>"
            f"<div>{boards}</div><div>{small}</div>"
            "<table class='changed-windows'><tr><th>Window (squares)</th><th>Before (white, "
            "black pieces, rank y: points)</th><th>After</th><th>Change (points)</th></tr>"
            f"{rows}</table>")


# --- every definition at once ------------------------------------------------------------------

#: Colours of the strips: the three phases, move-count phases 1-5, the tapered weight's ends.
STRIP_COLOURS = {"opening": "#a1d99b", "middlegame": "#fdae6b", "endgame": "#9ecae1"}
MOVECOUNT_COLOURS = ("#d0d1e6", "#a6bddb", "#74a9cf", "#2b8cbe", "#045a8d")


def _strip_fill(row: StripRow, i: int) -> str:
    if row.group == "lichess":
        return STRIP_COLOURS[row.labels[i]]
    if row.group == "tapered":
        shade = round(255 - 190 * row.values[i])  # 1 (all material): dark
        return f"rgb({shade},{shade},{shade})"
    names = list(dict.fromkeys(row.labels))
    return MOVECOUNT_COLOURS[min(names.index(row.labels[i]), len(MOVECOUNT_COLOURS) - 1)]


def strips_svg(rows: Sequence[StripRow], ply: int, *, width: int = 760, label_width: int = 250,
               row_height: int = 15) -> str:
    """One strip per definition, a band per run of one phase (its name and plies as a
    tooltip), the current ply marked in red, the phase names in a legend below."""
    boards = len(rows[0].labels)
    plot_w = width - label_width - 10
    top = 4
    height = top + row_height * len(rows) + 48

    def x(i: float) -> float:
        return label_width + plot_w * i / boards

    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='definition-strips' "
             f"width='{width}' height='{height}' font-size='10' font-family='sans-serif'>"]
    for r, row in enumerate(rows):
        y = top + r * row_height
        parts.append(f"<text x='{label_width - 6}' y='{y + row_height - 4}' "
                     f"text-anchor='end'>{html.escape(row.name)}</text>")
        start = 0
        for i in range(boards):
            same = i + 1 < boards and (row.labels[i + 1] == row.labels[i]
                                       and row.group != "tapered")
            if same:
                continue
            tip = (f"{row.name}: {row.labels[start]}, plies {start}-{i}" if row.group != "tapered"
                   else f"{row.name}: {row.labels[i]} at ply {i}")
            parts.append(f"<rect class='strip {row.group}' x='{x(start):.1f}' y='{y}' "
                         f"width='{x(i + 1) - x(start):.2f}' height='{row_height - 2}' "
                         f"fill='{_strip_fill(row, i)}'><title>{html.escape(tip)}</title></rect>")
            start = i + 1
    bottom = top + row_height * len(rows)
    parts.append(f"<line class='current-ply' data-ply='{ply}' x1='{x(ply + 0.5):.1f}' "
                 f"x2='{x(ply + 0.5):.1f}' y1='{top}' y2='{bottom}' stroke='#e31a1c' "
                 "stroke-width='2'/>")
    legend = " ".join(f"<tspan fill='{c}'>&#9632;</tspan> {name}"
                      for name, c in STRIP_COLOURS.items())
    parts.append(f"<text x='{label_width}' y='{bottom + 14}'>{legend}; red: this ply "
                 f"(plies 0 to {boards - 1})</text>")
    parts.append(f"<text x='{label_width}' y='{bottom + 28}'>move count: light to dark, "
                 "first to last phase</text>")
    parts.append(f"<text x='{label_width}' y='{bottom + 42}'>tapered: dark = all the "
                 "material (middlegame weight 1), white = endgame (0)</text></svg>")
    return "".join(parts)
