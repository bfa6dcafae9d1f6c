"""Compiled (numba) search core: a bitboard chess board that agrees move for move with
python-chess (:mod:`chessmoe.search.native.board`), for searches that cannot afford
python-chess's move generation in their inner loop.
"""
