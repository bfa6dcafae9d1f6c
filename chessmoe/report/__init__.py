"""Report: one function per paper figure or table, and the notebook runner behind `make figures`.

Reads only committed results; imports the layers below for their record types and readers.
"""
