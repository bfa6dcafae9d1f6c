"""Play: players, the UCI engine, matches, tournaments and opening suites.

Paper: sec. 3.2 and App. E.3 (matches and tournaments), Fig. 15 (the cutechess command).
Imports search and below, never report.
"""
