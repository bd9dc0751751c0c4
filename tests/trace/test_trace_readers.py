"""The native pftrace decoder (libmspti_trace_reader.so, src/trace_reader) against the Python
reader (reader_pftrace, written apart from it), field by field: on the pftrace files of a traced
2-rank run, on truncated copies and on bit-flipped ones (seeded: READER_FUZZ_SEED), and on
collectives whose args take every type. summary and analyze give the same output on either
reader. The library's grouping and API de-duplication against their numpy versions on seeded
random columns; analyze's interval unions and waits against the simple ways (a Python list, a dict
per collective instance) on seeded inputs. The Python wire module's field numbers are
src/trace/proto.h's."""
import json
import os
import random
import re
import statistics
import struct
import subprocess

import pytest

import numpy as np

from conftest import MSPTI_TRACE, HERE, ranks_program, trace
from mspti_trace import reader_native, summary, waits, wire
from mspti_trace.columns import Columns, group_pairs
from pftrace_writer import Writer, field, varint
from mspti_trace.model import Process, parse_name
from mspti_trace.reader_common import sanitize
from mspti_trace.reader_pftrace import read_pftrace as python_read

SEED = int(os.environ.get("READER_FUZZ_SEED", "25"))
PROTO_H = os.path.join(HERE, "..", "..", "src", "trace", "proto.h")


def record(proc):
    """Everything a reader fills, comparable; the reason in a damage warning is left out (the two
    readers word it apart), its offset kept."""
    return {"slices": [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in proc.slices],
            "rank": proc.rank, "marks": proc.marks, "unended": proc.unended_ranges, "stats": proc.stats,
            "filtered": proc.filtered, "dropped_total": proc.dropped_total,
            "stats_unavailable": proc.stats_unavailable, "write_lost": getattr(proc, "write_lost", 0),
            "warnings": [re.sub(r" \(.*\); read up", " (...); read up", w) for w in proc.warnings]}


def both(path):
    """(native, Python) records of one file."""
    rank, pid, fmt = parse_name(path)
    native = Process(path, fmt, pid, rank)
    reader_native.read_pftrace(path, native)
    ref = Process(path, fmt, pid, rank)
    python_read(path, ref)
    sanitize(ref)  # names never interned read as None there, "?" once read
    return record(native), record(ref)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("readers") / "run"
    r = trace(d, "--format", "pftrace", program=ranks_program(2, "--iters", "3", "--mix"))
    assert r.returncode == 0, r.stderr
    return d


def pftraces(d):
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".pftrace"))


def test_the_library_is_found_from_the_build_tree():
    # PYTHONPATH is the build tree's python/: mspti/_paths.py there names the library folder.
    assert reader_native.available(), list(reader_native.native_lib.candidates())


def test_native_reads_what_python_reads(run_dir):
    files = pftraces(run_dir)
    assert len(files) == 2
    for path in files:
        native, ref = both(path)
        cats = {s[1] for s in ref["slices"]}
        assert {"kernel", "hccl", "marker"} <= cats, cats  # every kind the analysis uses is compared
        assert ref["stats"] and ref["rank"] is not None
        assert native == ref


def test_damaged_files_read_alike(run_dir, tmp_path):
    rng = random.Random(SEED)
    path = pftraces(run_dir)[0]
    data = open(path, "rb").read()
    for n in range(40):
        out = bytearray(data)
        if n % 2:
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(out))
                out[i] ^= 1 << rng.randrange(8)
        else:
            del out[rng.randrange(len(out)):]
        victim = tmp_path / os.path.basename(path)
        victim.write_bytes(bytes(out))
        native, ref = both(str(victim))
        assert native == ref, f"case {n} (seed {SEED})"


def test_garbage_and_empty_files(tmp_path):
    for data in (b"", bytes(range(256)) * 4, b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"):
        victim = tmp_path / "trace.rank0.pid1.pftrace"
        victim.write_bytes(data)
        native, ref = both(str(victim))
        assert native == ref


def test_columns_keep_every_field(run_dir):
    path = pftraces(run_dir)[0]
    rank, pid, fmt = parse_name(path)
    ref = Process(path, fmt, pid, rank)
    python_read(path, ref)
    sanitize(ref)
    slices = [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in ref.slices]
    back = Columns.from_slices(ref.slices).to_slices()
    assert [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in back] == slices


def test_summary_and_analyze_agree_on_either_reader(run_dir):
    out = {}
    for reader in ("native", "python"):
        env = dict(os.environ, MSPTI_TRACE_READER=reader)
        r = subprocess.run([MSPTI_TRACE, "summary", str(run_dir)], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        csv = open(os.path.join(run_dir, "summary.csv"), encoding="utf-8").read()
        a = subprocess.run([MSPTI_TRACE, "analyze", str(run_dir), "--format", "json"], capture_output=True,
                           text=True, env=env, timeout=300)
        assert a.returncode == 0, a.stderr
        out[reader] = (csv, a.stdout)
    assert out["native"] == out["python"]
    assert "kernel" in out["native"][0]


def test_wire_field_numbers_are_proto_h_ones():
    text = open(PROTO_H, encoding="utf-8").read()
    found = re.findall(r"\bk([A-Z]\w*) = (\d+)", text)
    assert len(found) > 30
    for name, value in found:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()
        assert getattr(wire, snake) == int(value), (name, snake)


def _da(name, num, wt, value):
    """One raw DebugAnnotation: name inline, value in field num with wire type wt."""
    return field(10, 2, name) + field(num, wt, value)


def _f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# Args of a collective, as the C++ decoder reads them in one pass and reader_common.extras() from a
# dict: every value type for "bytes", "bandwidth_gbps" and "comm", repeated keys (the last wins),
# none at all (the communicator from a "comm NAME" row, or none on another row).
ARG_CASES = [
    [_da("bytes", 3, 0, 4096), _da("bandwidth_gbps", 5, 1, _f64(1.5)), _da("comm", 6, 2, "c1")],
    [_da("bytes", 4, 0, 7), _da("bandwidth_gbps", 3, 0, 12), _da("comm", 3, 0, 5)],
    [_da("bytes", 5, 1, _f64(3.7)), _da("bandwidth_gbps", 4, 0, 9), _da("comm", 5, 1, _f64(2.5))],
    [_da("bytes", 5, 1, _f64(float("nan"))), _da("bandwidth_gbps", 5, 1, _f64(float("nan")))],
    [_da("bytes", 5, 1, _f64(float("inf"))), _da("bandwidth_gbps", 6, 2, "fast")],
    [_da("bytes", 5, 1, _f64(-1e30)), _da("comm", 2, 0, 1)],
    [_da("bytes", 5, 1, _f64(-9.2e18)), _da("bytes", 6, 2, "12")],
    [_da("bytes", 3, 0, (1 << 64) - 1), _da("comm", 6, 2, "a"), _da("comm", 6, 2, "b")],
    [_da("bytes", 3, 0, (1 << 63) - 1), _da("comm", 6, 2, "a"), _da("comm", 2, 0, 1)],
    [_da("bytes", 4, 0, (1 << 64) - 5)],
    [],
]


def test_collective_args_of_every_type_read_alike(tmp_path):
    w = Writer(pid=7, rank=0)
    comm_row, other_row = w.track("comm c9"), w.track("stream 3")
    t = 1000
    for track in (comm_row, other_row):
        for cat in ("hccl", "communication", "kernel"):
            for args in ARG_CASES:
                te = field(9, 0, 1) + field(11, 0, track) + field(22, 2, cat) + field(23, 2, "HcclAllReduce")
                te += b"".join(field(4, 2, a) for a in args)
                w._packet(field(11, 2, te), ts=t)
                w._event(t + 10, 2, track)
                t += 100
    path = tmp_path / "trace.rank0.pid7.pftrace"
    path.write_bytes(w.bytes())
    native, ref = both(str(path))
    assert len(ref["slices"]) == 2 * 3 * len(ARG_CASES)
    comms = {s[7] for s in ref["slices"]}
    assert {"c1", "5", "2.5", "b", "c9", None} <= comms, comms  # every way to a communicator is compared
    assert native == ref


def _laid_out(ts, seq, te, flags=2, ts_key=b"\x40", after=b""):
    """A packet as src/trace/pftrace_sink.cpp lays out an event: timestamp, sequence id, flags, the
    track event last (ts_key, after, and ts None: ways to leave that layout)."""
    head = b"" if ts is None else ts_key + varint(ts)
    return head + field(10, 0, seq) + field(13, 0, flags) + field(11, 2, te) + after


def _te(kind, track, name=None, cat=None, anns=(), flows=(), counter=None):
    """A track event with interned name and category, its fields in the writer's order."""
    te = field(9, 0, kind) + field(11, 0, track)
    if name is not None:
        te += field(10, 0, name)
    if cat is not None:
        te += field(3, 0, cat)
    te += b"".join(field(4, 2, a) for a in anns)
    te += b"".join(field(47, 1, f) for f in flows)
    if counter is not None:
        te += field(30, 0, counter)
    return te


def _interned(num, entries):
    """InternedData entries of one table (1: categories, 2: names, 3: annotation names)."""
    return b"".join(field(num, 2, field(1, 0, iid) + field(2, 2, text)) for iid, text in entries)


def _iann(iid, num, wt, value):
    """A DebugAnnotation with an interned name, as the writer writes them."""
    return field(1, 0, iid) + field(num, wt, value)


def test_packets_near_the_writers_layout_read_alike(tmp_path):
    # The native decoder reads the writer's own layout on a path of its own and anything else with
    # the general walk: packets in that layout and packets one step off it (another field order, a
    # field twice or unknown, a key in two bytes, another sequence, the state cleared, a time past
    # INT64_MAX, no time) must read as the Python reader reads them; the last one is damaged in
    # that layout (an annotation runs past its event).
    w = Writer(pid=7, rank=0)
    row, counter_row = w.track("stream 3"), w.track("memory")
    interned = (_interned(1, [(1, "kernel"), (2, "hccl"), (3, "")]) +
                _interned(2, [(1, "k1"), (2, "HcclAllReduce"), (3, "mspti-trace stats")]) +
                _interned(3, [(1, "bytes"), (2, "comm"), (3, "bandwidth_gbps"), (4, "filtered")]))
    hccl_args = [_iann(1, 3, 0, 4096), _iann(2, 6, 2, "c1"), _iann(3, 5, 1, _f64(2.5))]
    end = _te(2, row)
    clock = [1000]

    def tick():
        clock[0] += 10
        return clock[0]

    w.packets += [
        # the first use of names: the interned data ahead of the event (the writer's other layout)
        field(8, 0, tick()) + field(10, 0, 7) + field(13, 0, 2) + field(12, 2, interned) +
        field(11, 2, _te(1, row, 1, 1)),
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(1, row, 2, 2, hccl_args, flows=(5, 6))),
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(1, row, 1, 3) + field(3, 0, 2)),  # two categories, the first empty
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, field(9, 0, 1) + field(11, 0, row) + field(3, 0, 2) + field(10, 0, 2)),  # reordered
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(1, row, 1, 1), ts_key=b"\xc0\x00"),  # the time's key in two bytes
        _laid_out(tick(), 7, end, after=field(99, 0, 1)),  # a field after the event
        _laid_out(tick(), 7, _te(1, row, 1, 1) + field(50, 0, 3)),  # an unknown field in the event
        _laid_out(tick(), 7, end, after=field(13, 0, 2)),  # the flags twice
        _laid_out(tick(), 7, _te(1, row, 99, 1)),  # a name never interned
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(4, counter_row, counter=12345)),
        _laid_out(tick(), 7, _te(4, counter_row, counter=(-5) & ((1 << 64) - 1))),
        _laid_out(tick(), 7, _te(3, row, 3, 1, [_iann(4, 3, 0, 11), _iann(1, 4, 0, 7)])),  # the stats instant
        _laid_out(tick(), 9, _te(1, row, 1, 1)),  # another sequence, then back
        _laid_out(tick(), 9, end),
        _laid_out(tick(), 7, _te(1, row, 2, 2, hccl_args)),
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(1, row, 1, 1)),
        _laid_out((1 << 63) + 5, 7, end),  # a time past INT64_MAX
        _laid_out(None, 7, _te(1, row, 1, 1)),  # no time
        _laid_out(tick(), 7, _te(1, row, 1, 1), flags=3),  # the state cleared: names unknown from here
        _laid_out(tick(), 7, end),
        _laid_out(tick(), 7, _te(1, row, 2, 2) + b"\x22\x7f"),  # damaged
        _laid_out(tick(), 7, end),
    ]
    path = tmp_path / "trace.rank0.pid7.pftrace"
    path.write_bytes(w.bytes())
    native, ref = both(str(path))
    assert len(ref["slices"]) >= 9 and any("damaged at offset" in w for w in ref["warnings"]), ref
    assert {s[1] for s in ref["slices"]} >= {"kernel", "hccl"}, ref
    assert native == ref


def _random_columns(rng, n):
    a = rng.integers(-3, 4, n).astype(np.int32)
    b = rng.integers(0, 50, n).astype(np.int32)
    start = rng.integers(-(1 << 62), 1 << 62, n)
    end = start + rng.integers(0, 1 << 40, n)
    big = rng.random(n) < 0.05  # durations and byte sums past int64: both ways wrap alike
    start[big], end[big] = -(1 << 62), (1 << 62) + (1 << 61)
    nbytes = rng.integers(0, 1 << 62, n)
    return a, b, start, end, nbytes


def test_native_grouping_is_numpys():
    rng = np.random.default_rng(SEED)
    for n in (0, 1, 7, 1000, 20000):
        a, b, start, end, nbytes = _random_columns(rng, n)
        for sel in (np.ones(n, bool), rng.random(n) < 0.3, np.zeros(n, bool)):
            for args in ((a, b, start, end, nbytes, sel), (None, b, start, end, None, sel)):
                native = group_pairs(*args, native=True)
                assert native == group_pairs(*args, native=False), (n, int(sel.sum()))
                assert sum(g[2] for g in native) == int(sel.sum())


def test_native_api_twins_are_numpys():
    rng = np.random.default_rng(SEED + 1)
    strings = ["api", "node_api", "kernel", "acl_api", "f", "g", "h"]
    for n in (1, 50, 5000):
        cat = rng.choice([0, 1, 2, 3], n).astype(np.int32)
        name = rng.integers(4, 7, n).astype(np.int32)
        start = rng.integers(0, 20, n)
        end = start + rng.integers(0, 3, n)
        cols = Columns(strings, start, end, name, cat, np.zeros(n, np.int32))
        native = summary._api_mask(cols, native=True)
        ref = summary._api_mask(cols, native=False)
        assert (native == ref).all(), n
        assert n < 5000 or ((cat == 0) & ~native).any()  # some twins were found and dropped


def _random_json(rng, depth=0):
    kind = rng.randrange(12 if depth < 4 else 8)
    if kind == 0:
        return rng.choice(["", "rank 0", "comm \u00b7 x", "a\"b\\\\c\n", "\ufffd\u4e2d", "\x00\x1f"])
    if kind == 1:
        return rng.choice([None, True, False])
    if kind == 2:
        return rng.randrange(-(1 << 70), 1 << 70)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, 1e-300, 2.5e300, float("nan"), float("inf"), -float("inf"), 1 / 3])
    if kind == 4:
        return np.float64(rng.random())  # a float subclass: json writes it as a number
    if kind == 5:
        return np.int64(rng.randrange(100))  # not an int: default=str makes it a string
    if kind in (6, 7):
        return rng.random()
    if kind in (8, 9):
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 10:
        return tuple(_random_json(rng, depth + 1) for _ in range(rng.randrange(3)))
    keys = ["a", "step", 3, 2.5, True, False, None, "\u00e9"]
    return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


def test_analyze_json_text_is_json_dumps():
    from mspti_trace import jsontext
    rng = random.Random(SEED)
    for _ in range(3000):
        obj = _random_json(rng)
        assert jsontext.dumps(obj) == json.dumps(obj, indent=1, default=str), repr(obj)
    rows = {"steps": [{"rank": f"rank {r}", "step": s, "duration": s * 7, "x": s / 3} for r in range(2)
                      for s in range(50)], "phase": None, "empty": [], "nested": {}}
    assert jsontext.dumps(rows, indent=2) == json.dumps(rows, indent=2, default=str)


def test_analyze_json_flat_rows_are_the_same_value_one_row_per_line():
    from mspti_trace import jsontext
    rng = random.Random(SEED)
    for _ in range(3000):
        obj = _random_json(rng)
        value = json.dumps(json.loads(jsontext.dumps(obj, flat_rows=True)))  # as text: NaN != NaN
        assert value == json.dumps(json.loads(json.dumps(obj, default=str))), repr(obj)
    rows = {"steps": [{"rank": f"rank {r}", "step": s, "name": "a\nb\u00e9", "x": s / 3, "none": None}
                      for r in range(2) for s in range(50)], "phase": None, "empty": [], "pair": [1, 2.5]}
    text = jsontext.dumps(rows, indent=1, flat_rows=True)
    assert json.loads(text) == json.loads(json.dumps(rows))
    lines = text.splitlines()
    assert len([line for line in lines if line.startswith('  {"rank": ')]) == 100  # each row whole on its line
    assert ' "pair": [1, 2.5]' in lines and ' "phase": null,' in lines


def test_join_of_sets_is_the_union_of_their_intervals():
    from mspti_trace import intervals
    rng = np.random.default_rng(SEED + 3)
    for n in (0, 1, 7, 400, 40000):
        sets = []
        for _ in range(3):
            start = rng.integers(0, 50 * n + 100, n)
            sets.append(intervals.np_union(start, start + rng.integers(1, 300, n), native=False))
        got = intervals.np_join(*sets)
        ref = intervals.np_union(np.concatenate([s for s, _ in sets]), np.concatenate([e for _, e in sets]),
                                 native=False)
        assert got[0].tolist() == ref[0].tolist() and got[1].tolist() == ref[1].tolist(), n
    empty = (np.array([], np.int64), np.array([], np.int64))
    assert [a.tolist() for a in intervals.np_join(empty, empty)] == [[], []]


def test_native_union_is_numpys():
    from mspti_trace import intervals
    rng = np.random.default_rng(SEED + 2)
    for n in (0, 1, 5, 300, 50000):
        start = rng.integers(-1000, 100 * n + 1000, n)
        end = start + rng.integers(-5, 400, n)  # some empty or reversed: left out
        for sel in (None, rng.random(n) < 0.5):
            native = intervals.np_union(start, end, sel, native=True)
            ref = intervals.np_union(start, end, sel, native=False)
            assert native[0].tolist() == ref[0].tolist() and native[1].tolist() == ref[1].tolist(), n
            if n >= 300:
                assert 1 < len(ref[0]) < n  # some joined, some apart


def test_union_of_sorted_runs_is_the_union():
    from mspti_trace import intervals
    rng = np.random.default_rng(SEED + 4)
    for n in (0, 1, 6, 500, 60000):
        runs = []
        for _ in range(4):  # a few runs, each in start order, some pairs empty or reversed
            start = np.sort(rng.integers(0, 500 * n + 100, n))
            runs.append((start, start + rng.integers(-5, 300, n)))
        start, end = np.concatenate([s for s, _ in runs]), np.concatenate([e for _, e in runs])
        got = intervals.np_union(start, end, native=False)  # the way steps.host takes
        ref = intervals.union(zip(start.tolist(), end.tolist()))  # the list way
        assert [list(x) for x in zip(got[0].tolist(), got[1].tolist())] == ref, n
        assert n < 500 or 1 < len(ref) < len(start) / 2  # some joined, some apart


# --- analyze's waits (mspti_trace.waits, numpy per communicator) against the simple way: a dict
# per collective instance, as waits.py did before.

def _ref_instances(run, cat):
    per_comm = {}
    for p in run.processes:
        mine = {}
        for s in p.of(cat):
            if s.comm is not None:
                mine.setdefault(s.comm, []).append(s)
        for comm, ss in mine.items():
            ss.sort(key=lambda s: s.start)
            per_comm.setdefault(comm, {})[p.label] = ss
    out, warnings = {}, []
    for comm, ranks in per_comm.items():
        if len(ranks) < 2:
            continue
        counts = {len(v) for v in ranks.values()}
        n = min(counts)
        if len(counts) > 1:
            warnings.append(f"comm {comm}: the ranks recorded {min(counts)} to {max(counts)} collectives; "
                            f"the first {n} are matched")
        inst = []
        for k in range(n):
            at = {label: ss[k] for label, ss in ranks.items()}
            names = {s.name for s in at.values()}
            if len(names) > 1:
                warnings.append(f"comm {comm}: collective #{k} differs across ranks ({', '.join(sorted(names))}); "
                                "later ones are not matched")
                break
            starts = sorted((s.start, label) for label, s in at.items())
            inst.append({"index": k, "name": names.pop(), "late": starts[-1][1],
                         "caused": starts[-1][0] - starts[-2][0],
                         "wait": {label: starts[-1][0] - s.start for label, s in at.items()},
                         "transit": {label: max(s.end - starts[-1][0], 0) for label, s in at.items()},
                         "bytes": {label: s.bytes for label, s in at.items()}, "end": {l: s.end for l, s in at.items()}})
        out[comm] = inst
    return out, warnings


def _ref_rank_waits(insts):
    out = {}
    for items in insts.values():
        for inst in items:
            for label in inst["wait"]:
                r = out.setdefault(label, {"instances": 0, "last": 0, "caused": [], "waited": []})
                r["instances"] += 1
                r["waited"].append(inst["wait"][label])
            out[inst["late"]]["last"] += 1
            out[inst["late"]]["caused"].append(inst["caused"])
    return out


def _ref_links(insts):
    rows = []
    for comm, items in insts.items():
        if not items:
            continue
        transit = {label: [i["transit"][label] for i in items] for label in items[0]["wait"]}
        nbytes = {label: sum(i["bytes"][label] for i in items) for label in items[0]["wait"]}
        med = {label: statistics.median(v) for label, v in transit.items()}
        bw = {label: nbytes[label] / sum(v) if sum(v) > 0 else 0.0 for label, v in transit.items()}
        for label in sorted(med):
            others = [x for x in med if x != label]
            rows.append({"comm": comm, "rank": label, "collectives": len(transit[label]),
                         "transit_median_ns": med[label], "transit_p95_ns": waits.percentile(transit[label], 95),
                         "others_transit_median_ns": statistics.median(med[x] for x in others),
                         "gbps": bw[label], "others_gbps_median": statistics.median(bw[x] for x in others)})
    return rows


def _random_collective_run(rng, nproc, big):
    """A Run of nproc processes with seeded collectives on a few communicators: ties in starts,
    ranks that recorded more, names that differ from some instance on; big: times whose
    differences do not fit in int64."""
    from mspti_trace.model import Process, Run, Slice
    procs = []
    labels = rng.permutation([2, 10, 1, 3, 7])[:nproc].tolist()  # "rank 10" sorts before "rank 2"
    for r in labels:
        p = Process(f"trace.rank{r}.pid{r}.pftrace", "pftrace", 100 + r, r)
        slices = []
        for comm in ("c0", "c1", "c2"):
            if comm == "c2" and r != labels[0]:
                continue  # a one-rank communicator
            n = 60 + (int(rng.integers(0, 3)) if comm == "c1" else 0)
            for k in range(n):
                start = (-(1 << 62) if big and k % 7 == 0 else 0) + 1000 * k + int(rng.integers(0, 4)) * 10
                end = start + int(rng.integers(-20, 500)) + ((1 << 62) + (1 << 61) if big and k % 5 == 0 else 0)
                name = "allReduce" if comm != "c1" or k < 40 or r != labels[-1] else "broadcast"
                slices.append(Slice(name, "hccl", start, end, f"comm {comm}", int(rng.integers(0, 1 << 62)), None, comm))
        slices += [Slice("k", "kernel", 5, 9, "device 0 · stream 1"), Slice("x", "hccl", 1, 2, "comm ?")]
        order = rng.permutation(len(slices))
        p.slices = [slices[i] for i in order]  # file order is not time order
        procs.append(p)
    return Run(procs, ["d"])


def test_waits_per_communicator_are_the_per_instance_ones():
    from mspti_trace import align, findings
    rng = np.random.default_rng(SEED + 5)
    for nproc in (2, 3, 5):
        for big in (False, True):
            run = _random_collective_run(rng, nproc, big)
            matched, warnings = waits.collective_instances(run, "hccl")
            ref, ref_warnings = _ref_instances(run, "hccl")
            assert warnings == ref_warnings and list(matched) == list(ref)
            assert [len(m) for m in matched.values()] == [len(v) for v in ref.values()]
            got = waits.rank_waits(matched)
            assert list(got) == list(_ref_rank_waits(ref)) and dict(got) == _ref_rank_waits(ref)
            transit = {(label, ("transit", comm)): sum(i["transit"][label] for i in items) / 1  # per step: one
                       for comm, items in ref.items() for label in (items[0]["wait"] if items else ())}
            comps = findings.components(run, None, matched)
            assert {k: v for k, v in comps.items() if k[1][0] == "transit"} == transit
            assert waits.links(matched) == _ref_links(ref)
            cols = [(comm, i["index"], i["name"], i["late"], [i["wait"].get(p.label) for p in run.processes])
                    for comm in sorted(ref) for i in ref[comm]][:findings.MAX_HEAT_COLUMNS]
            assert [(c["comm"], c["index"], c["name"], c["late"], c["waits"])
                    for c in findings.wait_matrix(run, matched)["columns"]] == cols
            host = {p.label: str(n % 2) for n, p in enumerate(run.processes)}
            groups = {h: [p for p in run.processes if host[p.label] == h] for h in sorted(set(host.values()))}
            ends = {}
            for comm, items in ref.items():
                for i in items:
                    for label, e in i["end"].items():
                        mine = ends.setdefault(host[label], {})
                        mine[(comm, i["index"])] = min(mine.get((comm, i["index"]), e), e)
            offsets, _ = align.host_offsets(groups, "hccl")
            first = min(groups, key=lambda h: min(p.rank for p in groups[h]))
            for h in groups:
                shared = set(ends[first]) & set(ends[h])
                assert offsets[h] == int(round(statistics.median(ends[first][k] - ends[h][k] for k in shared)))


def test_step_rows_are_the_per_step_ones():
    """steps.breakdowns (numpy columns, then rows) against a row built step by step."""
    from types import SimpleNamespace
    from mspti_trace import intervals, steps
    rng = np.random.default_rng(SEED + 6)

    def some_set(n):
        start = rng.integers(0, 1000 * n + 10, n)
        return intervals.np_union(start, start + rng.integers(1, 2000, n), native=False)

    for n in (0, 1, 40, 400):
        sets = SimpleNamespace(kernel=some_set(n), comm=some_set(n // 3), busy=some_set(n))
        sets.kernel_or_comm = intervals.np_join(sets.kernel, sets.comm)
        host = some_set(2 * n)
        a = np.sort(rng.integers(-100, 1000 * n + 100, n))
        windows = list(zip(a.tolist(), (a + rng.integers(0, 5000, n)).tolist()))
        got = steps.breakdowns(sets, host, windows, "rank 3")
        ref = []
        for k, (lo, hi) in enumerate(windows):
            def within(iv, lo=lo, hi=hi):
                return intervals.length(intervals.clip([list(x) for x in zip(iv[0].tolist(), iv[1].tolist())], lo, hi))
            comp, comm, busy, either = (within(x) for x in (sets.kernel, sets.comm, sets.busy, sets.kernel_or_comm))
            overlap = comp + comm - either
            ref.append({"rank": "rank 3", "step": k, "start": lo, "end": hi, "duration": hi - lo, "compute": comp,
                        "communication": comm, "overlap": overlap, "exposed_communication": comm - overlap,
                        "idle": hi - lo - busy, "host_only": within(intervals.np_join(host, sets.busy)) - busy})
        assert got == ref and [list(r) for r in got] == [list(r) for r in ref], n  # the keys in order too
        assert all(type(v) is int for r in got for v in r.values() if v != "rank 3")


def test_analyze_json_rows_without_the_c_encoder_are_the_same(monkeypatch):
    from mspti_trace import jsontext
    rng = random.Random(SEED + 7)
    objs = [_random_json(rng) for _ in range(1000)]
    fast = [jsontext.dumps(o, flat_rows=True) for o in objs]
    monkeypatch.setattr(jsontext, "_C_ONE_LINE", None)  # a Python without json's C accelerator
    assert [jsontext.dumps(o, flat_rows=True) for o in objs] == fast
