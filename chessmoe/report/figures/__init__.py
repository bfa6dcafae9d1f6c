"""Paper figures and tables, one function per artefact, reading only ``results/``.

Artefacts are named after the paper's numbering (``fig02-...``, ``table3-...``);
a figure is saved as PNG and PDF under one stem, a table as CSV and Markdown.
"""

from chessmoe.report.figures.style import Artefact, save_figure, save_table

__all__ = ["Artefact", "save_figure", "save_table"]
