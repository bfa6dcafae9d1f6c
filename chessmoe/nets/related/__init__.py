"""Networks and training of the related documents' engines (one module per document).

Their players (search + weights) are joined in :mod:`chessmoe.play.players`.
"""
