"""Plumbing shared by every layer: atomic files, JSONL logs, resumable jobs, provenance, tools.

Nothing here knows about chess; every other layer may import it.
"""
