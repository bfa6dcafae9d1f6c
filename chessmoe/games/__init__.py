"""Data in: PGN reading, game sources and downloads, self-play, splits, statistics, datasets.

Paper: App. A and E.1 (data), Fig. 2 and 8-13 (statistics), Tables 3-4 (datasets).
Imports only the shared vocabulary (`chessmoe.phases`, `chessmoe.encoding`) and `chessmoe._io`.
"""
