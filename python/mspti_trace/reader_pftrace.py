"""The pftrace reader in Python: the reference the native decoder (reader_native,
src/trace_reader) is tested against field by field, and the reader used where that library is
not found. One loop over the packets, fields read with :mod:`wire`.

Rules both follow: interned names per packet sequence, cleared by SEQ_INCREMENTAL_STATE_CLEARED
(a name never interned reads as "?"); BEGIN/END paired per track as Perfetto does (by timestamp,
file order for equal ones); a file cut short ends at its last whole packet; a damaged packet ends
the read there, with a warning naming its offset. Debug annotations are decoded only where the
model uses them: collectives (bytes, bandwidth, communicator) and the final stats.
"""

import operator

from . import wire
from .model import COLLECTIVE_CATEGORIES, MARKER, base_row
from .reader_common import STATS_EVENT, add_slice, instant
from .text import text as _text

_VARINT, _LENGTH = wire.VARINT, wire.LENGTH
DROPPED_TRACK = "dropped records"


def read_pftrace(path, proc):
    with open(path, "rb") as f:
        data = f.read()
    tracks, events, damage = scan(data)
    if damage is not None:
        proc.warnings.append(damage_warning(path, damage[0], len(data), damage[1]))
    _model(proc, tracks, events)


def damage_warning(path, offset, size, why):
    return f"{path}: damaged at offset {offset} of {size} ({why}); read up to the last good packet"


def scan(data):
    """(tracks, events, damage) of a .pftrace: tracks {uuid: {"parent", "name", "kind"}}, events
    [(ts, file index, type, track, name, category, args, counter)] in file order, and damage
    (offset of the damaged packet, why) or None."""
    tracks, events, states = {}, [], {}
    pos, end = 0, len(data)
    start = 0
    try:
        while pos < end:
            start = pos
            try:
                key, p = wire.varint(data, pos)
                n, p = wire.varint(data, p)
            except wire.TruncatedError:
                break  # cut short in a packet's header
            if key != wire.PACKET_KEY:
                raise ValueError(f"not a Trace.packet field (key {key})")
            if p + n > end:
                break  # cut short in a packet
            pos = p + n
            ts, seq, flags, te, desc, interned = None, 0, 0, None, None, []
            for num, wt, v in wire.fields(data, p, pos):
                if wt == _VARINT:
                    if num == wire.TIMESTAMP:
                        ts = v
                    elif num == wire.SEQUENCE_ID:
                        seq = v
                    elif num == wire.SEQUENCE_FLAGS:
                        flags = v
                elif wt == _LENGTH:
                    if num == wire.TRACK_EVENT:
                        te = v
                    elif num == wire.INTERNED_DATA:
                        interned.append(v)
                    elif num == wire.TRACK_DESCRIPTOR:
                        desc = v
            st = states.get(seq)
            if st is None or flags & wire.INCREMENTAL_STATE_CLEARED:
                st = states[seq] = ({}, {}, {})  # names, categories, annotation names
            for blob in interned:
                _interned(blob, st)
            if desc is not None:
                _track(desc, tracks)
            if te is None or ts is None:  # no event, or one without its time
                continue
            events.append(_event(te, st, ts, len(events)))
    except ValueError as e:
        return tracks, events, (start, str(e) or type(e).__name__)
    return tracks, events, None


def _interned(blob, st):
    tables = {wire.EVENT_NAMES: st[0], wire.EVENT_CATEGORIES: st[1], wire.DEBUG_ANNOTATION_NAMES: st[2]}
    for num, wt, entry in wire.fields(blob):
        table = tables.get(num)
        if table is None:
            continue
        if wt != _LENGTH:
            raise ValueError("interned entry is not a message")
        iid = name = None
        for n2, wt2, v2 in wire.fields(entry):
            if n2 == wire.IID and wt2 != _LENGTH:
                iid = v2
            elif n2 == wire.INTERNED_NAME:
                if wt2 != _LENGTH:
                    raise ValueError("interned name is not a string")
                name = _text(v2)
        if iid is not None:
            table[iid] = name


def _track(desc, tracks):
    t = {"parent": None, "name": None, "kind": "track"}
    uuid = None
    for num, wt, v in wire.fields(desc):
        if num == wire.TD_UUID and wt != _LENGTH:
            uuid = v
        elif num == wire.TD_PARENT_UUID and wt != _LENGTH:
            t["parent"] = v
        elif num == wire.TD_NAME:
            if wt != _LENGTH:
                raise ValueError("track name is not a string")
            t["name"] = _text(v)
        elif num in (wire.TD_PROCESS, wire.TD_THREAD):
            if wt != _LENGTH:
                raise ValueError("process or thread descriptor is not a message")
            process = num == wire.TD_PROCESS
            t["kind"] = "process" if process else "thread"
            name_field = wire.PD_PROCESS_NAME if process else wire.TH_THREAD_NAME
            for n2, wt2, v2 in wire.fields(v):
                if n2 == name_field:
                    if wt2 != _LENGTH:
                        raise ValueError("process or thread name is not a string")
                    t["name"] = _text(v2)
    if uuid is not None:
        tracks[uuid] = t


def _event(te, st, ts, index):
    kind = track = name = cat = counter = None
    anns = []
    for num, wt, v in wire.fields(te):
        if wt == _VARINT:
            if num == wire.TE_NAME_IID:
                name = st[0].get(v)
            elif num == wire.TE_CATEGORY_IIDS:
                if not cat:
                    cat = st[1].get(v)
            elif num == wire.TE_TYPE:
                kind = v
            elif num == wire.TE_TRACK_UUID:
                track = v
            elif num == wire.TE_COUNTER_VALUE:
                counter = wire.signed(v)
        elif wt == _LENGTH:
            if num == wire.TE_DEBUG_ANNOTATIONS:
                anns.append(v)
            elif num == wire.TE_NAME:
                name = _text(v)
            elif num == wire.TE_CATEGORIES and not cat:
                cat = _text(v)
    wanted = (kind == wire.SLICE_BEGIN and cat in COLLECTIVE_CATEGORIES) or \
        (kind == wire.INSTANT and name == STATS_EVENT)
    return (ts, index, kind, track, name, cat or "", annotations(anns, st[2]) if wanted else {}, counter)


def annotations(blobs, names):
    """The debug annotations as a dict; a damaged one ends the list (those before are kept)."""
    args = {}
    for blob in blobs:
        name = value = None
        try:
            for num, wt, v in wire.fields(blob):
                if num == wire.DA_NAME_IID:
                    if wt == _LENGTH:
                        return args
                    name = names.get(v)
                elif num == wire.DA_NAME:
                    if wt != _LENGTH:
                        return args
                    name = _text(v)
                elif num in (wire.DA_UINT_VALUE, wire.DA_INT_VALUE, wire.DA_DOUBLE_VALUE):
                    if wt == _LENGTH:
                        return args
                    value = v if num == wire.DA_UINT_VALUE else \
                        wire.signed(v) if num == wire.DA_INT_VALUE else wire.double(v)
                elif num == wire.DA_STRING_VALUE:
                    if wt != _LENGTH:
                        return args
                    value = _text(v)
        except ValueError:
            return args
        if name is not None:
            args[name] = value
    return args


def rows(tracks):
    """{track uuid: row name}: thread tracks as 'thread NAME', others under their parent's name."""
    out = {}
    for uuid, t in tracks.items():
        name = base_row(t["name"] or "")
        if t["kind"] == "thread":
            out[uuid] = f"thread {name}"
            continue
        parent = tracks.get(t["parent"]) if t["parent"] is not None else None
        if parent is not None and parent["kind"] == "track" and parent["name"]:
            name = f"{parent['name']} \u00b7 {name}"
        out[uuid] = name
    return out


def rank(tracks):
    """The rank the first 'rank N' process track names, or None."""
    for t in tracks.values():
        if t["kind"] == "process" and t["name"] and t["name"].startswith("rank "):
            words = t["name"].split()
            if len(words) > 1 and words[1].isdigit():
                return int(words[1])
    return None


def dropped_tracks(tracks):
    return {u for u, t in tracks.items() if t["name"] == DROPPED_TRACK}


_first = operator.itemgetter(0)


def _model(proc, tracks, events):
    row_of = rows(tracks)
    if proc.rank is None:
        proc.rank = rank(tracks)
    by_track = {}
    last_drop = None
    dropped = dropped_tracks(tracks)
    for ev in events:
        kind = ev[2]
        if kind in (wire.SLICE_BEGIN, wire.SLICE_END):
            by_track.setdefault(ev[3], []).append(ev)
        elif kind == wire.INSTANT:
            instant(proc, ev[4], ev[5], ev[6])
        elif kind == wire.COUNTER and ev[3] in dropped and ev[7] is not None:
            if last_drop is None or ev[0] >= last_drop[0]:
                last_drop = (ev[0], ev[7])
    if last_drop is not None:
        proc.dropped_total = int(last_drop[1])
    for track, evs in by_track.items():
        evs.sort(key=_first)  # stable: file order for equal timestamps
        row = row_of.get(track, "?")
        stack = []
        for ev in evs:
            if ev[2] == wire.SLICE_BEGIN:
                stack.append(ev)
            elif stack:  # an END without BEGIN (a damaged file) is skipped
                b = stack.pop()
                add_slice(proc, b[4], b[5], b[0], ev[0], row, b[6])
        # slices still open (a file cut short) are left out


__all__ = ["read_pftrace", "scan", "rows", "rank", "MARKER"]
