"""The phase explorer's page: its parameters read without ever failing (:func:`page_settings`),
the replayer widget (:class:`PhaseExplorerWidget`) and the summary of the games loaded
(:func:`summary_figure`, :func:`summary_html`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from chessmoe import phases
from chessmoe.explore import phase_games as pg
from chessmoe.explore import phases as xp
from chessmoe.report.figures.style import PHASE_COLORS, figure_png, new_figure
from chessmoe.report.params import PhaseExplorerParams

__all__ = ["MAX_GAMES", "TABLE_NOTES", "PageSettings", "PhaseExplorerWidget", "page_settings",
           "problems_html", "summary_figure", "summary_html"]

#: What each mixedness table is, as the page's table menu and notes say it.
TABLE_NOTES = {
    "lichess": "Lichess's table from 2017 to June 2025, the paper's (the default)",
    "lichess-2025": "Lichess's table since 3 June 2025: the windows holding both colours "
                    "score colour-symmetrically",
    "engine": "the paper authors' engine: where Lichess's rank guards give 0 it scores a small "
              "constant, so the start position scores 70 and more early positions are "
              "middlegames",
}


#: The most games the page reads from a file (the menu lists each, the summary replays all).
MAX_GAMES = 2000


@dataclass(frozen=True)
class PageSettings:
    """What the page shows: the games, the table, the replayer's first game (by its number in
    the file) and ply, and one line per parameter that could not be used as given."""

    game_set: pg.GameSet
    table: str
    game: int
    ply: int
    problems: tuple[str, ...] = ()


def page_settings(p: PhaseExplorerParams, problems: Sequence[str] = ()) -> PageSettings:
    """Check the parameters against the games: each problem is named (what was asked, what
    the page does instead), none raises.

    The problems named: a mistyped value, an unknown table, a game that was skipped or not read, a
    ply outside the game, a PGN that cannot be read; each is replaced by a working value.
    """
    found = list(problems)
    table = p.table
    if table not in phases.MIXEDNESS_TABLES:
        found.append(f"table must be one of {', '.join(repr(t) for t in phases.MIXEDNESS_TABLES)}"
                     f", got {table!r}; the page uses 'lichess'")
        table = "lichess"
    count = p.games
    if count < 1:
        found.append(f"games must be a whole number from 1, got {count}; the page reads 100")
        count = 100
    elif count > MAX_GAMES:
        found.append(f"games: the page reads at most {MAX_GAMES:,} games (its menu and summary "
                     f"slow down beyond), got {count:,}; it reads the first {MAX_GAMES:,}")
        count = MAX_GAMES
    game_set: pg.GameSet | None = None
    if p.pgn:
        try:
            game_set = pg.load_games(p.pgn, count=count)
        except (OSError, ValueError) as error:
            found.append(f"pgn: {error}; the page shows the kit's Lichess games instead")
        else:
            if not game_set.games:
                found.append(f"pgn: no game could be read ({game_set.report()}); the page "
                             "shows the kit's Lichess games instead")
                game_set = None
    if game_set is None:
        game_set = pg.load_games(count=count)
    numbers = game_set.numbers()
    game = p.game
    if game not in numbers:
        try:
            game_set.game(game)
        except ValueError as error:
            game = numbers[0] if game < numbers[0] or game > numbers[-1] else next(
                n for n in numbers if n > game)
            found.append(f"game: {error}; the replayer starts with game {game}")
    plies = len(game_set.game(game).moves)
    ply = p.ply
    if ply < 0 or ply > plies:
        start = 0 if ply < 0 else plies
        found.append(f"ply must be from 0 to {plies} (game {game} has {plies} plies), got "
                     f"{ply}; the replayer starts at ply {start}")
        ply = start
    return PageSettings(game_set, table, game, ply, tuple(found))


def problems_html(settings: PageSettings) -> str:
    """One red line per parameter the page could not use as given ("" when there is none)."""
    return "".join(f"<p style='color:#b00' class='parameter-problem'>error: "
                   f"{html.escape(line)}</p>" for line in settings.problems)


# --- the summary over the games loaded --------------------------------------------------------


def summary_figure(summary: pg.PhaseSummary) -> Figure:
    """(a) how long each phase lasts (full moves, games that reach it); (b) which rule starts
    the middlegame."""
    fig = new_figure(10, 3.4)
    left, right = fig.subplots(1, 2, width_ratios=(1.3, 1))
    names = ("opening", "middlegame", "endgame")
    data = [[n / 2 for n in summary.lengths(name)] for name in names]
    top = max([max(d) for d in data if d] + [10.0])
    bins = [b * max(1.0, round(top / 30)) for b in range(int(top // max(1.0, round(top / 30))) + 2)]
    for values, name, colour in zip(data, names, PHASE_COLORS, strict=True):
        if values:
            left.hist(values, bins=bins, histtype="step", lw=1.8, color=colour,
                      label=f"{name} ({len(values)} games, median "
                            f"{sorted(values)[len(values) // 2]:g} moves)")
    left.set_xlabel("full moves in the phase (whole-game division)")
    left.set_ylabel("games")
    left.legend(fontsize=7)
    left.set_title(f"(a) phase lengths over {len(summary.games)} games "
                   f"({summary.table} table)", fontsize=9)
    shares = summary.trigger_shares()
    right.barh(list(shares), [v * 100 for v in shares.values()], color="#fdae6b")
    right.invert_yaxis()
    for y, v in enumerate(shares.values()):
        right.text(v * 100 + 1, y, f"{v * 100:.0f} %", va="center", fontsize=8)
    right.set_xlim(0, 110)
    right.set_xlabel("games (%)")
    right.set_title("(b) what starts the middlegame", fontsize=9)
    return fig


def summary_html(summary: pg.PhaseSummary) -> str:
    """The triggers as a line of text (counts and shares)."""
    counts = summary.trigger_counts()
    n = len(summary.games)
    parts = ", ".join(f"{name} {c} ({100 * c / n:.0f} %)" for name, c in counts.items()) if n \
        else "no games"
    return (f"<p class='triggers'>Over the {n} games loaded ({summary.table} table), the "
            f"middlegame starts (the division's first middlegame position) by {parts}. "
            "'Never': the game goes from opening to endgame, or ends in the opening.</p>")


# --- the widget ----------------------------------------------------------------------------


class PhaseExplorerWidget:
    """Choose a game (listed by its number in the file), a mixedness table and a ply: board,
    numbers, the position-only phase and the whole-game division side by side, every
    definition's strip, the game as a table, the summary over the games, and a box for the
    user's own PGN (:attr:`box`).

    Controls and outputs are attributes so tests can drive the callbacks headlessly. A
    ``game`` number not among the games, or a ``ply`` outside that game, raises ``ValueError``
    in one line naming the parameter and what there is (:func:`page_settings` checks the
    notebook's parameters first, so the page never raises).
    """

    def __init__(self, game_set: pg.GameSet, *, table: str = "lichess",
                 game: int | None = None, ply: int = 0) -> None:
        import ipywidgets as widgets

        if not game_set.games:
            raise ValueError("the phase explorer needs at least one game")
        number = game_set.games[0].number if game is None else game
        if isinstance(number, bool) or not isinstance(number, int):
            raise ValueError(f"game must be a game's number in the file, got {number!r}")
        chosen = game_set.game(number)  # ValueError: skipped or not read
        plies = len(chosen.moves)
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= plies:
            raise ValueError(f"ply must be from 0 to {plies} (game {number} has {plies} "
                             f"plies), got {ply!r}")
        self.game_set = game_set
        self.game = widgets.Dropdown(options=self._game_options(), value=number,
                                     description="game", layout={"width": "640px"})
        self.table = widgets.Dropdown(
            options=[(f"{t}: {TABLE_NOTES[t]}"[:90], t) for t in phases.MIXEDNESS_TABLES],
            value=table, description="mixedness table", style={"description_width": "initial"},
            layout={"width": "100%", "max_width": "760px"})
        self.table_note = widgets.HTML()
        self.ply = widgets.IntSlider(value=ply, min=0, max=plies, description="ply",
                                     layout={"width": "640px"})
        self.play = widgets.Play(value=ply, min=0, max=plies, step=1, interval=700,
                                 description="play")
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
        self.strips = widgets.HTML()
        self.game_table = widgets.HTML(layout={"width": "100%", "max_width": "1000px"})
        self.game_table.add_class("game-table")
        self.summary_text = widgets.HTML()
        self.summary_image = widgets.Image(format="png",
                                           layout={"width": "100%", "max_width": "800px"})
        self.summary_image.add_class("phase-summary")
        self.paste = widgets.Textarea(
            value="", placeholder="[Event \"...\"]\n\n1. e4 e5 2. Nf3 Nc6 ... 1-0",
            description="paste PGN", layout={"width": "100%", "max_width": "760px",
                                             "height": "120px"})
        self.read = widgets.Button(description="read these games", layout={"width": "180px"})
        self.upload = widgets.FileUpload(accept=".pgn,.gz,.bz2,.zst,.zip", multiple=False,
                                         description="upload PGN")
        self.games_report = widgets.HTML(self._report_html())
        self.games_report.add_class("games-report")
        self.rows: list[xp.ReplayRow] = []
        self._strip_rows: list[pg.StripRow] = []
        self.read.on_click(lambda _: self.read_pasted())
        self.upload.observe(self._uploaded, names="value")
        self.game.observe(self._new_game, names="value")
        self.table.observe(self._new_table, names="value")
        self.ply.observe(self.update, names="value")
        wrap = {"display": "flex", "flex_flow": "row wrap"}
        self.box = widgets.VBox([
            widgets.HTML("<h4>Your own games</h4><p>Paste PGN text (one game or many) and press "
                         "<i>read these games</i>, or upload a PGN file: the menu below then "
                         "lists them, and every game that cannot be read is named with the "
                         "reason.</p>"),
            self.paste, widgets.HBox([self.read, self.upload], layout=wrap), self.games_report,
            widgets.HTML("<h4>Replay a game</h4>"),
            self.game, self.table, self.table_note,
            widgets.HBox([self.previous, self.play, self.next, self.ply], layout=wrap),
            widgets.HBox([self.board, self.facts], layout=wrap),
            self.chart, self.moves,
            widgets.HTML("<h4>Every definition at once</h4><p>One strip per definition, a "
                         "band per phase (hover for its plies); the red line is this ply.</p>"),
            self.strips,
            widgets.HTML("<h4>The whole game as a table</h4>"), self.game_table,
            widgets.HTML("<h4>Over the games loaded</h4>"), self.summary_text,
            self.summary_image])
        self._new_table()

    def _game_options(self) -> list[tuple[str, int]]:
        return [(g.label, g.number) for g in self.game_set.games]

    def _report_html(self, error: str = "") -> str:
        if error:
            return f"<p style='color:#b00'>error: {html.escape(error)}</p>"
        gs = self.game_set
        skipped = "".join(f"<li>{html.escape(s.text())}</li>" for s in gs.skipped)
        return (f"<p>{len(gs.games)} of {gs.seen} games read from {html.escape(gs.source)}"
                + (f"; skipped:</p><ul class='skipped-games'>{skipped}</ul>" if skipped
                   else ", none skipped.</p>"))

    def load(self, game_set: pg.GameSet) -> None:
        """Replace the games (the menu, the replayer and the summary follow); a set without a
        readable game keeps the current games and says why."""
        if not game_set.games:
            self.games_report.value = self._report_html(
                f"no game could be read ({game_set.report()}); the games shown are unchanged")
            return
        self.game_set = game_set
        first = game_set.games[0].number
        self.game.unobserve(self._new_game, names="value")
        try:
            self.game.options = self._game_options()
            self.game.value = first
        finally:
            self.game.observe(self._new_game, names="value")
        self.games_report.value = self._report_html()
        self._new_table()

    def read_pasted(self) -> None:
        """Read the paste box's PGN into the explorer."""
        try:
            game_set = pg.read_pgn_text(self.paste.value)
        except ValueError as error:
            self.games_report.value = self._report_html(str(error))
            return
        self.load(game_set)

    def _uploaded(self, *_: Any) -> None:
        files = self.upload.value
        if not files:
            return
        item = files[0]
        try:
            game_set = pg.read_pgn_bytes(bytes(item["content"]), str(item["name"]),
                                         source=f"the upload {item['name']}")
        except ValueError as error:
            self.games_report.value = self._report_html(str(error))
            return
        self.load(game_set)

    def step(self, delta: int) -> None:
        """One ply back (-1) or forward (+1), staying inside the game."""
        self.ply.value = max(0, min(self.ply.max, self.ply.value + delta))

    def _new_table(self, *_: Any) -> None:
        self.table_note.value = (f"<p><small>{html.escape(self.table.value)}: "
                                 f"{html.escape(TABLE_NOTES[self.table.value])}.</small></p>")
        summary = pg.phase_summary(self.game_set.games, self.table.value)
        self.summary_text.value = summary_html(summary)
        self.summary_image.value = figure_png(summary_figure(summary))
        self._new_game()

    def _new_game(self, *_: Any) -> None:
        chosen = self.game_set.game(self.game.value)
        self.rows = xp.replay(chosen, self.table.value)
        self._strip_rows = pg.definition_strips(chosen)
        self.ply.max = self.play.max = len(chosen.moves)
        self.ply.value = min(self.ply.value, self.ply.max)
        frame = xp.replay_table(self.rows)
        self.game_table.value = (f"<p class='game-table-title'>{html.escape(chosen.label)}"
                                 "</p><div style='max-height:360px;overflow-y:auto'>"
                                 f"{frame.to_html(escape=True)}</div>")
        self.update()

    def update(self, *_: Any) -> None:
        """Redraw the board, the numbers and the ply marks for the chosen ply."""
        chosen = self.game_set.game(self.game.value)
        ply = self.ply.value
        boards = chosen.boards()
        board = boards[ply]
        last = chosen.moves[ply - 1] if ply else None
        self.board.value = xp.board_svg(board.fen(), size=300, lastmove=last)
        self.previous.disabled, self.next.disabled = ply == 0, ply == self.ply.max
        self.moves.value = xp.move_list_html(self.rows, ply)
        self.chart.value = xp.game_chart_svg(self.rows, ply)
        self.strips.value = xp.strips_svg(self._strip_rows, ply)
        row = self.rows[ply]
        facts = xp.position_facts(board, self.table.value)
        division = phases.lichess_division(boards, self.table.value)
        starts = (f"middlegame from ply {division.middle}" if division.middle is not None
                  else "no middlegame")
        starts += (f", endgame from ply {division.end}" if division.end is not None
                   else ", no endgame")
        self.facts.value = (
            "<table>"
            f"<tr><td>Game</td><td>{chosen.number} in the file</td></tr>"
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
