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

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chessmoe._io.errors import KitError, error_cause

if TYPE_CHECKING:
    import torch

__all__ = ["RELATED_WEIGHTS", "load_state", "read_config"]

#: The weights file of each engine's trained run (what a match names by its checksum).
RELATED_WEIGHTS: dict[str, str] = {"deepchess": "weights.pt", "ntuple": "weights.npz",
                                   "mais": "weights.pt"}


def load_state(path: Path, model: torch.nn.Module, engine: str) -> None:
    """Load the weights file ``path`` into ``model`` safely (``torch.load(weights_only=True)``);
    a file that cannot be loaded -- not a tensor file, cut short, another network's weights --
    is a :class:`~chessmoe._io.errors.KitError` of one line naming the file and the cause."""
    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # not a torch file, truncated, or a pickle of objects
        raise KitError(f"{path} cannot be loaded as {engine} weights "
                       f"({error_cause(error)})") from None
    if not isinstance(state, dict):
        raise KitError(f"{path} holds a {type(state).__name__}, not the {engine} network's "
                       "weights (a state dict)")
    try:
        model.load_state_dict(state)
    except Exception as error:  # missing or unexpected keys, other shapes
        raise KitError(f"{path} does not hold this {engine} network's weights "
                       f"({error_cause(error)})") from None


def read_config(path: Path) -> dict[str, Any]:
    """A run's ``config.json`` as a dict; one line naming the file when it cannot be read or
    is no JSON object (a :class:`~chessmoe._io.errors.KitError`)."""
    try:
        config = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise KitError(f"{path} cannot be read ({error_cause(error)})") from None
    if not isinstance(config, dict):
        raise KitError(f"{path} holds a JSON {type(config).__name__}, not an object")
    return config
