"""A network evaluation's per-batch work around the forward pass, compiled: the leaves' input
planes, the gate's phases and the softmax over each leaf's legal moves.

Each is a compiled copy of a numpy definition that stays the reference, and equals it bit for
bit (tests/test_glue.py): :func:`planes` of :func:`chessmoe.encoding.records_to_planes`,
:func:`phases` of :meth:`chessmoe.phases.PhaseDefinition.phases`, and
:func:`legal_softmax_flat` of :func:`chessmoe.search.experts.legal_softmax` (numpy's own
``exp`` runs between the two compiled halves, once over the whole batch, so no last bit of
a prior can differ). ``CHESSMOE_GLUE=numpy`` runs the references instead (same results;
the benchmark's baseline).
"""

from __future__ import annotations

import os
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from chessmoe.encoding import HALFMOVE_SCALE, MATERIAL_SCALE, N_PLANES, RECORD_DTYPE
from chessmoe.phases import (
    BACKRANK_MIN_PIECES,
    ENDGAME_MAX_PIECES,
    MIDDLEGAME_MAX_PIECES,
    MIXEDNESS_THRESHOLD,
    LichessPhases,
    MoveCountPhases,
    PhaseDefinition,
    mixedness_tables,
    movecount_phase_length,
)
from chessmoe.search.native.bitboards import lsb, popcount
from chessmoe.search.native.jit import compiled, inlined
from chessmoe.search.native.tree import pairwise_sum

__all__ = ["chain_offsets", "compiled_glue", "gate", "legal_softmax_flat", "planes"]

_RECORD_SIZE: Final = RECORD_DTYPE.itemsize
_LIGHT: Final = np.uint64(0x55AA55AA55AA55AA)  # chess.BB_LIGHT_SQUARES
_RANK_1: Final = np.uint64(0xFF)
_RANK_8: Final = np.uint64(0xFF << 56)
_HALFMOVE_SCALE: Final = np.float32(HALFMOVE_SCALE)
_MATERIAL_SCALE: Final = np.float32(MATERIAL_SCALE)
_LICHESS, _MOVECOUNT = 0, 1


def compiled_glue() -> bool:
    """Whether evaluations use the compiled glue (the default) or, with
    ``CHESSMOE_GLUE=numpy``, the numpy references."""
    return os.environ.get("CHESSMOE_GLUE", "compiled") != "numpy"


def _raw(records: npt.NDArray[Any]) -> npt.NDArray[np.uint8] | None:
    """``[N, 97]`` bytes of records of exactly :data:`RECORD_DTYPE`; None for others (e.g.
    dataset samples, which carry more fields)."""
    if records.dtype is not RECORD_DTYPE and records.dtype != RECORD_DTYPE:
        return None
    flat = np.ascontiguousarray(records).reshape(-1)
    return flat.view(np.uint8).reshape(len(flat), _RECORD_SIZE)


# --- planes ----------------------------------------------------------------------------------

@inlined
def _u64(rec: np.ndarray, offset: int) -> np.uint64:
    value = np.uint64(0)
    for b in range(8):
        value |= np.uint64(rec[offset + b]) << np.uint64(8 * b)
    return value


@inlined
def _put_bits(plane: np.ndarray, bits: np.uint64, flip: int) -> None:
    while bits:
        plane[lsb(bits) ^ flip] = 1.0
        bits &= bits - np.uint64(1)


@compiled
def _fill_planes(raw: np.ndarray, out: np.ndarray) -> None:
    """``records_to_planes`` (normalised) of each row of ``raw`` into ``out[N, 52, 64]``,
    which must be zero."""
    for i in range(raw.shape[0]):
        rec = raw[i]
        p = out[i]
        white_to_move = rec[90] != 0
        flip = 0 if white_to_move else 56  # a vertical mirror for Black to move
        white, black = _u64(rec, 0), _u64(rec, 8)
        us, them = (white, black) if white_to_move else (black, white)
        own = np.zeros(5, dtype=np.float32)
        theirs = np.zeros(5, dtype=np.float32)
        for kind in range(6):
            pieces = _u64(rec, 16 + 8 * kind)
            _put_bits(p[kind], pieces & us, flip)
            _put_bits(p[6 + kind], pieces & them, flip)
            if kind < 5:
                own[kind] = np.float32(popcount(pieces & us))
                theirs[kind] = np.float32(popcount(pieces & them))
        _put_bits(p[37], us, flip)
        _put_bits(p[38], them, flip)
        _put_bits(p[46], _u64(rec, 64), flip)
        if rec[88] < 64:
            p[14, np.int64(rec[88]) ^ flip] = 1.0
        for slot in range(16):  # (from, to) of the last 8 moves
            square = np.int64(rec[72 + slot])
            if square < 64:
                p[20 + slot, square ^ flip] = 1.0
        repetition = rec[91]
        castling = np.int64(rec[89])
        own_shift = 0 if white_to_move else 2
        their_shift = 2 if white_to_move else 0
        halfmove = np.float32(np.int64(rec[93]) | np.int64(rec[94]) << 8) / _HALFMOVE_SCALE
        bishops_us = _u64(rec, 32) & us
        bishops_them = _u64(rec, 32) & them
        opposite = (popcount(bishops_us) == 1 and popcount(bishops_them) == 1
                    and ((bishops_us & _LIGHT) != 0) != ((bishops_them & _LIGHT) != 0))
        for sq in range(64):
            p[12, sq] = 1.0 if repetition >= 1 else 0.0
            p[13, sq] = 1.0 if repetition >= 2 else 0.0
            p[15, sq] = (castling >> own_shift) & 1
            p[16, sq] = (castling >> (own_shift + 1)) & 1
            p[17, sq] = (castling >> their_shift) & 1
            p[18, sq] = (castling >> (their_shift + 1)) & 1
            p[19, sq] = halfmove
            p[36, sq] = rec[92]
            p[39, sq] = (sq // 8 + sq % 8) % 2
            p[45, sq] = 1.0 if opposite else 0.0
            for kind in range(5):
                p[40 + kind, sq] = (own[kind] - theirs[kind]) / _MATERIAL_SCALE
                p[47 + kind, sq] = own[kind] / _MATERIAL_SCALE


def planes(records: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """``(N, 52, 8, 8)`` float32 planes of N records: what
    :func:`~chessmoe.encoding.records_to_planes` gives, compiled."""
    raw = _raw(records) if compiled_glue() else None
    if raw is None:
        from chessmoe.encoding import records_to_planes

        return records_to_planes(records)
    out = np.zeros((len(raw), N_PLANES, 64), dtype=np.float32)
    _fill_planes(raw, out)
    return out.reshape(len(raw), N_PLANES, 8, 8)


# --- the gate's phases ----------------------------------------------------------------------

@compiled
def _fill_phases(raw: np.ndarray, rule: int, masks: np.ndarray, lut: np.ndarray,
                 length: int, phases: np.ndarray, counts: np.ndarray) -> None:
    """Each row's phase id, and the rows of each phase (``counts``, zero on entry): the
    Lichess rule with the mixedness ``lut`` (``rule`` 0) or the move count (``rule`` 1,
    ``length`` full moves a phase)."""
    for i in range(raw.shape[0]):
        rec = raw[i]
        if rule == _MOVECOUNT:
            completed = (np.int64(rec[95]) | np.int64(rec[96]) << 8) - 1  # full moves played
            if completed < 0:
                completed = np.int64(0)
            phase = min(completed // length, counts.shape[0] - 1)
        else:
            white, black = _u64(rec, 0), _u64(rec, 8)
            majors_minors = popcount(_u64(rec, 24) | _u64(rec, 32) | _u64(rec, 40)
                                      | _u64(rec, 48))
            if majors_minors <= ENDGAME_MAX_PIECES:
                phase = 2
            else:
                mix = 0
                for k in range(masks.shape[0]):
                    mix += lut[k * 25 + 5 * popcount(white & masks[k])
                               + popcount(black & masks[k])]
                sparse = (popcount(white & _RANK_1) < BACKRANK_MIN_PIECES
                          or popcount(black & _RANK_8) < BACKRANK_MIN_PIECES)
                phase = 1 if (majors_minors <= MIDDLEGAME_MAX_PIECES or sparse
                              or mix > MIXEDNESS_THRESHOLD) else 0
        phases[i] = phase
        counts[phase] += 1


def gate(records: npt.NDArray[Any], definition: PhaseDefinition
         ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """The phase ids of N records under ``definition`` (its own
    :meth:`~chessmoe.phases.PhaseDefinition.phases`, compiled for the registered kinds) and
    the records in each phase (``[n_phases]``: what a mixture's gate votes with)."""
    raw = _raw(records) if compiled_glue() else None
    if raw is None or not isinstance(definition, LichessPhases | MoveCountPhases):
        from chessmoe.phases import BoardBatch

        found = definition.phases(BoardBatch.from_columns(records))
        return found, np.bincount(found, minlength=definition.n_phases)
    phases = np.empty(len(raw), dtype=np.int8)
    counts = np.zeros(definition.n_phases, dtype=np.int64)
    if isinstance(definition, LichessPhases):
        masks, lut = mixedness_tables(definition.table)
        _fill_phases(raw, _LICHESS, masks, lut, 1, phases, counts)
    else:
        masks, lut = mixedness_tables("lichess")  # unread by the move-count rule
        _fill_phases(raw, _MOVECOUNT, masks, lut, movecount_phase_length(definition.n_phases),
                     phases, counts)
    return phases, counts


# --- the softmax over legal moves -----------------------------------------------------------

@compiled
def _legal_logits(logits: np.ndarray, policy: np.ndarray, offsets: np.ndarray,
                  out: np.ndarray) -> None:
    """Row i's logits at its policy indices ``policy[offsets[i]:offsets[i + 1]]``, in
    float64, less their maximum (numpy's ``maximum.reduceat``: a NaN wins)."""
    for i in range(offsets.shape[0] - 1):
        lo, hi = offsets[i], offsets[i + 1]
        top = -np.inf
        nan = False
        for k in range(lo, hi):
            value = np.float64(logits[i, policy[k]])
            out[k] = value
            if value != value:
                nan = True
            elif value > top:
                top = value
        if nan:
            top = np.nan
        for k in range(lo, hi):
            out[k] = out[k] - top


@compiled
def segment_sum(values: np.ndarray, lo: int, hi: int) -> float:
    """``values[lo:hi]`` summed as numpy's ``add.reduceat`` sums a segment: the first term,
    plus the pairwise sum of the rest (not ``values[lo:hi].sum()``, which differs in the
    last bit)."""
    return float(values[lo]) + pairwise_sum(values, lo + 1, hi - lo - 1)


@compiled
def _normalise(exps: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
    """Each row's ``exps`` over their sum, rounded to float32."""
    for i in range(offsets.shape[0] - 1):
        lo, hi = offsets[i], offsets[i + 1]
        if hi == lo:
            continue
        total = segment_sum(exps, lo, hi)
        for k in range(lo, hi):
            out[k] = np.float32(exps[k] / total)


@compiled
def _chain(parts: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    at = 0
    base = 0
    row = 0
    for n in rows:
        for i in range(n):
            out[row + i] = parts[at + i] + base
        base += parts[at + n]
        at += n + 1
        row += n
    out[row] = base


def chain_offsets(parts: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
                  ) -> npt.NDArray[np.int64]:
    """One offsets array for flat arrays laid end to end, from theirs laid end to end
    (``parts``: each array's offsets, ``rows[j] + 1`` of them, from 0)."""
    out = np.empty(int(rows.sum()) + 1, dtype=np.int64)
    _chain(parts, rows, out)
    return out


def legal_softmax_flat(logits: npt.NDArray[np.float32], policy: npt.NDArray[np.int64],
                       offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """Row i's softmax over its legal moves ``policy[offsets[i]:offsets[i + 1]]`` of
    ``logits[i]``, flat like ``policy``: the priors
    :func:`~chessmoe.search.experts.legal_softmax` gives, bit for bit."""
    shifted = np.empty(len(policy), dtype=np.float64)
    _legal_logits(np.ascontiguousarray(logits, dtype=np.float32), policy, offsets, shifted)
    priors = np.empty(len(policy), dtype=np.float32)
    _normalise(np.exp(shifted), offsets, priors)
    return priors
