"""Slices as numpy columns: what ``summary`` and ``analyze`` compute on, so that a trace of
millions of records is read and summed without a Python object per record.

A :class:`Columns` holds one process's slices: ``start``/``end`` (int64 ns), ``name``, ``cat``,
``row`` and ``comm`` (int32 codes into ``strings``; ``comm`` -1 for none), ``bytes`` (int64) and
``bw`` (float64, NaN for none). :func:`group` sums durations per key across processes.
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
        return np.isin(self.cat, codes)

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


class Keys:
    """Strings (or tuples of them) as dense integer codes shared across processes."""

    def __init__(self):
        self.index = {}
        self.values = []

    def code(self, key):
        c = self.index.get(key)
        if c is None:
            c = self.index[key] = len(self.values)
            self.values.append(key)
        return c


def group(keys, durs, nbytes=None):
    """{key code: (count, total, min, max, bytes)} of durations grouped by integer key codes;
    Python ints throughout, as the per-object sums gave."""
    if len(keys) == 0:
        return {}
    if 0 <= keys.min() and keys.max() < 1 << 15:
        keys = keys.astype(np.int16)  # numpy sorts 16-bit integers by radix: linear time
    order = np.argsort(keys, kind="stable")
    k, d = keys[order], durs[order]
    starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
    counts = np.diff(np.append(starts, len(k)))
    totals = np.add.reduceat(d, starts)
    lo = np.minimum.reduceat(d, starts)
    hi = np.maximum.reduceat(d, starts)
    b = np.add.reduceat(nbytes[order], starts).tolist() if nbytes is not None else [0] * len(starts)
    return {int(key): (n, t, a, z, y) for key, n, t, a, z, y in zip(k[starts].tolist(), counts.tolist(), totals.tolist(),
                                                                lo.tolist(), hi.tolist(), b)}
