"""Networks and training of the related documents' engines.

Per document, one module of the network and its training steps (``deepchess``, ``ntuple``,
``mais``; ``pesto`` the tables the n-tuple engine starts from) and one of its training runs
(``train_deepchess``, ``train_ntuple``, ``train_mais``: data, training loop, run files,
held-out evaluations). A run's step that needs the search (a layer above) is passed in by the
caller. Their players (search + weights) are joined in :mod:`chessmoe.play.players`; the
weights file each engine's trained run holds is named here (:data:`RELATED_WEIGHTS`),
torch-free, so the designs and the reports find a run's weights without importing the
players.
"""

from __future__ import annotations

__all__ = ["RELATED_WEIGHTS"]

#: The weights file of each engine's trained run (what a match names by its checksum).
RELATED_WEIGHTS: dict[str, str] = {"deepchess": "weights.pt", "ntuple": "weights.npz",
                                   "mais": "weights.pt"}
