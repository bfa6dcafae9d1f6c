"""Numbers reported in the paper, for side-by-side comparison with the kit's results.

Only values printed in the paper (or digested in ``FACTS.md``) belong here; every
figure or table that shows one labels it "paper".
"""

from __future__ import annotations

from typing import Final

__all__ = ["BATCH_SIZES", "KINGBASE_STATS", "NETWORK_PARAMETERS", "TABLE1_LOSSES", "TABLE2_ELO",
           "TABLE3_POSITIONS", "TABLE4_GAMES", "TABLE7"]

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

#: The paper's network (RISEv3.3, FACTS.md section 5: "about 5.8 M parameters at full size"),
#: counted exactly as the kit builds it (the ``paper`` preset; tests/test_model.py counts it).
NETWORK_PARAMETERS: Final = 5_755_348

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

# Table 1: loss of each expert's final model on the test sets (opening, middlegame,
# endgame, no-phases), keyed by (approach, expert).
TABLE1_LOSSES: Final[dict[tuple[str, str], tuple[float, float, float, float]]] = {
    ("Regular Learning", "-"): (0.9269, 1.5043, 1.3523, 1.2897),
    ("Separated Learning", "Opening"): (0.9169, 2.4030, 3.2433, 2.2587),
    ("Separated Learning", "Middlegame"): (1.6064, 1.4371, 1.5494, 1.5260),
    ("Separated Learning", "Endgame"): (2.0097, 1.6605, 1.2594, 1.6293),
    ("Separated Learning", "Mixture"): (0.9169, 1.4371, 1.2594, 1.2245),
    ("Staged Learning", "Opening"): (0.8786, 1.8775, 2.5501, 1.8153),
    ("Staged Learning", "Middlegame"): (1.5966, 1.4437, 1.5293, 1.5203),
    ("Staged Learning", "Endgame"): (2.0281, 1.6748, 1.2774, 1.6458),
    ("Staged Learning", "Mixture"): (0.8786, 1.4437, 1.2774, 1.2218),
    ("Weighted Learning (a = 4)", "Opening"): (0.8636, 1.5125, 1.3780, 1.2820),
    ("Weighted Learning (a = 4)", "Middlegame"): (0.9661, 1.5055, 1.4207, 1.3248),
    ("Weighted Learning (a = 4)", "Endgame"): (0.9339, 1.5041, 1.2864, 1.2695),
    ("Weighted Learning (a = 4)", "Mixture"): (0.8636, 1.5055, 1.2864, 1.2433),
    ("Weighted Learning (a = 10)", "Opening"): (0.8887, 1.6600, 1.5389, 1.3995),
    ("Weighted Learning (a = 10)", "Middlegame"): (0.9955, 1.4834, 1.4470, 1.3346),
    ("Weighted Learning (a = 10)", "Endgame"): (1.0334, 1.5547, 1.3036, 1.3241),
    ("Weighted Learning (a = 10)", "Mixture"): (0.8887, 1.4834, 1.3036, 1.2483),
}

# Table 7: hyper-parameters of the paper's training runs.
TABLE7: Final[dict[str, object]] = {
    "max learning rate": 0.14, "min learning rate": 0.00001, "batch size": 2048,
    "max momentum": 0.95, "min momentum": 0.8, "epochs": 7, "optimizer": "NAG",
    "weight decay (wd)": 0.0001, "seed": 9, "value loss factor": 0.01,
    "policy loss factor": 0.988, "wdl loss factor": 0.01, "plys to end loss factor": 0.002,
    "stochastic depth probability": 0.05, "spike thresh": 1.5, "dropout rate": 0.0,
    "network": "RISEv3.3", "pytorch version": "1.12.0",
}

#: The paper's batch sizes (sec. 3.2): its tournament grid's, and Table 2's columns in order.
BATCH_SIZES: Final[tuple[int, ...]] = (1, 8, 16, 32, 64)

# Table 2: average Elo gain over the regular network per batch size (:data:`BATCH_SIZES`)
# and over all 55 settings.
TABLE2_ELO: Final[dict[str, tuple[float, float, float, float, float, float]]] = {
    "separated": (106.89, 123.45, 126.81, 124.36, 129.49, 122.20),
    "staged": (111.68, 120.81, 122.49, 125.00, 125.55, 121.11),
    "weighted-a4": (25.61, 23.20, 23.52, 22.28, 21.31, 23.18),
    "weighted-a10": (50.41, 52.42, 56.33, 63.55, 56.51, 55.84),
}
