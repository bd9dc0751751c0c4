"""Slices as numpy columns: what ``summary`` and ``analyze`` compute on, so that a trace of
millions of records is read and summed without a Python object per record.

A :class:`Columns` holds one process's slices: ``start``/``end`` (int64 ns), ``name``, ``cat``,
``row`` and ``comm`` (int32 codes into ``strings``; ``comm`` -1 for none), ``bytes`` (int64) and
``bw`` (float64, NaN for none). :func:`group_pairs` sums durations per pair of keys of one
process, in C++ where the decoder's library is found (numpy's calls cost more than the sums on a
large trace), else with numpy (the reference).
"""

import numpy as np

from .model import Slice


class Columns:
    def __init__(self, strings, start, end, name, cat, row, nbytes=None, bw=None, comm=None):
        n = len(start)
        self.strings = list(strings)
        self.start = np.asarray(start, dtype=np.int64)
        self.end = np.asarray(end, dtype=np.int64)
        self.name = np.asarray(name, dtype=np.int32)
        self.cat = np.asarray(cat, dtype=np.int32)
        self.row = np.asarray(row, dtype=np.int32)
        self.bytes = np.zeros(n, np.int64) if nbytes is None else np.asarray(nbytes, dtype=np.int64)
        self.bw = np.full(n, np.nan) if bw is None else np.asarray(bw, dtype=np.float64)
        self.comm = np.full(n, -1, np.int32) if comm is None else np.asarray(comm, dtype=np.int32)
        self._index = None

    def __len__(self):
        return len(self.start)

    @classmethod
    def from_slices(cls, slices):
        index = {}

        def code(s):
            c = index.get(s)
            if c is None:
                c = index[s] = len(index)
            return c

        n = len(slices)
        cols = cls(
            [], np.fromiter((s.start for s in slices), np.int64, n), np.fromiter((s.end for s in slices), np.int64, n),
            np.fromiter((code(s.name) for s in slices), np.int32, n),
            np.fromiter((code(s.cat) for s in slices), np.int32, n),
            np.fromiter((code(s.row) for s in slices), np.int32, n),
            np.fromiter((s.bytes for s in slices), np.int64, n),
            np.fromiter((np.nan if s.bandwidth is None else s.bandwidth for s in slices), np.float64, n),
            np.fromiter((-1 if s.comm is None else code(s.comm) for s in slices), np.int32, n))
        cols.strings = list(index)
        return cols

    def to_slices(self):
        st = self.strings
        comm = [None if c < 0 else st[c] for c in self.comm.tolist()]
        bw = [None if b != b else b for b in self.bw.tolist()]  # NaN: none
        return [Slice(st[n], st[c], a, b, st[r], nb, w, m)
                for n, c, a, b, r, nb, w, m in zip(self.name.tolist(), self.cat.tolist(), self.start.tolist(),
                                                     self.end.tolist(), self.row.tolist(), self.bytes.tolist(), bw,
                                                     comm)]

    def code(self, s):
        """The code of string s, or -1 when no slice uses it."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.strings)}
        return self._index.get(s, -1)

    def mask(self, *cats):
        """Which slices have one of the categories."""
        codes = [c for c in (self.code(x) for x in cats) if c >= 0]
        if not codes:
            return np.zeros(len(self), bool)
        if len(codes) == 1:
            return self.cat == codes[0]
        table = np.zeros(len(self.strings), bool)  # a lookup per code: half the time of np.isin
        table[codes] = True
        return table[self.cat]

    def string_mask(self, pred):
        """A boolean per string code: pred(string)."""
        return np.fromiter((bool(pred(s)) for s in self.strings), bool, len(self.strings))

    def take(self, which):
        out = Columns(self.strings, self.start[which], self.end[which], self.name[which], self.cat[which],
                      self.row[which], self.bytes[which], self.bw[which], self.comm[which])
        out._index = self._index
        return out

    def shift(self, delta):
        self.start += delta
        self.end += delta

    def dur(self, which=slice(None)):
        return self.end[which] - self.start[which]


def group_pairs(a, b, start, end, nbytes, sel, native=None):
    """[(a, b, count, total, min, max, bytes)] of the durations end - start grouped by the pair
    (a[i], b[i]) over the rows sel selects (a boolean array), as Python ints; in the order of
    each pair's first row. a may be None (all 0). native: True or False to choose the C++ or the
    numpy way (None: C++ where its library is found)."""
    lib = None
    if native is not False:
        from . import reader_native
        lib = reader_native.library()
        if lib is None and native:
            raise RuntimeError("the native library (libmspti_trace_reader.so) is not found")
    n = len(b)
    if lib is not None:
        return _group_pairs_native(lib, n, a, b, start, end, nbytes, sel)
    return _group_pairs_numpy(a, b, start, end, nbytes, sel)


def _group_pairs_native(lib, n, a, b, start, end, nbytes, sel):
    keep = [np.ascontiguousarray(x, t) if x is not None else None
            for x, t in ((a, np.int32), (b, np.int32), (start, np.int64), (end, np.int64), (nbytes, np.int64),
                         (sel, np.bool_))]
    room = int(np.count_nonzero(keep[5])) if sel is not None else n
    if room == 0:
        return []
    oa, ob = np.empty(room, np.int32), np.empty(room, np.int32)
    outs = [np.empty(room, np.int64) for _ in range(5)]
    got = lib.mspti_pft_group(n, *[None if x is None else x.ctypes.data for x in keep], oa.ctypes.data,
                              ob.ctypes.data, *[o.ctypes.data for o in outs])
    if got < 0:
        raise MemoryError("out of memory while grouping")
    cols = [oa[:got].tolist(), ob[:got].tolist()] + [o[:got].tolist() for o in outs]
    return list(zip(*cols))


def _group_pairs_numpy(a, b, start, end, nbytes, sel):
    idx = np.flatnonzero(sel) if sel is not None else np.arange(len(b))
    if not len(idx):
        return []
    bb = np.asarray(b, np.int64)[idx]
    aa = np.asarray(a, np.int64)[idx] if a is not None else np.zeros(len(idx), np.int64)
    key = (aa << 32) | (bb & 0xFFFFFFFF)
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    d = np.asarray(end, np.int64)[idx] - np.asarray(start, np.int64)[idx]
    nb = np.asarray(nbytes, np.int64)[idx] if nbytes is not None else np.zeros(len(idx), np.int64)
    count = np.bincount(inv, minlength=len(uniq))
    order = np.argsort(inv, kind="stable")
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))
    total = np.add.reduceat(d[order], starts)
    lo = np.minimum.reduceat(d[order], starts)
    hi = np.maximum.reduceat(d[order], starts)
    by = np.add.reduceat(nb[order], starts)
    rows = sorted(range(len(uniq)), key=lambda g: first[g])  # first-row order, as the C++ way
    return [(int(aa[first[g]]), int(bb[first[g]]), int(count[g]), int(total[g]), int(lo[g]), int(hi[g]), int(by[g]))
            for g in rows]
