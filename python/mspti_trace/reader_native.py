"""The pftrace reader on the native decoder (libmspti_trace_reader.so, src/trace_reader): the file
decoded in C++ straight into the columns the analysis uses (times, names, categories, bytes,
bandwidth, communicator), which numpy then reads where they lie (no copy); Python only names the
rows, one per track. No Python object per record. Its rules are reader_pftrace's, which tests it
field by field.

The library is looked for where mspti-trace's other libraries are (native_lib).
``MSPTI_TRACE_READER=python`` makes :func:`available` false (the Python reader is used).
"""

import ctypes
import errno
import os

import numpy as np

from . import native_lib
from . import reader_pftrace as ref
from .columns import Columns
from .model import COLLECTIVE_CATEGORIES, MARKER
from .reader_common import NO_END, STATS_EVENT, extras, instant
from .text import text as _text

_lib = [None]  # [None]: not looked for yet; [False]: not found


def library():
    """The loaded decoder, or None when it is not found."""
    if _lib[0] is None:
        _lib[0] = False
        for path in native_lib.candidates():
            if os.path.exists(path):
                try:
                    lib = ctypes.CDLL(path)
                except OSError:
                    continue
                try:
                    _declare(lib)
                except AttributeError:  # a library of another version: not ours to use
                    continue
                _lib[0] = lib
                break
    return _lib[0] or None


def _declare(lib):
    """The signatures of the library's functions (AttributeError when one is missing)."""
    lib.mspti_pft_read.restype = ctypes.POINTER(_Columns)
    lib.mspti_pft_read.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                                   ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t]
    lib.mspti_pft_free.argtypes = [ctypes.POINTER(_Columns)]
    lib.mspti_pft_free.restype = None
    lib.mspti_pft_group.restype = ctypes.c_int64
    lib.mspti_pft_group.argtypes = [ctypes.c_size_t] + [ctypes.c_void_p] * 13
    lib.mspti_pft_union.restype = ctypes.c_int64
    lib.mspti_pft_union.argtypes = [ctypes.c_size_t] + [ctypes.c_void_p] * 5
    lib.mspti_pft_drop_twins.restype = ctypes.c_int64
    lib.mspti_pft_drop_twins.argtypes = [ctypes.c_size_t] + [ctypes.c_void_p] * 4 + \
        [ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p]


def available():
    return os.environ.get("MSPTI_TRACE_READER") != "python" and library() is not None


_P = ctypes.POINTER
_U64, _I64, _I32, _U8, _F64 = ctypes.c_uint64, ctypes.c_int64, ctypes.c_int32, ctypes.c_uint8, ctypes.c_double


class _Columns(ctypes.Structure):
    """MsptiPftColumns (src/trace_reader/pftrace_columns.h), field for field."""
    _fields_ = [
        ("file_size", _U64), ("damage_offset", _I64), ("damage_why", ctypes.c_char_p), ("io_errno", _I32),
        ("reserved", _I32),
        ("n_strings", _U64), ("string_data", ctypes.c_void_p), ("string_offsets", _P(_U64)),
        ("n_tracks", _U64), ("track_uuid", _P(_U64)), ("track_parent", _P(_U64)), ("track_has_parent", _P(_U8)),
        ("track_kind", _P(_I32)), ("track_name", _P(_I32)),
        ("n_groups", _U64), ("group_track", _P(_U64)), ("group_has_track", _P(_U8)),
        ("n_slices", _U64), ("n_bad_times", _U64), ("slice_start", _P(_I64)), ("slice_end", _P(_I64)),
        ("slice_group", _P(_I32)), ("slice_name", _P(_I32)), ("slice_cat", _P(_I32)),
        ("slice_arg_first", _P(_I64)), ("slice_arg_count", _P(_I32)), ("slice_bytes", _P(_I64)),
        ("slice_bw", _P(_F64)), ("slice_comm", _P(_I32)),
        ("n_instants", _U64), ("instant_name", _P(_I32)), ("instant_cat", _P(_I32)),
        ("instant_arg_first", _P(_I64)), ("instant_arg_count", _P(_I32)),
        ("n_counters", _U64), ("counter_ts", _P(_U64)), ("counter_track", _P(_U64)),
        ("counter_has_track", _P(_U8)), ("counter_value", _P(_I64)), ("counter_has_value", _P(_U8)),
        ("n_args", _U64), ("arg_key", _P(_I32)), ("arg_type", _P(_I32)), ("arg_int", _P(_I64)),
        ("arg_double", _P(_F64)), ("arg_str", _P(_I32)),
    ]


_NP = {_U64: "<u8", _I64: "<i8", _I32: "<i4", _U8: "|u1", _F64: "<f8"}
_TRACK_KINDS = ("track", "process", "thread")
_ARG_UINT, _ARG_INT, _ARG_DOUBLE, _ARG_STRING = 1, 2, 3, 4
_COMM_FROM_ROW, _COMM_NOT_STRING = -2, -3


class _Owner:
    """The library's result, freed once no array made on its memory is left."""

    def __init__(self, lib, res):
        self.lib, self.res = lib, res

    def __del__(self):
        self.lib.mspti_pft_free(self.res)


class _View:
    """numpy's view of one column where the library put it (array interface): the array keeps
    this, and this the owner, alive."""

    def __init__(self, owner, addr, n, typestr):
        self.owner = owner
        self.__array_interface__ = {"data": (addr, False), "shape": (n,), "typestr": typestr, "version": 3}


def _array(owner, c, name, n):
    """Column `name` (n values) as a numpy array on the library's memory (writable: shift() moves
    times in place)."""
    ptr = getattr(c, name)
    typestr = _NP[ptr._type_]
    if n == 0 or not ptr:
        return np.empty(0, typestr)
    return np.asarray(_View(owner, ctypes.cast(ptr, ctypes.c_void_p).value, n, typestr))


class _Raw:
    """The library's result as numpy arrays on its memory, and Python strings."""

    def __init__(self, lib, res):
        c = res.contents
        owner = _Owner(lib, res)
        self.size, self.damage_offset, self.io_errno = c.file_size, c.damage_offset, c.io_errno
        self.damage_why = (c.damage_why or b"").decode("utf-8", "replace")
        self.n_bad_times = c.n_bad_times
        offsets = _array(owner, c, "string_offsets", c.n_strings + 1).tolist()
        data = ctypes.string_at(c.string_data, offsets[-1]) if offsets and offsets[-1] else b""
        self.strings = [_text(data[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]
        for prefix, n in (("track_", c.n_tracks), ("group_", c.n_groups), ("slice_", c.n_slices),
                          ("instant_", c.n_instants), ("counter_", c.n_counters), ("arg_", c.n_args)):
            for name, _ in _Columns._fields_:
                if name.startswith(prefix) and not name.startswith("n_"):
                    setattr(self, name, _array(owner, c, name, n))


def read_pftrace(path, proc):
    lib = library()
    cats = (ctypes.c_char_p * len(COLLECTIVE_CATEGORIES))(*(c.encode() for c in COLLECTIVE_CATEGORIES))
    names = (ctypes.c_char_p * 1)(STATS_EVENT.encode())
    res = lib.mspti_pft_read(os.fsencode(path), cats, len(cats), names, 1)
    if not res:
        raise MemoryError(f"{path}: out of memory while decoding")
    raw = _Raw(lib, res)  # frees res when its arrays are gone
    if raw.io_errno and raw.size == 0:
        raise OSError(raw.io_errno, os.strerror(raw.io_errno), path)
    if raw.io_errno:
        proc.warnings.append(f"{path}: read failed ({errno.errorcode.get(raw.io_errno, raw.io_errno)}: "
                             f"{os.strerror(raw.io_errno)}); kept what was read before")
    if raw.damage_offset >= 0:
        proc.warnings.append(ref.damage_warning(path, raw.damage_offset, raw.size, raw.damage_why))
    _model(proc, raw)


def _model(proc, raw):
    st = raw.strings
    tracks = {}
    for u, p, hp, k, n in zip(raw.track_uuid.tolist(), raw.track_parent.tolist(), raw.track_has_parent.tolist(),
                              raw.track_kind.tolist(), raw.track_name.tolist()):
        tracks[u] = {"parent": p if hp else None, "name": st[n] if n >= 0 else None, "kind": _TRACK_KINDS[k]}
    if proc.rank is None:
        proc.rank = ref.rank(tracks)
    args = _Args(raw)
    _instants(proc, raw, args)
    _dropped(proc, raw, tracks)

    strings = list(st)
    index = {s: i for i, s in enumerate(strings)}

    def code(s):
        c = index.get(s)
        if c is None:
            c = index[s] = len(strings)
            strings.append(s)
        return c

    # Times past int64 (a damaged varint) were left out by the decoder, as the Python reader's check does.
    if raw.n_bad_times:
        proc.warnings.append(f"{proc.path}: {raw.n_bad_times} record(s) without valid times left out")

    # Rows: one per distinct track, "?" for a track never described and events naming none.
    row_of = ref.rows(tracks)
    group_rows = np.array([code(row_of.get(u, "?") if h else "?")
                           for u, h in zip(raw.group_track.tolist(), raw.group_has_track.tolist())], np.int32)
    row = group_rows[raw.slice_group] if len(raw.slice_group) else np.empty(0, np.int32)
    comm = raw.slice_comm
    from_row = np.flatnonzero(comm == _COMM_FROM_ROW)  # no "comm" arg: the row's, if it is a comm row
    if len(from_row):
        rows, inv = np.unique(row[from_row], return_inverse=True)
        names = [strings[r] for r in rows.tolist()]
        comm[from_row] = np.array([code(n[5:]) if n.startswith("comm ") else -1 for n in names], np.int32)[inv]
    for i in np.flatnonzero(comm == _COMM_NOT_STRING).tolist():  # a number: Python's rules, record by record
        b, w, m = extras(strings[raw.slice_cat[i]], strings[row[i]],
                         args.of(raw.slice_arg_first[i], raw.slice_arg_count[i]))
        raw.slice_bytes[i] = b
        raw.slice_bw[i] = np.nan if w is None else w
        comm[i] = -1 if m is None else code(m)
    proc.set_columns(Columns(strings, raw.slice_start, raw.slice_end, raw.slice_name, raw.slice_cat, row,
                             raw.slice_bytes, raw.slice_bw, comm))


class _Args:
    """The args table, as dicts per event."""

    def __init__(self, raw):
        self.raw = raw
        self.key, self.type = raw.arg_key.tolist(), raw.arg_type.tolist()
        self.int, self.double, self.str = raw.arg_int.tolist(), raw.arg_double.tolist(), raw.arg_str.tolist()

    def of(self, first, count):
        out = {}
        st = self.raw.strings
        for i in range(int(first), int(first) + int(count)):
            t = self.type[i]
            v = self.int[i] & ((1 << 64) - 1) if t == _ARG_UINT else self.int[i] if t == _ARG_INT else \
                self.double[i] if t == _ARG_DOUBLE else st[self.str[i]] if t == _ARG_STRING else None
            out[st[self.key[i]]] = v
        return out


def _instants(proc, raw, args):
    """Marks, ranges without an end and the final stats, as reader_pftrace counts them."""
    st = raw.strings
    if not len(raw.instant_name):
        return
    stats_id = next((i for i, s in enumerate(st) if s == STATS_EVENT), -1)
    marker_id = next((i for i, s in enumerate(st) if s == MARKER), -2)
    no_end = np.fromiter((s.endswith(NO_END) and s != STATS_EVENT for s in st), bool, len(st))
    names, cats = raw.instant_name, raw.instant_cat
    is_stats = names == stats_id
    marker = (cats == marker_id) & ~is_stats
    unended = marker & (names >= 0)
    unended[unended] = no_end[names[unended]]
    proc.unended_ranges += int(unended.sum())
    proc.marks += int(marker.sum()) - int(unended.sum())
    for i in np.flatnonzero(is_stats).tolist():
        instant(proc, STATS_EVENT, st[cats[i]] if cats[i] >= 0 else "",
                args.of(raw.instant_arg_first[i], raw.instant_arg_count[i]))


def _dropped(proc, raw, tracks):
    """The last value (by time, file order for equal times) of the 'dropped records' counter."""
    dropped = ref.dropped_tracks(tracks)
    if not dropped or not len(raw.counter_ts):
        return
    mine = np.isin(raw.counter_track, np.array(sorted(dropped), dtype=np.uint64)) & (raw.counter_has_track != 0) & \
        (raw.counter_has_value != 0)
    idx = np.flatnonzero(mine)
    if len(idx):
        ts = raw.counter_ts[idx]
        last = idx[np.flatnonzero(ts == ts.max())[-1]]
        proc.dropped_total = int(raw.counter_value[last])
