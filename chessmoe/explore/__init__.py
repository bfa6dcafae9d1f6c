"""The explorers for teachers and readers, beside the report: the Elo explorer (what one match
result says: :mod:`chessmoe.explore.elo`, its browser widget :mod:`chessmoe.explore.elo_widget`)
and the phase explorer (:mod:`chessmoe.explore.phases`), served by ``make explore`` (Voila).
They read committed results and draw with the report's figure style; the report never imports
them.
"""
