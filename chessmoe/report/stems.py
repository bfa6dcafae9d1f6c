"""Every artefact's file stem, named once: the figure and table functions save under these
names, the job table (:mod:`chessmoe.report.artefacts`) promises them, and each notebook's
last cell checks them through the job table. Renaming an artefact is one edit here.

A stem is a path below ``figures/`` without its extension (``.png`` + ``.pdf`` for a figure,
``.csv`` + ``.md`` for a table).
"""

from __future__ import annotations

from typing import Final

CLAIMS: Final = "claims"
DEEPCHESS_CURVE: Final = "deepchess-learning-curve"
COMPUTE_GAP: Final = "compute-gap"
EXTRAS_BATCH_PURITY: Final = "extras/batch-purity"
EXTRAS_CONTRASTS: Final = "extras/powered-contrasts"
EXTRAS_DRAW_RULES: Final = "extras/draw-rules"
EXTRAS_DATASET_SIZES_BY_DEFINITION: Final = "extras/dataset-sizes-by-definition"
EXTRAS_ELO_EXPLORER: Final = "extras/elo-explorer"
EXTRAS_INPUT_PLANES: Final = "extras/input-planes"
EXTRAS_PHASE_LABEL_AGREEMENT: Final = "extras/phase-label-agreement"
EXTRAS_PHASE_STATS_VS_PAPER: Final = "extras/phase-stats-vs-paper"
EXTRAS_TABLE1_PAPER: Final = "extras/table1-paper"
EXTRAS_TABLE1_SCALE: Final = "extras/table1-medium"
EXTRAS_TABLE1_SIZES: Final = "extras/table1-sizes"
EXTRAS_TABLE2_PAPER: Final = "extras/table2-paper"
FIG01_MOE_IN_MCTS: Final = "fig01-moe-in-mcts"
FIG02_PHASE_DISTRIBUTION: Final = "fig02-phase-distribution"
FIG03_MINIBATCH_GATING: Final = "fig03-minibatch-gating"
FIG04_STAGED_ENDGAME_LOSS: Final = "fig04-staged-endgame-loss"
FIG05_MOE_VS_SINGLE: Final = "fig05-moe-vs-single"
FIG06_SINGLE_EXPERT_NODES: Final = "fig06-single-expert-nodes"
FIG07_PHASE_DEFINITIONS: Final = "fig07-phase-definitions"
FIG08_MIXEDNESS: Final = "fig08-mixedness"
FIG09_PIECES: Final = "fig09-pieces"
FIG10_SPARSE_BACKRANK: Final = "fig10-sparse-backrank"
FIG11_PHASE_STARTS: Final = "fig11-phase-starts"
FIG12_RESULTS_BY_PHASE: Final = "fig12-results-by-phase"
FIG13_PHASE_COVERAGE: Final = "fig13-phase-coverage"
FIG14_SCHEDULES: Final = "fig14-schedules"
FIG15_MATCH_COMMAND: Final = "fig15-match-command"
FIG16_REGULAR_TRAINING: Final = "fig16-regular-training"
FIG17_SEPARATED_OPENING_EXPERT: Final = "fig17-separated-opening-expert"
FIG18_SEPARATED_MIDDLEGAME_EXPERT: Final = "fig18-separated-middlegame-expert"
FIG19_SEPARATED_ENDGAME_EXPERT: Final = "fig19-separated-endgame-expert"
FIG20_STAGED_OPENING_EXPERT: Final = "fig20-staged-opening-expert"
FIG21_STAGED_MIDDLEGAME_EXPERT: Final = "fig21-staged-middlegame-expert"
FIG22_STAGED_ENDGAME_EXPERT: Final = "fig22-staged-endgame-expert"
FIG23_WEIGHTED_OPENING_EXPERT: Final = "fig23-weighted-opening-expert"
FIG24_WEIGHTED_MIDDLEGAME_EXPERT: Final = "fig24-weighted-middlegame-expert"
FIG25_WEIGHTED_ENDGAME_EXPERT: Final = "fig25-weighted-endgame-expert"
FIG26_ELO_SEPARATED: Final = "fig26-elo-separated"
FIG27_ELO_STAGED: Final = "fig27-elo-staged"
FIG28_ELO_WEIGHTED: Final = "fig28-elo-weighted"
FIG29_SINGLE_EXPERT_MOVETIME: Final = "fig29-single-expert-movetime"
POWERED_ARMS: Final = "powered-arms"
RATING_LIST: Final = "rating-list"
RATING_LIST_TABLE: Final = "rating-list-table"
RELATED_ENGINES: Final = "related-engines"
RELATED_LEARNING_CURVES: Final = "related-learning-curves"
SCALE: Final = "scale"
SEED_GRID: Final = "seed-grid"
SETTINGS: Final = "settings"
TABLE1_EXPERT_LOSSES: Final = "table1-expert-losses"
TABLE2_ELO_GAINS: Final = "table2-elo-gains"
TABLE3_POSITIONS_PER_PHASE: Final = "table3-positions-per-phase"
TABLE4_GAMES_PER_PHASE: Final = "table4-games-per-phase"
TABLE5_SAMPLE_WEIGHTS: Final = "table5-sample-weights"
TABLE6_INPUT_REPRESENTATION: Final = "table6-input-representation"
TABLE7_HYPERPARAMETERS: Final = "table7-hyperparameters"
TABLE8_SETUP: Final = "table8-setup"

#: Fig. 17-25: the expert of each phase per regime, by figure number.
EXPERT_FIGURES: Final = {
    17: FIG17_SEPARATED_OPENING_EXPERT,
    18: FIG18_SEPARATED_MIDDLEGAME_EXPERT,
    19: FIG19_SEPARATED_ENDGAME_EXPERT,
    20: FIG20_STAGED_OPENING_EXPERT,
    21: FIG21_STAGED_MIDDLEGAME_EXPERT,
    22: FIG22_STAGED_ENDGAME_EXPERT,
    23: FIG23_WEIGHTED_OPENING_EXPERT,
    24: FIG24_WEIGHTED_MIDDLEGAME_EXPERT,
    25: FIG25_WEIGHTED_ENDGAME_EXPERT,
}
#: Fig. 26-28: each method's Elo by setting, by figure number.
METHOD_FIGURES: Final = {26: FIG26_ELO_SEPARATED, 27: FIG27_ELO_STAGED, 28: FIG28_ELO_WEIGHTED}


def dataset_sizes(source_name: str) -> str:
    """The stem of the dataset-size table of one compared source (notebook 02)."""
    return f"extras/dataset-sizes-{source_name}"
