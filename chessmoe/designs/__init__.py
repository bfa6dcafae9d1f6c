"""Tournament designs declared once: each module states one design's matches, its claims rows
(and the topics the README's answer names them by), its profile and its progress rule
(:class:`~chessmoe.designs.base.Design`); :mod:`chessmoe.designs.registry` lists them.

Imports the statistics of game pairs (:mod:`chessmoe.estimates`), what tournaments have played
(:mod:`chessmoe.played`), the bundles' names and files (nets) and below; never search, play or
report: play builds tournaments from these plans, report reads them.
"""
