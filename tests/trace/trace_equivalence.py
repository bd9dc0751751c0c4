#!/usr/bin/python3
"""Checks that two builds of libmspti_trace.so write the same traces for the same program.

    trace_equivalence.py OLD_LIB_DIR NEW_LIB_DIR [PROGRAM ARGS...]

Each LIB_DIR holds a libmspti_trace.so and the libmspti it preloads (a build's lib/ folder, or a
copy of one with the old libmspti_trace.so). The program (default: the mix workload of
trace_workload, from TRACE_WORKLOAD or NEW_LIB_DIR/../bin) is traced with each library in pftrace, JSON and
SQLite. What changes from run to run is masked: timestamps and durations, pids and tids (and the
thread and process names that carry them), values computed from durations (bandwidth, HCCL
bytes), malloc's addresses, the time-based end of HCCL communicator names, and overlap lanes (a
slice lands on one when it overlaps another, which depends on timing). Everything else must be equal: every event's type, track, name, category and arguments
(pftrace, JSON), every table's columns (whitespace in the CREATE TABLE text aside) and rows with
their strings resolved (SQLite). Events and rows are compared as multisets, since threads race.
Exit 0 when all three formats agree; the differences otherwise. Run it on the old library against
itself first: that shows the masking leaves nothing that varies between runs.
"""

import collections
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PYDIR)
from mspti_trace import pftrace_reader  # noqa: E402

TIMED = {"bandwidth_gbps"}  # derived from durations
HOST_COLUMNS = {"start", "end", "timestamp", "pid", "tid", "dur", "ts", "address"}  # address: malloc's
LONG_NUMBER = re.compile(r"\d{10,}")
LANE = re.compile(" \u00b7 lane \\d+")


def trace(lib_dir, fmt, program, out, build_python):
    code = ("import sys; sys.path.insert(0, %r); sys.path.append(%r); from mspti_trace.cli import main; "
            "sys.exit(main(lib_dir=%r))" % (PYDIR, build_python, lib_dir))
    run = subprocess.run([sys.executable, "-c", code, "-o", out, "--format", fmt, "--"] + program,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        raise SystemExit(f"mspti-trace with {lib_dir} failed ({run.returncode}):\n{run.stdout}")
    files = glob.glob(os.path.join(out, "trace.*." + {"pftrace": "pftrace", "json": "json", "sqlite": "sqlite"}[fmt]))
    if len(files) != 1:
        raise SystemExit(f"{out}: expected one {fmt} file, found {files}")
    return files[0]


def mask_name(name, pids):
    name = LONG_NUMBER.sub("<n>", name)  # an HCCL communicator's name ends in a time-based id
    name = LANE.sub("", name)  # which slice lands on an overlap lane depends on timing
    for p in pids:
        if p >= 100:  # a real pid or tid (JSON's track tids are small and stable)
            name = re.sub(rf"\b{p}\b", "<id>", name)
    return name


def pftrace_events(path):
    t = pftrace_reader.load_pftrace(path)
    pids = set()
    for tr in t.tracks.values():
        pids |= {x for x in (tr["pid"], tr["tid"]) if x}
    names = {u: mask_name(tr["name"] or "", pids) for u, tr in t.tracks.items()}
    out = []
    for e in t.events:
        args = dict(e["args"])
        for k in TIMED & args.keys():
            args[k] = "<t>"
        for k, v in args.items():
            if isinstance(v, str):
                args[k] = mask_name(v, pids)
        if "hccl" in e["categories"] and "bytes" in args:
            args["bytes"] = "<t>"
        counter = e["counter"]
        if names.get(e["track"]) == "dropped records":
            counter = "<n>"
        out.append(json.dumps([e["type"], names.get(e["track"]), mask_name(e["name"] or "", pids),
                               e["categories"], sorted(args.items(), key=str), counter, bool(e["flows"]),
                               bool(e["terminating_flows"])], sort_keys=True, default=str))
    return collections.Counter(out)


def json_events(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    pids = set()
    for e in events:
        pids |= {x for x in (e.get("pid"), e.get("tid")) if isinstance(x, int)}
    out = []
    for e in events:
        if e.get("ph") == "M" and LANE.search(str(e.get("args", {}).get("name", ""))):
            continue  # an overlap lane's name (see mask_name)
        e = dict(e)
        for k in ("ts", "dur", "pid", "tid"):
            e.pop(k, None)
        args = dict(e.pop("args", {}))
        for k in TIMED & args.keys():
            args[k] = "<t>"
        if e.get("cat") == "hccl" and "bytes" in args:
            args["bytes"] = "<t>"
        if e.get("name") in ("dropped records",) or "start_ns" in args or "host" in args:
            args = {k: "<v>" for k in args}
        if "id" in e and e.get("ph") in ("s", "f", "t"):
            e["id"] = "<flow>"
        e["name"] = mask_name(str(e.get("name", "")), pids)
        for k, v in args.items():
            if isinstance(v, str):
                args[k] = mask_name(v, pids)
        out.append(json.dumps([e, sorted(args.items(), key=str)], sort_keys=True, default=str))
    return collections.Counter(out)


def sqlite_rows(path):
    db = sqlite3.connect(path)
    strings = dict(db.execute("SELECT id, value FROM strings"))
    result = {}
    for table, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"):
        if table in ("strings",):
            continue
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        schema = " ".join(sql.split())
        rows = collections.Counter()
        host_marker = None
        for row in db.execute(f"SELECT * FROM {table}"):
            row = dict(zip(cols, row))
            if table in ("meta", "ranks"):
                if table == "meta" and row["key"] in ("pid", "start_ns", "host"):
                    row["value"] = "<v>"
                for k in ("pid", "host"):
                    if k in row:
                        row[k] = "<v>"
            for k in list(row):
                if k in HOST_COLUMNS or k in TIMED or (table == "hccl" and k == "bytes"):
                    row[k] = "<t>"
                elif k.endswith("_id") and k not in ("device_id", "stream_id", "correlation_id") and \
                        isinstance(row[k], int):
                    row[k] = mask_name(strings.get(row[k], f"<missing {row[k]}>"), ())
            if table in ("marker", "range"):
                host_marker = row.get("source_kind") == 0
                if host_marker:  # process and thread of a host marker
                    row["pid_or_device"] = row["tid_or_stream"] = "<t>"
            rows[json.dumps(row, sort_keys=True, default=str)] += 1
        result[table] = (schema, rows)
    return result


def compare(label, a, b):
    if a == b and isinstance(a, collections.Counter):
        print(f"{label}: identical ({sum(a.values()) if isinstance(a, collections.Counter) else len(a)} entries)")
        return True
    if isinstance(a, collections.Counter):
        only_a, only_b = a - b, b - a
        print(f"{label}: DIFFERENT: {sum(only_a.values())} only in old, {sum(only_b.values())} only in new")
        for x in list(only_a)[:5]:
            print("  old:", x)
        for x in list(only_b)[:5]:
            print("  new:", x)
        return False
    ok = True
    for table in sorted(set(a) | set(b)):
        if table not in a or table not in b:
            print(f"{label}: table {table} only in {'new' if table in b else 'old'}")
            ok = False
            continue
        if a[table][0] != b[table][0]:
            print(f"{label}: table {table} schema differs:\n  old: {a[table][0]}\n  new: {b[table][0]}")
            ok = False
        ok &= compare(f"{label} {table}", a[table][1], b[table][1])
    return ok


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    old, new = argv[1], argv[2]
    # The package's generated modules (mspti_trace._trace_schema): the new build's python/ folder.
    build_python = os.path.normpath(os.path.join(new, "..", "python"))
    program = argv[3:] or [os.environ.get("TRACE_WORKLOAD") or os.path.join(new, "..", "bin", "trace_workload"),
                           "--mix", "--iters", "4"]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, load in (("pftrace", pftrace_events), ("json", json_events), ("sqlite", sqlite_rows)):
            a = load(trace(old, fmt, program, os.path.join(tmp, "old-" + fmt), build_python))
            b = load(trace(new, fmt, program, os.path.join(tmp, "new-" + fmt), build_python))
            ok &= compare(fmt, a, b)
    print("SAME" if ok else "DIFFERENT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
