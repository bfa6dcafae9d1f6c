"""Numbers reported in the paper, for side-by-side comparison with the kit's results.

Only values printed in the paper (or digested in ``FACTS.md``) belong here; every
figure or table that shows one labels it "paper".
"""

from __future__ import annotations

from typing import Final

__all__ = ["KINGBASE_STATS", "TABLE3_POSITIONS", "TABLE4_GAMES"]

# FACTS.md section 2 / paper App. B.1 and Fig. 2, 11, 12, 13 (KingBase Lite 2019).
KINGBASE_STATS: Final[dict[str, float]] = {
    "middlegame_start_mean": 11.89,
    "middlegame_start_std": 2.966,
    "endgame_start_mean": 29.15,
    "endgame_start_std": 7.441,
    "games_reaching_middlegame_pct": 96.81,
    "games_reaching_endgame_pct": 67.85,
    "positions_opening_pct": 28.67,
    "positions_middlegame_pct": 100.0 - 28.67 - 31.63,
    "positions_endgame_pct": 31.63,
    "white_wins_pct": 34.42,
    "draws_pct": 40.36,
    "black_wins_pct": 25.22,
    "draws_reaching_middlegame_pct": 38.51,
    "draws_reaching_endgame_pct": 36.09,
}

# Table 3: positions per phase dataset (rows: split; columns: no-phases, opening,
# middlegame, endgame).
TABLE3_POSITIONS: Final[dict[str, tuple[int, int, int, int]]] = {
    "train": (91_413_951, 26_212_273, 36_287_651, 28_914_027),
    "val": (79_042, 24_566, 29_333, 25_143),
    "test": (85_114, 24_938, 31_364, 28_812),
}

# Table 4: games contributing to each phase dataset (training set only).
TABLE4_GAMES: Final[dict[str, tuple[int, int, int, int]]] = {
    "train": (1_112_647, 1_112_647, 1_077_136, 754_899),
}
