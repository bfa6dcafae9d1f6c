"""Networks and training of the related documents' engines (one module per document).

Their players (search + weights) are joined in :mod:`chessmoe.play.players`; the weights file
each engine's trained run holds is named here (:data:`RELATED_WEIGHTS`), torch-free, so the
designs and the reports find a run's weights without importing the players.
"""

from __future__ import annotations

__all__ = ["RELATED_WEIGHTS"]

#: The weights file of each engine's trained run (what a match names by its checksum).
RELATED_WEIGHTS: dict[str, str] = {"deepchess": "weights.pt", "ntuple": "weights.npz",
                                   "mais": "weights.pt"}
