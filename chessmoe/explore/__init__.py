"""The explorers for teachers and readers, beside the report: the Elo explorer (what one match
result says: :mod:`chessmoe.explore.elo`, its browser widget :mod:`chessmoe.explore.elo_widget`,
the SPRT planner's numbers :mod:`chessmoe.explore.sprt` and panel
:mod:`chessmoe.explore.sprt_planner`) and the phase explorer (:mod:`chessmoe.explore.phases`,
its games :mod:`chessmoe.explore.phase_games` and widget :mod:`chessmoe.explore.phase_widget`),
served by ``make explore`` (Voila). They read committed results and draw with the report's
figure style; the report never imports them.
"""
