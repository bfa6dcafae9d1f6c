"""The search tree as arrays (:class:`Tree`), and the compiled steps of a PUCT search over it.

Every function here is ``@compiled`` over preallocated arrays, passed as three typed records:
:class:`Tree`, :class:`Params` (the search's constants) and :class:`Game` (what the tree reads
of the game). The Python driver (:mod:`chessmoe.search.native.search`) owns the arrays, grows
them between calls and talks to evaluators. Selection compiles the Python search's own rule
(:mod:`chessmoe.search.puct`); the rest mirrors :class:`chessmoe.search.mcts.MCTS` operation by
operation (same float64 expressions in the same order), so both searches visit the same nodes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.extending import register_jitable

from chessmoe.search import puct
from chessmoe.search.native.board import (
    POS_WORDS,
    castling,
    checkers,
    fullmove,
    gen_legal,
    halfmove,
    insufficient_material,
    is_check,
    key,
    legal_ep_square,
    make_move,
    turn,
)
from chessmoe.search.native.jit import compiled

__all__ = [
    "EI",
    "MAX_MOVES",
    "NI",
    "POS_WORDS",
    "RECORD_SIZE",
    "Game",
    "Params",
    "Tree",
]

# node columns
PARENT, PEDGE, DEPTH, FIRST, COUNT, FLAGS, VISITS, MOVE = range(8)
NI = 8
# flags
EXPANDED, PENDING, TERMINAL = 1, 2, 4
# edge columns
E_MOVE, E_N, E_CHILD, E_POLICY = range(4)
EI = 4
E_PRIOR, E_W = 0, 1
# state
S_NODES, S_EDGES, S_ROOT = 0, 1, 2

MAX_MOVES = 256  # the most legal moves of a chess position is 218
RECORD_SIZE = 97  # chessmoe.encoding.RECORD_DTYPE.itemsize (checked by the driver)
NO_SQUARE = 64
_PAWNS, _ROOKS, _QUEENS = 2, 5, 6


class Tree(NamedTuple):
    """The arrays of one tree. Immutable as a record: the driver makes a new one when it grows
    an array; the arrays themselves are written.

    Layout (``N`` nodes, ``E`` edges; a node's edges are contiguous, in generation order until
    it is expanded, then in descending prior order):

    * ``ni[N, NI]`` int64: parent, edge from the parent, depth, first edge, edge count, flags
      (expanded, pending, terminal), visits, the move that led here (-1 at the root);
    * ``nv[N]`` float64: the terminal value (side to move);
    * ``pos[N, POS_WORDS]`` uint64: the position (:mod:`chessmoe.search.native.board`);
    * ``ei[E, EI]`` int64: move, visits, child node (-1 none), policy index;
    * ``ef[E, 2]`` float64: sharpened prior, value sum (the parent's side to move);
    * ``st[4]`` int64: nodes used, edges used, the root.
    """

    ni: np.ndarray  # [N, NI] int64
    nv: np.ndarray  # [N] float64
    pos: np.ndarray  # [N, POS_WORDS] uint64
    ei: np.ndarray  # [E, EI] int64
    ef: np.ndarray  # [E, 2] float64
    st: np.ndarray  # [4] int64


class Params(NamedTuple):
    """A search's constants (its :class:`~chessmoe.search.mcts.SearchConfig`), typed as
    the compiled code reads them."""

    c_init: float
    c_base: float
    unvisited_q: float
    vv: int  # virtual visits a descent adds along its path
    batch_size: int
    max_collisions: int  # descents that may meet a pending leaf per mini-batch; 0: ``want``


class Game(NamedTuple):
    """What the tree reads of the game being played."""

    hist: np.ndarray  # [k] uint64: the keys of the game's positions before the root
    last: np.ndarray  # [8, 2] int64: the game's last moves (from, to), most recent first
    plane_lut: np.ndarray  # [64, 64] int16: chessmoe.encoding's policy plane table


for _helper in (puct.exploration, puct.scale, puct.score):
    register_jitable(_helper)  # callable from compiled code, unchanged for Python
select_child = compiled(puct.select)


# --- policy indices (chessmoe.encoding.policy_indices, one move at a time) -------------------

@compiled
def policy_index(move: int, white: int, plane_lut: np.ndarray) -> int:
    src = move & 63
    dst = (move >> 6) & 63
    promo = (move >> 12) & 7
    if not white:
        src ^= 56
        dst ^= 56
    plane = 64 + 3 * (promo - 2) + (dst % 8 - src % 8) + 1 if promo > 0 else plane_lut[src, dst]
    return int(plane * 64 + src)


# --- nodes ------------------------------------------------------------------------------------

@compiled
def history_count(k: np.uint64, hist: np.ndarray) -> int:
    count = 0
    for i in range(hist.shape[0]):
        if hist[i] == k:
            count += 1
    return count


@compiled
def repetitions(t: Tree, node: int, hist: np.ndarray) -> int:
    """Earlier occurrences of ``node``'s position in the game and on its search path."""
    ni, pos = t.ni, t.pos
    k = key(pos[node])
    count = history_count(k, hist)
    a = ni[node, PARENT]
    while a >= 0 and count < 2:
        if key(pos[a]) == k:
            count += 1
        if np.int64(halfmove(pos[a])) == 0:
            break
        a = ni[a, PARENT]
    return count


@compiled
def new_node(t: Tree, parent: int, edge: int, move: int, game: Game, buf: np.ndarray) -> int:
    """A node for ``move`` played from ``parent`` (its position must already be in
    ``pos[st[S_NODES]]`` when ``parent`` is -1): legal moves as edges, terminal status."""
    ni, nv, pos, ei, ef, st = t
    n = int(st[S_NODES])
    st[S_NODES] = n + 1
    if parent >= 0:
        make_move(pos[parent], move, pos[n])
        ni[n, DEPTH] = ni[parent, DEPTH] + 1
    else:
        ni[n, DEPTH] = 0
    ni[n, PARENT] = parent
    ni[n, PEDGE] = edge
    ni[n, FLAGS] = 0
    ni[n, VISITS] = 0
    ni[n, MOVE] = move
    nv[n] = 0.0
    p = pos[n]
    count = gen_legal(p, buf)
    first = st[S_EDGES]
    st[S_EDGES] = first + count
    white = int(turn(p))
    for k in range(count):
        e = first + k
        ei[e, E_MOVE] = buf[k]
        ei[e, E_N] = 0
        ei[e, E_CHILD] = -1
        ei[e, E_POLICY] = policy_index(buf[k], white, game.plane_lut)
        ef[e, E_PRIOR] = 0.0
        ef[e, E_W] = 0.0
    ni[n, FIRST] = first
    ni[n, COUNT] = count
    if count == 0:
        ni[n, FLAGS] = TERMINAL
        nv[n] = -1.0 if is_check(p) else 0.0
    elif (np.int64(halfmove(p)) >= 100
          or ((p[_PAWNS] | p[_ROOKS] | p[_QUEENS]) == 0 and insufficient_material(p))
          or (parent >= 0 and repetitions(t, n, game.hist) >= 2)):
        ni[n, FLAGS] = TERMINAL  # fifty moves, insufficient material, threefold: a draw
    return n


# --- selection, collection, backup -------------------------------------------------------------

@compiled
def select(t: Tree, node: int, params: Params) -> int:
    """The child of ``node`` a descent takes (:func:`chessmoe.search.puct.select`)."""
    return select_child(t.ei[:, E_N], t.ef[:, E_W], t.ef[:, E_PRIOR], t.ni[node, FIRST],
                        t.ni[node, COUNT], t.ni[node, VISITS], params.c_init, params.c_base,
                        params.unvisited_q)


@compiled
def undo_virtual(t: Tree, node: int, root: int, vv: int) -> None:
    ni, ei, ef = t.ni, t.ei, t.ef
    x = node
    while x != root:
        e = ni[x, PEDGE]
        p = ni[x, PARENT]
        ei[e, E_N] -= vv
        ef[e, E_W] += vv
        ni[p, VISITS] -= vv
        x = p


@compiled
def backup(t: Tree, leaf: int, root: int, value: float, vv: int) -> None:
    """Back up ``value`` (the leaf's side to move), removing ``vv`` virtual visits per edge."""
    ni, ei, ef = t.ni, t.ei, t.ef
    ni[leaf, VISITS] += 1
    v = -value
    x = leaf
    while x != root:
        e = ni[x, PEDGE]
        p = ni[x, PARENT]
        ei[e, E_N] += 1 - vv
        ef[e, E_W] += v + vv
        ni[p, VISITS] += 1 - vv
        v = -v
        x = p


@compiled
def collect(t: Tree, want: int, params: Params, game: Game, leaves: np.ndarray,
            out: np.ndarray) -> None:
    """Up to ``want`` descents from the root; ``leaves`` gets the new (pending) leaves and
    ``out`` = (leaves, terminal descents, collisions). At most ``params.max_collisions``
    descents may meet a pending leaf (0: ``want``, and at least one)."""
    ni, nv, ei, ef = t.ni, t.nv, t.ei, t.ef
    vv = params.vv
    limit = params.max_collisions if params.max_collisions > 0 else max(1, want)
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    root = t.st[S_ROOT]
    nleaves = 0
    terminal = 0
    collisions = 0
    while nleaves + terminal < want and collisions < limit:
        node = root
        while (ni[node, FLAGS] & EXPANDED) and not (ni[node, FLAGS] & TERMINAL):
            i = select(t, node, params)
            e = ni[node, FIRST] + i
            ei[e, E_N] += vv
            ef[e, E_W] -= vv
            ni[node, VISITS] += vv
            child = ei[e, E_CHILD]
            if child < 0:
                child = new_node(t, node, e, ei[e, E_MOVE], game, buf)
                ei[e, E_CHILD] = child
            node = child
        if ni[node, FLAGS] & TERMINAL:
            undo_virtual(t, node, root, vv)
            backup(t, node, root, nv[node], 0)
            terminal += 1
            if node == root:
                break
            continue
        if ni[node, FLAGS] & PENDING:
            undo_virtual(t, node, root, vv)
            collisions += 1
            continue
        ni[node, FLAGS] |= PENDING
        leaves[nleaves] = node
        nleaves += 1
    out[0] = nleaves
    out[1] = terminal
    out[2] = collisions


@compiled
def root_decided(t: Tree, root: int) -> bool:
    """Every root move leads to a created terminal node and the root has > 4 visits a move."""
    ni, ei = t.ni, t.ei
    first = ni[root, FIRST]
    count = ni[root, COUNT]
    for k in range(count):
        child = ei[first + k, E_CHILD]
        if child < 0 or not (ni[child, FLAGS] & TERMINAL):
            return False
    return bool(ni[root, VISITS] > 4 * count)


# --- leaf records and policy indices for the evaluator -----------------------------------------

@compiled
def _put_u64(rec: np.ndarray, offset: int, value: np.uint64) -> None:
    for b in range(8):
        rec[offset + b] = np.uint8((value >> np.uint64(8 * b)) & np.uint64(255))


@compiled
def write_batch(t: Tree, leaves: np.ndarray, nleaves: int, game: Game, records: np.ndarray,
                policy: np.ndarray, offsets: np.ndarray) -> int:
    """Each leaf's :data:`~chessmoe.encoding.RECORD_DTYPE` bytes into ``records[i]`` and its
    moves' policy indices into ``policy`` (leaf i's at ``offsets[i]:offsets[i + 1]``);
    returns the number of policy indices written."""
    ni, pos, ei = t.ni, t.pos, t.ei
    last_hist = game.last
    total = 0
    for i in range(nleaves):
        leaf = leaves[i]
        p = pos[leaf]
        rec = records[i]
        for w in range(8):
            _put_u64(rec, 8 * w, p[w])
        _put_u64(rec, 64, checkers(p))
        slot = 0
        x = leaf
        while x >= 0 and ni[x, MOVE] >= 0 and slot < 8:
            m = ni[x, MOVE]
            rec[72 + 2 * slot] = m & 63
            rec[73 + 2 * slot] = (m >> 6) & 63
            slot += 1
            x = ni[x, PARENT]
        k = 0
        while slot < 8:
            if k < 8:
                rec[72 + 2 * slot] = last_hist[k, 0]
                rec[73 + 2 * slot] = last_hist[k, 1]
                k += 1
            else:
                rec[72 + 2 * slot] = NO_SQUARE
                rec[73 + 2 * slot] = NO_SQUARE
            slot += 1
        rec[88] = legal_ep_square(p)
        rec[89] = castling(p)
        rec[90] = turn(p)
        rec[91] = min(repetitions(t, leaf, game.hist), 2)
        rec[92] = 0
        hm = np.int64(halfmove(p))
        if hm > 65535:
            hm = np.int64(65535)
        rec[93] = hm & 255
        rec[94] = hm >> 8
        fm = np.int64(fullmove(p))
        if fm > 65535:
            fm = np.int64(65535)
        rec[95] = fm & 255
        rec[96] = fm >> 8
        offsets[i] = total
        first = ni[leaf, FIRST]
        for k2 in range(ni[leaf, COUNT]):
            policy[total] = ei[first + k2, E_POLICY]
            total += 1
    offsets[nleaves] = total
    return total


# --- the reference's prior arithmetic (numpy's, operation for operation) ------------------------

@compiled
def _sum_block(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of ``a[lo:lo + n]`` for ``n <= 128`` (its unrolled block)."""
    if n < 8:
        res = -0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return float(res)


@compiled
def _half(n: int) -> int:
    """numpy's split point: half of ``n``, rounded down to a multiple of the unroll factor 8."""
    half = n // 2
    return half - half % 8


@compiled
def _sum_1(a: np.ndarray, lo: int, n: int) -> float:
    if n <= 128:
        return _sum_block(a, lo, n)
    h = _half(n)
    return _sum_block(a, lo, h) + _sum_block(a, lo + h, n - h)


@compiled
def _sum_2(a: np.ndarray, lo: int, n: int) -> float:
    if n <= 128:
        return _sum_block(a, lo, n)
    h = _half(n)
    return _sum_1(a, lo, h) + _sum_1(a, lo + h, n - h)


@compiled
def _sum_3(a: np.ndarray, lo: int, n: int) -> float:
    if n <= 128:
        return _sum_block(a, lo, n)
    h = _half(n)
    return _sum_2(a, lo, h) + _sum_2(a, lo + h, n - h)


@compiled
def pairwise_sum(a: np.ndarray, lo: int, n: int) -> float:
    """``a[lo:lo + n].sum()`` exactly as numpy computes a float64 sum: blocks of at most 128
    summed 8-way unrolled, longer runs split in two at a multiple of 8 and summed apart (its
    recursion, unrolled four levels deep: exact for ``n`` up to 960, far above the 218 legal
    moves a position can have)."""
    if n <= 128:
        return _sum_block(a, lo, n)
    h = _half(n)
    return _sum_3(a, lo, h) + _sum_3(a, lo + h, n - h)


@compiled
def sharpen(powered: np.ndarray, offsets: np.ndarray, nleaves: int, sharp: np.ndarray,
            order: np.ndarray) -> None:
    """Each leaf's sharpened priors, normalised, and their stable descending order, from
    ``powered`` (numpy's ``max(p, 0) ** (1 / T)``): the reference's ``sharp / sharp.sum()``
    (uniform when the sum is not positive) and ``argsort(-sharp, kind="stable")``."""
    for i in range(nleaves):
        lo = offsets[i]
        n = offsets[i + 1] - lo
        total = pairwise_sum(powered, lo, n)
        neg = np.empty(n, dtype=np.float64)
        for k in range(n):
            value = powered[lo + k] / total if total > 0 else 1 / n
            sharp[lo + k] = value
            neg[k] = -value
        rank = np.argsort(neg, kind="mergesort")
        for k in range(n):
            order[lo + k] = rank[k]
        for k in range(n):
            neg[k] = sharp[lo + rank[k]]
        for k in range(n):
            sharp[lo + k] = neg[k]


# --- expansion and backup of an evaluated mini-batch -------------------------------------------

@compiled
def expand(t: Tree, node: int, priors: np.ndarray, order: np.ndarray, offset: int,
           tmp: np.ndarray) -> None:
    """Expand ``node``: its edges reordered by ``order`` (the stable sort of the sharpened
    priors) with ``priors`` (already in that order) from ``offset``."""
    ni, ei, ef = t.ni, t.ei, t.ef
    first = ni[node, FIRST]
    count = ni[node, COUNT]
    for k in range(count):
        tmp[k, 0] = ei[first + k, E_MOVE]
        tmp[k, 1] = ei[first + k, E_POLICY]
    for k in range(count):
        j = order[offset + k]
        ei[first + k, E_MOVE] = tmp[j, 0]
        ei[first + k, E_POLICY] = tmp[j, 1]
        ei[first + k, E_N] = 0
        ei[first + k, E_CHILD] = -1
        ef[first + k, E_PRIOR] = priors[offset + k]
        ef[first + k, E_W] = 0.0
    ni[node, FLAGS] = (ni[node, FLAGS] | EXPANDED) & ~PENDING


@compiled
def finish_batch(t: Tree, leaves: np.ndarray, nleaves: int, values: np.ndarray,
                 powered: np.ndarray, offsets: np.ndarray, vv: int, back_up: bool,
                 out: np.ndarray) -> None:
    """Expand every leaf with its priors (``powered``: numpy's ``max(p, 0) ** (1 / T)``,
    sharpened here as :func:`sharpen` does), then back each one's value up in order (as the
    Python search does); ``out`` = (sum of leaf depths below the root, deepest leaf below
    the root)."""
    ni = t.ni
    root = t.st[S_ROOT]
    sharp = np.empty(powered.shape[0], dtype=np.float64)
    order = np.empty(powered.shape[0], dtype=np.int64)
    sharpen(powered, offsets, nleaves, sharp, order)
    tmp = np.empty((MAX_MOVES, 2), dtype=np.int64)
    for i in range(nleaves):
        expand(t, leaves[i], sharp, order, offsets[i], tmp)
    depth_sum = 0
    deepest = 0
    if back_up:
        for i in range(nleaves):
            backup(t, leaves[i], root, float(values[i]), vv)
            d = ni[leaves[i], DEPTH] - ni[root, DEPTH]
            depth_sum += d
            if d > deepest:
                deepest = d
    out[0] = depth_sum
    out[1] = deepest


# --- a whole search with the uniform evaluator (no Python per mini-batch) ----------------------

@compiled
def uniform_run(t: Tree, params: Params, game: Game, uniform: np.ndarray, node_limit: int,
                sim_limit: int, max_batches: int, ctr: np.ndarray) -> int:
    """Search steps with value 0 and uniform priors (``uniform[n]``: the sharpened prior of
    each of n moves, as the Python search computes it) until a limit (returns 0), the tree
    is too full for another step (1: grow and call again) or ``max_batches`` steps ran (2).
    ``ctr``: nodes, simulations, batches, collisions, depth sum, deepest (updated)."""
    ni, ef, st = t.ni, t.ef, t.st
    node_room, edge_room = t.ni.shape[0], t.ei.shape[0]
    batch_size = params.batch_size
    leaves = np.empty(max(batch_size, 1), dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    root = st[S_ROOT]
    steps = 0
    while True:
        if node_limit >= 0 and ctr[0] >= node_limit:
            return 0
        if sim_limit >= 0 and ctr[1] >= sim_limit:
            return 0
        if root_decided(t, root):
            return 0
        if steps >= max_batches:
            return 2
        want = batch_size
        if node_limit >= 0:
            want = min(want, node_limit - ctr[0])
        if sim_limit >= 0:
            want = min(want, sim_limit - ctr[1])
        room = 2 * want + 2
        if st[S_NODES] + room > node_room or st[S_EDGES] + room * MAX_MOVES > edge_room:
            return 1
        collect(t, want, params, game, leaves, out)
        nleaves = out[0]
        ctr[1] += out[1]
        ctr[3] += out[2]
        steps += 1
        if nleaves > 0:
            for i in range(nleaves):
                leaf = leaves[i]
                count = ni[leaf, COUNT]
                first = ni[leaf, FIRST]
                prior = uniform[count]
                for k in range(count):
                    ef[first + k, E_PRIOR] = prior
                ni[leaf, FLAGS] = (ni[leaf, FLAGS] | EXPANDED) & ~PENDING
            for i in range(nleaves):
                backup(t, leaves[i], root, 0.0, params.vv)
                d = ni[leaves[i], DEPTH] - ni[root, DEPTH]
                ctr[4] += d
                if d > ctr[5]:
                    ctr[5] = d
            ctr[0] += nleaves
            ctr[1] += nleaves
            ctr[2] += 1
        elif out[1] == 0:
            return 0


# --- tree reuse ----------------------------------------------------------------------------------

@compiled
def compact(t: Tree, new_root: int, fresh: Tree) -> None:
    """Copy the subtree under ``new_root`` into ``fresh``, rooted at node 0 (depths from 0,
    no parent, no move), breadth first."""
    ni, nv, pos, ei, ef, _ = t
    ni2, nv2, pos2, ei2, ef2, st2 = fresh
    n_old = ni.shape[0]
    remap = np.full(n_old, -1, dtype=np.int64)
    queue = np.empty(n_old, dtype=np.int64)
    queue[0] = new_root
    remap[new_root] = 0
    head = 0
    tail = 1
    edges = 0
    while head < tail:
        old = queue[head]
        new = head
        head += 1
        for c in range(NI):
            ni2[new, c] = ni[old, c]
        nv2[new] = nv[old]
        for w in range(pos.shape[1]):
            pos2[new, w] = pos[old, w]
        first = ni[old, FIRST]
        count = ni[old, COUNT]
        ni2[new, FIRST] = edges
        for k in range(count):
            for c in range(EI):
                ei2[edges + k, c] = ei[first + k, c]
            ef2[edges + k, 0] = ef[first + k, 0]
            ef2[edges + k, 1] = ef[first + k, 1]
            child = ei[first + k, E_CHILD]
            if child >= 0:
                remap[child] = tail
                queue[tail] = child
                tail += 1
                ei2[edges + k, E_CHILD] = remap[child]
        edges += count
    for new in range(tail):
        if new == 0:
            ni2[0, PARENT] = -1
            ni2[0, PEDGE] = -1
            ni2[0, MOVE] = -1
            ni2[0, DEPTH] = 0
        else:
            ni2[new, PARENT] = remap[ni2[new, PARENT]]
            parent = ni2[new, PARENT]
            ni2[new, DEPTH] = ni2[parent, DEPTH] + 1
        first = ni2[new, FIRST]
        for k in range(ni2[new, COUNT]):
            child = ei2[first + k, E_CHILD]
            if child >= 0:
                ni2[child, PEDGE] = first + k
    st2[S_NODES] = tail
    st2[S_EDGES] = edges
    st2[S_ROOT] = 0


@compiled
def game_keys(start: np.ndarray, moves: np.ndarray, out_keys: np.ndarray) -> None:
    """The keys of the game's positions before each move (``start``, then after each move
    but the last), for repetition counts."""
    a = start.copy()
    b = np.empty_like(a)
    for i in range(moves.shape[0]):
        out_keys[i] = key(a)
        make_move(a, moves[i], b)
        a, b = b, a
