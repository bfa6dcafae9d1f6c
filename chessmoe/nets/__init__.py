"""Networks: the RISEv3.3 model, checkpoints, the trainer, the four learning regimes and the
shared-trunk mixture.

Paper: sec. 2.2 and 3 (regimes), App. E.2 (architecture), Table 7 (hyper-parameters).
Imports `chessmoe.games` (datasets) and below, never search, play or report.
"""
